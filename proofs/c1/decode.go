package c1

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/filc2/filc2/proofs/abi"
)

// Wrapper is the lotus-bench Commit2In envelope around a C1 file,
// {"SectorNum":N,"Phase1Out":"<base64 of the C1 JSON>","SectorSize":S}, less
// its Phase1Out. Curio's cuzk c1OutputWrapper has the same shape.
type Wrapper struct {
	SectorNum  int64  // the sector number (not used by C2)
	SectorSize uint64 // the sector size in bytes
}

// Decode reads a C1 output, either raw SealCommitPhase1Output JSON or a
// lotus-bench Commit2In wrapper around it, and validates it (see Validate).
// Errors are *SyntaxError or *ValidationError.
func Decode(b []byte) (*Commit1Out, error) {
	c, _, err := DecodeWrapped(b)
	return c, err
}

// DecodeWrapped is Decode that also returns the wrapper's fields, or a nil
// *Wrapper when b is raw C1 JSON. A wrapper's SectorSize must be that of the
// proof type inside.
func DecodeWrapped(b []byte) (*Commit1Out, *Wrapper, error) {
	if !isWrapper(b) {
		c, err := decodeRaw(b)
		return c, nil, err
	}
	raw, w, err := decodeWrapper(b)
	if err != nil {
		return nil, nil, err
	}
	c, err := decodeRaw(raw)
	if err != nil {
		return nil, nil, err
	}
	p, _ := c.ProofType() // validated
	if uint64(p.SectorSize) != w.SectorSize {
		return nil, nil, &ValidationError{Path: "SectorSize", Msg: fmt.Sprintf(
			"the C1 file is for %s (%d bytes) but the wrapper's SectorSize is %d: rewrite the wrapper with SectorSize %d, or pass the raw C1 JSON",
			p.Name, uint64(p.SectorSize), w.SectorSize, uint64(p.SectorSize))}
	}
	return c, w, nil
}

// decodeRaw decodes and validates raw C1 JSON.
func decodeRaw(b []byte) (*Commit1Out, error) {
	d := decoder{b: b}
	c := new(Commit1Out)
	if err := d.commit1Out(c); err != nil {
		return nil, err
	}
	if d.i = skipWS(b, d.i); d.i != len(b) {
		return nil, d.errorf("trailing data after the C1 object: %s", describe(b, d.i))
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// wrapperFields are the Commit2In field names. Like encoding/json, which
// writes and reads the file in lotus, Decode matches them case-insensitively.
var wrapperFields = []string{"SectorNum", "Phase1Out", "SectorSize"}

// isWrapper reports whether b is a JSON object whose first key is a
// Commit2In field.
func isWrapper(b []byte) bool {
	d := decoder{b: b}
	if d.open('{') != nil {
		return false
	}
	key, err := d.str()
	return err == nil && matchField(wrapperFields, key, true) >= 0
}

// decodeWrapper reads a Commit2In object and returns its decoded Phase1Out.
func decodeWrapper(b []byte) ([]byte, *Wrapper, error) {
	d := decoder{b: b}
	w := new(Wrapper)
	var raw []byte
	err := d.object(wrapperFields, true, func(k int) (err error) {
		switch k {
		case 0:
			w.SectorNum, err = d.int64v()
		case 1:
			raw, err = d.base64()
		case 2:
			w.SectorSize, err = d.uint64v(math.MaxUint64)
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if d.i = skipWS(b, d.i); d.i != len(b) {
		return nil, nil, d.errorf("trailing data after the Commit2In object: %s", describe(b, d.i))
	}
	if w.SectorNum < 0 {
		return nil, nil, &ValidationError{Path: "SectorNum", Msg: fmt.Sprintf("%d is negative: a sector number is unsigned", w.SectorNum)}
	}
	if _, err := abi.VanillaKeyFor(w.SectorSize); err != nil {
		return nil, nil, &ValidationError{Path: "SectorSize", Msg: fmt.Sprintf(
			"%d is not a sector size: want 2048, 8388608, 536870912, 34359738368 or 68719476736 bytes", w.SectorSize)}
	}
	if len(raw) == 0 {
		return nil, nil, &ValidationError{Path: "Phase1Out", Msg: "empty: the wrapper carries no C1 output; write it with the output of SealCommit1"}
	}
	return raw, w, nil
}

// Chunk sizes of the decoder's arenas, in elements.
const (
	domainChunk = 1 << 14
	elemChunk   = 1 << 11
)

// decoder reads C1 JSON from b. Domains and path elements are carved out of
// chunked arenas, so a 32GiB file costs a few dozen allocations for them.
type decoder struct {
	b     []byte
	i     int // read offset
	path  jsonPath
	doms  arena[Domain]
	elems arena[PathElement]
}

// arena hands out consecutive slots of chunks of T. A list being built from
// start moves to a fresh chunk when the current one fills.
type arena[T any] struct {
	buf []T
	n   int // slots of buf in use
}

// slot returns a zero slot for the next element of the list that starts at
// *start, moving the list (and *start) when the chunk is full.
func (a *arena[T]) slot(start *int, chunk int) *T {
	if a.n == len(a.buf) {
		m := a.n - *start
		nb := make([]T, max(chunk, 2*m))
		copy(nb, a.buf[*start:a.n])
		a.buf, a.n, *start = nb, m, 0
	}
	a.n++
	return &a.buf[a.n-1]
}

// take returns the list from start to the last slot handed out, or nil if
// it is empty. Its capacity ends with it, so appends do not clobber the arena.
func (a *arena[T]) take(start int) []T {
	if start == a.n {
		return nil
	}
	return a.buf[start:a.n:a.n]
}

// errorf returns a *SyntaxError at the current offset and path.
func (d *decoder) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: int64(d.i), Path: d.path.String(), Msg: fmt.Sprintf(format, args...)}
}

// ws skips whitespace.
func (d *decoder) ws() {
	if d.i < len(d.b) && d.b[d.i] <= ' ' {
		d.i = skipWS(d.b, d.i)
	}
}

// open consumes whitespace and the byte c, which opens an object or array.
func (d *decoder) open(c byte) error {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return nil
	}
	kind := "an object"
	if c == '[' {
		kind = "an array"
	}
	return d.errorf("want %s, found %s", kind, describe(d.b, d.i))
}

// more consumes whitespace and a ',' (true) or the closing byte (false) of
// the list being read.
func (d *decoder) more(closing byte) (bool, error) {
	d.ws()
	if d.i < len(d.b) {
		switch d.b[d.i] {
		case ',':
			d.i++
			return true, nil
		case closing:
			d.i++
			return false, nil
		}
	}
	return false, d.errorf("want ',' or '%c', found %s", closing, describe(d.b, d.i))
}

// empty consumes whitespace and reports whether the list being opened
// closes at once, consuming the closing byte if so.
func (d *decoder) empty(closing byte) bool {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == closing {
		d.i++
		return true
	}
	return false
}

// str reads a JSON string. Without escapes the result aliases the input.
func (d *decoder) str() ([]byte, error) {
	d.ws()
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return nil, d.errorf("want a string, found %s", describe(d.b, d.i))
	}
	start := d.i
	j := d.i + 1
	n := bytes.IndexByte(d.b[j:], '"')
	if n < 0 {
		return nil, d.errorf("unterminated string")
	}
	s := d.b[j : j+n]
	if bytes.IndexByte(s, '\\') < 0 {
		for _, c := range s {
			if c < ' ' {
				return nil, d.errorf("control character in a string")
			}
		}
		d.i = j + n + 1
		return s, nil
	}
	// Escapes: find the real end, then let encoding/json unquote.
	for j < len(d.b) && d.b[j] != '"' {
		if d.b[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(d.b) {
		return nil, d.errorf("unterminated string")
	}
	var out string
	if err := json.Unmarshal(d.b[start:j+1], &out); err != nil {
		return nil, d.errorf("bad string: %v", err)
	}
	d.i = j + 1
	return []byte(out), nil
}

// key reads an object key and the colon after it.
func (d *decoder) key() ([]byte, error) {
	k, err := d.str()
	if err != nil {
		return nil, err
	}
	d.ws()
	if d.i >= len(d.b) || d.b[d.i] != ':' {
		return nil, d.errorf("want ':' after key %q, found %s", k, describe(d.b, d.i))
	}
	d.i++
	return k, nil
}

// matchField returns the index of key in names, or -1.
func matchField(names []string, key []byte, fold bool) int {
	for k, n := range names {
		if string(key) == n || fold && strings.EqualFold(string(key), n) {
			return k
		}
	}
	return -1
}

// object reads an object whose keys are names (at most 32), calling fn with
// each key's index after pushing it on the path. Unknown keys are skipped, as
// serde does; repeated and missing keys are errors.
func (d *decoder) object(names []string, fold bool, fn func(k int) error) error {
	if err := d.open('{'); err != nil {
		return err
	}
	var seen uint32
	if !d.empty('}') {
		for {
			at := d.i
			key, err := d.key()
			if err != nil {
				return err
			}
			k := matchField(names, key, fold)
			if k < 0 {
				// serde (and encoding/json) ignore unknown fields: so do we.
				if err := d.skipValue(); err != nil {
					return err
				}
				if more, err := d.more('}'); err != nil {
					return err
				} else if !more {
					break
				}
				continue
			}
			if seen&(1<<k) != 0 {
				d.i = at
				return d.errorf("duplicate field %q", names[k])
			}
			seen |= 1 << k
			d.path.key(names[k])
			if err := fn(k); err != nil {
				return err
			}
			d.path.pop()
			if more, err := d.more('}'); err != nil {
				return err
			} else if !more {
				break
			}
		}
	}
	for k, n := range names {
		if seen&(1<<k) == 0 {
			d.i--
			return d.errorf("missing field %q", n)
		}
	}
	return nil
}

// array reads an array, calling fn with each element's index after pushing
// it on the path.
func (d *decoder) array(fn func(j int) error) error {
	if err := d.open('['); err != nil {
		return err
	}
	if d.empty(']') {
		return nil
	}
	for j := 0; ; j++ {
		d.path.idx(j)
		if err := fn(j); err != nil {
			return err
		}
		d.path.pop()
		if more, err := d.more(']'); err != nil {
			return err
		} else if !more {
			return nil
		}
	}
}

// enum reads an externally tagged enum value {"Variant": …}: it calls fn
// with the variant name, pushed on the path, to read the value.
func (d *decoder) enum(what string, fn func(variant []byte) error) error {
	if err := d.open('{'); err != nil {
		return err
	}
	if d.empty('}') {
		d.i--
		return d.errorf("empty object: want one %s variant", what)
	}
	key, err := d.key()
	if err != nil {
		return err
	}
	d.path.key(string(key))
	if err := fn(key); err != nil {
		return err
	}
	d.path.pop()
	if more, err := d.more('}'); err != nil {
		return err
	} else if more {
		return d.errorf("more than one %s variant", what)
	}
	return nil
}

// domain reads one Domain into dst.
func (d *decoder) domain(dst *Domain) error {
	end, msg := parseDomain(dst, d.b, d.i)
	if msg != "" {
		d.i = end
		return d.errorf("%s", msg)
	}
	d.i = end
	return nil
}

// domains reads an array of Domains into the arena.
func (d *decoder) domains() ([]Domain, error) {
	if err := d.open('['); err != nil {
		return nil, err
	}
	if d.empty(']') {
		return nil, nil
	}
	start := d.doms.n
	for j := 0; ; j++ {
		end, msg := parseDomain(d.doms.slot(&start, domainChunk), d.b, d.i)
		d.i = end
		if msg != "" {
			d.path.idx(j)
			return nil, d.errorf("%s", msg)
		}
		// The common case, "],[" or "]]", without a call.
		if d.i < len(d.b) {
			if c := d.b[d.i]; c == ',' {
				d.i++
				continue
			} else if c == ']' {
				d.i++
				break
			}
		}
		if more, err := d.more(']'); err != nil {
			return nil, err
		} else if !more {
			break
		}
	}
	return d.doms.take(start), nil
}

// uint64v reads a non-negative integer no larger than max.
func (d *decoder) uint64v(max uint64) (uint64, error) {
	d.ws()
	b, i := d.b, d.i
	if i >= len(b) || b[i]-'0' > 9 {
		return 0, d.errorf("want an unsigned integer, found %s", describe(b, i))
	}
	var v uint64
	if b[i] == '0' {
		i++
	} else {
		for ; i < len(b) && b[i]-'0' <= 9; i++ {
			c := uint64(b[i] - '0')
			if v > (math.MaxUint64-c)/10 {
				return 0, d.errorf("integer overflows 64 bits")
			}
			v = v*10 + c
		}
	}
	if i < len(b) && (b[i]-'0' <= 9 || b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
		return 0, d.errorf("want an unsigned integer, found %s", describe(b, d.i))
	}
	if v > max {
		return 0, d.errorf("%d is above the maximum %d", v, max)
	}
	d.i = i
	return v, nil
}

// int64v reads a signed 64-bit integer.
func (d *decoder) int64v() (int64, error) {
	d.ws()
	neg := d.i < len(d.b) && d.b[d.i] == '-'
	if neg {
		d.i++
		if d.i < len(d.b) && d.b[d.i] <= ' ' {
			return 0, d.errorf("want a digit after '-'")
		}
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	v, err := d.uint64v(limit)
	if err != nil {
		return 0, err
	}
	if neg {
		return -int64(v-1) - 1, nil
	}
	return int64(v), nil
}

// uint32v reads an integer that fits 32 bits.
func (d *decoder) uint32v() (uint32, error) {
	v, err := d.uint64v(math.MaxUint32)
	return uint32(v), err
}

// null reads the literal null.
func (d *decoder) null() error {
	d.ws()
	if len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return nil
	}
	return d.errorf("want null, found %s", describe(d.b, d.i))
}

// base64 reads a string of standard base64, as encoding/json writes []byte,
// or null (nil).
func (d *decoder) base64() ([]byte, error) {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == 'n' {
		return nil, d.null()
	}
	at := d.i
	s, err := d.str()
	if err != nil {
		return nil, err
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(out, s)
	if err != nil {
		d.i = at
		return nil, d.errorf("bad base64: %v", err)
	}
	return out[:n], nil
}

// Field names, in Rust struct order.
var (
	commit1OutFields  = []string{"registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed", "ticket"}
	proofFields       = []string{"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs", "labeling_proofs", "encoding_proof"}
	replicaFields     = []string{"c_x", "drg_parents", "exp_parents"}
	columnProofFields = []string{"column", "inclusion_proof"}
	columnFields      = []string{"index", "rows", "_h"}
	labelingFields    = []string{"parents", "layer_index", "node"}
	merkleFields      = []string{"data"}
	singleFields      = []string{"root", "leaf", "path"}
	subFields         = []string{"base_proof", "sub_proof", "root", "leaf"}
	topFields         = []string{"base_proof", "sub_proof", "top_proof", "root", "leaf"}
	inclusionFields   = []string{"path"}
	pathElementFields = []string{"hashes", "index"}
)

func (d *decoder) commit1Out(c *Commit1Out) error {
	return d.object(commit1OutFields, false, func(k int) error {
		switch k {
		case 0:
			s, err := d.str()
			c.RegisteredProof = string(s)
			return err
		case 1:
			return d.vanillaProofs(&c.VanillaProofs)
		case 2:
			return d.domain(&c.CommR)
		case 3:
			return d.domain(&c.CommD)
		case 4:
			return d.domain(&c.ReplicaID)
		case 5:
			return d.domain(&c.Seed)
		default:
			return d.domain(&c.Ticket)
		}
	})
}

func (d *decoder) vanillaProofs(v *VanillaProofs) error {
	return d.enum("VanillaSealProof", func(variant []byte) error {
		v.Key = string(variant)
		return d.array(func(int) error {
			var part []Proof
			err := d.array(func(int) error {
				part = append(part, Proof{})
				return d.proof(&part[len(part)-1])
			})
			v.Partitions = append(v.Partitions, part)
			return err
		})
	})
}

func (d *decoder) proof(p *Proof) error {
	return d.object(proofFields, false, func(k int) error {
		switch k {
		case 0:
			return d.merkleProof(&p.CommDProofs)
		case 1:
			return d.merkleProof(&p.CommRLastProof)
		case 2:
			return d.replicaColumnProof(&p.ReplicaColumnProofs)
		case 3:
			return d.array(func(int) error {
				p.LabelingProofs = append(p.LabelingProofs, LabelingProof{})
				l := &p.LabelingProofs[len(p.LabelingProofs)-1]
				return d.labeling(&l.Parents, &l.LayerIndex, &l.Node)
			})
		default:
			e := &p.EncodingProof
			return d.labeling(&e.Parents, &e.LayerIndex, &e.Node)
		}
	})
}

func (d *decoder) replicaColumnProof(r *ReplicaColumnProof) error {
	columns := func(dst *[]ColumnProof) error {
		return d.array(func(int) error {
			*dst = append(*dst, ColumnProof{})
			return d.columnProof(&(*dst)[len(*dst)-1])
		})
	}
	return d.object(replicaFields, false, func(k int) error {
		switch k {
		case 0:
			return d.columnProof(&r.CX)
		case 1:
			return columns(&r.DrgParents)
		default:
			return columns(&r.ExpParents)
		}
	})
}

func (d *decoder) columnProof(c *ColumnProof) error {
	return d.object(columnProofFields, false, func(k int) error {
		if k == 0 {
			return d.column(&c.Column)
		}
		return d.merkleProof(&c.InclusionProof)
	})
}

func (d *decoder) column(c *Column) error {
	return d.object(columnFields, false, func(k int) (err error) {
		switch k {
		case 0:
			c.Index, err = d.uint32v()
		case 1:
			c.Rows, err = d.domains()
		default:
			err = d.null()
		}
		return err
	})
}

// labeling reads a LabelingProof or EncodingProof.
func (d *decoder) labeling(parents *[]Domain, layer *uint32, node *uint64) error {
	return d.object(labelingFields, false, func(k int) (err error) {
		switch k {
		case 0:
			*parents, err = d.domains()
		case 1:
			*layer, err = d.uint32v()
		default:
			*node, err = d.uint64v(math.MaxUint64)
		}
		return err
	})
}

func (d *decoder) merkleProof(m *MerkleProof) error {
	return d.object(merkleFields, false, func(int) error { return d.proofData(&m.Data) })
}

func (d *decoder) proofData(pd *ProofData) error {
	return d.enum("ProofData", func(variant []byte) error {
		switch string(variant) {
		case "Single":
			s := new(SingleProof)
			pd.Single = s
			return d.object(singleFields, false, func(k int) error {
				switch k {
				case 0:
					return d.domain(&s.Root)
				case 1:
					return d.domain(&s.Leaf)
				default:
					return d.inclusionPath(&s.Path)
				}
			})
		case "Sub":
			s := new(SubProof)
			pd.Sub = s
			return d.object(subFields, false, func(k int) error {
				switch k {
				case 0:
					return d.inclusionPath(&s.BaseProof)
				case 1:
					return d.inclusionPath(&s.SubProof)
				case 2:
					return d.domain(&s.Root)
				default:
					return d.domain(&s.Leaf)
				}
			})
		case "Top":
			t := new(TopProof)
			pd.Top = t
			return d.object(topFields, false, func(k int) error {
				switch k {
				case 0:
					return d.inclusionPath(&t.BaseProof)
				case 1:
					return d.inclusionPath(&t.SubProof)
				case 2:
					return d.inclusionPath(&t.TopProof)
				case 3:
					return d.domain(&t.Root)
				default:
					return d.domain(&t.Leaf)
				}
			})
		}
		d.path.pop()
		return d.errorf("unknown ProofData variant %q, want Single, Sub or Top", variant)
	})
}

func (d *decoder) inclusionPath(p *InclusionPath) error {
	return d.object(inclusionFields, false, func(int) error {
		start := d.elems.n
		err := d.array(func(int) error {
			e := d.elems.slot(&start, elemChunk)
			return d.object(pathElementFields, false, func(k int) (err error) {
				if k == 0 {
					e.Hashes, err = d.domains()
				} else {
					e.Index, err = d.uint64v(math.MaxUint64)
				}
				return err
			})
		})
		p.Path = d.elems.take(start)
		return err
	})
}

// skipValue skips one JSON value of any kind (an unknown field's).
func (d *decoder) skipValue() error {
	d.ws()
	dec := json.NewDecoder(bytes.NewReader(d.b[d.i:]))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return d.errorf("bad JSON value: %v", err)
	}
	d.i += int(dec.InputOffset())
	return nil
}

package c1

import (
	"encoding/base64"
	"fmt"
	"strconv"
)

// Encode returns c as serde_json writes SealCommitPhase1Output: fields in
// Rust struct order, enums externally tagged, "_h":null in every column, no
// whitespace. It checks only what the encoding needs, that every Merkle proof
// has exactly one ProofData variant, not the rules of Validate. For a valid
// c, Decode(Encode(c)) equals c, and Encode(Decode(b)) is b for canonical b.
func Encode(c *Commit1Out) ([]byte, error) {
	e := encoder{buf: make([]byte, 0, sizeHint(c))}
	if err := e.commit1Out(c); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// EncodeWrapper returns the lotus-bench Commit2In JSON around raw C1 JSON,
// {"SectorNum":n,"Phase1Out":"<base64>","SectorSize":s}, byte for byte as
// encoding/json writes lotus-bench's struct (a nil raw is null).
func EncodeWrapper(sectorNum int64, sectorSize uint64, raw []byte) []byte {
	n := base64.StdEncoding.EncodedLen(len(raw))
	buf := make([]byte, 0, n+80)
	buf = append(buf, `{"SectorNum":`...)
	buf = strconv.AppendInt(buf, sectorNum, 10)
	buf = append(buf, `,"Phase1Out":`...)
	if raw == nil {
		buf = append(buf, "null"...)
	} else {
		buf = append(buf, '"')
		buf = base64.StdEncoding.AppendEncode(buf, raw)
		buf = append(buf, '"')
	}
	buf = append(buf, `,"SectorSize":`...)
	buf = strconv.AppendUint(buf, sectorSize, 10)
	return append(buf, '}')
}

// encoder appends C1 JSON to buf.
type encoder struct {
	buf  []byte
	path jsonPath // for errors
}

// Bytes per Domain in JSON: 32 numbers of at most 3 digits, 31 commas, brackets.
const maxDomainJSON = 32*3 + 31 + 2

// sizeHint returns an upper estimate of c's JSON length.
func sizeHint(c *Commit1Out) int {
	doms, elems := 0, 0
	merkle := func(m *MerkleProof) {
		doms += 2
		pp := m.Data.parts()
		for _, p := range pp.list() {
			elems += len(p.Path)
			for i := range p.Path {
				doms += len(p.Path[i].Hashes)
			}
		}
	}
	column := func(cp *ColumnProof) {
		doms += len(cp.Column.Rows)
		merkle(&cp.InclusionProof)
	}
	n := 0
	for _, part := range c.VanillaProofs.Partitions {
		for j := range part {
			p := &part[j]
			n++
			merkle(&p.CommDProofs)
			merkle(&p.CommRLastProof)
			column(&p.ReplicaColumnProofs.CX)
			for i := range p.ReplicaColumnProofs.DrgParents {
				column(&p.ReplicaColumnProofs.DrgParents[i])
			}
			for i := range p.ReplicaColumnProofs.ExpParents {
				column(&p.ReplicaColumnProofs.ExpParents[i])
			}
			for i := range p.LabelingProofs {
				doms += len(p.LabelingProofs[i].Parents)
			}
			doms += len(p.EncodingProof.Parents)
		}
	}
	// Field names and punctuation: about 2.5 KB per challenge, 40 bytes per path element.
	return 512 + len(c.RegisteredProof) + len(c.VanillaProofs.Key) + 5*maxDomainJSON + doms*(maxDomainJSON+1) + elems*40 + n*2560
}

// raw appends s.
func (e *encoder) raw(s string) { e.buf = append(e.buf, s...) }

// str appends s as a JSON string, escaped as serde_json does.
func (e *encoder) str(s string) {
	const hex = "0123456789abcdef"
	e.buf = append(e.buf, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			e.buf = append(e.buf, '\\', c)
		case c >= ' ':
			e.buf = append(e.buf, c)
		case c == '\b':
			e.buf = append(e.buf, '\\', 'b')
		case c == '\f':
			e.buf = append(e.buf, '\\', 'f')
		case c == '\n':
			e.buf = append(e.buf, '\\', 'n')
		case c == '\r':
			e.buf = append(e.buf, '\\', 'r')
		case c == '\t':
			e.buf = append(e.buf, '\\', 't')
		default:
			e.buf = append(e.buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	e.buf = append(e.buf, '"')
}

// domain appends a Domain.
func (e *encoder) domain(d *Domain) { e.buf = appendDomain(e.buf, d) }

// domains appends a list of Domains.
func (e *encoder) domains(ds []Domain) {
	e.buf = append(e.buf, '[')
	for i := range ds {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = appendDomain(e.buf, &ds[i])
	}
	e.buf = append(e.buf, ']')
}

func (e *encoder) uint(v uint64) { e.buf = strconv.AppendUint(e.buf, v, 10) }

func (e *encoder) commit1Out(c *Commit1Out) error {
	e.raw(`{"registered_proof":`)
	e.str(c.RegisteredProof)
	e.raw(`,"vanilla_proofs":{`)
	e.str(c.VanillaProofs.Key)
	e.raw(`:[`)
	e.path.key("vanilla_proofs")
	e.path.key(c.VanillaProofs.Key)
	for k, part := range c.VanillaProofs.Partitions {
		if k > 0 {
			e.raw(",")
		}
		e.raw("[")
		e.path.idx(k)
		for j := range part {
			if j > 0 {
				e.raw(",")
			}
			e.path.idx(j)
			if err := e.proof(&part[j]); err != nil {
				return err
			}
			e.path.pop()
		}
		e.path.pop()
		e.raw("]")
	}
	e.path = e.path[:0]
	e.raw(`]},"comm_r":`)
	e.domain(&c.CommR)
	e.raw(`,"comm_d":`)
	e.domain(&c.CommD)
	e.raw(`,"replica_id":`)
	e.domain(&c.ReplicaID)
	e.raw(`,"seed":`)
	e.domain(&c.Seed)
	e.raw(`,"ticket":`)
	e.domain(&c.Ticket)
	e.raw("}")
	return nil
}

func (e *encoder) proof(p *Proof) error {
	e.raw(`{"comm_d_proofs":`)
	if err := e.merkle(&p.CommDProofs, "comm_d_proofs"); err != nil {
		return err
	}
	e.raw(`,"comm_r_last_proof":`)
	if err := e.merkle(&p.CommRLastProof, "comm_r_last_proof"); err != nil {
		return err
	}
	r := &p.ReplicaColumnProofs
	e.path.key("replica_column_proofs")
	e.raw(`,"replica_column_proofs":{"c_x":`)
	e.path.key("c_x")
	if err := e.column(&r.CX); err != nil {
		return err
	}
	e.path.pop()
	for _, g := range []struct {
		key  string
		cols []ColumnProof
	}{{"drg_parents", r.DrgParents}, {"exp_parents", r.ExpParents}} {
		e.raw(`,"`)
		e.raw(g.key)
		e.raw(`":[`)
		e.path.key(g.key)
		for i := range g.cols {
			if i > 0 {
				e.raw(",")
			}
			e.path.idx(i)
			if err := e.column(&g.cols[i]); err != nil {
				return err
			}
			e.path.pop()
		}
		e.path.pop()
		e.raw("]")
	}
	e.path.pop()
	e.raw(`},"labeling_proofs":[`)
	for i := range p.LabelingProofs {
		if i > 0 {
			e.raw(",")
		}
		l := &p.LabelingProofs[i]
		e.label(l.Parents, l.LayerIndex, l.Node)
	}
	e.raw(`],"encoding_proof":`)
	e.label(p.EncodingProof.Parents, p.EncodingProof.LayerIndex, p.EncodingProof.Node)
	e.raw("}")
	return nil
}

func (e *encoder) column(cp *ColumnProof) error {
	e.raw(`{"column":{"index":`)
	e.uint(uint64(cp.Column.Index))
	e.raw(`,"rows":`)
	e.domains(cp.Column.Rows)
	e.raw(`,"_h":null},"inclusion_proof":`)
	if err := e.merkle(&cp.InclusionProof, "inclusion_proof"); err != nil {
		return err
	}
	e.raw("}")
	return nil
}

func (e *encoder) label(parents []Domain, layer uint32, node uint64) {
	e.raw(`{"parents":`)
	e.domains(parents)
	e.raw(`,"layer_index":`)
	e.uint(uint64(layer))
	e.raw(`,"node":`)
	e.uint(node)
	e.raw("}")
}

func (e *encoder) merkle(m *MerkleProof, key string) error {
	d := &m.Data
	if _, n := d.variant(); n != 1 {
		e.path.key(key)
		e.path.key("data")
		return &ValidationError{Path: e.path.String(), Msg: fmt.Sprintf("%d ProofData variants set, want exactly one of Single, Sub and Top", n)}
	}
	e.raw(`{"data":{`)
	switch {
	case d.Single != nil:
		s := d.Single
		e.raw(`"Single":{"root":`)
		e.domain(&s.Root)
		e.raw(`,"leaf":`)
		e.domain(&s.Leaf)
		e.raw(`,"path":`)
		e.inclusionPath(&s.Path)
	case d.Sub != nil:
		s := d.Sub
		e.raw(`"Sub":{"base_proof":`)
		e.inclusionPath(&s.BaseProof)
		e.raw(`,"sub_proof":`)
		e.inclusionPath(&s.SubProof)
		e.raw(`,"root":`)
		e.domain(&s.Root)
		e.raw(`,"leaf":`)
		e.domain(&s.Leaf)
	default:
		t := d.Top
		e.raw(`"Top":{"base_proof":`)
		e.inclusionPath(&t.BaseProof)
		e.raw(`,"sub_proof":`)
		e.inclusionPath(&t.SubProof)
		e.raw(`,"top_proof":`)
		e.inclusionPath(&t.TopProof)
		e.raw(`,"root":`)
		e.domain(&t.Root)
		e.raw(`,"leaf":`)
		e.domain(&t.Leaf)
	}
	e.raw("}}}")
	return nil
}

func (e *encoder) inclusionPath(p *InclusionPath) {
	e.raw(`{"path":[`)
	for i := range p.Path {
		if i > 0 {
			e.raw(",")
		}
		el := &p.Path[i]
		e.raw(`{"hashes":`)
		e.domains(el.Hashes)
		e.raw(`,"index":`)
		e.uint(el.Index)
		e.raw("}")
	}
	e.raw("]}")
}

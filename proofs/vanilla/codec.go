package vanilla

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// DecodeError is a malformed vanilla proof: what was wrong and the byte
// offset where it starts.
type DecodeError struct {
	Offset int
	What   string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("vanilla proof, byte %d: %s", e.Offset, e.What)
}

// ErrTrailing marks bytes after a complete vanilla proof.
var ErrTrailing = errors.New("trailing bytes")

// Limits of a path the Reader accepts, far above anything the proofs API
// makes (a 64GiB tree D path has 31 levels; tree R levels have 7 hashes), so
// that a hostile length cannot make it allocate.
const (
	MaxLevels   = 64 // levels of a Single path or a base path
	MaxHashes   = 15 // hashes of one level
	maxSubLevel = 1  // levels of a sub or top path
)

// Reader decodes bincode from a byte slice, strictly: every read names what
// it reads, and a failure is a *DecodeError at the offset of the value.
type Reader struct {
	b   []byte
	off int
}

// NewReader returns a Reader at the start of b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Offset returns the bytes read so far.
func (r *Reader) Offset() int { return r.off }

// Left returns the bytes not yet read.
func (r *Reader) Left() int { return len(r.b) - r.off }

// Fail returns a *DecodeError at byte at.
func (r *Reader) Fail(at int, format string, args ...any) error {
	return &DecodeError{Offset: at, What: fmt.Sprintf(format, args...)}
}

// End fails unless every byte was read.
func (r *Reader) End() error {
	if r.off != len(r.b) {
		return &DecodeError{Offset: r.off, What: fmt.Sprintf("%v: %d after the proof", ErrTrailing, len(r.b)-r.off)}
	}
	return nil
}

// U64 reads a little-endian u64.
func (r *Reader) U64(what string) (uint64, error) {
	if len(r.b)-r.off < 8 {
		return 0, r.Fail(r.off, "%s: want 8 bytes, %d left", what, len(r.b)-r.off)
	}
	v := binary.LittleEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v, nil
}

// U32 reads a little-endian u32.
func (r *Reader) U32(what string) (uint32, error) {
	if len(r.b)-r.off < 4 {
		return 0, r.Fail(r.off, "%s: want 4 bytes, %d left", what, len(r.b)-r.off)
	}
	v := binary.LittleEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v, nil
}

// Length reads a u64 length of at most max elements of at least minSize
// bytes each (so that the rest of the input can hold them).
func (r *Reader) Length(what string, max, minSize int) (int, error) {
	at := r.off
	n, err := r.U64(what + " length")
	if err != nil {
		return 0, err
	}
	if n > uint64(max) {
		return 0, r.Fail(at, "%s: %d elements, at most %d allowed", what, n, max)
	}
	if need := int(n) * minSize; need > len(r.b)-r.off {
		return 0, r.Fail(at, "%s: %d elements need %d bytes, %d left", what, n, need, len(r.b)-r.off)
	}
	return int(n), nil
}

// Domain reads 32 bytes that must be a canonical field element.
func (r *Reader) Domain(what string) (Domain, error) {
	var d Domain
	if len(r.b)-r.off < 32 {
		return d, r.Fail(r.off, "%s: want 32 bytes, %d left", what, len(r.b)-r.off)
	}
	copy(d[:], r.b[r.off:])
	if _, err := fr.LittleEndian.Element((*[32]byte)(&d)); err != nil {
		return d, r.Fail(r.off, "%s %x is not a canonical field element", what, d)
	}
	r.off += 32
	return d, nil
}

// Path reads a path of at most maxLen levels, each of at most MaxHashes
// hashes and an index within the level's arity.
func (r *Reader) Path(what string, maxLen int) ([]PathElement, error) {
	n, err := r.Length(what, maxLen, 16)
	if err != nil {
		return nil, err
	}
	p := make([]PathElement, n)
	for i := range p {
		lw := fmt.Sprintf("%s level %d", what, i)
		h, err := r.Length(lw+" hashes", MaxHashes, 32)
		if err != nil {
			return nil, err
		}
		p[i].Hashes = make([]Domain, h)
		for j := range h {
			if p[i].Hashes[j], err = r.Domain(fmt.Sprintf("%s hash %d", lw, j)); err != nil {
				return nil, err
			}
		}
		at := r.off
		if p[i].Index, err = r.U64(lw + " index"); err != nil {
			return nil, err
		}
		if p[i].Index > uint64(h) {
			return nil, r.Fail(at, "%s index %d: a level of %d hashes has arity %d", lw, p[i].Index, h, h+1)
		}
	}
	return p, nil
}

// MerkleProof reads a MerkleProof enum: its u32 variant, then the variant's
// fields in their declared order.
func (r *Reader) MerkleProof(what string) (MerkleProof, error) {
	var m MerkleProof
	at := r.off
	v, err := r.U32(what + " variant")
	if err != nil {
		return m, err
	}
	m.Variant = ProofVariant(v)
	switch m.Variant {
	case Single:
		if m.Root, err = r.Domain(what + " root"); err != nil {
			return m, err
		}
		if m.Leaf, err = r.Domain(what + " leaf"); err != nil {
			return m, err
		}
		m.Base, err = r.Path(what+" path", MaxLevels)
		return m, err
	case Sub, Top:
		if m.Base, err = r.Path(what+" base_path", MaxLevels); err != nil {
			return m, err
		}
		if m.Sub, err = r.Path(what+" sub_path", maxSubLevel); err != nil {
			return m, err
		}
		if m.Variant == Top {
			if m.Top, err = r.Path(what+" top_path", maxSubLevel); err != nil {
				return m, err
			}
		}
		if m.Root, err = r.Domain(what + " root"); err != nil {
			return m, err
		}
		m.Leaf, err = r.Domain(what + " leaf")
		return m, err
	}
	return m, r.Fail(at, "%s: MerkleProof variant %d, want 0 (Single), 1 (Sub) or 2 (Top)", what, v)
}

// AppendMerkleProof appends m's bincode encoding to b.
func AppendMerkleProof(b []byte, m *MerkleProof) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Variant))
	if m.Variant == Single {
		b = append(b, m.Root[:]...)
		b = append(b, m.Leaf[:]...)
		return AppendPath(b, m.Base)
	}
	b = AppendPath(b, m.Base)
	b = AppendPath(b, m.Sub)
	if m.Variant == Top {
		b = AppendPath(b, m.Top)
	}
	b = append(b, m.Root[:]...)
	return append(b, m.Leaf[:]...)
}

// AppendPath appends a path's bincode encoding to b.
func AppendPath(b []byte, p []PathElement) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(p)))
	for _, e := range p {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(e.Hashes)))
		for _, h := range e.Hashes {
			b = append(b, h[:]...)
		}
		b = binary.LittleEndian.AppendUint64(b, e.Index)
	}
	return b
}

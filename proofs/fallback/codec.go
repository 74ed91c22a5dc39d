package fallback

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// The bincode 1.x encoding the proofs API uses (snap-post-spec §2.1):
// little-endian fixed-width integers, u32 enum variant indices, u64 lengths
// and usizes, [u8; 32] as 32 raw bytes.

// DecodeError is a malformed vanilla proof: what was wrong and the byte
// offset where it starts.
type DecodeError struct {
	Offset int
	What   string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("fallback: vanilla proof, byte %d: %s", e.Offset, e.What)
}

// ErrTrailing marks bytes after a complete vanilla proof.
var ErrTrailing = errors.New("trailing bytes")

// Limits on what a decoder accepts, far above anything the proofs API makes
// (32 GiB Window: 1 sector of 10 proofs of 10 levels of 7 hashes), so that a
// hostile length cannot make it allocate.
const (
	maxSectors   = 1 << 12
	maxProofs    = 1 << 12
	maxLevels    = 64
	maxHashes    = 15
	maxLevelsSub = 1
)

type reader struct {
	b   []byte
	off int
}

func (r *reader) fail(at int, format string, args ...any) error {
	return &DecodeError{Offset: at, What: fmt.Sprintf(format, args...)}
}

func (r *reader) u64(what string) (uint64, error) {
	if len(r.b)-r.off < 8 {
		return 0, r.fail(r.off, "%s: want 8 bytes, %d left", what, len(r.b)-r.off)
	}
	v := binary.LittleEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v, nil
}

func (r *reader) u32(what string) (uint32, error) {
	if len(r.b)-r.off < 4 {
		return 0, r.fail(r.off, "%s: want 4 bytes, %d left", what, len(r.b)-r.off)
	}
	v := binary.LittleEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v, nil
}

// length reads a u64 length of at most max elements of at least minSize bytes each.
func (r *reader) length(what string, max, minSize int) (int, error) {
	at := r.off
	n, err := r.u64(what + " length")
	if err != nil {
		return 0, err
	}
	if n > uint64(max) {
		return 0, r.fail(at, "%s: %d elements, at most %d allowed", what, n, max)
	}
	if need := int(n) * minSize; need > len(r.b)-r.off {
		return 0, r.fail(at, "%s: %d elements need %d bytes, %d left", what, n, need, len(r.b)-r.off)
	}
	return int(n), nil
}

// domain reads 32 bytes that must be a canonical field element.
func (r *reader) domain(what string) (Domain, error) {
	var d Domain
	if len(r.b)-r.off < 32 {
		return d, r.fail(r.off, "%s: want 32 bytes, %d left", what, len(r.b)-r.off)
	}
	copy(d[:], r.b[r.off:])
	if _, err := fr.LittleEndian.Element((*[32]byte)(&d)); err != nil {
		return d, r.fail(r.off, "%s %x is not a canonical field element", what, d)
	}
	r.off += 32
	return d, nil
}

func (r *reader) path(what string, maxLen int) ([]PathElement, error) {
	n, err := r.length(what, maxLen, 16)
	if err != nil {
		return nil, err
	}
	p := make([]PathElement, n)
	for i := range p {
		lw := fmt.Sprintf("%s level %d", what, i)
		h, err := r.length(lw+" hashes", maxHashes, 32)
		if err != nil {
			return nil, err
		}
		p[i].Hashes = make([]Domain, h)
		for j := range h {
			if p[i].Hashes[j], err = r.domain(fmt.Sprintf("%s hash %d", lw, j)); err != nil {
				return nil, err
			}
		}
		at := r.off
		if p[i].Index, err = r.u64(lw + " index"); err != nil {
			return nil, err
		}
		if p[i].Index > uint64(h) {
			return nil, r.fail(at, "%s index %d: a level of %d hashes has arity %d", lw, p[i].Index, h, h+1)
		}
	}
	return p, nil
}

func (r *reader) merkleProof(what string) (MerkleProof, error) {
	var m MerkleProof
	at := r.off
	v, err := r.u32(what + " variant")
	if err != nil {
		return m, err
	}
	m.Variant = ProofVariant(v)
	switch m.Variant {
	case Single:
		if m.Root, err = r.domain(what + " root"); err != nil {
			return m, err
		}
		if m.Leaf, err = r.domain(what + " leaf"); err != nil {
			return m, err
		}
		m.Base, err = r.path(what+" path", maxLevels)
		return m, err
	case Sub, Top:
		if m.Base, err = r.path(what+" base_path", maxLevels); err != nil {
			return m, err
		}
		if m.Sub, err = r.path(what+" sub_path", maxLevelsSub); err != nil {
			return m, err
		}
		if m.Variant == Top {
			if m.Top, err = r.path(what+" top_path", maxLevelsSub); err != nil {
				return m, err
			}
		}
		if m.Root, err = r.domain(what + " root"); err != nil {
			return m, err
		}
		m.Leaf, err = r.domain(what + " leaf")
		return m, err
	}
	return m, r.fail(at, "%s: MerkleProof variant %d, want 0 (Single), 1 (Sub) or 2 (Top)", what, v)
}

// DecodeSectorVanilla decodes one bincode FallbackPoStSectorProof. It checks
// the encoding (lengths, variants, canonical field elements, indices within
// their level's arity, no trailing bytes) but not the proof: Check does.
func DecodeSectorVanilla(b []byte) (*SectorVanilla, error) {
	r := &reader{b: b}
	var v SectorVanilla
	var err error
	if v.SectorID, err = r.u64("sector_id"); err != nil {
		return nil, err
	}
	if v.CommR, err = r.domain("comm_r"); err != nil {
		return nil, err
	}
	n, err := r.length("sectors", maxSectors, 8+64)
	if err != nil {
		return nil, err
	}
	v.Sectors = make([]SectorProof, n)
	for i := range v.Sectors {
		s := &v.Sectors[i]
		what := fmt.Sprintf("sector proof %d", i)
		m, err := r.length(what+" inclusion_proofs", maxProofs, 4+64+8)
		if err != nil {
			return nil, err
		}
		s.InclusionProofs = make([]MerkleProof, m)
		for j := range s.InclusionProofs {
			if s.InclusionProofs[j], err = r.merkleProof(fmt.Sprintf("%s inclusion proof %d", what, j)); err != nil {
				return nil, err
			}
		}
		if s.CommC, err = r.domain(what + " comm_c"); err != nil {
			return nil, err
		}
		if s.CommRLast, err = r.domain(what + " comm_r_last"); err != nil {
			return nil, err
		}
	}
	if r.off != len(b) {
		return nil, &DecodeError{Offset: r.off, What: fmt.Sprintf("%v: %d after the proof", ErrTrailing, len(b)-r.off)}
	}
	return &v, nil
}

// Encode returns v's bincode encoding, the inverse of DecodeSectorVanilla.
func (v *SectorVanilla) Encode() []byte {
	b := binary.LittleEndian.AppendUint64(nil, v.SectorID)
	b = append(b, v.CommR[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(v.Sectors)))
	for i := range v.Sectors {
		s := &v.Sectors[i]
		b = binary.LittleEndian.AppendUint64(b, uint64(len(s.InclusionProofs)))
		for j := range s.InclusionProofs {
			b = s.InclusionProofs[j].appendTo(b)
		}
		b = append(b, s.CommC[:]...)
		b = append(b, s.CommRLast[:]...)
	}
	return b
}

func (m *MerkleProof) appendTo(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Variant))
	if m.Variant == Single {
		b = append(b, m.Root[:]...)
		b = append(b, m.Leaf[:]...)
		return appendPath(b, m.Base)
	}
	b = appendPath(b, m.Base)
	b = appendPath(b, m.Sub)
	if m.Variant == Top {
		b = appendPath(b, m.Top)
	}
	b = append(b, m.Root[:]...)
	return append(b, m.Leaf[:]...)
}

func appendPath(b []byte, p []PathElement) []byte {
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

package fallback

import (
	"encoding/binary"
	"fmt"

	"github.com/filc2/filc2/proofs/vanilla"
)

// The bincode 1.x encoding the proofs API uses (snap-post-spec §2.1):
// little-endian fixed-width integers, u32 enum variant indices, u64 lengths
// and usizes, [u8; 32] as 32 raw bytes.

// DecodeError is a malformed vanilla proof: what was wrong and the byte
// offset where it starts.
type DecodeError = vanilla.DecodeError

// ErrTrailing marks bytes after a complete vanilla proof.
var ErrTrailing = vanilla.ErrTrailing

// Limits on what a decoder accepts, far above anything the proofs API makes
// (32 GiB Window: 1 sector of 10 proofs of 10 levels of 7 hashes), so that a
// hostile length cannot make it allocate.
const (
	maxSectors = 1 << 12
	maxProofs  = 1 << 12
)

// DecodeSectorVanilla decodes one bincode FallbackPoStSectorProof. It checks
// the encoding (lengths, variants, canonical field elements, indices within
// their level's arity, no trailing bytes) but not the proof: Check does.
func DecodeSectorVanilla(b []byte) (*SectorVanilla, error) {
	r := vanilla.NewReader(b)
	var v SectorVanilla
	var err error
	if v.SectorID, err = r.U64("sector_id"); err != nil {
		return nil, err
	}
	if v.CommR, err = r.Domain("comm_r"); err != nil {
		return nil, err
	}
	n, err := r.Length("sectors", maxSectors, 8+64)
	if err != nil {
		return nil, err
	}
	v.Sectors = make([]SectorProof, n)
	for i := range v.Sectors {
		s := &v.Sectors[i]
		what := fmt.Sprintf("sector proof %d", i)
		m, err := r.Length(what+" inclusion_proofs", maxProofs, 4+64+8)
		if err != nil {
			return nil, err
		}
		s.InclusionProofs = make([]MerkleProof, m)
		for j := range s.InclusionProofs {
			if s.InclusionProofs[j], err = r.MerkleProof(fmt.Sprintf("%s inclusion proof %d", what, j)); err != nil {
				return nil, err
			}
		}
		if s.CommC, err = r.Domain(what + " comm_c"); err != nil {
			return nil, err
		}
		if s.CommRLast, err = r.Domain(what + " comm_r_last"); err != nil {
			return nil, err
		}
	}
	if err := r.End(); err != nil {
		return nil, err
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
			b = vanilla.AppendMerkleProof(b, &s.InclusionProofs[j])
		}
		b = append(b, s.CommC[:]...)
		b = append(b, s.CommRLast[:]...)
	}
	return b
}

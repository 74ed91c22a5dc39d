package fallback

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
)

// Randomness is PoSt randomness as the prover takes it: 32 bytes that are a
// canonical field element (as_safe_commitment). Lotus and curio clear the top
// two bits of the chain's randomness first; MaskRandomness does the same.
type Randomness = [32]byte

// MaskRandomness clears the top two bits of r, as lotus (manager_post.go) and
// curio (compute_do.go, winning_task.go) do before they hand it to a prover.
func MaskRandomness(r [32]byte) Randomness {
	r[31] &= 0x3f
	return r
}

// CheckRandomness returns an error unless r is a canonical field element.
func CheckRandomness(r Randomness) error {
	if _, err := fr.LittleEndian.Element((*[32]byte)(&r)); err != nil {
		return fmt.Errorf("fallback: randomness %x is not a field element: clear its top two bits (r[31] &= 0x3f) as lotus and curio do", r)
	}
	return nil
}

// ChallengeIndex is get_challenge_index: the index whose hash picks challenge
// n of the sector at sectorIndex (its position among all the proof's
// sectors, partition·SectorCount + i). API versions 1.0 and 1.1 (Winning,
// Window V1) number the challenges across sectors; 1.2 (Window V1_1, since
// FIP-0061) per sector.
func ChallengeIndex(p abi.PoStProof, sectorIndex, challengesPerSector, n int) uint64 {
	if p.APIVersion == abi.APIVersion1_2_0 {
		return uint64(n)
	}
	return uint64(sectorIndex)*uint64(challengesPerSector) + uint64(n)
}

// LeafChallenge is generate_leaf_challenge: the leaf picked by
// SHA-256(randomness ‖ sector_id u64 LE ‖ index u64 LE), its first 8 bytes
// read as a little-endian u64, modulo the sector's nodes.
func LeafChallenge(p abi.PoStProof, r Randomness, sectorID, index uint64) uint64 {
	var buf [48]byte
	copy(buf[:32], r[:])
	binary.LittleEndian.PutUint64(buf[32:], sectorID)
	binary.LittleEndian.PutUint64(buf[40:], index)
	h := sha256.Sum256(buf[:])
	return binary.LittleEndian.Uint64(h[:8]) % p.Nodes
}

// CircuitChallenges returns the leaf challenges of the circuit block at
// sectorIndex (partition·SectorCount + i) for a sector: ChallengeCount of them,
// what the public inputs hold after the sector's comm_r.
func CircuitChallenges(p abi.PoStProof, r Randomness, sectorID uint64, sectorIndex int) []uint64 {
	out := make([]uint64, p.ChallengeCount)
	for n := range out {
		out[n] = LeafChallenge(p, r, sectorID, ChallengeIndex(p, sectorIndex, p.ChallengeCount, n))
	}
	return out
}

// VanillaChallenges returns the challenges a sector's vanilla proof opens,
// what lotus and curio pass to generate_single_vanilla_proof (computed with
// GeneratePoStFallbackSectorChallenges): for Window the 10 challenges of the
// sector at sectorIndex (partition·SectorCount + i; any value for V1_1, whose
// challenges do not depend on it); for Winning the 66 challenges of its one
// sector (sectorIndex is ignored).
func VanillaChallenges(p abi.PoStProof, r Randomness, sectorID uint64, sectorIndex int) []uint64 {
	if p.Kind == abi.Winning {
		sectorIndex = 0
	}
	out := make([]uint64, p.VanillaChallenges)
	for n := range out {
		out[n] = LeafChallenge(p, r, sectorID, ChallengeIndex(p, sectorIndex, p.VanillaChallenges, n))
	}
	return out
}

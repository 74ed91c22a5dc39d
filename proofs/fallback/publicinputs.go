package fallback

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
)

// PublicInputs returns the public inputs of partition k without ONE, as
// FallbackPoStCompound::generate_public_inputs does: per sector comm_r, then
// its ChallengeCount leaf challenges; a partition of fewer than SectorCount
// sectors repeats its last sector's inputs. sectors are the partition's own
// sectors (1 to SectorCount) in the order they were proved. For Winning give
// the one sector: it is repeated 66 times as verify_winning_post does, block
// i taking challenge i.
func PublicInputs(p abi.PoStProof, r Randomness, sectors []PublicSector, k int) ([]fr.Element, error) {
	if err := CheckRandomness(r); err != nil {
		return nil, err
	}
	if p.Kind == abi.Winning {
		if len(sectors) != abi.WinningSectors || k != 0 {
			return nil, fmt.Errorf("fallback: %s proves one sector in one partition, got %d sectors, partition %d", p.Name, len(sectors), k)
		}
		one := sectors[0]
		sectors = make([]PublicSector, p.SectorCount)
		for i := range sectors {
			sectors[i] = one
		}
	}
	if len(sectors) == 0 || len(sectors) > p.SectorCount || k < 0 {
		return nil, fmt.Errorf("fallback: %d sectors in partition %d, a %s partition holds 1 to %d", len(sectors), k, p.Name, p.SectorCount)
	}
	per := 1 + p.ChallengeCount
	out := make([]fr.Element, 0, per*p.SectorCount)
	for i, s := range sectors {
		commR, err := fr.LittleEndian.Element((*[32]byte)(&s.CommR))
		if err != nil {
			return nil, fmt.Errorf("fallback: comm_r of sector %d is not a field element", s.ID)
		}
		out = append(out, commR)
		for _, c := range CircuitChallenges(p, r, s.ID, k*p.SectorCount+i) {
			out = append(out, fr.NewElement(c))
		}
	}
	last := out[len(out)-per:]
	for len(out) < per*p.SectorCount {
		out = append(out, last...)
	}
	return out, nil
}

// NumInputs returns the number of public inputs of p's circuit, ONE included.
func NumInputs(p abi.PoStProof) int { return 1 + p.SectorCount*(1+p.ChallengeCount) }

package update

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/poseidon"
)

// genRandomnessTagID is the CType::Arbitrary id of storage-proofs-update's
// HASH_TYPE_GEN_RANDOMNESS.
const genRandomnessTagID = 1

// hashGenRandomness is Poseidon_genrand(a, b): arity 2, Standard strength,
// the custom domain tag of id 1 (2^40).
func hashGenRandomness(a, b fr.Element) fr.Element {
	c, err := poseidon.ConstantsFor(2)
	if err != nil {
		panic(err) // arity 2 is always built
	}
	tag, err := poseidon.CustomTag(genRandomnessTagID)
	if err != nil {
		panic(err)
	}
	return poseidon.HashTagged(c, tag, []fr.Element{a, b})
}

// Phi is the update's phi = Poseidon_genrand(comm_d_new, comm_r_old).
func Phi(commDNew, commROld fr.Element) fr.Element {
	return hashGenRandomness(commDNew, commROld)
}

// Rho is the encoding factor of the nodes whose high bits are cHigh:
// Poseidon_genrand(phi, cHigh).
func Rho(phi fr.Element, cHigh uint64) fr.Element {
	var h fr.Element
	h.SetUint64(cHigh)
	return hashGenRandomness(phi, h)
}

// HighBits returns the top h bits of node c of a sector of p: c >> (log2(nodes) − h).
func HighBits(p abi.UpdateProof, c uint64, h int) uint64 {
	return c >> uint(p.NodeBits()-h)
}

// Challenges returns the p.Challenges challenges (node indices) of partition
// k for comm_r_new, as storage-proofs-update's Challenges iterator yields
// them: digest d = Poseidon_genrand(comm_r_new, k·DigestsPerPartition + d);
// challenge i of a digest is its little-endian bits [i·b, (i+1)·b), b =
// p.ChallengeBits(), with k in the bits above them.
func Challenges(p abi.UpdateProof, commRNew fr.Element, k int) ([]uint64, error) {
	if k < 0 || k >= p.Partitions {
		return nil, fmt.Errorf("update: partition %d of %s: want 0 … %d", k, p.Name, p.Partitions-1)
	}
	b, per := p.ChallengeBits(), p.ChallengesPerDigest()
	out := make([]uint64, 0, p.Challenges)
	index := uint64(k * p.DigestsPerPartition())
	for len(out) < p.Challenges {
		var di fr.Element
		di.SetUint64(index)
		d := hashGenRandomness(commRNew, di)
		bytes := d.Bytes() // big-endian
		bit := func(j int) uint64 { return uint64(bytes[31-j/8]>>(j%8)) & 1 }
		for i := 0; i < per && len(out) < p.Challenges; i++ {
			var c uint64
			for j := range b {
				c |= bit(i*b+j) << j
			}
			out = append(out, c|uint64(k)<<b)
		}
		index++
	}
	return out, nil
}

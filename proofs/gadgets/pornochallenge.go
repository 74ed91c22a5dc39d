package gadgets

import (
	"fmt"
	"math/bits"

	"github.com/filc2/filc2/proofs/poseidon"
	"github.com/filc2/filc2/proofs/r1cs"
)

// PoRNoChallengeSHA256 is storage-proofs-core's por_no_challenge_input over
// tree D (binary SHA-256): the challenge's bits come from outside (no index
// bit allocated, no public input), the siblings are allocated by the caller,
// one per level; then (computed root)·ONE = root.
func PoRNoChallengeSHA256(cs *r1cs.System, challengeBits []Boolean, leaf AllocatedNum, path [][]AllocatedNum, root AllocatedNum) error {
	return porNoChallenge(cs, challengeBits, leaf, path, root, func(arity int) (nodeHash, error) {
		if arity != 2 {
			return nil, fmt.Errorf("gadgets: a tree D level of arity %d, want 2", arity)
		}
		return func(cs *r1cs.System, ch []AllocatedNum) (AllocatedNum, error) {
			return HashMultiLeafSHA256(cs, ch), nil
		}, nil
	})
}

// PoRNoChallengePoseidon is por_no_challenge_input over a Poseidon tree (R):
// each level of path holds arity−1 allocated siblings (base levels, then the
// sub and top levels), hashed with the MerkleTree Poseidon of that arity.
func PoRNoChallengePoseidon(cs *r1cs.System, challengeBits []Boolean, leaf AllocatedNum, path [][]AllocatedNum, root AllocatedNum) error {
	return porNoChallenge(cs, challengeBits, leaf, path, root, func(arity int) (nodeHash, error) {
		c, err := poseidon.ConstantsFor(arity)
		if err != nil {
			return nil, err
		}
		return func(cs *r1cs.System, ch []AllocatedNum) (AllocatedNum, error) {
			return PoseidonHash(cs, c, ch)
		}, nil
	})
}

// porNoChallenge walks path from leaf: per level, log2(arity) of the
// challenge bits (least significant first) insert the current node among
// the siblings, and the level's hash gives the parent. Every bit must be
// used.
func porNoChallenge(cs *r1cs.System, challengeBits []Boolean, leaf AllocatedNum, path [][]AllocatedNum, root AllocatedNum,
	hasher func(arity int) (nodeHash, error)) error {
	cur := leaf
	used := 0
	for i, sibs := range path {
		arity := len(sibs) + 1
		if arity&(arity-1) != 0 || arity < 2 {
			return fmt.Errorf("gadgets: PoR level %d has %d siblings: want a power of two less one", i, len(sibs))
		}
		nb := bits.TrailingZeros(uint(arity))
		if used+nb > len(challengeBits) {
			return fmt.Errorf("gadgets: PoR level %d needs %d challenge bits, %d left", i, nb, len(challengeBits)-used)
		}
		hash, err := hasher(arity)
		if err != nil {
			return err
		}
		pushf(cs, "merkle proof (height=%d)", i)
		inserted := Insert(cs, cur, challengeBits[used:used+nb], sibs)
		cur, err = hash(cs, inserted)
		cs.Pop()
		if err != nil {
			return err
		}
		used += nb
	}
	if used != len(challengeBits) {
		return fmt.Errorf("gadgets: PoR used %d of %d challenge bits: the path and the challenge do not agree", used, len(challengeBits))
	}
	Equal(cs, cur, root)
	return nil
}

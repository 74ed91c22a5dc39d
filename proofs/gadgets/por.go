package gadgets

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/poseidon"
	"github.com/filc2/filc2/proofs/r1cs"
)

// AuthLevel is one level of a Merkle authentication path as the circuit
// allocates it: the arity−1 sibling values in child order and the position of
// the current node among the arity children.
type AuthLevel struct {
	Siblings []fr.Element
	Index    int
}

// nodeHash hashes one level's arity children into their parent.
type nodeHash func(cs *r1cs.System, children []AllocatedNum) (AllocatedNum, error)

// PoRSHA256 is storage-proofs-core's PoRCircuit over tree D (binary SHA-256,
// hash_multi_leaf_circuit), with leaf and root already allocated and the root
// private: per level one index bit, one sibling aux, insert_2 and the node hash;
// then the index bits packed into one public input and root equality.
func PoRSHA256(cs *r1cs.System, leaf, root AllocatedNum, path []AuthLevel) error {
	return por(cs, leaf, root, path, func(_ int) (nodeHash, error) {
		return func(cs *r1cs.System, ch []AllocatedNum) (AllocatedNum, error) {
			return HashMultiLeafSHA256(cs, ch), nil
		}, nil
	})
}

// PoRPoseidon is PoRCircuit over a Poseidon tree (C or R-last): the levels of
// path are hashed with Poseidon of arity len(Siblings)+1 each (base levels,
// then sub, then top), MerkleTree constants.
func PoRPoseidon(cs *r1cs.System, leaf, root AllocatedNum, path []AuthLevel) error {
	return por(cs, leaf, root, path, func(arity int) (nodeHash, error) {
		c, err := poseidon.ConstantsFor(arity)
		if err != nil {
			return nil, err
		}
		return func(cs *r1cs.System, ch []AllocatedNum) (AllocatedNum, error) {
			return PoseidonHash(cs, c, ch)
		}, nil
	})
}

func por(cs *r1cs.System, leaf, root AllocatedNum, path []AuthLevel, hasher func(arity int) (nodeHash, error)) error {
	cur := leaf
	var pathBits []Boolean
	var sibs []AllocatedNum
	for i, lv := range path {
		arity := len(lv.Siblings) + 1
		if arity&(arity-1) != 0 || arity < 2 || lv.Index < 0 || lv.Index >= arity {
			return fmt.Errorf("gadgets: PoR level %d: arity %d, index %d", i, arity, lv.Index)
		}
		hash, err := hasher(arity)
		if err != nil {
			return err
		}
		cs.Pushf("merkle tree hash %d", i)
		nb := bits.TrailingZeros(uint(arity))
		first := len(pathBits)
		for b := range nb {
			pathBits = append(pathBits, Is(AllocBit(cs, (lv.Index>>b)&1 == 1)))
		}
		sibs = sibs[:0]
		for _, s := range lv.Siblings {
			sibs = append(sibs, AllocNum(cs, s))
		}
		inserted := Insert(cs, cur, pathBits[first:], sibs)
		cur, err = hash(cs, inserted)
		cs.Pop()
		if err != nil {
			return err
		}
	}
	cs.Push("path")
	PackIntoInputs(cs, pathBits)
	cs.Pop()
	Equal(cs, cur, root)
	return nil
}

// PoseidonHash hashes allocated numbers with the Poseidon gadget (MerkleTree
// constants of c's arity).
func PoseidonHash(cs *r1cs.System, c *poseidon.Constants, in []AllocatedNum) (AllocatedNum, error) {
	var buf [36]poseidon.Num
	nums := buf[:0]
	for _, n := range in {
		nums = append(nums, poseidon.Num{Var: n.Var, Val: n.Value})
	}
	out, err := poseidon.HashCircuit(cs, c, nums)
	if err != nil {
		return AllocatedNum{}, err
	}
	return AllocatedNum{Var: out.Var, Value: out.Val}, nil
}

// HashColumn is stacked/circuit hash_single_column: Poseidon of arity 11 over
// 11 rows or of arity 2 over 2 rows.
func HashColumn(cs *r1cs.System, rows []AllocatedNum) (AllocatedNum, error) {
	if len(rows) != 2 && len(rows) != 11 {
		return AllocatedNum{}, fmt.Errorf("gadgets: column of %d rows, want 2 or 11", len(rows))
	}
	c, err := poseidon.ConstantsFor(len(rows))
	if err != nil {
		return AllocatedNum{}, err
	}
	return PoseidonHash(cs, c, rows)
}

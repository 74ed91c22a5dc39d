package update

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/gadgets"
	"github.com/filc2/filc2/proofs/poseidon"
	"github.com/filc2/filc2/proofs/r1cs"
)

// The gadgets of storage-proofs-update's gadgets.rs, each in the reference's
// allocation and enforce order.

// genRandomnessCircuit is Poseidon_genrand in-circuit: the legacy Poseidon
// gadget of arity 2 with the custom tag (311 constraints).
func genRandomnessCircuit(cs *r1cs.System, a, b gadgets.AllocatedNum) (gadgets.AllocatedNum, error) {
	c, err := poseidon.ConstantsFor(2)
	if err != nil {
		return gadgets.AllocatedNum{}, err
	}
	tag, err := poseidon.CustomTag(genRandomnessTagID)
	if err != nil {
		return gadgets.AllocatedNum{}, err
	}
	out, err := poseidon.HashCircuitTagged(cs, c, tag, []poseidon.Num{{Var: a.Var, Val: a.Value}, {Var: b.Var, Val: b.Value}})
	if err != nil {
		return gadgets.AllocatedNum{}, err
	}
	return gadgets.AllocatedNum{Var: out.Var, Value: out.Val}, nil
}

// packedLC appends Σ 2^i·bit_i to lc.
func packedLC(lc *r1cs.LC, bits []gadgets.AllocatedBit) {
	var pow fr.Element
	pow.SetOne()
	for _, b := range bits {
		lc.AddTerm(&pow, b.Var)
		pow.Double(&pow)
	}
}

// numToBits is allocated_num_to_allocated_bits: the 255 low bits of n's
// integer, least significant first, each an AllocatedBit (non-strict), then
// (Σ 2^i·bit_i)·ONE = n.
func numToBits(cs *r1cs.System, n gadgets.AllocatedNum) []gadgets.AllocatedBit {
	bits := gadgets.FieldIntoAllocatedBitsLE(cs, make([]gadgets.AllocatedBit, 0, gadgets.NumBits), &n.Value)
	cs.Enforce(func(a, b, c *r1cs.LC) {
		packedLC(a, bits)
		b.Add(r1cs.One)
		c.Add(n.Var)
	})
	return bits
}

// apexPoR is apex_por: the apex leaves hashed pairwise with tree D's hash2
// row by row up to the apex root, then por_no_challenge_input over tree D
// from the apex root along the partition path (one sibling per level,
// consumed by the partition bits) to comm_d.
func apexPoR(cs *r1cs.System, leaves []gadgets.AllocatedNum, partitionBits []gadgets.Boolean,
	partitionPath [][]gadgets.AllocatedNum, commD gadgets.AllocatedNum) error {
	if n := len(leaves); n == 0 || n&(n-1) != 0 {
		return fmt.Errorf("update: %d apex leaves, want a power of two", n)
	}
	row := leaves
	for len(row) > 1 {
		next := make([]gadgets.AllocatedNum, len(row)/2)
		for i := range next {
			next[i] = gadgets.Hash2SHA256(cs, row[2*i], row[2*i+1])
		}
		row = next
	}
	return gadgets.PoRNoChallengeSHA256(cs, partitionBits, row[0], partitionPath, commD)
}

// genChallengeBits is gen_challenge_bits: for digest j of the partition,
// digest_index = k·digests + j (allocated; (digests·partition + j·ONE)·ONE =
// digest_index), digest = Poseidon_genrand(comm_r_new, digest_index), its 255
// bits (numToBits), cut into chunks of bitsPerChallenge; challenges chunks in
// all.
func genChallengeBits(cs *r1cs.System, commRNew, partition gadgets.AllocatedNum, challenges, bitsPerChallenge int) ([][]gadgets.AllocatedBit, error) {
	per := gadgets.Capacity / bitsPerChallenge
	digests := (challenges + per - 1) / per
	var dpp fr.Element
	dpp.SetUint64(uint64(digests))
	out := make([][]gadgets.AllocatedBit, 0, challenges)
	for j := range digests {
		var jv, v fr.Element
		jv.SetUint64(uint64(j))
		v.Mul(&partition.Value, &dpp)
		v.Add(&v, &jv)
		index := gadgets.AllocNum(cs, v)
		cs.Enforce(func(a, b, c *r1cs.LC) {
			a.AddTerm(&dpp, partition.Var)
			a.AddTerm(&jv, r1cs.One)
			b.Add(r1cs.One)
			c.Add(index.Var)
		})
		digest, err := genRandomnessCircuit(cs, commRNew, index)
		if err != nil {
			return nil, err
		}
		bits := numToBits(cs, digest)
		take := per
		if j == digests-1 {
			take = challenges - len(out)
		}
		for i := range take {
			out = append(out, bits[i*bitsPerChallenge:(i+1)*bitsPerChallenge])
		}
	}
	return out, nil
}

// challengeHighBits is get_challenge_high_bits: for each h of hs (with its
// h_select bit), c_high = pack_bits(the top h bits of c), c_high_or_zero =
// c_high·h_select_bit (allocated, then enforced); then c_high_selected =
// their sum (allocated; (Σ c_high_or_zero)·ONE = c_high_selected).
func challengeHighBits(cs *r1cs.System, cBits []gadgets.AllocatedBit, hSelect []gadgets.AllocatedBit, hs []int) gadgets.AllocatedNum {
	bools := make([]gadgets.Boolean, len(cBits))
	for i, b := range cBits {
		bools[i] = gadgets.Is(b)
	}
	terms := make([]gadgets.AllocatedNum, len(hs))
	var sum fr.Element
	for k, h := range hs {
		cHigh := gadgets.PackBits(cs, bools[len(bools)-h:])
		var v fr.Element
		if hSelect[k].Value {
			v = cHigh.Value
		}
		terms[k] = gadgets.AllocNum(cs, v)
		sel := hSelect[k]
		cs.Enforce(func(a, b, c *r1cs.LC) {
			a.Add(cHigh.Var)
			b.Add(sel.Var)
			c.Add(terms[k].Var)
		})
		sum.Add(&sum, &v)
	}
	selected := gadgets.AllocNum(cs, sum)
	cs.Enforce(func(a, b, c *r1cs.LC) {
		for _, t := range terms {
			a.Add(t.Var)
		}
		b.Add(r1cs.One)
		c.Add(selected.Var)
	})
	return selected
}

// labelRNew is label_r_new: label_d_new·rho (AllocatedNum::mul), then
// label_r_new = label_r_old + that (allocated; (old + product)·ONE = new).
func labelRNew(cs *r1cs.System, old, dNew, rho gadgets.AllocatedNum) gadgets.AllocatedNum {
	prod := dNew.Mul(cs, rho)
	var v fr.Element
	v.Add(&old.Value, &prod.Value)
	n := gadgets.AllocNum(cs, v)
	cs.Enforce(func(a, b, c *r1cs.LC) {
		a.Add(old.Var)
		a.Add(prod.Var)
		b.Add(r1cs.One)
		c.Add(n.Var)
	})
	return n
}

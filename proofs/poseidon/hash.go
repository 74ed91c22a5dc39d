package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Hash returns the HashType::MerkleTree Poseidon hash of inputs: the optimised
// permutation of [2^arity − 1, inputs...], element 1. It panics unless
// len(inputs) = c.Arity(). It does not allocate.
func Hash(c *Constants, inputs []fr.Element) fr.Element {
	if len(inputs) != c.arity {
		panic(fmt.Sprintf("poseidon: %d inputs for arity %d", len(inputs), c.arity))
	}
	var buf [maxWidth]fr.Element
	s := buf[:c.width]
	s[0] = c.merkleTag
	copy(s[1:], inputs)
	return c.permuteToOutput(s)
}

// HashTagged is Hash with the domain tag tag in element 0 instead of the
// MerkleTree tag: the hash of HashType::Custom (CustomTag), whose one
// permutation neptune computes like MerkleTree's. It panics unless
// len(inputs) = c.Arity(). It does not allocate.
func HashTagged(c *Constants, tag fr.Element, inputs []fr.Element) fr.Element {
	if len(inputs) != c.arity {
		panic(fmt.Sprintf("poseidon: %d inputs for arity %d", len(inputs), c.arity))
	}
	var buf [maxWidth]fr.Element
	s := buf[:c.width]
	s[0] = tag
	copy(s[1:], inputs)
	return c.permuteToOutput(s)
}

// Hash2 is the arity-2 MerkleTree hash H(a, b) (filecoin-hashers hash2, tree R
// and comm_r = H(comm_c, comm_r_last)).
func Hash2(a, b fr.Element) fr.Element {
	c := mustConstants(2)
	s := [3]fr.Element{c.merkleTag, a, b}
	return c.permuteToOutput(s[:])
}

// Hash8 is the arity-8 MerkleTree hash (tree R/C nodes).
func Hash8(in *[8]fr.Element) fr.Element { return Hash(mustConstants(8), in[:]) }

// Hash11 is the arity-11 MerkleTree hash (11-layer columns).
func Hash11(in *[11]fr.Element) fr.Element { return Hash(mustConstants(11), in[:]) }

// HashColumn hashes one column of labels, as rust-fil-proofs hash_single_column:
// arity 2 for 2 layers, 11 for 11 layers; other lengths panic.
func HashColumn(col []fr.Element) fr.Element {
	switch len(col) {
	case 2, 11:
		return Hash(mustConstants(len(col)), col)
	}
	panic(fmt.Sprintf("poseidon: unsupported column length %d", len(col)))
}

// HashPlain is Hash computed by the plain permutation (Grain constants added
// every round, M every round): the reference the optimised form must equal.
func HashPlain(c *Constants, inputs []fr.Element) fr.Element {
	return HashTaggedPlain(c, c.merkleTag, inputs)
}

// HashTaggedPlain is HashTagged computed by the plain permutation.
func HashTaggedPlain(c *Constants, tag fr.Element, inputs []fr.Element) fr.Element {
	if len(inputs) != c.arity {
		panic(fmt.Sprintf("poseidon: %d inputs for arity %d", len(inputs), c.arity))
	}
	s := make([]fr.Element, c.width)
	s[0] = tag
	copy(s[1:], inputs)
	c.PermutePlain(s)
	return s[1]
}

// Permute applies the Poseidon permutation to state (len = c.Width()) in place,
// in neptune's optimised static form: compressed round constants, pre_sparse at
// round RF/2 − 1 and the sparse factors in the partial rounds.
func (c *Constants) Permute(state []fr.Element) {
	c.checkWidth(state)
	c.permute(state)
	var tmp [maxWidth]fr.Element
	mulDense(state, c.mixM, tmp[:len(state)])
}

// PermutePlain applies the permutation in its textbook form: each round adds its
// Grain constants, applies x^5 (to every element in full rounds, to element 0 in
// partial rounds) and multiplies by M.
func (c *Constants) PermutePlain(state []fr.Element) {
	c.checkWidth(state)
	t, h := c.width, FullRounds/2
	var tmp [maxWidth]fr.Element
	for r := range FullRounds + c.rp {
		rc := c.rc[r*t : (r+1)*t]
		for i := range state {
			state[i].Add(&state[i], &rc[i])
		}
		if r < h || r >= h+c.rp {
			for i := range state {
				sbox(&state[i])
			}
		} else {
			sbox(&state[0])
		}
		mulDense(state, c.mixM, tmp[:t])
	}
}

func (c *Constants) checkWidth(state []fr.Element) {
	if len(state) != c.width {
		panic(fmt.Sprintf("poseidon: state of %d elements for width %d", len(state), c.width))
	}
}

// permuteToOutput runs the optimised permutation and returns element 1, of the
// last M product computing only that element.
func (c *Constants) permuteToOutput(s []fr.Element) fr.Element {
	c.permute(s)
	return dot(c.mixM[c.width:2*c.width], s)
}

// permute runs the optimised permutation up to, and excluding, the final M
// product.
func (c *Constants) permute(s []fr.Element) {
	t, h := c.width, FullRounds/2
	s = s[:t]
	crc := c.crc
	var tmp [maxWidth]fr.Element
	for i := range s {
		s[i].Add(&s[i], &crc[i])
	}
	k := t
	for r := range h {
		fullRound(s, crc[k:k+t])
		k += t
		if r == h-1 {
			mulDense(s, c.mixPre, tmp[:t])
		} else {
			mulDense(s, c.mixM, tmp[:t])
		}
	}
	stride := 2*t - 1
	for p := range c.rp {
		sbox(&s[0])
		s[0].Add(&s[0], &crc[k])
		k++
		mulSparse(s, c.mixSparse[p*stride:(p+1)*stride])
	}
	for range h - 1 {
		fullRound(s, crc[k:k+t])
		k += t
		mulDense(s, c.mixM, tmp[:t])
	}
	for i := range s {
		sbox(&s[i])
	}
}

// sbox sets x to x^5.
func sbox(x *fr.Element) {
	var x2 fr.Element
	x2.Square(x)
	x2.Square(&x2)
	x.Mul(x, &x2)
}

// fullRound applies x^5 then adds key to every element.
func fullRound(s, key []fr.Element) {
	key = key[:len(s)]
	for i := range s {
		sbox(&s[i])
		s[i].Add(&s[i], &key[i])
	}
}

// mulDense sets s to s·P where mt = Pᵀ row-major (row j of mt yields new[j]);
// tmp is scratch of len(s).
func mulDense(s, mt, tmp []fr.Element) {
	t := len(s)
	for j := range tmp[:t] {
		tmp[j] = dot(mt[j*t:(j+1)*t], s)
	}
	copy(s, tmp[:t])
}

// mulSparse sets s to s·M″ for the sparse factor w = [w_hat (t) | v_rest (t−1)]:
// new[0] = Σ w_hat[i]·s[i], new[j] = s[j] + v_rest[j−1]·s[0].
func mulSparse(s, w []fr.Element) {
	t := len(s)
	wHat, vRest := w[:t], w[t:2*t-1]
	s0 := s[0]
	n0 := dot(wHat, s)
	var p fr.Element
	for j := 1; j < t; j++ {
		p.Mul(&vRest[j-1], &s0)
		s[j].Add(&s[j], &p)
	}
	s[0] = n0
}

// dot returns Σ a[i]·b[i] over len(a) terms.
func dot(a, b []fr.Element) fr.Element {
	b = b[:len(a)]
	var acc, p fr.Element
	for i := range a {
		p.Mul(&a[i], &b[i])
		acc.Add(&acc, &p)
	}
	return acc
}

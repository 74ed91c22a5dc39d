package poseidon

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// HashConstantLength returns the HashType::ConstantLength(n) hash of the n =
// len(inputs) ≥ 1 inputs, as neptune's simplex sponge computes it (rate =
// arity, capacity 1, domain tag n·2^64): inputs are added into the rate
// elements, the state is permuted after every arity inputs, and a final partial
// block has the rest of the rate zeroed before its permutation. For n ≤ arity
// this is one permutation of [n·2^64, inputs, 0, …]. The output is element 1.
func HashConstantLength(c *Constants, inputs []fr.Element) fr.Element {
	if len(inputs) == 0 {
		panic("poseidon: ConstantLength hash of no input (neptune's length 0 is the duplex sponge)")
	}
	var buf [maxWidth]fr.Element
	s := buf[:c.width]
	s[0] = ConstantLengthTag(len(inputs))
	pos := 0
	for i := range inputs {
		s[1+pos].Add(&s[1+pos], &inputs[i])
		if pos++; pos == c.arity {
			c.Permute(s)
			pos = 0
		}
	}
	if pos > 0 {
		for i := 1 + pos; i < c.width; i++ {
			s[i].SetZero()
		}
		c.Permute(s)
	}
	return s[1]
}

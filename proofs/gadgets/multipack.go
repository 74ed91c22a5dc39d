package gadgets

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// booleansValue returns Σ 2^i·bits[i] for at most Capacity bits.
func booleansValue(bits []Boolean) fr.Element {
	var le [fr.Bytes]byte
	for i := range bits {
		if bits[i].value {
			le[i>>3] |= 1 << (uint(i) & 7)
		}
	}
	e, err := fr.LittleEndian.Element(&le)
	if err != nil {
		panic("gadgets: packed value out of range: " + err.Error())
	}
	return e
}

// appendPacked appends Σ 2^i·bits[i] to lc (the Num built by
// add_bool_with_coeff with doubling coefficients).
func appendPacked(lc *r1cs.LC, bits []Boolean) {
	for i := range bits {
		appendBoolPow2(lc, bits[i], i)
	}
}

// PackIntoInputs is bellperson's multipack::pack_into_inputs: for each chunk of
// Capacity (254) bits, least significant first, a public input equal to
// Σ 2^i·bit_i and the constraint (Σ 2^i·bit_i)·ONE = input. It returns the
// inputs in order.
func PackIntoInputs(cs *r1cs.System, bits []Boolean) []r1cs.Variable {
	inputs := make([]r1cs.Variable, 0, (len(bits)+Capacity-1)/Capacity)
	for lo := 0; lo < len(bits); lo += Capacity {
		chunk := bits[lo:min(lo+Capacity, len(bits))]
		in := cs.AllocInput(booleansValue(chunk))
		cs.Enforce(func(a, b, c *r1cs.LC) {
			appendPacked(a, chunk)
			b.Add(r1cs.One)
			c.Add(in)
		})
		inputs = append(inputs, in)
	}
	return inputs
}

// PackBits is multipack::pack_bits: the first Capacity (254) bits, least
// significant first, packed into one aux number with the constraint
// (Σ 2^i·bit_i)·ONE = num.
func PackBits(cs *r1cs.System, bits []Boolean) AllocatedNum {
	bits = bits[:min(len(bits), Capacity)]
	n := AllocNum(cs, booleansValue(bits))
	cs.Enforce(func(a, b, c *r1cs.LC) {
		appendPacked(a, bits)
		b.Add(r1cs.One)
		c.Add(n.Var)
	})
	return n
}

// ComputeMultipacking is multipack::compute_multipacking: the values of the
// inputs PackIntoInputs allocates for these bits.
func ComputeMultipacking(bits []bool) []fr.Element {
	out := make([]fr.Element, 0, (len(bits)+Capacity-1)/Capacity)
	for lo := 0; lo < len(bits); lo += Capacity {
		out = append(out, elementFromBits(bits[lo:min(lo+Capacity, len(bits))]))
	}
	return out
}

// BytesToBits is multipack::bytes_to_bits: each byte most significant bit first.
func BytesToBits(bytes []byte) []bool {
	out := make([]bool, 0, 8*len(bytes))
	for _, v := range bytes {
		for i := 7; i >= 0; i-- {
			out = append(out, v>>uint(i)&1 == 1)
		}
	}
	return out
}

// BytesToBitsLE is multipack::bytes_to_bits_le: each byte least significant bit first.
func BytesToBitsLE(bytes []byte) []bool {
	out := make([]bool, 0, 8*len(bytes))
	for _, v := range bytes {
		for i := range 8 {
			out = append(out, v>>uint(i)&1 == 1)
		}
	}
	return out
}

package gadgets

import (
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Capacity is Fr::CAPACITY, the number of bits that always fit in a field
// element (NUM_BITS − 1 = 254): the chunk size of multipacking and the budget
// of a MultiEq constraint.
const Capacity = 254

// NumBits is Fr::NUM_BITS (255), the bit length of the modulus r.
const NumBits = 255

var (
	frZero     fr.Element
	frOne      = fr.One()
	frMinusOne = func() fr.Element { var e fr.Element; e.Neg(&frOne); return e }()

	// pow2[i] = 2^i, for the bit weights of packing, unpacking and MultiEq.
	pow2 = func() (t [256]fr.Element) {
		t[0] = fr.One()
		for i := 1; i < len(t); i++ {
			t[i].Double(&t[i-1])
		}
		return
	}()

	// negPow2[i] = −2^i.
	negPow2 = func() (t [256]fr.Element) {
		for i := range t {
			t[i].Neg(&pow2[i])
		}
		return
	}()

	// rMinusOneBits are the little-endian bits of r − 1 (the largest field
	// element), as bellpepper's to_bits_le_strict reads (−1).to_le_bits().
	rMinusOneBits = func() (b [256]bool) {
		m := new(big.Int).Sub(fr.Modulus(), big.NewInt(1))
		for i := range b {
			b[i] = m.Bit(i) == 1
		}
		return
	}()
)

// bitElems[0] = 0, bitElems[1] = 1.
var bitElems = [2]fr.Element{{}, fr.One()}

// b2i is 1 for true, 0 for false (compiled without a branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// bitElem is 1 or 0 as a field element. Bit values are random data, so this
// indexes a table instead of branching (a mispredicted branch per allocated
// bit cost a third of the Witness-mode SHA-256).
func bitElem(b bool) fr.Element { return bitElems[b2i(b)] }

// leBit reports bit i (LSB first) of the canonical integer of v, given its Bits().
func leBit(limbs *[4]uint64, i int) bool { return limbs[i>>6]>>(uint(i)&63)&1 == 1 }

// elementFromBits returns Σ 2^i over the true bits (at most 254 of them, so
// the sum is below r).
func elementFromBits(bits []bool) fr.Element {
	var le [fr.Bytes]byte
	for i, b := range bits {
		if b {
			le[i>>3] |= 1 << (uint(i) & 7)
		}
	}
	e, err := fr.LittleEndian.Element(&le)
	if err != nil {
		panic("gadgets: packed value out of range: " + err.Error())
	}
	return e
}

package gadgets

import "github.com/filc2/filc2/proofs/r1cs"

// UInt64 is 64 Booleans read as an unsigned integer, least significant bit
// first (rust-fil-proofs storage-proofs-core gadgets/uint64.rs).
type UInt64 struct {
	Bits  [64]Boolean
	Value uint64
}

// UInt64Constant is UInt64::constant: 64 constant bits.
func UInt64Constant(v uint64) UInt64 {
	u := UInt64{Value: v}
	for i := range u.Bits {
		u.Bits[i] = Constant(v>>uint(i)&1 == 1)
	}
	return u
}

// AllocUInt64 is UInt64::alloc: 64 AllocBits, least significant first.
func AllocUInt64(cs *r1cs.System, v uint64) UInt64 {
	u := UInt64{Value: v}
	for i := range u.Bits {
		u.Bits[i] = Is(AllocBit(cs, v>>uint(i)&1 == 1))
	}
	return u
}

// UInt64FromBitsBE is UInt64::from_bits_be: bits[0] is the most significant.
func UInt64FromBitsBE(bits []Boolean) UInt64 {
	if len(bits) != 64 {
		panic("gadgets: UInt64FromBitsBE needs 64 bits")
	}
	var u UInt64
	for i := range 64 {
		b := bits[63-i]
		u.Bits[i] = b
		if b.value {
			u.Value |= 1 << uint(i)
		}
	}
	return u
}

// UInt64FromBits is UInt64::from_bits: bits[0] is the least significant.
func UInt64FromBits(bits []Boolean) UInt64 {
	if len(bits) != 64 {
		panic("gadgets: UInt64FromBits needs 64 bits")
	}
	var u UInt64
	for i := range 64 {
		u.Bits[i] = bits[i]
		if bits[i].value {
			u.Value |= 1 << uint(i)
		}
	}
	return u
}

// ToBitsBE is UInt64::to_bits_be: the bits, most significant first.
func (u *UInt64) ToBitsBE() (out [64]Boolean) {
	for i := range out {
		out[i] = u.Bits[63-i]
	}
	return
}

// ToBitsLE is UInt64::to_bits_le: the bits, least significant first.
func (u *UInt64) ToBitsLE() [64]Boolean { return u.Bits }

// PackIntoInput is UInt64::pack_into_input: PackIntoInputs over the 64 bits
// (least significant first), one public input equal to the value.
func (u *UInt64) PackIntoInput(cs *r1cs.System) r1cs.Variable {
	return PackIntoInputs(cs, u.Bits[:])[0]
}

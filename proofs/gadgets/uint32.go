package gadgets

import (
	"math/bits"

	"github.com/filc2/filc2/proofs/r1cs"
)

// UInt32 is 32 Booleans read as an unsigned integer, least significant bit
// first (bellperson uint32.rs). Value is the integer the bits hold.
type UInt32 struct {
	Bits  [32]Boolean
	Value uint32
}

// UInt32Constant is UInt32::constant: 32 constant bits.
func UInt32Constant(v uint32) UInt32 {
	u := UInt32{Value: v}
	for i := range u.Bits {
		u.Bits[i] = Constant(v>>uint(i)&1 == 1)
	}
	return u
}

// AllocUInt32 is UInt32::alloc: 32 AllocBits, least significant first.
func AllocUInt32(cs *r1cs.System, v uint32) UInt32 {
	u := UInt32{Value: v}
	for i := range u.Bits {
		u.Bits[i] = Is(AllocBit(cs, v>>uint(i)&1 == 1))
	}
	return u
}

// UInt32FromBitsBE is UInt32::from_bits_be: bits[0] is the most significant.
func UInt32FromBitsBE(bits []Boolean) UInt32 {
	if len(bits) != 32 {
		panic("gadgets: UInt32FromBitsBE needs 32 bits")
	}
	var u UInt32
	for i := range 32 {
		b := bits[31-i]
		u.Bits[i] = b
		if b.value {
			u.Value |= 1 << uint(i)
		}
	}
	return u
}

// UInt32FromBits is UInt32::from_bits: bits[0] is the least significant.
func UInt32FromBits(bits []Boolean) UInt32 {
	if len(bits) != 32 {
		panic("gadgets: UInt32FromBits needs 32 bits")
	}
	var u UInt32
	for i := range 32 {
		u.Bits[i] = bits[i]
		if bits[i].value {
			u.Value |= 1 << uint(i)
		}
	}
	return u
}

// IntoBitsBE is UInt32::into_bits_be: the bits, most significant first.
func (u *UInt32) IntoBitsBE() (out [32]Boolean) {
	for i := range out {
		out[i] = u.Bits[31-i]
	}
	return
}

// AppendBitsBE appends the bits, most significant first, to dst.
func (u *UInt32) AppendBitsBE(dst []Boolean) []Boolean {
	for i := 31; i >= 0; i-- {
		dst = append(dst, u.Bits[i])
	}
	return dst
}

// Rotr is UInt32::rotr: rotation right by `by` (mod 32); no constraints.
func (u *UInt32) Rotr(by int) UInt32 {
	by %= 32
	r := UInt32{Value: bits.RotateLeft32(u.Value, -by)}
	for i := range r.Bits {
		r.Bits[i] = u.Bits[(i+by)%32]
	}
	return r
}

// Shr is UInt32::shr: shift right by `by` (mod 32), filled with constant
// false; no constraints.
func (u *UInt32) Shr(by int) UInt32 {
	by %= 32
	r := UInt32{Value: u.Value >> uint(by)}
	for i := range r.Bits {
		if i+by < 32 {
			r.Bits[i] = u.Bits[i+by]
		} else {
			r.Bits[i] = Constant(false)
		}
	}
	return r
}

// Xor is UInt32::xor: Xor(u_i, o_i) for i = 0..31 in order.
func (u *UInt32) Xor(cs *r1cs.System, o *UInt32) UInt32 {
	r := UInt32{Value: u.Value ^ o.Value}
	for i := range r.Bits {
		r.Bits[i] = Xor(cs, u.Bits[i], o.Bits[i])
	}
	return r
}

// UInt32SHA256Ch is UInt32::sha256_ch: SHA256Ch bit by bit, LSB first.
func UInt32SHA256Ch(cs *r1cs.System, a, b, c *UInt32) UInt32 {
	r := UInt32{Value: (a.Value & b.Value) ^ (^a.Value & c.Value)}
	for i := range r.Bits {
		r.Bits[i] = SHA256Ch(cs, a.Bits[i], b.Bits[i], c.Bits[i])
	}
	return r
}

// UInt32SHA256Maj is UInt32::sha256_maj: SHA256Maj bit by bit, LSB first.
func UInt32SHA256Maj(cs *r1cs.System, a, b, c *UInt32) UInt32 {
	r := UInt32{Value: (a.Value & b.Value) ^ (a.Value & c.Value) ^ (b.Value & c.Value)}
	for i := range r.Bits {
		r.Bits[i] = SHA256Maj(cs, a.Bits[i], b.Bits[i], c.Bits[i])
	}
	return r
}

// AddManyWidth is the number of result bits UInt32::addmany allocates for n
// operands: the bit length of n·(2^32 − 1) (33 for 2, 34 for 3–4, 35 for 5–8).
func AddManyWidth(n int) int { return bits.Len64(uint64(n) * 0xffffffff) }

// AddMany is UInt32::addmany, the sum mod 2^32 of 2 to 10 operands. If every
// operand bit is constant the result is a constant and nothing is allocated.
// Otherwise it allocates AddManyWidth(len(ops)) result bits (AllocBits, LSB
// first, into me's System) and hands Σ_op Σ_j 2^j·op_j = Σ_i 2^i·r_i to me.EnforceEqual; the
// carry bits above 32 are dropped from the result.
func AddMany(me *MultiEq, ops ...*UInt32) UInt32 {
	cs := me.cs
	if len(ops) < 2 || len(ops) > 10 {
		panic("gadgets: AddMany takes 2 to 10 operands")
	}
	var sum uint64
	allConst := true
	for _, op := range ops {
		sum += uint64(op.Value)
		if allConst {
			for j := range op.Bits {
				if op.Bits[j].kind != KindConstant {
					allConst = false
					break
				}
			}
		}
	}
	if allConst {
		return UInt32Constant(uint32(sum))
	}
	width := AddManyWidth(len(ops))
	var resVars [36]r1cs.Variable
	r := UInt32{Value: uint32(sum)}
	for i := range width {
		b := AllocBit(cs, sum>>uint(i)&1 == 1)
		resVars[i] = b.Var
		if i < 32 {
			r.Bits[i] = Is(b)
		}
	}
	s := me.reserve(width)
	if cs.Constraining() {
		for _, op := range ops {
			for j := range op.Bits {
				appendBoolPow2(&me.lhs, op.Bits[j], s+j)
			}
		}
		for i := range width {
			me.rhs.AddTerm(&pow2[s+i], resVars[i])
		}
	}
	me.bitsUsed += width
	return r
}

package gadgets

import "github.com/filc2/filc2/proofs/r1cs"

// ReverseBitNumbering is storage-proofs-core util::reverse_bit_numbering: bits
// padded with constant false to a whole number of bytes, then the bit order
// reversed within each byte (byte order unchanged). It returns a new slice.
func ReverseBitNumbering(bits []Boolean) []Boolean {
	n := (len(bits) + 7) &^ 7
	return AppendReverseBitNumbering(make([]Boolean, 0, n), bits)
}

// AppendReverseBitNumbering is ReverseBitNumbering appending to dst.
func AppendReverseBitNumbering(dst, bits []Boolean) []Boolean {
	for lo := 0; lo < len(bits); lo += 8 {
		for i := lo + 7; i >= lo; i-- {
			if i < len(bits) {
				dst = append(dst, bits[i])
			} else {
				dst = append(dst, Constant(false))
			}
		}
	}
	return dst
}

// AllocBytesLE is util::bytes_into_boolean_vec: one AllocBit per bit of the
// bytes, each byte least significant bit first.
func AllocBytesLE(cs *r1cs.System, bytes []byte) []Boolean {
	out := make([]Boolean, 0, 8*len(bytes))
	for _, v := range bytes {
		for i := range 8 {
			out = append(out, Is(AllocBit(cs, v>>uint(i)&1 == 1)))
		}
	}
	return out
}

// AllocBytesBE is util::bytes_into_boolean_vec_be: one AllocBit per bit of
// the bytes, each byte most significant bit first.
func AllocBytesBE(cs *r1cs.System, bytes []byte) []Boolean {
	out := make([]Boolean, 0, 8*len(bytes))
	for _, v := range bytes {
		for i := 7; i >= 0; i-- {
			out = append(out, Is(AllocBit(cs, v>>uint(i)&1 == 1)))
		}
	}
	return out
}

// AllocBitsU64LE is boolean::u64_into_boolean_vec_le: 64 AllocBits, least
// significant first.
func AllocBitsU64LE(cs *r1cs.System, v uint64) []Boolean {
	out := make([]Boolean, 64)
	for i := range out {
		out[i] = Is(AllocBit(cs, v>>uint(i)&1 == 1))
	}
	return out
}

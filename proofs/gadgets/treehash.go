package gadgets

import "github.com/filc2/filc2/proofs/r1cs"

// HashMultiLeafSHA256 is filecoin-hashers Sha256Function::hash_multi_leaf_circuit
// (the tree-D node hash): for each leaf in order, ToBitsLE (255 bits), padded
// with one constant false and bit-reversed within each byte; then
// HashBitsSHA256 over the concatenation.
func HashMultiLeafSHA256(cs *r1cs.System, leaves []AllocatedNum) AllocatedNum {
	var stack [512]Boolean
	bits := stack[:0]
	var le [256]Boolean
	for i := range leaves {
		pushf(cs, "%d_num_into_bits", i)
		lb := leaves[i].AppendBitsLE(cs, le[:0])
		cs.Pop()
		bits = AppendReverseBitNumbering(bits, lb)
	}
	return HashBitsSHA256(cs, bits)
}

// Hash2SHA256 is Sha256Function::hash2_circuit: ToBitsLE of a, then of b, then
// the same preimage and hash as HashMultiLeafSHA256 over [a, b].
func Hash2SHA256(cs *r1cs.System, a, b AllocatedNum) AllocatedNum {
	return HashMultiLeafSHA256(cs, []AllocatedNum{a, b})
}

// HashLeafBitsSHA256 is Sha256Function::hash_leaf_bits_circuit: left and right
// each padded with constant false to whole bytes and bit-reversed within each
// byte, then HashBitsSHA256 over left ‖ right.
func HashLeafBitsSHA256(cs *r1cs.System, left, right []Boolean) AllocatedNum {
	bits := make([]Boolean, 0, (len(left)+7)&^7+(len(right)+7)&^7)
	bits = AppendReverseBitNumbering(bits, left)
	bits = AppendReverseBitNumbering(bits, right)
	return HashBitsSHA256(cs, bits)
}

// HashBitsSHA256 is Sha256Function::hash_circuit: SHA256 of the bits, the
// digest bit-reversed within each byte (the little-endian bit order of the
// 32-byte digest), its first 254 bits packed with PackBits (the digest with
// its top two bits trimmed, as a field element).
func HashBitsSHA256(cs *r1cs.System, bits []Boolean) AllocatedNum {
	h := SHA256Words(cs, bits)
	return packDigestLE(cs, &h)
}

// packDigestLE packs the first Capacity bits of reverse_bit_numbering(digest).
func packDigestLE(cs *r1cs.System, h *[8]UInt32) AllocatedNum {
	var be, le [256]Boolean
	appendWordsBE(be[:0], h)
	for k := 0; k < 256; k += 8 {
		for j := range 8 {
			le[k+j] = be[k+7-j]
		}
	}
	pushf(cs, "pack_le %d", 0)
	n := PackBits(cs, le[:Capacity])
	cs.Pop()
	return n
}

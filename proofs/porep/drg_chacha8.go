package porep

import "math/bits"

// The ChaCha state, in D. J. Bernstein's original layout, which rand_chacha
// 0.3.1 uses for ChaCha8Rng (and which differs from RFC 8439's):
//
//	words 0-3    "expand 32-byte k"
//	words 4-11   the key (the RNG seed), 8 little-endian words
//	words 12-13  the 64-bit block counter, low word first
//	words 14-15  the 64-bit stream id (ChaCha8Rng::from_seed: 0), low word first
//
// An RNG's keystream is its blocks for counters 0, 1, 2, … in order; word w of
// the stream is word w%16 of block w/16. next_u64 returns w[2i] | w[2i+1]<<32
// for consecutive words: rand_core's BlockRng buffers 4 blocks (64 words) and
// only straddles a refill when a next_u32 left it at an odd word, which the
// DRG (ten next_u64 per node, 20 words) never does.
const (
	chachaC0 = 0x61707865
	chachaC1 = 0x3320646e
	chachaC2 = 0x79622d32
	chachaC3 = 0x6b206574
)

// chacha8DoubleRounds is ChaCha8's number of double rounds (rand_chacha's
// drounds for ChaCha8Core).
const chacha8DoubleRounds = 4

// chachaBlock writes to out the keystream block number counter of the ChaCha
// cipher with the given key and stream id after doubleRounds double rounds
// (4 for ChaCha8, 10 for ChaCha20), as little-endian words.
func chachaBlock(out *[16]uint32, key *[8]uint32, counter, stream uint64, doubleRounds int) {
	var (
		x0, x1, x2, x3     uint32 = chachaC0, chachaC1, chachaC2, chachaC3
		x4, x5, x6, x7            = key[0], key[1], key[2], key[3]
		x8, x9, x10, x11          = key[4], key[5], key[6], key[7]
		x12, x13, x14, x15        = uint32(counter), uint32(counter >> 32), uint32(stream), uint32(stream >> 32)
	)
	j12, j13, j14, j15 := x12, x13, x14, x15
	for range doubleRounds {
		// Columns.
		x0, x4, x8, x12 = quarterRound(x0, x4, x8, x12)
		x1, x5, x9, x13 = quarterRound(x1, x5, x9, x13)
		x2, x6, x10, x14 = quarterRound(x2, x6, x10, x14)
		x3, x7, x11, x15 = quarterRound(x3, x7, x11, x15)
		// Diagonals.
		x0, x5, x10, x15 = quarterRound(x0, x5, x10, x15)
		x1, x6, x11, x12 = quarterRound(x1, x6, x11, x12)
		x2, x7, x8, x13 = quarterRound(x2, x7, x8, x13)
		x3, x4, x9, x14 = quarterRound(x3, x4, x9, x14)
	}
	out[0] = x0 + chachaC0
	out[1] = x1 + chachaC1
	out[2] = x2 + chachaC2
	out[3] = x3 + chachaC3
	out[4] = x4 + key[0]
	out[5] = x5 + key[1]
	out[6] = x6 + key[2]
	out[7] = x7 + key[3]
	out[8] = x8 + key[4]
	out[9] = x9 + key[5]
	out[10] = x10 + key[6]
	out[11] = x11 + key[7]
	out[12] = x12 + j12
	out[13] = x13 + j13
	out[14] = x14 + j14
	out[15] = x15 + j15
}

// quarterRound is the ChaCha quarter round.
func quarterRound(a, b, c, d uint32) (uint32, uint32, uint32, uint32) {
	a += b
	d = bits.RotateLeft32(d^a, 16)
	c += d
	b = bits.RotateLeft32(b^c, 12)
	a += b
	d = bits.RotateLeft32(d^a, 8)
	c += d
	b = bits.RotateLeft32(b^c, 7)
	return a, b, c, d
}

package porep

import "math/bits"

// The BLAKE2b-512 initialisation vector (RFC 7693 §2.6).
const (
	blake2bIV0 = 0x6a09e667f3bcc908
	blake2bIV1 = 0xbb67ae8584caa73b
	blake2bIV2 = 0x3c6ef372fe94f82b
	blake2bIV3 = 0xa54ff53a5f1d36f1
	blake2bIV4 = 0x510e527fade682d1
	blake2bIV5 = 0x9b05688c2b3e6c1f
	blake2bIV6 = 0x1f83d9abfb41bd6b
	blake2bIV7 = 0x5be0cd19137e2179
)

// blake2b512Word0 returns the first little-endian word of the unkeyed
// BLAKE2b-512 digest of the 16-byte message whose little-endian words are m0
// and m1: h0 = IV0 ⊕ 0x01010040 (digest length 64, fanout 1, depth 1), one
// final compression with byte count 16 and message words 2-15 zero. The
// twelve rounds are written out with σ applied, so the zero message words
// fold away; the compiler drops what the first word does not need.
func blake2b512Word0(m0, m1 uint64) uint64 {
	const h0 = blake2bIV0 ^ 0x01010040
	var (
		v0, v1, v2, v3     uint64 = h0, blake2bIV1, blake2bIV2, blake2bIV3
		v4, v5, v6, v7     uint64 = blake2bIV4, blake2bIV5, blake2bIV6, blake2bIV7
		v8, v9, v10, v11   uint64 = blake2bIV0, blake2bIV1, blake2bIV2, blake2bIV3
		v12, v13, v14, v15 uint64 = blake2bIV4 ^ 16, blake2bIV5, ^uint64(blake2bIV6), blake2bIV7
	)
	// Round 0: σ0.
	v0, v4, v8, v12 = blake2bG(v0, v4, v8, v12, m0, m1)
	v1, v5, v9, v13 = blake2bG(v1, v5, v9, v13, 0, 0)
	v2, v6, v10, v14 = blake2bG(v2, v6, v10, v14, 0, 0)
	v3, v7, v11, v15 = blake2bG(v3, v7, v11, v15, 0, 0)
	v0, v5, v10, v15 = blake2bG(v0, v5, v10, v15, 0, 0)
	v1, v6, v11, v12 = blake2bG(v1, v6, v11, v12, 0, 0)
	v2, v7, v8, v13 = blake2bG(v2, v7, v8, v13, 0, 0)
	v3, v4, v9, v14 = blake2bG(v3, v4, v9, v14, 0, 0)
	// Round 1: σ1.
	v0, v4, v8, v12 = blake2bG(v0, v4, v8, v12, 0, 0)
	v1, v5, v9, v13 = blake2bG(v1, v5, v9, v13, 0, 0)
	v2, v6, v10, v14 = blake2bG(v2, v6, v10, v14, 0, 0)
	v3, v7, v11, v15 = blake2bG(v3, v7, v11, v15, 0, 0)
	v0, v5, v10, v15 = blake2bG(v0, v5, v10, v15, m1, 0)
	v1, v6, v11, v12 = blake2bG(v1, v6, v11, v12, m0, 0)
	v2, v7, v8, v13 = blake2bG(v2, v7, v8, v13, 0, 0)
	v3, v4, v9, v14 = blake2bG(v3, v4, v9, v14, 0, 0)
	// Round 2: σ2.
	v0, v4, v8, v12 = blake2bG(v0, v4, v8, v12, 0, 0)
	v1, v5, v9, v13 = blake2bG(v1, v5, v9, v13, 0, m0)
	v2, v6, v10, v14 = blake2bG(v2, v6, v10, v14, 0, 0)
	v3, v7, v11, v15 = blake2bG(v3, v7, v11, v15, 0, 0)
	v0, v5, v10, v15 = blake2bG(v0, v5, v10, v15, 0, 0)
	v1, v6, v11, v12 = blake2bG(v1, v6, v11, v12, 0, 0)
	v2, v7, v8, v13 = blake2bG(v2, v7, v8, v13, 0, m1)
	v3, v4, v9, v14 = blake2bG(v3, v4, v9, v14, 0, 0)
	// Round 3: σ3.
	v0, v4, v8, v12 = blake2bG(v0, v4, v8, v12, 0, 0)
	v1, v5, v9, v13 = blake2bG(v1, v5, v9, v13, 0, m1)
	v2, v6, v10, v14 = blake2bG(v2, v6, v10, v14, 0, 0)
	v3, v7, v11, v15 = blake2bG(v3, v7, v11, v15, 0, 0)
	v0, v5, v10, v15 = blake2bG(v0, v5, v10, v15, 0, 0)
	v1, v6, v11, v12 = blake2bG(v1, v6, v11, v12, 0, 0)
	v2, v7, v8, v13 = blake2bG(v2, v7, v8, v13, 0, m0)
	v3, v4, v9, v14 = blake2bG(v3, v4, v9, v14, 0, 0)
	// Round 4: σ4.
	v0, v4, v8, v12 = blake2bG(v0, v4, v8, v12, 0, m0)
	v1, v5, v9, v13 = blake2bG(v1, v5, v9, v13, 0, 0)
	v2, v6, v10, v14 = blake2bG(v2, v6, v10, v14, 0, 0)
	v3, v7, v11, v15 = blake2bG(v3, v7, v11, v15, 0, 0)
	v0, v5, v10, v15 = blake2bG(v0, v5, v10, v15, 0, m1)
	v1, v6, v11, v12 = blake2bG(v1, v6, v11, v12, 0, 0)
	v2, v7, v8, v13 = blake2bG(v2, v7, v8, v13, 0, 0)
	v3, v4, v9, v14 = blake2bG(v3, v4, v9, v14, 0, 0)
	// Round 5: σ5.
	v0, v4, v8, v12 = blake2bG(v0, v4, v8, v12, 0, 0)
	v1, v5, v9, v13 = blake2bG(v1, v5, v9, v13, 0, 0)
	v2, v6, v10, v14 = blake2bG(v2, v6, v10, v14, m0, 0)
	v3, v7, v11, v15 = blake2bG(v3, v7, v11, v15, 0, 0)
	v0, v5, v10, v15 = blake2bG(v0, v5, v10, v15, 0, 0)
	v1, v6, v11, v12 = blake2bG(v1, v6, v11, v12, 0, 0)
	v2, v7, v8, v13 = blake2bG(v2, v7, v8, v13, 0, 0)
	v3, v4, v9, v14 = blake2bG(v3, v4, v9, v14, m1, 0)
	// Round 6: σ6.
	v0, v4, v8, v12 = blake2bG(v0, v4, v8, v12, 0, 0)
	v1, v5, v9, v13 = blake2bG(v1, v5, v9, v13, m1, 0)
	v2, v6, v10, v14 = blake2bG(v2, v6, v10, v14, 0, 0)
	v3, v7, v11, v15 = blake2bG(v3, v7, v11, v15, 0, 0)
	v0, v5, v10, v15 = blake2bG(v0, v5, v10, v15, m0, 0)
	v1, v6, v11, v12 = blake2bG(v1, v6, v11, v12, 0, 0)
	v2, v7, v8, v13 = blake2bG(v2, v7, v8, v13, 0, 0)
	v3, v4, v9, v14 = blake2bG(v3, v4, v9, v14, 0, 0)
	// Round 7: σ7.
	v0, v4, v8, v12 = blake2bG(v0, v4, v8, v12, 0, 0)
	v1, v5, v9, v13 = blake2bG(v1, v5, v9, v13, 0, 0)
	v2, v6, v10, v14 = blake2bG(v2, v6, v10, v14, 0, m1)
	v3, v7, v11, v15 = blake2bG(v3, v7, v11, v15, 0, 0)
	v0, v5, v10, v15 = blake2bG(v0, v5, v10, v15, 0, m0)
	v1, v6, v11, v12 = blake2bG(v1, v6, v11, v12, 0, 0)
	v2, v7, v8, v13 = blake2bG(v2, v7, v8, v13, 0, 0)
	v3, v4, v9, v14 = blake2bG(v3, v4, v9, v14, 0, 0)
	// Round 8: σ8.
	v0, v4, v8, v12 = blake2bG(v0, v4, v8, v12, 0, 0)
	v1, v5, v9, v13 = blake2bG(v1, v5, v9, v13, 0, 0)
	v2, v6, v10, v14 = blake2bG(v2, v6, v10, v14, 0, 0)
	v3, v7, v11, v15 = blake2bG(v3, v7, v11, v15, m0, 0)
	v0, v5, v10, v15 = blake2bG(v0, v5, v10, v15, 0, 0)
	v1, v6, v11, v12 = blake2bG(v1, v6, v11, v12, 0, 0)
	v2, v7, v8, v13 = blake2bG(v2, v7, v8, v13, m1, 0)
	v3, v4, v9, v14 = blake2bG(v3, v4, v9, v14, 0, 0)
	// Round 9: σ9.
	v0, v4, v8, v12 = blake2bG(v0, v4, v8, v12, 0, 0)
	v1, v5, v9, v13 = blake2bG(v1, v5, v9, v13, 0, 0)
	v2, v6, v10, v14 = blake2bG(v2, v6, v10, v14, 0, 0)
	v3, v7, v11, v15 = blake2bG(v3, v7, v11, v15, m1, 0)
	v0, v5, v10, v15 = blake2bG(v0, v5, v10, v15, 0, 0)
	v1, v6, v11, v12 = blake2bG(v1, v6, v11, v12, 0, 0)
	v2, v7, v8, v13 = blake2bG(v2, v7, v8, v13, 0, 0)
	v3, v4, v9, v14 = blake2bG(v3, v4, v9, v14, 0, m0)
	// Round 10: σ0.
	v0, v4, v8, v12 = blake2bG(v0, v4, v8, v12, m0, m1)
	v1, v5, v9, v13 = blake2bG(v1, v5, v9, v13, 0, 0)
	v2, v6, v10, v14 = blake2bG(v2, v6, v10, v14, 0, 0)
	v3, v7, v11, v15 = blake2bG(v3, v7, v11, v15, 0, 0)
	v0, v5, v10, v15 = blake2bG(v0, v5, v10, v15, 0, 0)
	v1, v6, v11, v12 = blake2bG(v1, v6, v11, v12, 0, 0)
	v2, v7, v8, v13 = blake2bG(v2, v7, v8, v13, 0, 0)
	v3, v4, v9, v14 = blake2bG(v3, v4, v9, v14, 0, 0)
	// Round 11: σ1.
	v0, v4, v8, v12 = blake2bG(v0, v4, v8, v12, 0, 0)
	v1, v5, v9, v13 = blake2bG(v1, v5, v9, v13, 0, 0)
	v2, v6, v10, v14 = blake2bG(v2, v6, v10, v14, 0, 0)
	v3, v7, v11, v15 = blake2bG(v3, v7, v11, v15, 0, 0)
	v0, v5, v10, v15 = blake2bG(v0, v5, v10, v15, m1, 0)
	v1, v6, v11, v12 = blake2bG(v1, v6, v11, v12, m0, 0)
	v2, v7, v8, v13 = blake2bG(v2, v7, v8, v13, 0, 0)
	v3, v4, v9, v14 = blake2bG(v3, v4, v9, v14, 0, 0)
	return h0 ^ v0 ^ v8
}

// blake2bG is BLAKE2b's mixing function G with message words x and y.
func blake2bG(a, b, c, d, x, y uint64) (uint64, uint64, uint64, uint64) {
	a += b + x
	d = bits.RotateLeft64(d^a, -32)
	c += d
	b = bits.RotateLeft64(b^c, -24)
	a += b + y
	d = bits.RotateLeft64(d^a, -16)
	c += d
	b = bits.RotateLeft64(b^c, -63)
	return a, b, c, d
}

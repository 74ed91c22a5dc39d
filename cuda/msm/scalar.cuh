// cuda/msm/scalar.cuh — scalars for Pippenger: canonical form, the "absolute value"
// trick, signed (Booth) window digits, the window size, and the 0/1 classification.
//
// A scalar arrives as an Fr element in Montgomery form (gnark's fr.Element). prepare()
// makes it the plain integer s < r and, when s > (r−1)/2, replaces it by r − s and
// remembers the sign (s·P = (r − s)·(−P)). Then s < 2^254, and with c-bit windows
// W = ⌈255/c⌉ signed digits d_w ∈ [−2^(c−1), 2^(c−1)] represent it:
//     d_w = b_{cw−1} + Σ_{j<c−1} b_{cw+j}·2^j − b_{cw+c−1}·2^(c−1)      (b_{−1} = 0)
// (each window borrows the top bit of the one below; Σ d_w·2^(cw) telescopes to s
// because the top window's top bit b_{cW−1} is 0 when cW ≥ 255). Digit d ≠ 0 puts the
// point, negated when d < 0 (xor the scalar's sign), into bucket |d| − 1 of window w:
// 2^(c−1) buckets per window. The sign is kept in bit 31 of limb 7 of the prepared
// scalar (bits 254 and 255 are zero otherwise).
#pragma once

#include <cstdint>

#include "../ff/bls12_381.cuh"

namespace filc2 {
namespace msm {

constexpr int max_window_bits = 24;
constexpr int min_window_bits = 4;
constexpr int max_windows = 64;  // ⌈255/4⌉

// windows_for returns W = ⌈255/c⌉.
constexpr int windows_for(int c) { return (255 + c - 1) / c; }

// prepare: Montgomery x → canonical |x| with the sign in bit 31 of limb 7.
__device__ __forceinline__ fr_t prepare(const fr_t& x) {
	fr_t s = x.to_canonical();
	// half = (r − 1)/2 = r >> 1 (r is odd); gt: s > half.
	{
		uint32_t h = (bls12_381::fr_params::mod(0) >> 1) | (bls12_381::fr_params::mod(1) << 31);
		(void)ptx::sub_cc(h, s.l[0]);
#pragma unroll
		for (int j = 1; j < 7; ++j) {
			h = (bls12_381::fr_params::mod(j) >> 1) | (bls12_381::fr_params::mod(j + 1) << 31);
			(void)ptx::subc_cc(h, s.l[j]);
		}
		h = bls12_381::fr_params::mod(7) >> 1;
		(void)ptx::subc_cc(h, s.l[7]);
	}
	const uint32_t gt = ptx::subc(0, 0);  // all ones when half < s
	if (gt) {
		uint32_t m[8];
		m[0] = ptx::sub_cc(bls12_381::fr_params::mod(0), s.l[0]);
#pragma unroll
		for (int j = 1; j < 7; ++j) m[j] = ptx::subc_cc(bls12_381::fr_params::mod(j), s.l[j]);
		m[7] = ptx::subc(bls12_381::fr_params::mod(7), s.l[7]);
#pragma unroll
		for (int j = 0; j < 8; ++j) s.l[j] = m[j];
		s.l[7] |= 0x80000000u;
	}
	return s;
}

// limb_of returns limb j of a prepared scalar as an integer (the sign bit masked; 0
// beyond the top).
__device__ __forceinline__ uint32_t limb_of(const uint32_t* __restrict__ s, int j) {
	if (j >= 8) return 0;
	const uint32_t v = s[j];
	return j == 7 ? (v & 0x7fffffffu) : v;
}

// booth_digit returns d_w of a prepared scalar (limbs in memory) for windows of c bits.
__device__ __forceinline__ int32_t booth_digit(const uint32_t* __restrict__ s, int w, int c) {
	// x = bits [cw − 1, cw + c) (c + 1 bits), with b_{−1} = 0.
	uint32_t x;
	if (w == 0) {
		x = (s[0] & ((1u << c) - 1)) << 1;
	} else {
		const int pos = c * w - 1;
		const int j = pos >> 5, sh = pos & 31;
		const uint64_t v = static_cast<uint64_t>(limb_of(s, j)) | (static_cast<uint64_t>(limb_of(s, j + 1)) << 32);
		x = static_cast<uint32_t>(v >> sh) & ((2u << c) - 1);
	}
	const int32_t top = static_cast<int32_t>((x >> c) & 1);
	return static_cast<int32_t>((x & 1) + ((x >> 1) & ((1u << c) - 1))) - (top << c);
}

// scalar_sign: 1 when the prepared scalar was negated.
__device__ __forceinline__ uint32_t scalar_sign(const uint32_t* __restrict__ s) { return s[7] >> 31; }

// The 0/1 classes of a scalar in Montgomery form (fr_t::one() is R mod r).
enum scalar_class : uint32_t { class_zero = 0, class_one = 1, class_other = 2 };

__device__ __forceinline__ uint32_t classify(const fr_t& x) {
	if (x.is_zero()) return class_zero;
	if (x.is_one()) return class_one;
	return class_other;
}

// choose_window_bits: the c minimising a cost model in "mixed additions" units:
//   n·W·(1 + sort) + W·2^(c−1)·reduce
// (each scalar costs one mixed addition per window plus its sort; each bucket two full
// additions in the running-sum reduction, a full addition being ~1.45 mixed ones).
// The constants are leads; the benchmark (TestMSMBench) sweeps c around this choice.
inline int choose_window_bits(uint64_t n) {
	if (n == 0) return 8;
	const double sort = 0.12, reduce = 4.5; // reduce 3.0 picked c = 22 at 2^26, 5% slower than c = 20 on the H200
	int best = min_window_bits;
	double best_cost = 1e300;
	for (int c = min_window_bits; c <= 22; ++c) {
		const double W = windows_for(c);
		const double cost = static_cast<double>(n) * W * (1 + sort) + W * static_cast<double>(1u << (c - 1)) * reduce;
		if (cost < best_cost) {
			best_cost = cost;
			best = c;
		}
	}
	return best;
}

}  // namespace msm
}  // namespace filc2

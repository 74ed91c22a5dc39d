// cuda/msm/fixed_base.cuh — fixed-base multiplication for the Groth16 setup: point i is
// s_i·G for a fixed G and many scalars s_i (a 32GiB key is 427 M G1 and 33 M G2 of them).
//
// The table (made on the host: proofs/groth16's G1Table/G2Table) holds, for each of the
// fb_windows = 16 windows of 16 bits, the multiples d·2^(16k)·G for d in [1, 2^15]:
//     table[k·fb_half + d − 1] = d·2^(16k)·G.
// A scalar, in canonical form, is recoded into 16 signed digits: window k's 16 bits plus
// the carry from below; a value d ≥ 2^15 becomes the digit d − 2^16 (magnitude 2^16 − d,
// the point negated) and carries 1 into the next window. Scalars are below r < 2^255,
// whose top window is below 2^15, so the last window never carries out. Each point then
// costs at most 16 mixed additions from the table (which the L2 cache mostly holds: 50 MB
// for G1) and one share of a batch inversion (to_affine_body of generate.cuh). The
// recoding is proofs/groth16's fbDigits, so the points are the CPU setup's, bit for bit.
#pragma once

#include "point.cuh"

namespace filc2 {
namespace msm {

constexpr int fb_windows = 16;
constexpr uint32_t fb_half = uint32_t(1) << 15;
constexpr size_t fb_table_points = size_t(fb_windows) * fb_half;

// fb_digit returns window k's signed digit of a canonical scalar as (magnitude, negative),
// updating the carry.
__host__ __device__ __forceinline__ uint32_t fb_digit(const fr_t& s, int k, uint32_t& carry, bool& neg) {
	uint32_t d = ((s.l[k >> 1] >> (16 * (k & 1))) & 0xffffu) + carry;
	carry = 0;
	neg = false;
	if (d >= fb_half) {
		carry = 1;
		d = (uint32_t(1) << 16) - d;  // 0 when d = 2^16: the digit is 0, the carry moves on
		neg = true;
	}
	return d;
}

// madd_fb: a += q, inline for G1, out of line for G2 (compile time; the setup is not the
// hot path).
template <class F>
__device__ FILC2_NOINLINE void madd_call(xyzz_t<F>& a, const affine_t<F>& q) {
	madd(a, q);
}
template <class F>
__device__ __forceinline__ void madd_fb(xyzz_t<F>& a, const affine_t<F>& q) {
	if constexpr (sizeof(F) > 48)
		madd_call(a, q);
	else
		madd(a, q);
}

// fixed_base_body: thread i writes s_i·G (XYZZ) to out[i]; scalars are fr.Element in
// Montgomery form.
template <class F>
struct fixed_base_body {
	static constexpr unsigned threads = 128;
	static __device__ void run(size_t i, const affine_t<F>* __restrict__ table, const fr_t* __restrict__ scalars,
	                           xyzz_t<F>* __restrict__ out) {
		const fr_t s = scalars[i].to_canonical();
		xyzz_t<F> acc = xyzz_t<F>::inf();
		uint32_t carry = 0;
		for (int k = 0; k < fb_windows; ++k) {
			bool neg;
			const uint32_t d = fb_digit(s, k, carry, neg);
			if (d == 0) continue;
			affine_t<F> p = table[size_t(k) * fb_half + d - 1];
			if (neg) p.y = -p.y;
			madd_fb(acc, p);
		}
		out[i] = acc;
	}
};

}  // namespace msm
}  // namespace filc2

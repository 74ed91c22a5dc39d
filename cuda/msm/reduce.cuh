// cuda/msm/reduce.cuh — bucket reduction: window sum Σ_b (b + 1)·bucket[b], in parallel.
//
// Invariant over the levels: window sum = Σ_i T_i + 2^e·Σ_i (i + o)·R_i, starting from
// T = ∅, R = buckets, e = 0, o = 1. One level cuts each window's n values into
// segments of m (a power of two) and gives each segment s to a thread, which computes
// by running sums (from the top: r += R_j; v += r)
//     R'_s = Σ_j R_{sm+j},   V_s = Σ_j (j + o)·R_{sm+j},   U_s = Σ_j T_{sm+j}
// and writes T'_s = U_s + 2^e·V_s (e doublings). Since
//     Σ_i (i + o)·R_i = Σ_s V_s + m·Σ_s s·R'_s,
// the invariant holds again with (T', R', e + log m, o = 0); when one segment is left
// the window sum is T'_0. The first level does 2 full additions per bucket (the bulk of
// the work, 2^(c−1)·W·2 in all); later levels see m times fewer values and add the
// doublings. Each thread's chain is 3m additions long, so m is large (32) where there
// is parallelism to spare and small (4–8) in the last, latency-bound levels.
#pragma once

#include "backend.cuh"
#include "point.cuh"

namespace filc2 {
namespace msm {

template <class F>
struct reduce_body {
	static constexpr unsigned threads = 128;
	using xyzz = xyzz_t<F>;

	static __device__ __forceinline__ void plus(xyzz& a, const xyzz& b) { add_noinline(a, b); }

	// n values per window, m per segment; counts (first level only) masks empty buckets.
	static __device__ void run(size_t t, const xyzz* __restrict__ R_in, const xyzz* __restrict__ T_in,
	                           const uint32_t* __restrict__ counts, uint32_t n, uint32_t m, uint32_t o, uint32_t e,
	                           xyzz* __restrict__ T_out, xyzz* __restrict__ R_out) {
		const uint32_t segs = n / m;
		const size_t g = t / segs, s = t % segs;
		const size_t base = g * n + s * m;
		xyzz r = xyzz::inf(), v = xyzz::inf(), u = xyzz::inf();
		for (uint32_t j = m; j-- > 0;) {
			const size_t i = base + j;
			if (!counts || counts[i] != 0) plus(r, R_in[i]);
			if (j + o > 0) plus(v, r);
			if (T_in) plus(u, T_in[i]);
		}
		for (uint32_t k = 0; k < e; ++k) dbl_noinline(v);
		plus(u, v);
		T_out[t] = u;
		if (R_out) R_out[t] = r;
	}
};

// reduce_m picks the segment length for a level with n values in each of g windows.
inline uint32_t reduce_m(uint32_t n, uint32_t g) {
	const size_t want = 1u << 17;  // threads that keep the device busy
	uint32_t m = 1;
	while (m < 32 && 2 * m <= n && static_cast<size_t>(g) * n / (2 * m) >= want) m *= 2;
	if (m == 1) m = n < 8 ? n : 8;
	return m;
}

// finish_body: out[w] = Jacobian of sums[w] (+ extra for w == 0, when given).
template <class F>
struct finish_body {
	static constexpr unsigned threads = 32;
	static __device__ void run(size_t w, const xyzz_t<F>* __restrict__ sums, const xyzz_t<F>* __restrict__ extra,
	                           jac_t<F>* __restrict__ out) {
		xyzz_t<F> p = sums[w];
		if (w == 0 && extra) add_noinline(p, *extra);
		out[w] = to_jacobian_cold(p);
	}
};

// add_sums_body: acc[t] += src[t] (a streamed MSM's chunk sums into its running totals).
template <class F>
struct add_sums_body {
	static constexpr unsigned threads = 32;
	static __device__ void run(size_t t, xyzz_t<F>* __restrict__ acc, const xyzz_t<F>* __restrict__ src) {
		add_noinline(acc[t], src[t]);
	}
};

}  // namespace msm
}  // namespace filc2

// cuda/ec/batch_affine.cuh — XYZZ → affine for many points with one inversion per thread.
//
// batch_to_affine is a device function for a grid-stride layout: the calling thread
// converts the points first, first + stride, first + 2·stride, … below n (consecutive
// threads touch consecutive points, so every pass is coalesced). Montgomery's trick:
// with d_i = ZZ_i·ZZZ_i, a forward pass stores the prefix products in out[i].x, one
// inversion gives 1/(d_0⋯d_k), and a backward pass peels off 1/d_i. Cost per point
// 9M plus one inversion per thread; no scratch memory beyond out.
#pragma once

#include "xyzz.cuh"

namespace filc2 {

template <class F>
__device__ __forceinline__ void batch_to_affine(affine_t<F>* out, const xyzz_t<F>* in, size_t n, size_t first,
                                                size_t stride) {
	if (first >= n) return;
	F acc = F::one();
	size_t last = first;
	for (size_t i = first; i < n; i += stride) {
		const xyzz_t<F> p = in[i];
		out[i].x = acc;  // product of the d_j before i
		if (!p.is_inf()) acc = acc * (p.ZZ * p.ZZZ);
		last = i;
	}
	F inv = acc.inverse();  // 1/(product of every d_j)
	for (size_t i = last + stride;;) {
		i -= stride;
		const xyzz_t<F> p = in[i];
		if (p.is_inf()) {
			out[i] = affine_t<F>::inf();
		} else {
			const F d = p.ZZ * p.ZZZ;
			const F inv_d = inv * out[i].x;  // 1/d_i
			inv = inv * d;                   // now 1/(d_first⋯d_{i−1})
			out[i] = {p.X * (inv_d * p.ZZZ), p.Y * (inv_d * p.ZZ)};
		}
		if (i == first) break;
	}
}

}  // namespace filc2

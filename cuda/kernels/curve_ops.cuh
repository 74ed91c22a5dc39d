// cuda/kernels/curve_ops.cuh — element-wise curve kernels for the tests: each thread
// forms one XYZZ result from affine inputs; a second step writes it out as affine
// (one inversion per point, or batch inversion) or Jacobian.
#pragma once

#include <cstddef>

#include "../ec/batch_affine.cuh"
#include "../ec/xyzz.cuh"
#include "../ff/bls12_381.cuh"
#include "../filc2_cuda.h"

namespace filc2 {

// lift maps an affine point to XYZZ with a non-trivial Z = λ, so that the general
// formulas (not the Z = 1 special case) are exercised: (x·λ², y·λ³, λ², λ³).
// λ is derived from the data (never zero).
template <class F>
__device__ __forceinline__ xyzz_t<F> lift(const affine_t<F>& p, const F& seed) {
	if (p.is_inf()) return xyzz_t<F>::inf();
	F lambda = seed + F::one();
	if (lambda.is_zero()) lambda = F::one();
	const F l2 = lambda.sqr();
	const F l3 = l2 * lambda;
	return {p.x * l2, p.y * l3, l2, l3};
}

// scalar_bit returns bit k of a canonical Fr element.
__device__ __forceinline__ uint32_t scalar_bit(const fr_t& s, int k) { return (s.l[k >> 5] >> (k & 31)) & 1; }

template <class F, int OP>
__global__ void curve_op_kernel(xyzz_t<F>* __restrict__ out, const affine_t<F>* __restrict__ a,
                                const affine_t<F>* __restrict__ b, const fr_t* __restrict__ s, size_t n) {
	const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
	for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
		const affine_t<F> p = a[i];
		xyzz_t<F> r;
		if constexpr (OP == FILC2_EC_ADD) {
			const affine_t<F> q = b[i];
			r = lift(p, q.x);
			r.add(lift(q, p.y));
		}
		if constexpr (OP == FILC2_EC_MADD) {
			const affine_t<F> q = b[i];
			r = lift(p, q.y);
			r.add(q);
		}
		if constexpr (OP == FILC2_EC_DBL) {
			r = lift(p, p.x);
			r.dbl();
		}
		if constexpr (OP == FILC2_EC_NEG) r = lift(p, p.y).neg();
		if constexpr (OP == FILC2_EC_SMUL) {
			const fr_t k = s[i].to_canonical();
			r = xyzz_t<F>::inf();
#pragma unroll 1
			for (int bit = 254; bit >= 0; --bit) {  // r < 2^255
				r.dbl();
				if (scalar_bit(k, bit)) r.add(p);
			}
		}
		out[i] = r;
	}
}

template <class F>
__global__ void to_affine_kernel(affine_t<F>* __restrict__ out, const xyzz_t<F>* __restrict__ in, size_t n) {
	const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
	for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
		out[i] = in[i].to_affine();
}

template <class F>
__global__ void batch_to_affine_kernel(affine_t<F>* out, const xyzz_t<F>* in, size_t n) {
	const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
	batch_to_affine(out, in, n, static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x, stride);
}

// jacobian_t is the output layout of gnark's G1Jac / G2Jac.
template <class F>
struct jacobian_out {
	F x, y, z;
};

template <class F>
__global__ void to_jacobian_kernel(jacobian_out<F>* __restrict__ out, const xyzz_t<F>* __restrict__ in, size_t n) {
	const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
	for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
		jacobian_out<F> j;
		in[i].to_jacobian(j.x, j.y, j.z);
		out[i] = j;
	}
}

}  // namespace filc2

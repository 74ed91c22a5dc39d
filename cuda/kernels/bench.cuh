// cuda/kernels/bench.cuh — throughput probes for field multiplication.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../ff/fp64_mul.cuh"
#include "../ff/inverse.cuh"
#include "../ff/karatsuba.cuh"
#include "mul_variants.cuh"

namespace filc2 {

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

// random_kernel fills n mont_t elements with pseudo-random reduced values: random
// limbs with the top limb below the modulus' top limb (so the value is < modulus).
template <class F>
__global__ void random_kernel(F* out, size_t n, uint64_t seed) {
	const uint32_t top_limit = F::modulus_limb(F::limbs - 1);
	const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
	for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
		F x;
#pragma unroll
		for (int j = 0; j < F::limbs; ++j) x.l[j] = static_cast<uint32_t>(splitmix64(seed ^ (i * 64 + j)) >> 16);
		x.l[F::limbs - 1] %= top_limit;
		out[i] = x;
	}
}

// alt_mul: the product's other coding — the lo/hi chains for a prime field, for Fp2 the
// lazy product when the type's is eager, and back.
template <class P>
__device__ __forceinline__ mont_t<P> alt_mul(const mont_t<P>& x, const mont_t<P>& y) {
	return mul_lohi(x, y);
}
template <class F, bool Lazy>
__device__ __forceinline__ ext2_t<F, Lazy> alt_mul(const ext2_t<F, Lazy>& x, const ext2_t<F, Lazy>& y) {
	return Lazy ? ext2_t<F, Lazy>::mul_eager(x, y) : ext2_t<F, Lazy>::mul_lazy(x, y);
}

// The operations a probe can repeat: mont_t's product, the other coding (alt_mul), a square,
// the Fermat inversion, and inverse_vartime with every lane of a warp inverting one value
// (as the batch-affine MSM does: one inversion per warp, no divergence), and the product with
// its limb products on the FP64 pipe (ff/fp64_mul.cuh; Fr and Fp), and the Karatsuba product
// (ff/karatsuba.cuh; Fr and Fp).
enum bench_op {
	BENCH_MUL = 0,
	BENCH_MUL_ALT = 1,
	BENCH_SQR = 2,
	BENCH_INV = 3,
	BENCH_INV_VARTIME = 4,
	BENCH_MUL_FP64 = 5,
	BENCH_MUL_KARA = 6
};

template <int OP, class F>
__device__ __forceinline__ F bench_step(const F& x, const F& m) {
	if constexpr (OP == BENCH_MUL) return x * m;
	if constexpr (OP == BENCH_MUL_ALT) return alt_mul(x, m);
	if constexpr (OP == BENCH_SQR) return x.sqr();
	if constexpr (OP == BENCH_INV) return x.inverse() + m;
	if constexpr (OP == BENCH_INV_VARTIME) return inverse_vartime(x) + m;
	if constexpr (OP == BENCH_MUL_FP64) return mul_fp64(x, m);
	if constexpr (OP == BENCH_MUL_KARA) return mul_kara(x, m);
}

// warp_uniform: the element of a[] that lane 0 of this warp reads (i rounded down to 32;
// blocks and strides are whole warps), for the inversion probe.
template <class F>
__device__ __forceinline__ F warp_uniform(const F* __restrict__ a, size_t i) {
	return a[i & ~size_t(31)];
}

// once_kernel: out[i] = a[i] op b[i] (1 operation, 3 elements of traffic per element).
template <class F, int OP>
__global__ void once_kernel(F* __restrict__ out, const F* __restrict__ a, const F* __restrict__ b, size_t n) {
	const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
	for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
		if constexpr (OP == BENCH_INV_VARTIME)
			out[i] = bench_step<OP>(warp_uniform(a, i), b[i]);
		else
			out[i] = bench_step<OP>(a[i], b[i]);
	}
}

// chain_kernel: two independent chains of k operations per element (ILP 2) and one
// product written: 2k + 1 operations and 3 elements of traffic per element.
template <class F, int OP>
__global__ void chain_kernel(F* __restrict__ out, const F* __restrict__ a, const F* __restrict__ b, size_t n, int k) {
	const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
	for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
		const F m = b[i];
		F x = OP == BENCH_INV_VARTIME ? warp_uniform(a, i) : a[i];
		F z = x + m;
#pragma unroll 1
		for (int r = 0; r < k; ++r) {
			x = bench_step<OP>(x, m);
			z = bench_step<OP>(z, m);
		}
		out[i] = x * z;
	}
}

}  // namespace filc2

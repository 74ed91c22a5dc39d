// cuda/msm/generate.cuh — inputs made on the device, for tests and benchmarks.
//
// Bases: point i = (k_b + j)·G with b = ⌊i/64⌋, j = i mod 64 and
//     k_b = (splitmix64(seed + b) >> 2) + 1      (1 ≤ k_b ≤ 2^62)
// G a generator passed in. Each thread makes one block of 64: k_b·G by double-and-add
// (62 doublings, ~31 additions), then 63 mixed additions of G, then one batch inversion
// (Montgomery's trick) for the 64 affine conversions: ~2.5 curve operations and ~10
// multiplications of inversion per point, so 2^26 G1 points take well under a second.
// The points are distinct (k_b + j differ with overwhelming probability) and valid;
// ffi/msm_cuda_test.go recomputes a sample with gnark from the same formula.
//
// Scalars: splitmix64 limbs, the top limb reduced below r's (never zero in practice);
// the "witness" shape is 51 % zeros, 47 % ones, 2 % random (the fractions of a PoRep
// witness after synthesis, per shared/docs).
#pragma once

#include "backend.cuh"
#include "point.cuh"
#include "scalar.cuh"

namespace filc2 {
namespace msm {

constexpr uint32_t gen_block = 64;

__host__ __device__ __forceinline__ uint64_t mix64(uint64_t x) {
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

// gen_body: thread t writes the XYZZ points of block first_block + t into out[t·64 …]
// (count points in all, from the first of that block).
template <class F>
struct gen_body {
	static constexpr unsigned threads = 128;
	static __device__ void run(size_t t, affine_t<F> g, uint64_t seed, size_t first_block, size_t count,
	                           xyzz_t<F>* __restrict__ out) {
		const uint64_t k = (mix64(seed + first_block + t) >> 2) + 1;
		const xyzz_t<F> gx = xyzz_t<F>::from_affine(g);
		xyzz_t<F> p = xyzz_t<F>::inf();
		for (int bit = 62; bit >= 0; --bit) {
			dbl_noinline(p);
			if ((k >> bit) & 1) add_noinline(p, gx);
		}
		const size_t i0 = t * gen_block;
		for (uint32_t j = 0; j < gen_block && i0 + j < count; ++j) {
			out[i0 + j] = p;
			add_noinline(p, gx);
		}
	}
};

// to_affine_body: thread t converts points [t·64, t·64 + 64) ∩ [0, count) of in to
// affine in out, with one inversion (Montgomery's trick; ec/batch_affine.cuh's method
// with cold products, out[i].x holding the prefix products).
template <class F>
struct to_affine_body {
	static constexpr unsigned threads = 128;
	static __device__ void run(size_t t, const xyzz_t<F>* __restrict__ in, size_t count, affine_t<F>* out) {
		using O = field_ops<F>;
		const size_t i0 = t * gen_block;
		const size_t i1 = i0 + gen_block < count ? i0 + gen_block : count;
		F acc = F::one();
		for (size_t i = i0; i < i1; ++i) {
			const xyzz_t<F> p = in[i];
			out[i].x = acc;
			if (!p.is_inf()) acc = O::mul(acc, O::mul(p.ZZ, p.ZZZ));
		}
		F inv = acc.inverse();
		for (size_t i = i1; i-- > i0;) {
			const xyzz_t<F> p = in[i];
			if (p.is_inf()) {
				out[i] = affine_t<F>::inf();
				continue;
			}
			const F d = O::mul(p.ZZ, p.ZZZ);
			const F inv_d = O::mul(inv, out[i].x);
			inv = O::mul(inv, d);
			out[i] = {O::mul(p.X, O::mul(inv_d, p.ZZZ)), O::mul(p.Y, O::mul(inv_d, p.ZZ))};
		}
	}
};

// fold_body: out[j] = Σ_k bases[start + k·per + j], k < copies (the folded bases of a
// query whose scalars repeat in `copies` runs of `per`: filc2_msm_fold). Adjacent threads
// read adjacent points, so bases in mapped host memory are read once, coalesced. Cold
// code: the out-of-line addition (an inlined G2 one would double the file's compile time).
template <class F>
struct fold_body {
	static constexpr unsigned threads = 128;
	static __device__ void run(size_t j, const affine_t<F>* __restrict__ bases, size_t start, size_t per, size_t copies,
	                           xyzz_t<F>* __restrict__ out) {
		xyzz_t<F> acc = xyzz_t<F>::inf();
		for (size_t k = 0; k < copies; ++k) {
			const affine_t<F> q = bases[start + k * per + j];
			if (!q.is_inf()) add_noinline(acc, xyzz_t<F>{q.x, q.y, F::one(), F::one()});
		}
		out[j] = acc;
	}
};

// random_scalars_body: mode 0 dense random, 1 witness-shaped.
struct random_scalars_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t i, uint64_t seed, int mode, fr_t* __restrict__ out) {
		fr_t x;
		const uint64_t h = mix64(seed ^ (i * 0x632be59bd9b4e019ull));
		if (mode == 1) {
			const uint32_t u = static_cast<uint32_t>(h % 100);
			if (u < 51) {
				out[i] = fr_t::zero();
				return;
			}
			if (u < 98) {
				out[i] = fr_t::one();
				return;
			}
		}
		for (int j = 0; j < 8; ++j) x.l[j] = static_cast<uint32_t>(mix64(h + j + 1) >> 17);
		x.l[7] %= bls12_381::fr_params::mod(7);
		out[i] = x;
	}
};

// ones_bitmap_body: word w of the bitmap of the scalars equal to 1.
struct ones_bitmap_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t w, const fr_t* __restrict__ scalars, size_t n, uint64_t* __restrict__ words) {
		uint64_t x = 0;
		for (uint32_t b = 0; b < 64; ++b) {
			const size_t i = w * 64 + b;
			if (i < n && scalars[i].is_one()) x |= uint64_t(1) << b;
		}
		words[w] = x;
	}
};

// fill_words_body: words[w] = v (the all-ones bitmap).
struct fill_words_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t w, uint64_t v, uint64_t* __restrict__ words) { words[w] = v; }
};

}  // namespace msm
}  // namespace filc2

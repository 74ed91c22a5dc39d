// cuda/msm/accumulate_affine.cuh — the first accumulation level in affine coordinates,
// one inversion per warp and step (batch-affine bucket accumulation).
//
// Same input, output and load balance as acc0_body (accumulate.cuh): the sorted pairs in
// sub-streams of L consecutive entries, each sub-stream summing the runs of equal keys
// it holds, a run that starts its key stored into its bucket, the sub-stream's first
// run (its head) sent to the next level's sequence S1[v] (∞ when it starts its key). The
// levels above are unchanged. What differs is the arithmetic: a sub-stream's running sum
// is an affine point, and adding P = (x2, y2) to A = (x1, y1) is
//     λ = (y2 − y1)/(x2 − x1),  x3 = λ² − x1 − x2,  y3 = λ·(x1 − x3) − y1
// (3 products), the division shared by every addition of the warp's step:
//   * each lane runs K sub-streams; a step adds one pair to each, so a warp has up to 32·K
//     independent additions whose denominators are multiplied into one product
//     (Montgomery's trick: 1 product forward, 2 back per addition);
//   * the lanes' products are combined by a butterfly (5 shuffles of a field element,
//     5 products, all lanes ending with the warp's product), every lane inverts that one
//     value (the same instructions for all 32: inverse_vartime, ~50 products' worth), and
//     peels its own share back off (5 products);
// In lane time that is 6 + (10 + 42)/K products per addition (all 32 lanes execute the
// inversion, ~42 products' worth), against ~9.7 for the XYZZ mixed addition of acc0_body:
// no gain below K ≈ 16, and measured 2.9× slower than acc0_body on an H100 (latency: 3–6
// warps an SM). Kept as a measured experiment (msm_config variants 2–4, 6; cuda/NOTES.md,
// session 12); a winning version needs the inversion shared across warps.
//
// State per sub-stream: the running sum (x, y) and the exclusive prefix product of the
// step live in shared memory (36 words for G1, 72 for G2, lane-interleaved so that a
// warp's accesses hit 32 banks); its key is the key of the pair it added last
// (re-read from the pairs); flags (head, starting, empty sum, adding, doubling) are bits.
// A new key or an empty sum takes the point as it is (no addition); equal x (P = ±A:
// repeated bases, never distinct SRS points) doubles (denominator 2·y1, numerator 3·x1²)
// or empties the sum; a base at infinity is skipped. Lanes whose sub-streams ended keep
// running the steps with nothing to add (denominator 1), as shuffles need every lane.
#pragma once

#include "../ff/inverse.cuh"
#include "accumulate.cuh"
#include "backend.cuh"
#include "point.cuh"
#include "sort.cuh"

namespace filc2 {
namespace msm {

template <class F, int K, unsigned Threads = 32, int MinBlocks = 1>
struct acc0_affine_body {
	static_assert(K >= 1 && K <= 32, "acc0_affine_body: 1 to 32 sub-streams a lane");
	static constexpr unsigned threads = Threads;
	static constexpr int min_blocks = MinBlocks;
	static constexpr int words = sizeof(F) / 4;
	static constexpr int fields = 3;  // x, y, prefix
	static constexpr size_t smem_words = size_t(K) * fields * words * 32;
	using affine = affine_t<F>;
	using xyzz = xyzz_t<F>;
	using ops = field_ops<F>;  // G2: out-of-line Fp2 products (compile time, point.cuh)
	enum : int { fx = 0, fy = 1, fpre = 2 };

	// slot: sub-stream k's field f of this lane, lane-interleaved words.
	static __device__ __forceinline__ F load(const uint32_t* smem, int k, int f) {
		const uint32_t* s = smem + (size_t(k) * fields + f) * words * 32;
		F x;
		uint32_t* w = reinterpret_cast<uint32_t*>(&x);
#pragma unroll
		for (int j = 0; j < words; ++j) w[j] = s[j * 32];
		return x;
	}
	static __device__ __forceinline__ void store(uint32_t* smem, int k, int f, const F& x) {
		uint32_t* s = smem + (size_t(k) * fields + f) * words * 32;
		const uint32_t* w = reinterpret_cast<const uint32_t*>(&x);
#pragma unroll
		for (int j = 0; j < words; ++j) s[j * 32] = w[j];
	}

	static __device__ __forceinline__ F load_x(const affine* __restrict__ bases, uint32_t v) {
		return bases[v & 0x7fffffffu].x;  // negation changes y only
	}

	static __device__ __forceinline__ xyzz sum_of(const uint32_t* smem, int k, bool empty) {
		if (empty) return xyzz::inf();
		return {load(smem, k, fx), load(smem, k, fy), F::one(), F::one()};
	}

	// run: warp w, lanes in step; sub-stream v = (32·w + lane)·K + k holds pairs [v·L, v·L + L) ∩ [0, M).
	static __device__ void run(size_t w, unsigned lane, uint32_t* smem, const pair_t* __restrict__ pairs,
	                           const uint32_t* d_M, uint32_t L, const affine* __restrict__ bases,
	                           xyzz* __restrict__ buckets, uint32_t* __restrict__ s_keys, xyzz* __restrict__ s_pts,
	                           uint32_t* d_len_out) {
		const uint64_t M = *d_M;
		if (w == 0 && lane == 0) *d_len_out = static_cast<uint32_t>(ceil_div<uint64_t>(M, L));
		const uint64_t first = (static_cast<uint64_t>(w) * 32 + lane) * K;  // this lane's first sub-stream
		if (static_cast<uint64_t>(w) * 32 * K * L >= M) return;             // the whole warp: uniform
		smem += lane;
		uint32_t head = 0, starting = 0, empty = 0, live = 0;  // bit k: sub-stream k
#pragma unroll 1
		for (int k = 0; k < K; ++k)
			if ((first + k) * L < M) live |= 1u << k;

#pragma unroll 1
		for (uint32_t j = 0; j < L; ++j) {
			// The sub-streams with a pair j (only the last one that holds pairs can end early).
#pragma unroll 1
			for (uint32_t m = live; m;) {
				const int k = lowest_bit(m);
				m &= m - 1;
				if ((first + k) * L + j >= M) live &= ~(1u << k);  // its last run is emitted after the steps
			}

			// Forward: take each sub-stream's pair j; the additions' denominators into a prefix
			// product. The next sub-stream's pair and x are loaded before this one is worked.
			uint32_t adding = 0, doubling = 0;
			F run = F::one();
			pair_t next_pr{};
			F next_x{};
			if (live) {
				next_pr = pairs[(first + lowest_bit(live)) * L + j];
				next_x = load_x(bases, next_pr.val);
			}
#pragma unroll 1
			for (uint32_t m = live; m;) {
				const int k = lowest_bit(m);
				m &= m - 1;
				const uint32_t bit = 1u << k;
				const uint64_t v = first + k, i = v * L + j;
				const pair_t pr = next_pr;
				const F x2 = next_x;
				if (m) {
					next_pr = pairs[(first + lowest_bit(m)) * L + j];
					next_x = load_x(bases, next_pr.val);
				}
				const uint32_t key = j ? pairs[i - 1].key : 0;
				if (j == 0 || pr.key != key) {
					if (j) {
						emit_first<F>(v, head & bit, starting & bit, key, sum_of(smem, k, empty & bit), buckets, s_keys,
						              s_pts);
						head &= ~bit;
						starting |= bit;
					} else {
						head |= bit;
						if (i == 0 || pairs[i - 1].key != pr.key) starting |= bit;
					}
					const affine p = load_point(bases, pr.val);
					if (p.is_inf()) {
						empty |= bit;
					} else {
						empty &= ~bit;
						store(smem, k, fx, p.x);
						store(smem, k, fy, p.y);
					}
					continue;
				}
				if (x2.is_zero() && load_point(bases, pr.val).is_inf()) continue;  // (0, ±2) is on G1: check y
				if (empty & bit) {
					const affine p = load_point(bases, pr.val);
					empty &= ~bit;
					store(smem, k, fx, p.x);
					store(smem, k, fy, p.y);
					continue;
				}
				F den = x2 - load(smem, k, fx);
				if (den.is_zero()) {  // P = ±A
					const F y1 = load(smem, k, fy);
					if (load_point(bases, pr.val).y != y1) {
						empty |= bit;  // A + (−A)
						continue;
					}
					den = y1.dbl();
					doubling |= bit;
				}
				store(smem, k, fpre, run);
				run = ops::mul(run, den);
				adding |= bit;
			}

			// The warp's product, its inverse, and this lane's share 1/run.
			F g = run, o[5];
#pragma unroll
			for (int s = 0; s < 5; ++s) {
				o[s] = shfl_xor(g, 1u << s);
				g = ops::mul(g, o[s]);
			}
			F inv = inverse_vartime(g);
#pragma unroll
			for (int s = 4; s >= 0; --s) inv = ops::mul(inv, o[s]);

			// Backward, last addition first: its 1/den from the prefix, then the affine sum. The
			// next addition's point is loaded before this one is worked.
			affine next_p{};
			if (adding) next_p = load_point(bases, pairs[(first + highest_bit(adding)) * L + j].val);
#pragma unroll 1
			for (uint32_t m = adding; m;) {
				const int k = highest_bit(m);
				const uint32_t bit = 1u << k;
				m &= ~bit;
				const affine p = next_p;
				if (m) next_p = load_point(bases, pairs[(first + highest_bit(m)) * L + j].val);
				const F x1 = load(smem, k, fx), y1 = load(smem, k, fy);
				const F inv_den = ops::mul(inv, load(smem, k, fpre));
				F lambda;
				if (doubling & bit) {
					const F y2 = y1.dbl();
					inv = ops::mul(inv, y2);
					const F xx = ops::sqr(x1);
					lambda = ops::mul(xx.dbl() + xx, inv_den);
				} else {
					inv = ops::mul(inv, p.x - x1);
					lambda = ops::mul(p.y - y1, inv_den);
				}
				const F x3 = ops::sqr(lambda) - x1 - p.x;
				store(smem, k, fx, x3);
				store(smem, k, fy, ops::mul(lambda, x1 - x3) - y1);
			}
		}

		// Every sub-stream that held pairs emits its last run.
#pragma unroll 1
		for (int k = 0; k < K; ++k) {
			const uint64_t v = first + k, i0 = v * L;
			if (i0 >= M) continue;
			const uint64_t last = i0 + L < M ? i0 + L - 1 : M - 1;
			const uint32_t bit = 1u << k;
			emit_first<F>(v, head & bit, starting & bit, pairs[last].key, sum_of(smem, k, empty & bit), buckets,
			              s_keys, s_pts);
		}
	}
};

}  // namespace msm
}  // namespace filc2

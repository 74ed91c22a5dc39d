// cuda/msm/accumulate.cuh — bucket sums from sorted pairs, load-balanced: a segmented
// reduction in which every thread adds the same number of points whatever the bucket
// sizes.
//
// Level 0 reads the sorted pairs S0 (M entries, keys ascending) in chunks of L0 per
// thread and mixed-adds the points of each run of equal keys ("segment") inside its
// chunk. A segment whose first entry is the first of its key in S0 ("starting") is
// stored into bucket[key]; the first segment of a chunk ("head") that does not start
// its key continues a bucket begun in an earlier chunk, and its sum goes to the next
// level's sequence S1[t] = (key, sum). Every thread writes S1[t] (∞ when its head
// starts its key), so S1 is again sorted by key, with ⌈M/L0⌉ entries. Level k ≥ 1 does
// the same on S_k with full XYZZ additions, adding starting segments into their
// buckets (bucket += sum; exactly one starting segment per key per level, so no two
// threads touch a bucket) and sending continuing heads to S_{k+1}. The first entry of a
// sequence always starts its key, so once a level fits in one chunk nothing continues.
//
// A bucket of any size is thereby spread over ⌈size/L0⌉ threads and reduced as a tree
// of fan-out L: one scalar value shared by a million witness entries costs the same as
// a million random ones. On random scalars (mean bucket ≈ L0) the extra cost is about
// one full addition per chunk: 1.45/L0 mixed additions per point (4.5 % at L0 = 32).
// Buckets nobody writes stay unwritten; the reduction masks them with the counts.
#pragma once

#include "backend.cuh"
#include "point.cuh"
#include "sort.cuh"

namespace filc2 {
namespace msm {

// emit_first ends a run of the first level, for sub-stream (thread) t: its head run goes to
// the next level's S1[t] (∞ when it starts its key), a run that starts its key into its bucket.
template <class F>
__device__ __forceinline__ void emit_first(size_t t, bool head, bool starting, uint32_t key, const xyzz_t<F>& acc,
                                           xyzz_t<F>* __restrict__ buckets, uint32_t* __restrict__ s_keys,
                                           xyzz_t<F>* __restrict__ s_pts) {
	if (head) {
		s_keys[t] = key;
		s_pts[t] = starting ? xyzz_t<F>::inf() : acc;
	}
	if (starting) buckets[key] = acc;
}

// acc0_body: level 0 over the pairs. Prefetch loads entry i+1 while adding entry i
// (hides the gather latency at the price of one more affine point of registers; G1 only).
// Threads and MinBlocks set the block size and a register cap (65536/(Threads·MinBlocks)):
// no shared memory or barriers here, so small blocks only refine the occupancy (G1 at
// 199 registers: 10 resident warps in blocks of 64). ByValue: madd's equal-x case by value
// (point.cuh, madd_same_x_value), which keeps the accumulator out of local memory.
template <class F, bool Prefetch, unsigned Threads = 128, int MinBlocks = 1, bool ByValue = false>
struct acc0_body {
	static constexpr unsigned threads = Threads;
	static constexpr int min_blocks = MinBlocks;
	using affine = affine_t<F>;
	using xyzz = xyzz_t<F>;

	static __device__ __forceinline__ void emit(uint32_t t, bool head, bool starting, uint32_t key, const xyzz& acc,
	                                            xyzz* __restrict__ buckets, uint32_t* __restrict__ s_keys,
	                                            xyzz* __restrict__ s_pts) {
		emit_first<F>(t, head, starting, key, acc, buckets, s_keys, s_pts);
	}

	// 32-bit indices (M < 2^32, pick_group ensures it): fewer live registers in the loop.
	static __device__ __forceinline__ void run(size_t t_, const pair_t* __restrict__ pairs, const uint32_t* d_M,
	                                           uint32_t L, const affine* __restrict__ bases, xyzz* __restrict__ buckets,
	                                           uint32_t* __restrict__ s_keys, xyzz* __restrict__ s_pts,
	                                           uint32_t* d_len_out) {
		const uint32_t t = static_cast<uint32_t>(t_);
		const uint32_t M = *d_M;
		if (t == 0) *d_len_out = static_cast<uint32_t>(ceil_div<uint64_t>(M, L));
		const uint64_t start = static_cast<uint64_t>(t) * L;
		if (start >= M) return;
		const uint32_t i0 = static_cast<uint32_t>(start);
		const uint32_t i1 = M - i0 > L ? i0 + L : M;
		pair_t pr = pairs[i0];
		uint32_t key = pr.key;
		bool starting = i0 == 0 || pairs[i0 - 1].key != key;
		bool head = true;
		xyzz acc = xyzz::from_affine(load_point(bases, pr.val));  // one inlined madd per kernel
		if constexpr (Prefetch) {
			pair_t nx{};
			affine np{};
			if (i0 + 1 < i1) {
				nx = pairs[i0 + 1];
				np = load_point(bases, nx.val);
			}
			for (uint32_t i = i0 + 1; i < i1; ++i) {
				const pair_t cur = nx;
				const affine p = np;
				if (i + 1 < i1) {
					nx = pairs[i + 1];
					np = load_point(bases, nx.val);
				}
				if (cur.key != key) {
					emit(t, head, starting, key, acc, buckets, s_keys, s_pts);
					head = false;
					starting = true;
					key = cur.key;
					acc = xyzz::inf();  // madd(∞, p) = p
				}
				madd<F, ByValue>(acc, p);
			}
		} else {
			for (uint32_t i = i0 + 1; i < i1; ++i) {
				pr = pairs[i];
				const affine p = load_point(bases, pr.val);
				if (pr.key != key) {
					emit(t, head, starting, key, acc, buckets, s_keys, s_pts);
					head = false;
					starting = true;
					key = pr.key;
					acc = xyzz::inf();  // madd(∞, p) = p
				}
				madd<F, ByValue>(acc, p);
			}
		}
		emit(t, head, starting, key, acc, buckets, s_keys, s_pts);
	}
};

// acck_body: level k ≥ 1 over S_k. out_keys == nullptr on the last level (one chunk).
// Full additions out of line (point.cuh): these levels do ~1/L0 of the additions.
template <class F>
struct acck_body {
	static constexpr unsigned threads = 128;
	using xyzz = xyzz_t<F>;

	static __device__ __forceinline__ void plus(xyzz& a, const xyzz& b) { add_noinline(a, b); }

	static __device__ __forceinline__ void emit(size_t t, bool head, bool starting, uint32_t key, const xyzz& acc,
	                                            xyzz* __restrict__ buckets, uint32_t* __restrict__ out_keys,
	                                            xyzz* __restrict__ out_pts) {
		if (head && out_keys) {
			out_keys[t] = key;
			out_pts[t] = starting ? xyzz::inf() : acc;
		}
		if (starting && !acc.is_inf()) {
			xyzz b = buckets[key];
			plus(b, acc);
			buckets[key] = b;
		}
	}

	static __device__ void run(size_t t, const uint32_t* __restrict__ in_keys, const xyzz* __restrict__ in_pts,
	                           const uint32_t* d_len_in, uint32_t L, xyzz* __restrict__ buckets,
	                           uint32_t* __restrict__ out_keys, xyzz* __restrict__ out_pts, uint32_t* d_len_out) {
		const size_t M = *d_len_in;
		if (t == 0 && d_len_out) *d_len_out = static_cast<uint32_t>(ceil_div<size_t>(M, L));
		const size_t i0 = t * L;
		if (i0 >= M) return;
		const size_t i1 = i0 + L < M ? i0 + L : M;
		uint32_t key = in_keys[i0];
		bool starting = i0 == 0 || in_keys[i0 - 1] != key;
		bool head = true;
		xyzz acc = in_pts[i0];
		for (size_t i = i0 + 1; i < i1; ++i) {
			const uint32_t k = in_keys[i];
			if (k != key) {
				emit(t, head, starting, key, acc, buckets, out_keys, out_pts);
				head = false;
				starting = true;
				key = k;
				acc = in_pts[i];
			} else {
				plus(acc, in_pts[i]);
			}
		}
		emit(t, head, starting, key, acc, buckets, out_keys, out_pts);
	}
};

}  // namespace msm
}  // namespace filc2

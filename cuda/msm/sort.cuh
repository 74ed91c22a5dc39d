// cuda/msm/sort.cuh — the counting sort of (bucket, point) pairs, and the compactions
// that feed the batch addition (0/1 classification, bitmaps).
//
// Sort: for a group of windows [w0, w1) with B = 2^(c−1) buckets each, key = (w − w0)·B
// + |d_w| − 1 for every non-zero digit. hist counts the keys, an exclusive scan turns
// the counts into starts, and scatter writes pair {key, point | sign << 31} at
// atomicAdd(&start[key], 1): the pairs come out grouped by key (keys ascending, the
// order inside a key arbitrary), i.e. sorted, in one pass over the scalars per step.
// Both atomics are aggregated over the lanes of a warp that hit the same key, so a
// bucket shared by many scalars (witness tails: 2, −1, …) does not serialise 32-fold.
#pragma once

#include "backend.cuh"
#include "scalar.cuh"

namespace filc2 {
namespace msm {

// pair_t: a sorted (key, value) entry; value = point index | sign << 31.
struct alignas(8) pair_t {
	uint32_t key, val;
};

// prepare_body: prepared[i] = prepare(scalars[i]) (may be in place).
struct prepare_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t i, const fr_t* in, fr_t* out) { out[i] = prepare(in[i]); }
};

struct hist_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t i, const fr_t* __restrict__ prepared, int c, int w0, int w1,
	                           uint32_t* counts) {
		const uint32_t* s = prepared[i].l;
		const uint32_t B = 1u << (c - 1);
		for (int w = w0; w < w1; ++w) {
			const int32_t d = booth_digit(s, w, c);
			if (d != 0) {
				const uint32_t key = static_cast<uint32_t>(w - w0) * B + static_cast<uint32_t>(d < 0 ? -d : d) - 1;
				agg_add(counts, key);
			}
		}
	}
};

// scatter_body: idx maps scalar i to its base (nullptr: base i).
struct scatter_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t i, const fr_t* __restrict__ prepared, const uint32_t* __restrict__ idx, int c,
	                           int w0, int w1, uint32_t* starts, pair_t* __restrict__ pairs) {
		const uint32_t* s = prepared[i].l;
		const uint32_t B = 1u << (c - 1);
		const uint32_t sign = scalar_sign(s);
		const uint32_t base = idx ? idx[i] : static_cast<uint32_t>(i);
		for (int w = w0; w < w1; ++w) {
			const int32_t d = booth_digit(s, w, c);
			if (d != 0) {
				const uint32_t key = static_cast<uint32_t>(w - w0) * B + static_cast<uint32_t>(d < 0 ? -d : d) - 1;
				const uint32_t pos = agg_add(starts, key);
				const uint32_t neg = (d < 0 ? 1u : 0u) ^ sign;
				pairs[pos] = pair_t{key, base | (neg << 31)};
			}
		}
	}
};

// ---- compactions ----------------------------------------------------------------
// Logical thread t of a compaction owns the elements warp·(32·K) + j·32 + lane for
// j < K (lane = t mod 32, warp = t / 32): a warp reads 32 consecutive elements per
// step (coalesced), and each thread's outputs go to its own contiguous slice, placed by
// an exclusive scan of the per-thread counts: deterministic, no atomics.

constexpr uint32_t compact_k = 16;  // elements per thread

__device__ __forceinline__ size_t compact_elem(size_t t, uint32_t j) {
	return (t >> 5) * (32 * compact_k) + static_cast<size_t>(j) * 32 + (t & 31);
}

inline size_t compact_threads(size_t n) { return ceil_div<size_t>(n, 32 * compact_k) * 32; }

// classify_count_body: ones[t], others[t] = how many of thread t's scalars are 1, other.
struct classify_count_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t t, const fr_t* __restrict__ scalars, size_t n, uint32_t* ones,
	                           uint32_t* others) {
		uint32_t c1 = 0, c2 = 0;
		for (uint32_t j = 0; j < compact_k; ++j) {
			const size_t i = compact_elem(t, j);
			if (i >= n) break;
			const uint32_t k = classify(scalars[i]);
			c1 += k == class_one;
			c2 += k == class_other;
		}
		ones[t] = c1;
		others[t] = c2;
	}
};

// classify_write_body: the scalars equal to 1 become pairs {0, i} (for the batch
// addition); the others are prepared into tail[] with their index in tail_idx[].
struct classify_write_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t t, const fr_t* __restrict__ scalars, size_t n,
	                           const uint32_t* __restrict__ ones_off, const uint32_t* __restrict__ others_off,
	                           pair_t* __restrict__ ones, fr_t* __restrict__ tail, uint32_t* __restrict__ tail_idx) {
		uint32_t o1 = ones_off[t], o2 = others_off[t];
		for (uint32_t j = 0; j < compact_k; ++j) {
			const size_t i = compact_elem(t, j);
			if (i >= n) break;
			const fr_t x = scalars[i];
			const uint32_t k = classify(x);
			if (k == class_one) {
				ones[o1++] = pair_t{0, static_cast<uint32_t>(i)};
			} else if (k == class_other) {
				tail[o2] = prepare(x);
				tail_idx[o2++] = static_cast<uint32_t>(i);
			}
		}
	}
};

// Bitmaps: bit i of word i/64 selects base i; bits at or past nbits are ignored.
struct bitmap_count_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t t, const uint64_t* __restrict__ words, size_t nbits, uint32_t* counts) {
		const size_t nw = ceil_div<size_t>(nbits, 64);
		uint32_t c = 0;
		for (uint32_t j = 0; j < compact_k; ++j) {
			const size_t w = compact_elem(t, j);
			if (w >= nw) break;
			uint64_t x = words[w];
			if (w == nw - 1 && (nbits & 63)) x &= (uint64_t(1) << (nbits & 63)) - 1;
			c += static_cast<uint32_t>(popcount64(x));
		}
		counts[t] = c;
	}
	static __device__ __forceinline__ int popcount64(uint64_t x) {
#ifdef FILC2_EMULATE
		return __builtin_popcountll(x);
#else
		return __popcll(x);
#endif
	}
};

struct bitmap_write_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t t, const uint64_t* __restrict__ words, size_t nbits,
	                           const uint32_t* __restrict__ offs, pair_t* __restrict__ out) {
		const size_t nw = ceil_div<size_t>(nbits, 64);
		uint32_t o = offs[t];
		for (uint32_t j = 0; j < compact_k; ++j) {
			const size_t w = compact_elem(t, j);
			if (w >= nw) break;
			uint64_t x = words[w];
			if (w == nw - 1 && (nbits & 63)) x &= (uint64_t(1) << (nbits & 63)) - 1;
			while (x) {
				const int b = ctz64(x);
				x &= x - 1;
				out[o++] = pair_t{0, static_cast<uint32_t>(w * 64 + b)};
			}
		}
	}
	static __device__ __forceinline__ int ctz64(uint64_t x) {
#ifdef FILC2_EMULATE
		return __builtin_ctzll(x);
#else
		return __ffsll(static_cast<long long>(x)) - 1;
#endif
	}
};

// index_pairs_body: pairs {0, idx[i]} from an index list (batch addition by indices).
struct index_pairs_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t i, const uint32_t* __restrict__ idx, pair_t* __restrict__ out) {
		out[i] = pair_t{0, idx[i]};
	}
};

}  // namespace msm
}  // namespace filc2

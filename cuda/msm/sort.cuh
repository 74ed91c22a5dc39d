// cuda/msm/sort.cuh — the sorts of (bucket, point) pairs, and the compactions that feed
// the batch addition (0/1 classification, bitmaps).
//
// For a group of windows [w0, w1) with B = 2^(c−1) buckets each, key = (w − w0)·B + |d_w| − 1
// for every non-zero digit; pair {key, point | sign << 31}. Every sort leaves the pairs
// grouped by key (keys ascending, the order inside a key arbitrary), their number in *total
// and counts[key] ≠ 0 exactly for the keys present (the atomic and binned sorts: the count;
// the reduction only masks the empty buckets with it).
//
// The binned sort (msm_config::sort = 2) works in two rounds, each by blocks in shared memory:
//   bins of 2^fb keys (a few thousand bins a pass):
//     bin_count    a tile of scalars a block: its keys' bins counted in shared memory, then
//                  one global atomic per bin and block;
//     (scan)       bin starts;
//     bin_scatter  the same tile again: each block reserves its bins' ranges (one global
//                  atomic per bin) and writes its pairs there, runs of ~16 pairs a bin;
//   keys inside the bins (slices of pairs of consecutive bins):
//     key_count    a slice a block: its keys counted in shared memory, then counts[] (one
//                  atomic per key and block);
//     (scan)       key starts;
//     key_scatter  the slice again: ranges reserved per key, pairs written inside the bin.
// Every pass over the data moves whole lines; the global atomics are per (block, bin or
// key), ~1/16 of the pairs, and all writes of a block stay in runs or inside its bins.
// A slice whose bins span more keys than shared memory holds (small bins of a skewed
// pass, or fb past 13) counts and reserves with per-pair global atomics instead.
//
// The atomic sort (msm_config::sort = 1, the only one before session 13): hist counts the keys with global
// atomics, an exclusive scan turns the counts into starts, and scatter writes each pair at
// atomicAdd(&start[key], 1), one pass over the scalars each. Both atomics are aggregated over
// the lanes of a warp that hit the same key, so a bucket shared by many scalars (witness
// tails: 2, −1, …) does not serialise 32-fold.
//
// The radix sort (msm_config::sort = 3): radix_keys writes every scalar's pair in every window,
// no_key for a zero digit, window by window (coalesced); CUB's onesweep LSD radix sort orders
// them as 64-bit words by the key's low end_bit bits (radix_end_bit: no_key's low bits, all
// ones, sort after every key); radix_mark then marks the keys present and sets *total to where
// the no_key pairs start. No atomics of ours; the writes are whole lines.
#pragma once

#include <cstddef>

#include "backend.cuh"
#include "scalar.cuh"

namespace filc2 {
namespace msm {

// no_key: window_key's "no key" (a zero digit; above every key of a pass: G·2^(c−1) ≪ 2^32).
constexpr uint32_t no_key = 0xffffffffu;

// pair_t: a sorted (key, value) entry; value = point index | sign << 31.
struct alignas(8) pair_t {
	uint32_t key, val;
};

// prepare_body: prepared[i] = prepare(scalars[i]) (may be in place).
struct prepare_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t i, const fr_t* in, fr_t* out) { out[i] = prepare(in[i]); }
};

// window_key: prepared scalar s's key in window w of the pass [w0, …): (w − w0)·B + |d| − 1,
// or no_key for a zero digit; neg whether the base enters negated (the digit's sign against
// the scalar's, sign).
__device__ __forceinline__ uint32_t window_key(const uint32_t* s, int w, int w0, int c, uint32_t sign, uint32_t& neg) {
	const int32_t d = booth_digit(s, w, c);
	neg = (d < 0 ? 1u : 0u) ^ sign;
	return d == 0 ? no_key : (static_cast<uint32_t>(w - w0) << (c - 1)) + static_cast<uint32_t>(d < 0 ? -d : d) - 1;
}

// scalar_keys calls f(key, neg) for every non-zero digit of prepared scalar s in windows [w0, w1).
template <class Fn>
__device__ __forceinline__ void scalar_keys(const uint32_t* s, int c, int w0, int w1, Fn&& f) {
	const uint32_t sign = scalar_sign(s);
	for (int w = w0; w < w1; ++w) {
		uint32_t neg;
		const uint32_t key = window_key(s, w, w0, c, sign, neg);
		if (key != no_key) f(key, neg);
	}
}

struct hist_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t i, const fr_t* __restrict__ prepared, int c, int w0, int w1,
	                           uint32_t* counts) {
		scalar_keys(prepared[i].l, c, w0, w1, [&](uint32_t key, uint32_t) { agg_add(counts, key); });
	}
};

// scatter_body: idx maps scalar i to its base (nullptr: base i). (Reserving a lane's windows
// together, so that the returning atomics overlap, measured no faster: cuda/NOTES.md, session 14.)
struct scatter_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t i, const fr_t* __restrict__ prepared, const uint32_t* __restrict__ idx, int c,
	                           int w0, int w1, uint32_t* starts, pair_t* __restrict__ pairs) {
		const uint32_t base = idx ? idx[i] : static_cast<uint32_t>(i);
		scalar_keys(prepared[i].l, c, w0, w1,
		            [&](uint32_t key, uint32_t neg) { pairs[agg_add(starts, key)] = pair_t{key, base | (neg << 31)}; });
	}
};

// ---- the radix sort ------------------------------------------------------------------

static_assert(sizeof(pair_t) == 8 && offsetof(pair_t, key) == 0,
              "the radix sort orders pairs as 64-bit words whose low half (little-endian) is the key");

// radix_end_bit: the bits the radix sort compares for keys below K: the fewest with 2^e > K, so
// that no_key's low e bits (2^e − 1 ≥ K) sort after every key (K − 1 at most).
inline int radix_end_bit(size_t K) {
	int e = 0;
	while ((size_t(1) << e) <= K) ++e;
	return e;
}

// radix_keys_body: out[(w − w0)·n + i] = scalar i's pair in window w (key no_key for a zero
// digit), for w in [w0, w1); idx maps scalar i to its base (nullptr: base i).
struct radix_keys_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t i, const fr_t* __restrict__ prepared, const uint32_t* __restrict__ idx,
	                           size_t n, int c, int w0, int w1, pair_t* __restrict__ out) {
		const uint32_t base = idx ? idx[i] : static_cast<uint32_t>(i);
		const uint32_t* s = prepared[i].l;
		const uint32_t sign = scalar_sign(s);
		for (int w = w0; w < w1; ++w) {
			uint32_t neg;
			const uint32_t key = window_key(s, w, w0, c, sign, neg);
			out[static_cast<size_t>(w - w0) * n + i] = pair_t{key, base | (neg << 31)};
		}
	}
};

// radix_mark_body: over the m sorted pairs (no_key last): counts[key] = 1 where a key's run
// starts (counts zeroed before), and *total = the number of pairs before the no_key ones
// (written by exactly one thread).
struct radix_mark_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t i, const pair_t* __restrict__ sorted, size_t m, uint32_t* counts,
	                           uint32_t* total) {
		const uint32_t key = sorted[i].key;
		const bool starts = i == 0 || sorted[i - 1].key != key;
		if (key == no_key) {
			if (starts) *total = static_cast<uint32_t>(i);
			return;
		}
		if (starts) counts[key] = 1;
		if (i + 1 == m) *total = static_cast<uint32_t>(m);
	}
};

// ---- the binned sort -----------------------------------------------------------------

// The binned sort's sizes: threads a block, scalars a thread in the bin round, pairs a thread
// in the key round, shared memory (uint32 words) of each round, the smallest bin (log2 keys).
// The emulation's are small, so that its tests cross tiles, slices and bins, and take both
// paths of the key round.
#ifdef FILC2_EMULATE
constexpr unsigned sort_threads = 32, bin_per_thread = 3, key_per_thread = 4;
constexpr uint32_t bin_words = 64, key_words = 128;
constexpr int min_bin_bits = 3;
#else
constexpr unsigned sort_threads = 512, bin_per_thread = 32, key_per_thread = 64;
constexpr uint32_t bin_words = 8192, key_words = 8192;
constexpr int min_bin_bits = 11;
#endif

// bin_bits: fb, the log2 of the keys a bin holds, so that K keys make at most bin_words bins.
inline int bin_bits(size_t K) {
	int fb = min_bin_bits;
	while ((K + (size_t(1) << fb) - 1) >> fb > bin_words) ++fb;
	return fb;
}

// tile_keys calls f(key, i, neg) for every non-zero digit of the scalars of block b's tile
// that thread tid owns (scalar i of the tile's T·per_thread, strided by the block).
template <unsigned T, unsigned per_thread, class Fn>
__device__ __forceinline__ void tile_keys(size_t b, unsigned tid, const fr_t* __restrict__ prepared, size_t n, int c,
                                          int w0, int w1, Fn&& f) {
	const size_t i0 = b * (size_t(T) * per_thread);
	for (unsigned j = 0; j < per_thread; ++j) {
		const size_t i = i0 + size_t(j) * T + tid;
		if (i >= n) return;
		scalar_keys(prepared[i].l, c, w0, w1, [&](uint32_t key, uint32_t neg) { f(key, i, neg); });
	}
}

// count_tile: phases 0 and 1 of both bin bodies: sh[k] = the keys of bin k in block b's tile.
template <unsigned T, unsigned per_thread>
__device__ __forceinline__ void count_tile(int k, size_t b, unsigned tid, uint32_t* sh,
                                           const fr_t* __restrict__ prepared, size_t n, int c, int w0, int w1, int fb,
                                           uint32_t nbins) {
	if (k == 0)
		for (uint32_t j = tid; j < nbins; j += T) sh[j] = 0;
	else
		tile_keys<T, per_thread>(b, tid, prepared, n, c, w0, w1,
		                         [&](uint32_t key, size_t, uint32_t) { atomic_add(&sh[key >> fb], 1); });
}

// bin_count_body: bins[k] += the keys of bin k in block b's tile (bins zeroed before).
struct bin_count_body {
	static constexpr unsigned threads = sort_threads, per_thread = bin_per_thread;
	static constexpr size_t tile = size_t(threads) * per_thread;
	static constexpr int phases = 3;
	static __device__ void phase(int k, size_t b, unsigned tid, uint32_t* sh, const fr_t* __restrict__ prepared,
	                             size_t n, int c, int w0, int w1, int fb, uint32_t nbins, uint32_t* bins) {
		if (k < 2) {
			count_tile<threads, per_thread>(k, b, tid, sh, prepared, n, c, w0, w1, fb, nbins);
		} else {
			for (uint32_t j = tid; j < nbins; j += threads) {
				const uint32_t v = sh[j];
				if (v) atomic_add(&bins[j], v);
			}
		}
	}
};

// bin_scatter_body: block b's pairs into their bins: starts[k] (the scanned bins) is
// advanced past the block's range of bin k, the pairs written into it.
struct bin_scatter_body {
	static constexpr unsigned threads = bin_count_body::threads, per_thread = bin_count_body::per_thread;
	static constexpr int phases = 4;
	static __device__ void phase(int k, size_t b, unsigned tid, uint32_t* sh, const fr_t* __restrict__ prepared,
	                             const uint32_t* __restrict__ idx, size_t n, int c, int w0, int w1, int fb,
	                             uint32_t nbins, uint32_t* starts, pair_t* __restrict__ out) {
		if (k < 2) {
			count_tile<threads, per_thread>(k, b, tid, sh, prepared, n, c, w0, w1, fb, nbins);
		} else if (k == 2) {
			for (uint32_t j = tid; j < nbins; j += threads) {
				const uint32_t v = sh[j];
				if (v) sh[j] = atomic_add(&starts[j], v);
			}
		} else {
			tile_keys<threads, per_thread>(b, tid, prepared, n, c, w0, w1, [&](uint32_t key, size_t i, uint32_t neg) {
				const uint32_t base = idx ? idx[i] : static_cast<uint32_t>(i);
				out[atomic_add(&sh[key >> fb], 1)] = pair_t{key, base | (neg << 31)};
			});
		}
	}
};

// slice_t: block b's slice [s0, s1) of the binned pairs and the keys [key0, key0 + span)
// its bins cover; shared when they fit key_words (else the per-pair global path).
struct slice_t {
	size_t s0 = 0, s1 = 0;
	uint32_t key0 = 0, span = 0;
	bool shared = false;
};

template <size_t L>
__device__ __forceinline__ slice_t slice_of(size_t b, const pair_t* __restrict__ in, const uint32_t* total, int fb) {
	slice_t s;
	const size_t m = *total;
	s.s0 = b * L;
	if (s.s0 >= m) {
		s.s0 = s.s1 = 0;
		return s;
	}
	s.s1 = s.s0 + L < m ? s.s0 + L : m;
	const uint32_t lo = in[s.s0].key >> fb, hi = in[s.s1 - 1].key >> fb;
	const uint64_t span = uint64_t(hi - lo + 1) << fb;
	s.key0 = lo << fb;
	s.shared = span <= key_words;
	s.span = s.shared ? static_cast<uint32_t>(span) : 0;
	return s;
}

// key_count_body: counts[key] += the pairs with that key in block b's slice of the
// binned pairs (the first *total of in).
struct key_count_body {
	static constexpr unsigned threads = sort_threads, per_thread = key_per_thread;
	static constexpr size_t slice = size_t(threads) * per_thread;
	static constexpr int phases = 3;
	static __device__ void phase(int k, size_t b, unsigned tid, uint32_t* sh, const pair_t* __restrict__ in,
	                             const uint32_t* total, int fb, uint32_t* counts) {
		const slice_t s = slice_of<slice>(b, in, total, fb);
		if (k == 0) {
			for (uint32_t j = tid; j < s.span; j += threads) sh[j] = 0;
		} else if (k == 1) {
			for (size_t i = s.s0 + tid; i < s.s1; i += threads) {
				const uint32_t key = in[i].key;
				if (s.shared) atomic_add(&sh[key - s.key0], 1);
				else agg_add(counts, key);
			}
		} else {
			for (uint32_t j = tid; j < s.span; j += threads) {
				const uint32_t v = sh[j];
				if (v) atomic_add(&counts[s.key0 + j], v);
			}
		}
	}
};

// key_scatter_body: block b's slice into place: starts[key] (the scanned counts) is
// advanced past the block's range of each key, the pairs written into it.
struct key_scatter_body {
	static constexpr unsigned threads = key_count_body::threads;
	static constexpr size_t slice = key_count_body::slice;
	static constexpr int phases = 4;
	static __device__ void phase(int k, size_t b, unsigned tid, uint32_t* sh, const pair_t* __restrict__ in,
	                             const uint32_t* total, int fb, uint32_t* starts, pair_t* __restrict__ out) {
		const slice_t s = slice_of<slice>(b, in, total, fb);
		if (k == 0) {
			for (uint32_t j = tid; j < s.span; j += threads) sh[j] = 0;
		} else if (k == 1) {
			if (s.shared)
				for (size_t i = s.s0 + tid; i < s.s1; i += threads) atomic_add(&sh[in[i].key - s.key0], 1);
		} else if (k == 2) {
			for (uint32_t j = tid; j < s.span; j += threads) {
				const uint32_t v = sh[j];
				if (v) sh[j] = atomic_add(&starts[s.key0 + j], v);
			}
		} else {
			for (size_t i = s.s0 + tid; i < s.s1; i += threads) {
				const pair_t p = in[i];
				const uint32_t pos = s.shared ? atomic_add(&sh[p.key - s.key0], 1) : agg_add(starts, p.key);
				out[pos] = p;
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

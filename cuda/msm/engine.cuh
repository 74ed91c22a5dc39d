// cuda/msm/engine.cuh — MSM over resident bases: Pippenger with signed windows, the
// batch addition of points whose scalar is 1, and the split MSM that classifies the
// scalars first (0 skipped, 1 batch-added, the rest Pippenger on the compacted tail).
//
// One call, for window size c (W = ⌈255/c⌉ windows, B = 2^(c−1) buckets each):
//   prepare     scalars (Montgomery) → |s| canonical + sign              (sort.cuh)
//   per group of G windows (all W when the scratch fits):
//     sort                  (bucket, point) pairs grouped by bucket: the atomic counting sort,
//                           binned in shared memory, or CUB's radix sort      (sort.cuh, scan.cuh)
//     accumulate            bucket sums, load-balanced segmented reduction   (accumulate.cuh)
//     reduce                Σ (b+1)·bucket_b per window, parallel running sums (reduce.cuh)
//   finish      window sums → Jacobian, copied to the host.
// The caller combines the window sums, Σ_w 2^(c·w)·S_w (W·c ≈ 260 doublings: a few
// tens of microseconds on the CPU, against ~1 ms for one latency-bound GPU thread).
//
// Everything runs on one stream; device memory is a scratch (two arenas), grown on
// demand and kept (trim() releases it). Several engines may share one scratch (a
// prover's five queries: it then holds the largest plan once, not each query's); the
// scratch's mutex serialises their calls. A reserved scratch is fixed: calls plan within
// it (fewer windows per pass if need be, or in chunks of the scalars whose sums are added
// up) and its big arena never grows in a call (the counters of a split, 8 bytes per 16
// scalars, may); only another reserve grows it.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>

#include "accumulate.cuh"
#include "accumulate_affine.cuh"
#include "accumulate_smem.cuh"
#include "../ff/fp64_mul.cuh"
#include "../ff/karatsuba.cuh"
#include "backend.cuh"
#include "generate.cuh"
#include "point.cuh"
#include "reduce.cuh"
#include "scan.cuh"
#include "sort.cuh"

namespace filc2 {
namespace msm {

struct msm_config {
	int window_bits = 0;  // c; 0 chooses from the size
	int chunk = 0;        // L0, pairs per thread in the first accumulation level; 0 chooses
	int max_group = 0;    // at most this many windows per pass; 0 = as many as fit
	int variant = 0;      // first-level kernel: 0 XYZZ, the equal-x case by value; for G1 prefetching (204
	                      // registers, 9 warps/SM in blocks of one warp),
	                      // 1 XYZZ, G1 without prefetch capped at 128 registers (16 warps/SM, small spills),
	                      // 2 batch-affine, 8 sub-streams a lane for G1, 4 for G2 (accumulate_affine.cuh),
	                      // 3 batch-affine, 16 for G1, 8 for G2, 4 batch-affine, 4 for G1, 2 for G2,
	                      // 5 and 6: 0 and 2 with the FP64 product (ff/fp64_mul.cuh; G1 only, G2 runs 0 and 2),
	                      // 7: 0 as before session 14 (G1: equal-x case by reference, local memory in the loop,
	                      // blocks of 64), 8: 0 as before session 14 (G2: the Fp2 product reduced three times),
	                      // 9: 0 with the Karatsuba Fp product (ff/karatsuba.cuh; G1 only), 10: 0 for G2 with
	                      // the equal-x case by reference (G2's default before session 16; G1 runs 10 as 0),
	                      // 11: 0 with ZZ, ZZZ and the points in shared memory (cp.async one entry ahead;
	                      // G2's 0 since session 25 below g2_xy_smem_from points), 12: 11 with X, Y and R
	                      // there too (accumulate_smem.cuh; G2's 0 from g2_xy_smem_from points on, session 26),
	                      // 13: G2's 0 before session 25 (all in registers; G1 runs 13 as 0)
	int sort_kib = 0;     // the sort's bucket counters per pass fit this many KiB (L2); 0: default,
	                      // < 0: no cap (as many windows per pass as device memory allows)
	int sort = 0;         // 0 default_sort, 1 the atomic counting sort, 2 the binned sort, 3 the radix sort
	                      // (CUB's onesweep; sort.cuh)
};

// The sorts (msm_config::sort); max_sort: the field runs 0 to this.
enum sort_kind { sort_default = 0, sort_atomic = 1, sort_binned = 2, sort_radix = 3 };
constexpr int max_sort = sort_radix;

// default_sort: the sort of a config that names none: the radix sort since session 18 (H100,
// TestMSMPhases: the G1 MSM at 2^27 − 1 817 ms against the atomic sort's 944, 876 with one
// window a pass; 2^24 120 against 133; cuda/NOTES.md). Its plan asks CUB, and so the current
// device, for its temp storage.
constexpr int default_sort = sort_radix;

// default_sort_kib: the windows of one pass have at most this many KiB of bucket counters,
// so that the sort's atomics stay in L2 (50 MB on the H100/H200; the pairs it writes
// share it). At 2^27 (c = 22, 8 MiB of counters per window) all 12 windows in one pass
// spent 250 ms sorting of a 1035 ms MSM (H200, TestMSMPhases).
constexpr int default_sort_kib = 24 << 10;

// max_variant: msm_config::variant runs 0 to this.
constexpr int max_variant = 13;

// g2_xy_smem_from: G2's default first level (variant 0) keeps X, Y and R in shared memory too
// (variant 12) for a Pippenger sum over this many points or more, and only ZZ, ZZZ and the points
// (11) below: 12 is 3 % faster on the first level at 2^24 points and 13 % slower at 2^22 on an H100
// (TestMSMPhases, sessions 25 and 26). 2^23 was not measured: it keeps 11.
constexpr size_t g2_xy_smem_from = size_t(1) << 24;

// loan: device memory a call may use and overwrite (the caller's: a buffer it is done with,
// such as the H pipeline's other two after the H MSM's scalars are out). A dense call puts
// the sort's pair buffers in loans where they fit (buffer i in loan i), so that a fixed
// scratch holds only the rest of its plan and runs more windows a pass.
struct loan {
	void* p = nullptr;
	size_t bytes = 0;
};
constexpr int max_loans = 2;
struct loans {
	loan r[max_loans];
	int n = 0;
	bool scalars = false;  // the scalars are lent too: prepared in place, no scratch for them
};

struct msm_result {
	int window_bits = 0;
	int windows = 0;      // window sums written
	int per_pass = 0;     // Pippenger: windows a pass (the last group's plan)
	int lent = 0;         // of its pair buffers, how many were in loans
	int chunks = 0;       // the scalars went in this many chunks (0: at once; the scratch had no room)
	uint64_t ones = 0;    // split / batch addition: points added with scalar 1
	uint64_t others = 0;  // split: scalars that went through Pippenger
};

[[noreturn]] inline void msm_invalid(const char* what) {
#ifdef FILC2_EMULATE
	throw std::invalid_argument(what);
#else
	throw_invalid(what);
#endif
}

// scratch is the device memory engines work in: the big plan and the classification's
// counters. owner is the engine that made it (the one that reports its bytes).
struct scratch {
	dev_arena big, meta;
	std::mutex mu;
	bool fixed = false;  // reserved: the big arena never grows
	const void* owner = nullptr;
};

[[noreturn]] inline void msm_oom(const char* what) {
#ifdef FILC2_EMULATE
	throw std::runtime_error(what);
#else
	throw failure(FILC2_ERR_OUT_OF_MEMORY, static_cast<int32_t>(cudaErrorMemoryAllocation), what);
#endif
}

template <class F>
class engine {
   public:
	using affine = affine_t<F>;
	using xyzz = xyzz_t<F>;
	using jac = jac_t<F>;
	static constexpr bool is_g1 = sizeof(F) == 48;
	static constexpr uint32_t level_chunk = 16;  // L: entries per thread on accumulation levels ≥ 1

	engine(const affine* bases, size_t n, stream_t s) : bases_(bases), n_(n), s_(s), sc_(std::make_shared<scratch>()) {
		sc_->owner = this;
		small_ = static_cast<char*>(dev_alloc(small_bytes));
	}
	~engine() { dev_free(small_); }
	engine(const engine&) = delete;
	engine& operator=(const engine&) = delete;

	size_t size() const { return n_; }
	// scratch_bytes is the scratch's device memory if this engine owns it, else 0 (a
	// shared scratch is counted once).
	size_t scratch_bytes() const {
		std::lock_guard<std::mutex> lk(sc_->mu);
		return sc_->owner == this ? sc_->big.capacity() + sc_->meta.capacity() : 0;
	}
	void trim() {
		std::lock_guard<std::mutex> lk(sc_->mu);
		sc_->big.release();
		sc_->meta.release();
		sc_->fixed = false;
	}
	// shared_scratch and use_scratch let engines share one scratch (on one device).
	std::shared_ptr<scratch> shared_scratch() const { return sc_; }
	void use_scratch(std::shared_ptr<scratch> s) {
		if (s && s != sc_) sc_ = std::move(s);
	}

	// reserve makes the scratch hold the plan of an MSM over n scalars (split: any mix of
	// ones and others) with as many windows per pass as device memory allows now, and
	// fixes it. It returns the scratch's bytes. ln: the sizes of the loans a dense call will
	// bring (their pointers unused): the scratch then holds what is not lent, and the same
	// call without them plans fewer windows a pass in it, or runs in chunks.
	// Where even one window a pass does not fit in the device's room, it holds the plan of the
	// largest chunk that does (the scratch's own bytes count as room; calls over n scalars then
	// run in chunks), and fails only when no chunk fits. A scratch already reserved grows the
	// same way (a prover reserves its queries one after another) and is fixed again after.
	size_t reserve(size_t n, bool split, const msm_config& cfg, const loans* ln = nullptr) {
		std::lock_guard<std::mutex> lk(sc_->mu);
		check_n(n);
		if (n) {
			// A fixed scratch keeps at least what it holds (a margin below free memory must not
			// refuse a plan that fits in it).
			const size_t room = sc_->fixed ? std::max(sc_->big.capacity(), grow_budget()) : grow_budget();
			msm_config lean = cfg;
			lean.max_group = 1;
			if (plan_bytes(n, split, lean, ~size_t(0), ln) <= room) {
				sc_->big.reserve(plan_bytes(n, split, cfg, room, ln));
			} else {
				const size_t per = chunk_in(n, split, cfg, ln, room);
				if (per == 0) msm_oom("msm: no chunk of the plan fits in device memory");
				sc_->big.reserve(plan_bytes(per, split, lean, ~size_t(0), ln));
			}
			if (split) reserve_meta_locked(2 * compact_threads(n) + 2 * scan_temp_elems(compact_threads(n)));
			sc_->fixed = true;
		}
		return sc_->big.capacity() + sc_->meta.capacity();
	}

	// estimate_bytes is the scratch a loader holds for an MSM over n scalars with the default
	// config while the key goes up: the default (radix) sort's plan within what the atomic
	// sort would plan, so that its second pair buffer costs windows a pass, not room the key
	// could have. The reserve then plans in whatever is free (more windows on a big card).
	// A dense call with loans (ln): the same with the loans' sizes.
	static size_t estimate_bytes(size_t n, bool split, const loans* ln = nullptr) {
		const size_t unlimited = ~size_t(0);
		msm_config atomic, lean;
		atomic.sort = sort_atomic;
		lean.max_group = 1;
		const size_t cap = plan_bytes(n, split, atomic, unlimited, ln), least = plan_bytes(n, split, lean, unlimited, ln);
		return least >= cap ? least : plan_bytes(n, split, msm_config{}, cap, ln);
	}

	// plan_bytes is the big arena an MSM over n scalars needs with as many windows per
	// pass as fit in budget bytes (split: the larger of all ones and all others; dense: with
	// loans of ln's sizes, where not null).
	static size_t plan_bytes(size_t n, bool split, const msm_config& cfg, size_t budget, const loans* ln = nullptr) {
		if (n == 0) return 0;
		const int c = window_bits(cfg, n);
		if (!split) return pick_group_in(n, c, cfg, ln && ln->scalars ? 0 : sizeof(fr_t) * n, budget, ln).bytes;
		carver others;  // all others: the tail and its indices, then the Pippenger plan
		others.take<pair_t>(0);
		others.take<fr_t>(n);
		others.take<uint32_t>(n);
		const size_t tail = pick_group_in(n, c, cfg, others.used, budget).bytes;
		carver mixed;  // bounds every mix's head and batch levels: n pairs, n tail entries
		mixed.take<pair_t>(n);
		mixed.take<fr_t>(n);
		mixed.take<uint32_t>(n);
		carve_batch(mixed, n, cfg);
		return std::max(tail, mixed.used);
	}

	// msm: out[w] (host, max_windows entries) = window sums of Σ scalars[i]·bases[i];
	// scalars: n device Fr elements in Montgomery form. ln: device memory the call may
	// overwrite (loan), or null.
	msm_result msm(const fr_t* scalars, size_t n, const msm_config& cfg, jac* out, timer* tm = nullptr,
	               const loans* ln = nullptr) {
		std::lock_guard<std::mutex> lk(sc_->mu);
		check_n(n);
		msm_result res;
		if (n == 0) return res;
		if (tm) tm->begin(s_);
		const size_t per = chunk_for(n, false, cfg, ln);
		if (per == 0) msm_oom("msm: the scratch holds no chunk of the plan");
		const int c = window_bits(cfg, per);
		const int W = windows_for(c);
		if (per >= n) {
			const group_sizes gs = dense_sums(scalars, n, c, cfg, bases_, tm, ln);
			res.per_pass = gs.G;
			res.lent = gs.lent;
			finish(W, window_sums(), nullptr, out, tm);
		} else {  // in chunks of per scalars, their window sums added up
			dev_zero(acc_sums(), (W + 1) * sizeof(xyzz), s_);
			for (size_t lo = 0; lo < n; lo += per) {
				const group_sizes gs = dense_sums(scalars + lo, std::min(per, n - lo), c, cfg, bases_ + lo, tm, ln);
				res.per_pass = gs.G;
				res.lent = gs.lent;
				launch<add_sums_body<F>>(s_, W, acc_sums() + 1, static_cast<const xyzz*>(window_sums()));
				++res.chunks;
			}
			finish(W, acc_sums() + 1, nullptr, out, tm);
		}
		res.window_bits = c;
		res.windows = W;
		res.others = n;
		return res;
	}

	// msm_split: the same sum, with the scalars classified first.
	msm_result msm_split(const fr_t* scalars, size_t n, const msm_config& cfg, jac* out, timer* tm = nullptr) {
		std::lock_guard<std::mutex> lk(sc_->mu);
		check_n(n);
		msm_result res;
		if (n == 0) return res;
		if (tm) tm->begin(s_);
		const classified k = classify(scalars, n);
		if (split_fits(k.ones, k.others, window_bits(cfg, k.others ? k.others : 1), cfg, plan_budget())) {
			const int W = split_sums(scalars, n, 0, cfg, bases_, res, tm, &k);
			finish(W ? W : 1, window_sums(), ones_sum(), out, tm);
			res.windows = W ? W : 1;
			return res;
		}
		// In chunks of per scalars (sized for any mix), one window size for all (from the
		// chunk's expected others), their sums added up.
		const size_t per = chunk_for(n, true, cfg, nullptr);
		if (per == 0) msm_oom("msm: the scratch holds no chunk of the plan");
		const int c = window_bits(cfg, std::max<size_t>(1, k.others * per / n));
		const int W = windows_for(c);
		dev_zero(acc_sums(), (W + 1) * sizeof(xyzz), s_);  // [0]: the ones; [1, W]: the windows
		for (size_t lo = 0; lo < n; lo += per) {
			split_sums(scalars + lo, std::min(per, n - lo), c, cfg, bases_ + lo, res, tm);
			launch<add_sums_body<F>>(s_, W, acc_sums() + 1, static_cast<const xyzz*>(window_sums()));
			launch<add_sums_body<F>>(s_, 1, acc_sums(), static_cast<const xyzz*>(ones_sum()));
			++res.chunks;
		}
		finish(W, acc_sums() + 1, acc_sums(), out, tm);
		res.window_bits = c;
		res.windows = W;
		return res;
	}

	// streamer: bases in pinned host memory read through two device buffers of `chunk` points,
	// each chunk copied on stream `copy` while the MSM of the one before runs (msm_streamed).
	struct streamer {
		const affine* host = nullptr;
		affine* buf[2] = {nullptr, nullptr};
		size_t chunk = 0;
		stream_t copy{};
		event_t ready[2]{}, done[2]{};  // buf[b] copied; buf[b]'s kernels have run
	};

	// msm_streamed: msm (split: msm_split) of the scalars over st.host's n points instead of
	// the engine's bases, a chunk at a time: one sequential copy of each point over the bus
	// where the kernels' gathers from mapped host memory read it once per window at random.
	// One window size for every chunk (from a chunk's size, or for a split from its expected
	// number of scalars other than 0 and 1), the chunks' sums added up on the device.
	msm_result msm_streamed(bool split, const fr_t* scalars, size_t n, const msm_config& cfg, const streamer& st,
	                        jac* out, timer* tm = nullptr) {
		std::lock_guard<std::mutex> lk(sc_->mu);
		check_n(n);
		msm_result res;
		if (n == 0) return res;
		if (!st.host || !st.buf[0] || !st.buf[1] || st.chunk == 0) msm_invalid("msm: a streamed MSM without buffers");
		if (tm) tm->begin(s_);
		const size_t per = std::min(st.chunk, n), chunks = ceil_div(n, per);
		// sub: a chunk's scalars at once (all of them unless its plan does not fit the scratch)
		const size_t sub = chunk_for(per, split, cfg, nullptr);
		if (sub == 0) msm_oom("msm: the scratch holds no chunk of the plan");
		size_t expect = sub;
		if (split) {
			const classified k = classify(scalars, n);
			expect = std::max<size_t>(1, k.others * sub / n);
		}
		const int c = window_bits(cfg, expect);
		const int W = windows_for(c);
		dev_zero(acc_sums(), (W + 1) * sizeof(xyzz), s_);  // [0]: the ones; [1, W]: the windows
		auto fetch = [&](size_t k) {
			const size_t lo = k * per;
			const int b = static_cast<int>(k & 1);
			if (k >= 2) stream_wait(st.copy, st.done[b]);
			copy_to_dev(st.buf[b], st.host + lo, std::min(per, n - lo) * sizeof(affine), st.copy);
			event_record(st.ready[b], st.copy);
		};
		fetch(0);
		if (chunks > 1) fetch(1);
		for (size_t k = 0; k < chunks; ++k) {
			const size_t lo = k * per, m = std::min(per, n - lo);
			const int b = static_cast<int>(k & 1);
			stream_wait(s_, st.ready[b]);
			for (size_t o = 0; o < m; o += sub) {
				const size_t q = std::min(sub, m - o);
				if (split) split_sums(scalars + lo + o, q, c, cfg, st.buf[b] + o, res, tm);
				else dense_sums(scalars + lo + o, q, c, cfg, st.buf[b] + o, tm);
				launch<add_sums_body<F>>(s_, W, acc_sums() + 1, static_cast<const xyzz*>(window_sums()));
				if (split) launch<add_sums_body<F>>(s_, 1, acc_sums(), static_cast<const xyzz*>(ones_sum()));
				if (sub < m) ++res.chunks;
			}
			event_record(st.done[b], s_);
			if (k + 2 < chunks) fetch(k + 2);
		}
		finish(W, acc_sums() + 1, split ? acc_sums() : nullptr, out, tm);
		res.window_bits = c;
		res.windows = W;
		if (!split) res.others = n;
		return res;
	}

	// batch_add_bitmap: out[0] = Σ bases[i] over the set bits i < nbits of words (device).
	msm_result batch_add_bitmap(const uint64_t* words, size_t nbits, const msm_config& cfg, jac* out,
	                            timer* tm = nullptr) {
		std::lock_guard<std::mutex> lk(sc_->mu);
		check_n(nbits);
		if (tm) tm->begin(s_);
		const size_t nw = ceil_div<size_t>(nbits, 64);
		const size_t T = compact_threads(nw);
		carver mp = reserve_meta(T + scan_temp_elems(T));
		uint32_t* cnt = mp.take<uint32_t>(T);
		uint32_t* tmp = mp.take<uint32_t>(scan_temp_elems(T));
		uint32_t m = 0;
		if (T) {
			launch<bitmap_count_body>(s_, T, words, nbits, cnt);
			scan_exclusive(s_, cnt, cnt, T, total(0), tmp);
			copy_to_host(&m, total(0), sizeof m, s_);
			stream_sync(s_);
		}
		carver sizing;
		sizing.take<pair_t>(m);
		carve_batch(sizing, m, cfg);
		carver plan = reserve_big(sizing.used);
		pair_t* pairs = plan.take<pair_t>(m);
		batch_plan bp = carve_batch(plan, m, cfg);
		if (m) launch<bitmap_write_body>(s_, T, words, nbits, static_cast<const uint32_t*>(cnt), pairs);
		batch_add(pairs, total(0), m, bp, bases_, window_sums());
		finish(1, window_sums(), nullptr, out, tm);
		msm_result res;
		res.windows = 1;
		res.ones = m;
		return res;
	}

	// batch_add_indices: out[0] = Σ bases[idx[i]] for i < count (idx on the device, each < size()).
	msm_result batch_add_indices(const uint32_t* idx, size_t count, const msm_config& cfg, jac* out,
	                             timer* tm = nullptr) {
		std::lock_guard<std::mutex> lk(sc_->mu);
		if (count >= (size_t(1) << 32)) msm_invalid("msm: more than 2^32 - 1 indices");
		if (tm) tm->begin(s_);
		carver sizing;
		sizing.take<pair_t>(count);
		carve_batch(sizing, count, cfg);
		carver plan = reserve_big(sizing.used);
		pair_t* pairs = plan.take<pair_t>(count);
		batch_plan bp = carve_batch(plan, count, cfg);
		const uint32_t m = static_cast<uint32_t>(count);
		copy_to_dev(total(0), &m, sizeof m, s_);
		launch<index_pairs_body>(s_, count, idx, pairs);
		batch_add(pairs, total(0), count, bp, bases_, window_sums());
		finish(1, window_sums(), nullptr, out, tm);  // synchronises: m outlives its copy
		msm_result res;
		res.windows = 1;
		res.ones = count;
		return res;
	}

   private:
	struct group_sizes;  // a Pippenger plan (below)

	// The small buffer: counters and the few points every call writes.
	static constexpr size_t off_len = 0;                           // uint32 d_len[64]
	static constexpr size_t off_total = 256;                       // uint32 totals[4]
	static constexpr size_t off_ones = 512;                        // xyzz: sum of the ones
	static constexpr size_t off_sums = off_ones + sizeof(xyzz_t<F>);  // xyzz[max_windows]
	static constexpr size_t off_jac = off_sums + max_windows * sizeof(xyzz_t<F>);
	static constexpr size_t off_acc = off_jac + max_windows * sizeof(jac_t<F>);  // xyzz[1 + max_windows]
	static constexpr size_t small_bytes = off_acc + (1 + max_windows) * sizeof(xyzz_t<F>);

	uint32_t* lens() const { return reinterpret_cast<uint32_t*>(small_ + off_len); }
	uint32_t* total(int k) const { return reinterpret_cast<uint32_t*>(small_ + off_total) + k; }
	xyzz* ones_sum() const { return reinterpret_cast<xyzz*>(small_ + off_ones); }
	xyzz* window_sums() const { return reinterpret_cast<xyzz*>(small_ + off_sums); }
	jac* jac_out() const { return reinterpret_cast<jac*>(small_ + off_jac); }
	xyzz* acc_sums() const { return reinterpret_cast<xyzz*>(small_ + off_acc); }

	void check_n(size_t n) const {
		if (n > n_) msm_invalid("msm: more scalars than bases");
		if (n >= (size_t(1) << 31)) msm_invalid("msm: at most 2^31 - 1 scalars");
	}

	// chunk_for: n when an MSM over n scalars (split: any mix of ones and others; dense: with
	// ln's loans) has a plan of one window a pass within plan_budget(), else the largest n/2^k
	// that does (the call then runs in chunks of it, their sums added up); 0 if no chunk does.
	size_t chunk_for(size_t n, bool split, const msm_config& cfg, const loans* ln) const {
		return chunk_in(n, split, cfg, ln, plan_budget());
	}

	// chunk_in: chunk_for within budget bytes.
	static size_t chunk_in(size_t n, bool split, const msm_config& cfg, const loans* ln, size_t budget) {
		msm_config lean = cfg;
		lean.max_group = 1;
		for (size_t per = n; per > 0; per = per > 1 ? ceil_div<size_t>(per, 2) : 0)
			if (plan_bytes(per, split, lean, ~size_t(0), ln) <= budget) return per;
		return 0;
	}

	static int window_bits(const msm_config& cfg, size_t n) {
		const int c = cfg.window_bits ? cfg.window_bits : choose_window_bits(n);
		if (c < min_window_bits || c > max_window_bits) msm_invalid("msm: window bits outside [4, 24]");
		return c;
	}

	static uint32_t first_chunk(const msm_config& cfg, size_t entries) {
		if (cfg.chunk > 0) return static_cast<uint32_t>(cfg.chunk);
		// Enough threads to fill the device (2^17), at least 4 pairs each, at most 64 (64 beat
		// 32 by 5% at 2^24 on the H200) or, from 2^26 pairs a pass, 128: the later levels then
		// cost 10 ms instead of 35 at 2^27 and 2^26 (TestMSMPhases, 2^28 pairs a pass and more),
		// and the first level is no slower (2^27 on an H100: 680 ms with 128 at 3 windows a pass,
		// 684 with 64 at one); the threshold was 2^28 until session 20, which left an 80 GB card's
		// H MSM (one window a pass: 2^27 pairs) at 64 and 39 ms of later levels.
		// The same for every variant (the batch-affine kernels run K sub-streams a thread, so
		// fewer threads below 2^24 pairs), so that a scratch reserved for one plan fits them all.
		const size_t l = entries >> 17;
		const size_t cap = entries >= (size_t(1) << 26) ? 128 : 64;
		return static_cast<uint32_t>(l < 4 ? 4 : l > cap ? cap : l);
	}

	// reserve_big and reserve_meta: the scratch's arenas (sc_->mu held); a fixed big
	// arena does not grow.
	carver reserve_big(size_t bytes) {
		if (sc_->fixed && bytes > sc_->big.capacity()) msm_oom("msm: the plan exceeds the reserved scratch");
		sc_->big.reserve(bytes);
		return sc_->big.carve();
	}
	carver reserve_meta(size_t words) { return reserve_meta_locked(words); }
	carver reserve_meta_locked(size_t words) {
		sc_->meta.reserve(words * sizeof(uint32_t) + 4096);
		return sc_->meta.carve();
	}

	// ---- accumulation levels (shared by Pippenger and the batch addition) ----------

	struct level_plan {
		int variant = 0;
		uint32_t L0 = 4;
		size_t cap0 = 0;  // pairs
		uint32_t* a_keys = nullptr;
		xyzz* a_pts = nullptr;
		uint32_t* b_keys = nullptr;
		xyzz* b_pts = nullptr;
	};

	static level_plan carve_levels(carver& cv, size_t entries, uint32_t L0, int variant) {
		level_plan p;
		p.variant = variant;
		p.L0 = L0;
		p.cap0 = entries;
		const size_t ta = ceil_div<size_t>(entries, L0), tb = ceil_div<size_t>(ta, level_chunk);
		p.a_keys = cv.take<uint32_t>(ta);
		p.a_pts = cv.take<xyzz>(ta);
		p.b_keys = cv.take<uint32_t>(tb);
		p.b_pts = cv.take<xyzz>(tb);
		return p;
	}

	// accumulate: buckets[key] = Σ points of the d_M (≤ p.cap0) sorted pairs with that key.
	void accumulate(const pair_t* pairs, const uint32_t* d_M, const level_plan& p, const affine* bases, xyzz* buckets,
	                timer* tm = nullptr) {
		if (p.cap0 == 0) return;
		const size_t T0 = ceil_div<size_t>(p.cap0, p.L0);
		static_assert(max_variant == 13, "accumulate: a variant without a kernel");
		// 5, 6, 9 (G1) and 8 (G2) are 0, 2, 0 and 0 on another field type; first_level runs the
		// variants it has no kernel for (G1: 8, 10 and 13; G2: 1, 7 and 9) as 0, and G2's 5 and 6 as 0 and 2.
		const int base = p.variant == 5 || p.variant == 8 || p.variant == 9 ? 0 : p.variant == 6 ? 2 : p.variant;
		if constexpr (is_g1) {
			if (p.variant == 5 || p.variant == 6)  // 0 and 2 on the FP64 product (ff/fp64_mul.cuh)
				first_level_as<fp64_field<F>>(base, T0, pairs, d_M, p, bases, buckets);
			else if (p.variant == 9)  // 0 on the Karatsuba product (ff/karatsuba.cuh)
				first_level_as<kara_field<F>>(base, T0, pairs, d_M, p, bases, buckets);
			else
				first_level<F>(base, T0, pairs, d_M, p.L0, bases, buckets, p.a_keys, p.a_pts);
		} else if (p.variant == 8) {  // G2 with the eager Fp2 product (fp2.cuh)
			first_level_as<typename eager_of<F>::type>(base, T0, pairs, d_M, p, bases, buckets);
		} else {
			first_level<F>(base, T0, pairs, d_M, p.L0, bases, buckets, p.a_keys, p.a_pts);  // G2: no FP64 product
		}
		if (tm) tm->mark(s_, phase_acc0);
		levels(p, T0, buckets, tm);
	}

	// first_level_as runs first_level over field type W, another coding of F's operations in
	// F's layout (fp64_field, kara_field, the eager Fp2): the bases, buckets and level
	// entries are F's, read as W's.
	template <class W>
	void first_level_as(int variant, size_t T0, const pair_t* pairs, const uint32_t* d_M, const level_plan& p,
	                    const affine* bases, xyzz* buckets) {
		static_assert(sizeof(W) == sizeof(F) && alignof(W) == alignof(F), "the field type must have F's layout");
		first_level<W>(variant, T0, pairs, d_M, p.L0, reinterpret_cast<const affine_t<W>*>(bases),
		               reinterpret_cast<xyzz_t<W>*>(buckets), p.a_keys, reinterpret_cast<xyzz_t<W>*>(p.a_pts));
	}

	// first_level launches the first accumulation level's kernel for variants 0 to 4 and 7 over
	// field Fld (F; for G1, F on the FP64 product for variants 0 and 2 and F with the Karatsuba
	// product for 0; for G2, F with the eager product for variant 0).
	template <class Fld>
	void first_level(int variant, size_t T0, const pair_t* pairs, const uint32_t* d_M, uint32_t L0,
	                 const affine_t<Fld>* bases, xyzz_t<Fld>* buckets, uint32_t* keys, xyzz_t<Fld>* pts) {
		constexpr bool same = std::is_same<Fld, F>::value;
		constexpr int k8 = is_g1 ? 8 : 4;
		// batch-affine: over F, or F on the FP64 product (G1's variant 6); the other field types run
		// the XYZZ level only.
		if constexpr (same || std::is_same<Fld, fp64_field<F>>::value) {
			if (variant == 2) {
				launch_warps<acc0_affine_body<Fld, k8>>(s_, ceil_div<size_t>(T0, 32 * k8), pairs, d_M, L0, bases,
				                                        buckets, keys, pts, lens() + 1);
				return;
			}
		}
		if constexpr (same) {
			if (variant == 3) {
				launch_warps<acc0_affine_body<F, 2 * k8>>(s_, ceil_div<size_t>(T0, 64 * k8), pairs, d_M, L0, bases,
				                                          buckets, keys, pts, lens() + 1);
				return;
			}
			if (variant == 4) {
				launch_warps<acc0_affine_body<F, k8 / 2>>(s_, ceil_div<size_t>(T0, 16 * k8), pairs, d_M, L0, bases,
				                                          buckets, keys, pts, lens() + 1);
				return;
			}
		}
		if constexpr (same) {
			// Shared memory for the cold state, blocks of one warp: G1 168 registers (12 warps an
			// SM; 204 and 9 in variant 0) or, with X and Y there, capped at 128 (15, by shared
			// memory); G2 at 255 either way, 202 and 122 bytes of spills against 312 in registers.
			// G1: 2–3 % slower than its variant 0 at 2^26 and 2^27 (11), 10 % (12); G2: 10–11 %
			// faster (11, its default since), 13 % at 2^24 but none at 2^22 (12) (H100, session 25).
			if (variant == 11 && is_g1) {
				launch<acc0_smem_body<F, 32, 1, false>>(s_, T0, pairs, d_M, L0, bases, buckets, keys, pts, lens() + 1);
				return;
			}
			if (variant == 12) {
				launch<acc0_smem_body<F, 32, is_g1 ? 16 : 1, true>>(s_, T0, pairs, d_M, L0, bases, buckets, keys, pts,
				                                                     lens() + 1);
				return;
			}
		}
		if constexpr (!is_g1) {
			if constexpr (same) {
				if (variant == 10) {  // the default before session 16: the equal-x case by reference, the
					// accumulator in local memory (24 LDL.128 and 24 STL.128 an addition, and 12 STL.128 of
					// the point; sm_90), 255 registers, 40 B of spills
					launch<acc0_body<F, false, 128, 1, false>>(s_, T0, pairs, d_M, L0, bases, buckets, keys, pts,
					                                          lens() + 1);
					return;
				}
				if (variant == 13) {  // the default from session 16 to 24: all in registers, the equal-x
					// case by value (~110 register spills in the arithmetic, no prefetch; 22 % faster on
					// the first level than by reference at 2^24, H100, session 16)
					launch<acc0_body<F, false, 128, 1, true>>(s_, T0, pairs, d_M, L0, bases, buckets, keys, pts,
					                                          lens() + 1);
					return;
				}
			}
			// ZZ, ZZZ and the points in shared memory (variant 11; accumulate_smem.cuh), the equal-x case
			// by value: 10 % faster on the first level than all in registers at 2^24, 11 % at 2^22 on an
			// H100, 5 % and 7 % on an H200 (session 25).
			launch<acc0_smem_body<Fld, 32, 1, false>>(s_, T0, pairs, d_M, L0, bases, buckets, keys, pts, lens() + 1);
		} else {
			if constexpr (same) {
				if (variant == 1) {  // without the prefetch, capped at 128 registers
					launch<acc0_body<F, false, 64, 8>>(s_, T0, pairs, d_M, L0, bases, buckets, keys, pts, lens() + 1);
					return;
				}
				if (variant == 7) {  // the default before session 14: equal-x case by reference, blocks of two warps
					launch<acc0_body<F, true, 64, 1, false>>(s_, T0, pairs, d_M, L0, bases, buckets, keys, pts,
					                                         lens() + 1);
					return;
				}
			}
			// The equal-x case by value (no local memory in the loop, 204 registers): 9 warps an SM in
			// blocks of one warp. 4.4 % faster than by reference at 2^27 (H100, session 14).
			launch<acc0_body<Fld, true, 32, 1, true>>(s_, T0, pairs, d_M, L0, bases, buckets, keys, pts, lens() + 1);
		}
	}

	// levels: the accumulation levels above the first, over its T0 head entries.
	void levels(const level_plan& p, size_t T0, xyzz* buckets, timer* tm) {
		size_t cap = T0;
		uint32_t *in_k = p.a_keys, *out_k = p.b_keys;
		xyzz *in_p = p.a_pts, *out_p = p.b_pts;
		for (int k = 1; cap >= 2; ++k) {
			if (k >= 63) msm_oom("msm: too many accumulation levels");
			const size_t T = ceil_div<size_t>(cap, level_chunk);
			const bool last = T == 1;
			launch<acck_body<F>>(s_, T, static_cast<const uint32_t*>(in_k), static_cast<const xyzz*>(in_p),
			                            static_cast<const uint32_t*>(lens() + k), level_chunk, buckets,
			                            last ? nullptr : out_k, last ? nullptr : out_p, last ? nullptr : lens() + k + 1);
			std::swap(in_k, out_k);
			std::swap(in_p, out_p);
			cap = T;
		}
		if (tm) tm->mark(s_, phase_acck);
	}

	// ---- the sums of one call (into window_sums() and ones_sum()) ---------------------

	// dense_sums: window_sums()[0, W) of Σ scalars[i]·bases[i], i < n, with window size c
	// (the pair buffers in ln's loans where they fit). Returns the plan.
	group_sizes dense_sums(const fr_t* scalars, size_t n, int c, const msm_config& cfg, const affine* bases, timer* tm,
	                       const loans* ln = nullptr) {
		const bool in_place = ln && ln->scalars;
		const group_sizes gs = pick_group(n, c, cfg, in_place ? 0 : sizeof(fr_t) * n, ln);
		carver plan = reserve_big(gs.bytes);
		fr_t* prepared = in_place ? const_cast<fr_t*>(scalars) : plan.take<fr_t>(n);
		group_plan gp = carve_group(plan, n, c, gs, ln);
		launch<prepare_body>(s_, n, scalars, prepared);
		if (tm) tm->mark(s_, phase_prepare);
		pippenger(prepared, nullptr, n, c, gs, gp, bases, tm);
		return gs;
	}

	// classified: a classification's per-thread counts of ones and others, scanned (meta scratch).
	struct classified {
		size_t T = 0, ones = 0, others = 0;
		uint32_t *c1 = nullptr, *c2 = nullptr;
	};

	// classify counts the ones and the others (neither 0 nor 1) among scalars[0, n) (synchronises).
	classified classify(const fr_t* scalars, size_t n) {
		classified k;
		k.T = compact_threads(n);
		carver mp = reserve_meta(2 * k.T + 2 * scan_temp_elems(k.T));
		k.c1 = mp.take<uint32_t>(k.T);
		k.c2 = mp.take<uint32_t>(k.T);
		uint32_t* tmp = mp.take<uint32_t>(scan_temp_elems(k.T));
		launch<classify_count_body>(s_, k.T, scalars, n, k.c1, k.c2);
		scan_exclusive(s_, k.c1, k.c1, k.T, total(0), tmp);
		scan_exclusive(s_, k.c2, k.c2, k.T, total(1), tmp);
		uint32_t tot[2];
		copy_to_host(tot, total(0), sizeof tot, s_);
		stream_sync(s_);
		k.ones = tot[0];
		k.others = tot[1];
		return k;
	}

	// split_sums: ones_sum() = Σ bases[i] over the scalars equal to 1, and window_sums() of the
	// others' MSM with window size c_fixed, or when 0 one chosen from their number. Returns the
	// windows written: 0 when no scalar is other than 0 and 1 and c_fixed is 0 (window_sums()[0]
	// is then zero); adds the counts to res and sets res.window_bits.
	// pre: the scalars' classification when done already (else null).
	int split_sums(const fr_t* scalars, size_t n, int c_fixed, const msm_config& cfg, const affine* bases,
	               msm_result& res, timer* tm, const classified* pre = nullptr) {
		const classified k = pre ? *pre : classify(scalars, n);
		const size_t n1 = k.ones, n2 = k.others;
		res.ones += n1;
		res.others += n2;

		// Scratch: the ones, the prepared tail, then the batch addition's levels and the
		// tail's Pippenger in the same space (one after the other).
		const int c = c_fixed ? c_fixed : window_bits(cfg, n2 ? n2 : 1);
		const int W = n2 || c_fixed ? windows_for(c) : 0;
		const split_sizes z = split_plan(n1, n2, c, cfg, plan_budget());
		const group_sizes& gs = z.tail;
		carver plan = reserve_big(z.bytes);
		pair_t* ones = plan.take<pair_t>(n1);
		fr_t* tail = plan.take<fr_t>(n2);
		uint32_t* tail_idx = plan.take<uint32_t>(n2);
		carver plan_b = plan;
		batch_plan bp = carve_batch(plan_b, n1, cfg);
		group_plan gp{};
		if (n2) gp = carve_group(plan, n2, c, gs);

		launch<classify_write_body>(s_, k.T, scalars, n, static_cast<const uint32_t*>(k.c1),
		                            static_cast<const uint32_t*>(k.c2), ones, tail, tail_idx);
		if (tm) tm->mark(s_, phase_prepare);
		batch_add(ones, total(0), n1, bp, bases, ones_sum(), tm);
		if (n2) pippenger(tail, tail_idx, n2, c, gs, gp, bases, tm);
		else dev_zero(window_sums(), std::max(W, 1) * sizeof(xyzz), s_);
		res.window_bits = c;
		return W;
	}

	// ---- batch addition ----------------------------------------------------------

	struct batch_plan {
		level_plan lv;
	};

	static batch_plan carve_batch(carver& cv, size_t m, const msm_config& cfg) {
		batch_plan b;
		b.lv = carve_levels(cv, m, first_chunk(cfg, m), cfg.variant);
		return b;
	}

	// batch_add: *sum = Σ of the points of the d_M (≤ m) pairs (keys all 0).
	void batch_add(const pair_t* pairs, const uint32_t* d_M, size_t m, const batch_plan& bp, const affine* bases,
	               xyzz* sum, timer* tm = nullptr) {
		dev_zero(sum, sizeof(xyzz), s_);
		if (m) accumulate(pairs, d_M, bp.lv, bases, sum, tm);
	}

	// ---- Pippenger -------------------------------------------------------------

	struct group_sizes {
		int variant = 0;
		int sort = 0;
		int G = 0;          // windows per pass
		uint32_t L0 = 4;    // first accumulation level chunk
		uint32_t m1 = 1;    // reduction segment, first level
		uint32_t m2 = 1;    // second level
		int lent = 0;       // pair buffers in loans: 1 the pairs (loan 0), 2 the other too (loan 1)
		size_t bytes = 0;   // whole plan, including what precedes the group, less what is lent
	};

	struct group_plan {
		uint32_t* counts = nullptr;
		uint32_t* starts = nullptr;    // not the radix sort's
		uint32_t* scan_tmp = nullptr;  // not the radix sort's
		pair_t* pairs = nullptr;
		pair_t* binned = nullptr;  // the binned sort's first round; the radix sort's other buffer
		void* radix_tmp = nullptr;  // the radix sort's temporary storage (CUB), radix_bytes
		size_t radix_bytes = 0;
		xyzz* buckets = nullptr;
		level_plan lv;
		xyzz *t1 = nullptr, *r1 = nullptr, *t2 = nullptr, *r2 = nullptr;
	};

	// split_fits: whether a split MSM of n1 ones and n2 others with window size c has a plan of
	// one window a pass within budget bytes.
	static bool split_fits(size_t n1, size_t n2, int c, const msm_config& cfg, size_t budget) {
		msm_config lean = cfg;
		lean.max_group = 1;
		return split_plan(n1, n2, c, lean, ~size_t(0)).bytes <= budget;
	}

	// split_plan: the scratch of a split MSM of n1 ones and n2 others (split_sums' layout: the
	// ones' pairs, the tail and its indices, then the batch addition's levels and the tail's
	// Pippenger in the same space, one after the other), the tail's plan with as many windows
	// a pass as fit in budget bytes.
	struct split_sizes {
		size_t head = 0;   // the ones' pairs, the tail, its indices
		size_t bytes = 0;  // the whole plan
		group_sizes tail;  // the tail's Pippenger (n2 > 0)
	};
	static split_sizes split_plan(size_t n1, size_t n2, int c, const msm_config& cfg, size_t budget) {
		split_sizes z;
		carver head;
		head.take<pair_t>(n1);
		head.take<fr_t>(n2);
		head.take<uint32_t>(n2);
		z.head = head.used;
		carver batch = head;
		carve_batch(batch, n1, cfg);
		z.bytes = batch.used;
		if (n2) {
			z.tail = pick_group_in(n2, c, cfg, z.head, budget);
			z.bytes = std::max(z.bytes, z.tail.bytes);
		}
		return z;
	}

	// carve_group: the plan of gs in cv, its first gs.lent pair buffers in ln's loans (a
	// sizing carver's pointers are null, the loans' too).
	static group_plan carve_group(carver& cv, size_t n, int c, const group_sizes& gs, const loans* ln = nullptr) {
		group_plan p;
		const size_t B = size_t(1) << (c - 1), K = gs.G * B;
		const bool radix = gs.sort == sort_radix;
		p.counts = cv.take<uint32_t>(K);
		if (!radix) {
			p.starts = cv.take<uint32_t>(K);
			p.scan_tmp = cv.take<uint32_t>(scan_temp_elems(K));
		}
		if (gs.lent > 0 && !ln) msm_invalid("msm: a plan with loans carved without them");
		p.pairs = gs.lent >= 1 ? static_cast<pair_t*>(ln->r[0].p) : cv.take<pair_t>(n * gs.G);
		if (gs.sort == sort_binned || radix)
			p.binned = gs.lent >= 2 ? static_cast<pair_t*>(ln->r[1].p) : cv.take<pair_t>(n * gs.G);
		if (radix) {  // enough for every pass: fewer windows sort fewer words on no more bits
			p.radix_bytes = radix_sort_temp_bytes(n * gs.G, radix_end_bit(K));
			p.radix_tmp = cv.take<char>(p.radix_bytes);
		}
		p.buckets = cv.take<xyzz>(K);
		p.lv = carve_levels(cv, n * gs.G, gs.L0, gs.variant);
		const size_t k1 = K / gs.m1, k2 = B / gs.m1 > 1 ? k1 / gs.m2 : 0;
		p.t1 = cv.take<xyzz>(k1);
		p.r1 = cv.take<xyzz>(k1);
		p.t2 = cv.take<xyzz>(k2);
		p.r2 = cv.take<xyzz>(k2);
		return p;
	}

	// plan_budget: the bytes a plan may take. A fixed scratch is ours to fill: all of its arena
	// (a margin there refused every plan after the first when the first was < 256 MiB); else the
	// free device memory less a margin kept for others, plus the arena already held.
	size_t plan_budget() const { return sc_->fixed ? sc_->big.capacity() : grow_budget(); }

	// grow_budget: the free device memory less a margin kept for others, plus the arena held.
	size_t grow_budget() const {
		const size_t margin = size_t(256) << 20;
		const size_t avail = device_free_bytes() + sc_->big.capacity();
		return avail > margin ? avail - margin : 0;
	}

	// pick_group: the most windows per pass whose scratch fits plan_budget, after `before` bytes
	// of other scratch (ln: loans for the pair buffers, or null).
	group_sizes pick_group(size_t n, int c, const msm_config& cfg, size_t before, const loans* ln = nullptr) const {
		return pick_group_in(n, c, cfg, before, plan_budget(), ln);
	}

	// lent_buffers: how many of a plan's pair buffers (`buffers` of `bytes` each) ln's loans
	// hold: buffer i in loan i, in order.
	static int lent_buffers(const loans* ln, int buffers, size_t bytes) {
		int k = 0;
		if (ln)
			while (k < buffers && k < ln->n && ln->r[k].bytes >= bytes) ++k;
		return k;
	}

	// first_level_variant: the first level's kernel for a config's variant in a Pippenger sum over n
	// points: G2's 0 is 12 from g2_xy_smem_from points on (11 below, as first_level runs it).
	static int first_level_variant(int variant, size_t n) {
		if (!is_g1 && variant == 0 && n >= g2_xy_smem_from) return 12;
		return variant;
	}

	// pick_group_in: the most windows per pass whose plan fits in budget bytes, the pair
	// buffers in ln's loans where they fit (ln may be null).
	static group_sizes pick_group_in(size_t n, int c, const msm_config& cfg, size_t before, size_t budget,
	                                 const loans* ln = nullptr) {
		const int W = windows_for(c);
		const uint32_t B = 1u << (c - 1);
		int hi = W;
		if (cfg.max_group > 0 && cfg.max_group < hi) hi = cfg.max_group;
		const int kib = cfg.sort_kib ? cfg.sort_kib : default_sort_kib;
		if (kib > 0) {
			// Windows whose counters fit, then balanced: 12 windows at a cap of 5 → 3 passes of 4.
			const size_t per = (size_t(B) * sizeof(uint32_t) + 1023) / 1024;
			const int fit = static_cast<int>(std::max<size_t>(1, size_t(kib) / per));
			if (fit < hi) {
				const int passes = (W + fit - 1) / fit;
				hi = (W + passes - 1) / passes;
			}
		}
		const int sort = cfg.sort ? cfg.sort : default_sort;
		// Pair positions are 32-bit; the radix sort's count of words is CUB's int.
		const size_t max_pairs = sort == sort_radix ? size_t(INT_MAX) : size_t(0xffffffffu);
		const size_t by_index = max_pairs / (n ? n : 1);
		if (static_cast<size_t>(hi) > by_index) hi = static_cast<int>(by_index);
		for (int G = hi; G >= 1; --G) {
			group_sizes gs;
			gs.variant = first_level_variant(cfg.variant, n);
			gs.sort = sort;
			gs.G = G;
			gs.L0 = first_chunk(cfg, n * G);
			gs.m1 = reduce_m(B, G);
			gs.m2 = B / gs.m1 > 1 ? reduce_m(B / gs.m1, G) : 1;
			gs.lent = lent_buffers(ln, sort == sort_binned || sort == sort_radix ? 2 : 1, n * G * sizeof(pair_t));
			carver cv;
			cv.used = before;
			carve_group(cv, n, c, gs, ln);
			gs.bytes = cv.used;
			if (gs.bytes <= budget || G == 1) {
				if (gs.bytes > budget) msm_oom("msm: the scratch for one window does not fit in device memory");
				return gs;
			}
		}
		msm_oom("msm: no window group fits");
	}

	// pippenger: window sums of Σ prepared[i]·bases[idx ? idx[i] : i] into window_sums().
	void pippenger(const fr_t* prepared, const uint32_t* idx, size_t n, int c, const group_sizes& gs,
	               const group_plan& p, const affine* bases, timer* tm = nullptr) {
		const int W = windows_for(c);
		const uint32_t B = 1u << (c - 1);
		for (int w0 = 0; w0 < W; w0 += gs.G) {
			const int w1 = std::min(W, w0 + gs.G);
			const size_t K = static_cast<size_t>(w1 - w0) * B;
			const pair_t* sorted = p.pairs;
			dev_zero(p.counts, K * sizeof(uint32_t), s_);
			if (gs.sort == sort_binned) binned_sort(prepared, idx, n, c, w0, w1, p, tm);
			else if (gs.sort == sort_radix) sorted = radix_sort(prepared, idx, n, c, w0, w1, p, tm);
			else {
				launch<hist_body>(s_, n, prepared, c, w0, w1, p.counts);
				scan_exclusive(s_, p.counts, p.starts, K, total(2), p.scan_tmp);
				if (tm) tm->mark(s_, phase_hist);
				launch<scatter_body>(s_, n, prepared, idx, c, w0, w1, p.starts, p.pairs);
			}
			if (tm) tm->mark(s_, phase_sort);
			level_plan lv = p.lv;
			lv.cap0 = n * static_cast<size_t>(w1 - w0);
			accumulate(sorted, total(2), lv, bases, p.buckets, tm);
			reduce(p, B, w1 - w0, gs, window_sums() + w0);
			if (tm) tm->mark(s_, phase_reduce);
		}
	}

	// binned_sort: the pass's pairs sorted by key into p.pairs (counts[] zeroed before,
	// *total(2) their number): bins of 2^fb keys, then the keys inside (sort.cuh). The bins'
	// counters live in p.starts (nbins ≤ K) until the keys' starts replace them.
	void binned_sort(const fr_t* prepared, const uint32_t* idx, size_t n, int c, int w0, int w1, const group_plan& p,
	                 timer* tm) {
		const size_t K = static_cast<size_t>(w1 - w0) << (c - 1);
		const int fb = bin_bits(K);
		const uint32_t nbins = static_cast<uint32_t>((K + (size_t(1) << fb) - 1) >> fb);
		const size_t tiles = ceil_div(n, bin_count_body::tile);
		uint32_t* bins = p.starts;
		dev_zero(bins, nbins * sizeof(uint32_t), s_);
		launch_blocks<bin_count_body>(s_, tiles, nbins, prepared, n, c, w0, w1, fb, nbins, bins);
		scan_exclusive(s_, bins, bins, nbins, total(2), p.scan_tmp);
		launch_blocks<bin_scatter_body>(s_, tiles, nbins, prepared, idx, n, c, w0, w1, fb, nbins, bins, p.binned);
		if (tm) tm->mark(s_, phase_hist);
		const size_t slices = ceil_div(n * static_cast<size_t>(w1 - w0), key_count_body::slice);
		const uint32_t* m = total(2);
		const pair_t* binned = p.binned;
		launch_blocks<key_count_body>(s_, slices, key_words, binned, m, fb, p.counts);
		scan_exclusive(s_, p.counts, p.starts, K, total(3), p.scan_tmp);
		launch_blocks<key_scatter_body>(s_, slices, key_words, binned, m, fb, p.starts, p.pairs);
	}

	// radix_sort: the pass's pairs sorted by key (counts[] zeroed before; sort.cuh): every
	// scalar's pair in every window into p.binned, sorted by CUB between it and p.pairs; returns
	// the one holding them. Then counts[] marks the keys present and *total(2) counts the pairs
	// before the no_key ones.
	const pair_t* radix_sort(const fr_t* prepared, const uint32_t* idx, size_t n, int c, int w0, int w1,
	                         const group_plan& p, timer* tm) {
		const size_t m = n * static_cast<size_t>(w1 - w0);  // ≤ INT_MAX: pick_group_in
		launch<radix_keys_body>(s_, n, prepared, idx, n, c, w0, w1, p.binned);
		if (tm) tm->mark(s_, phase_hist);
		const int end_bit = radix_end_bit(static_cast<size_t>(w1 - w0) << (c - 1));
		const pair_t* sorted = reinterpret_cast<const pair_t*>(
		    radix_sort_u64(p.radix_tmp, p.radix_bytes, reinterpret_cast<uint64_t*>(p.binned),
		                   reinterpret_cast<uint64_t*>(p.pairs), m, end_bit, s_));
		launch<radix_mark_body>(s_, m, sorted, m, p.counts, total(2));
		return sorted;
	}

	void reduce(const group_plan& p, uint32_t B, int g, const group_sizes& gs, xyzz* out) {
		const xyzz* R = p.buckets;
		const xyzz* T = nullptr;
		const uint32_t* cnt = p.counts;
		uint32_t n = B, o = 1, e = 0;
		xyzz *ot = p.t1, *orr = p.r1, *nt = p.t2, *nr = p.r2;
		for (int level = 0;; ++level) {
			const uint32_t m = level == 0 ? gs.m1 : level == 1 ? gs.m2 : reduce_m(n, gs.G);
			const uint32_t segs = n / m;
			const size_t threads = static_cast<size_t>(g) * segs;
			if (segs == 1) {
				launch<reduce_body<F>>(s_, threads, R, T, cnt, n, m, o, e, out, static_cast<xyzz*>(nullptr));
				return;
			}
			launch<reduce_body<F>>(s_, threads, R, T, cnt, n, m, o, e, ot, orr);
			R = orr;
			T = ot;
			cnt = nullptr;
			o = 0;
			for (uint32_t k = m; k > 1; k >>= 1) ++e;
			n = segs;
			std::swap(ot, nt);
			std::swap(orr, nr);
		}
	}

	// finish: the W window sums (plus extra into window 0) as Jacobian points to the host.
	void finish(int W, const xyzz* sums, const xyzz* extra, jac* out, timer* tm) {
		launch<finish_body<F>>(s_, W, sums, extra, jac_out());
		if (tm) {
			tm->mark(s_, phase_finish);
			tm->end(s_);
		}
		copy_to_host(out, jac_out(), W * sizeof(jac), s_);
		stream_sync(s_);
	}

	const affine* bases_;
	size_t n_;
	stream_t s_;
	std::shared_ptr<scratch> sc_;
	char* small_ = nullptr;
};

}  // namespace msm
}  // namespace filc2

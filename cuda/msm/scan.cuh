// cuda/msm/scan.cuh — exclusive prefix sums of uint32 counts (bucket sizes, per-thread
// output counts), by per-thread chunks: each thread sums 32 consecutive counts, the
// chunk sums are scanned recursively, and each thread rewrites its chunk. Three short
// passes over 4-byte counts; a scan of 2^25 counts moves ~400 MB (~0.15 ms), against
// hundreds of milliseconds of curve arithmetic in the MSM that needs it.
#pragma once

#include "backend.cuh"

namespace filc2 {
namespace msm {

constexpr uint32_t scan_chunk = 32;

struct scan_sum_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t t, const uint32_t* __restrict__ in, size_t n, uint32_t* __restrict__ sums) {
		const size_t i0 = t * scan_chunk, i1 = i0 + scan_chunk < n ? i0 + scan_chunk : n;
		uint32_t s = 0;
		for (size_t i = i0; i < i1; ++i) s += in[i];
		sums[t] = s;
	}
};

// scan_down_body: out[i] = offs[t] + Σ in[i0..i); in and out may be the same array.
struct scan_down_body {
	static constexpr unsigned threads = 256;
	static __device__ void run(size_t t, const uint32_t* in, size_t n, const uint32_t* __restrict__ offs,
	                           uint32_t* out) {
		const size_t i0 = t * scan_chunk, i1 = i0 + scan_chunk < n ? i0 + scan_chunk : n;
		uint32_t run = offs[t];
		for (size_t i = i0; i < i1; ++i) {
			const uint32_t v = in[i];
			out[i] = run;
			run += v;
		}
	}
};

// scan_small_body: one thread scans n ≤ scan_chunk counts and writes the total.
struct scan_small_body {
	static constexpr unsigned threads = 32;
	static __device__ void run(size_t, const uint32_t* in, size_t n, uint32_t* out, uint32_t* total) {
		uint32_t run = 0;
		for (size_t i = 0; i < n; ++i) {
			const uint32_t v = in[i];
			out[i] = run;
			run += v;
		}
		*total = run;
	}
};

// scan_temp_elems: the uint32 temporaries scan_exclusive needs for n counts.
inline size_t scan_temp_elems(size_t n) {
	if (n <= scan_chunk) return 0;
	const size_t t = ceil_div<size_t>(n, scan_chunk);
	return 2 * t + scan_temp_elems(t);
}

// scan_exclusive: out[i] = Σ in[0..i), *total = Σ in (device pointers; out may be in).
// temp holds scan_temp_elems(n) uint32. The sum must fit 32 bits (callers bound it).
inline void scan_exclusive(stream_t s, const uint32_t* in, uint32_t* out, size_t n, uint32_t* total, uint32_t* temp) {
	if (n <= scan_chunk) {
		launch<scan_small_body>(s, 1, in, n, out, total);
		return;
	}
	const size_t t = ceil_div<size_t>(n, scan_chunk);
	uint32_t* sums = temp;
	uint32_t* offs = temp + t;
	launch<scan_sum_body>(s, t, in, n, sums);
	scan_exclusive(s, sums, offs, t, total, temp + 2 * t);
	launch<scan_down_body>(s, t, in, n, static_cast<const uint32_t*>(offs), out);
}

}  // namespace msm
}  // namespace filc2

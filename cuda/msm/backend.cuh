// cuda/msm/backend.cuh — what the MSM engine needs of the machine, twice: CUDA, and
// a sequential CPU emulation (FILC2_EMULATE, cuda/msm/emu_msm.cpp) that runs the same
// engine, kernel bodies and orchestration, one "thread" after another.
//
// Every kernel of the MSM is a *body*: a struct with
//     static constexpr unsigned threads;              block size on the device
//     static __device__ void run(size_t t, args...);  the work of logical thread t
// launched over n logical threads by launch<Body>(stream, n, args...) (a grid-stride
// loop on the device, a plain loop in the emulation). Bodies never use shared memory or
// block barriers, so running them one at a time is a faithful emulation; the only
// warp-level code (aggregated atomics) has a per-thread fallback used by the emulation.
//
// A *warp body* works a warp at a time, its lanes in step, exchanging values with
// shfl_xor and keeping state in a shared-memory region of its own:
//     static constexpr unsigned threads;              block size (a multiple of 32)
//     static constexpr size_t smem_words;             32-bit words of shared memory per warp
//     static __device__ void run(size_t w, unsigned lane, uint32_t* smem, args...);
// launched over n warps by launch_warps<Body>(stream, n, args...). Every lane of a warp
// calls shfl_xor at the same points (no lane returns early alone). The emulation runs
// the 32 lanes of each warp as 32 OS threads that meet at every shuffle.
//
// A *block body* works a block at a time in phases with a block barrier between them,
// sharing a block's shared memory:
//     static constexpr unsigned threads;              block size
//     static constexpr int phases;
//     static __device__ void phase(int k, size_t b, unsigned tid, uint32_t* smem, args...);
// launched over n blocks by launch_blocks<Body>(stream, n, smem_words, args...). A thread
// keeps nothing from one phase to the next but what it wrote to memory, and inside a phase
// threads share memory only through atomics, so the emulation runs each phase's threads one
// after another and is faithful.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#ifdef FILC2_EMULATE
#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>
#else
#include <cuda_runtime.h>

#include <climits>
#include <cub/device/device_radix_sort.cuh>

#include "../util/error.cuh"
#endif

namespace filc2 {
namespace msm {

// The phases a timer's marks attribute time to (filc2_msm.h's FILC2_MSM_PHASE_*).
// phase_sort is the sort's second half (the scatter, the binned sort's key round, or the radix sort
// and its marks), phase_hist its first (the histogram and scan, the bin round, or the radix sort's keys).
enum phase { phase_prepare, phase_sort, phase_acc0, phase_acck, phase_reduce, phase_finish, phase_hist, phase_count };

#ifdef FILC2_EMULATE

using stream_t = int;

inline void* dev_alloc(size_t bytes) {
	void* p = std::malloc(bytes ? bytes : 1);
	if (!p) throw std::bad_alloc();
	return p;
}
inline void dev_free(void* p) { std::free(p); }
inline void dev_zero(void* p, size_t bytes, stream_t) { std::memset(p, 0, bytes); }
inline void copy_to_dev(void* d, const void* h, size_t bytes, stream_t) { std::memcpy(d, h, bytes); }
inline void copy_to_host(void* h, const void* d, size_t bytes, stream_t) { std::memcpy(h, d, bytes); }
inline void copy_dev(void* d, const void* s, size_t bytes, stream_t) { std::memcpy(d, s, bytes); }
inline void stream_sync(stream_t) {}
inline size_t device_free_bytes() { return size_t(1) << 40; }

// event_t orders work between streams (a streamed MSM's copies and kernels); one stream here.
using event_t = int;
inline event_t event_new() { return 0; }
inline void event_free(event_t) {}
inline void event_record(event_t, stream_t) {}
inline void stream_wait(stream_t, event_t) {}

// timer: device events around a region (no-ops in the emulation).
struct timer {
	void begin(stream_t) {}
	void mark(stream_t, int) {}
	void end(stream_t) {}
};

template <class Body, class... A>
void launch(stream_t, size_t n, A... a) {
	for (size_t t = 0; t < n; ++t) Body::run(t, a...);
}

// emu_warp: the meeting point of an emulated warp's 32 lane threads.
struct emu_warp {
	static constexpr int max_words = 32;  // the largest value a shuffle moves (an Fp2 element: 24)
	std::mutex mu;
	std::condition_variable cv;
	int arrived = 0;
	unsigned generation = 0;
	uint32_t slot[32][max_words];

	void barrier() {
		std::unique_lock<std::mutex> lk(mu);
		const unsigned gen = generation;
		if (++arrived == 32) {
			arrived = 0;
			++generation;
			cv.notify_all();
			return;
		}
		cv.wait(lk, [&] { return generation != gen; });
	}
};
struct emu_lane {
	emu_warp* warp = nullptr;
	unsigned lane = 0;
};
inline emu_lane& this_lane() {
	static thread_local emu_lane l;
	return l;
}

// shfl_xor returns v of lane (this lane ^ mask); every lane of the warp calls it.
template <class T>
T shfl_xor(const T& v, unsigned mask) {
	static_assert(sizeof(T) % 4 == 0 && sizeof(T) / 4 <= emu_warp::max_words, "shfl_xor: 32-bit words, at most 32");
	emu_lane& me = this_lane();
	std::memcpy(me.warp->slot[me.lane], &v, sizeof(T));
	me.warp->barrier();
	T r;
	std::memcpy(&r, me.warp->slot[(me.lane ^ mask) & 31], sizeof(T));
	me.warp->barrier();
	return r;
}

template <class Body, class... A>
void launch_warps(stream_t, size_t n, A... a) {
	std::vector<uint32_t> smem(Body::smem_words);
	for (size_t w = 0; w < n; ++w) {
		emu_warp warp;
		std::vector<std::thread> lanes;
		for (unsigned l = 0; l < 32; ++l)
			lanes.emplace_back([&, l] {
				this_lane() = {&warp, l};
				Body::run(w, l, smem.data(), a...);
			});
		for (auto& t : lanes) t.join();
	}
}

template <class Body, class... A>
void launch_blocks(stream_t, size_t n, size_t smem_words, A... a) {
	std::vector<uint32_t> smem(smem_words ? smem_words : 1);
	// Threads run forwards or backwards by turns, so that a phase that reads what another
	// thread of the same phase wrote (not allowed) shows in the results.
	for (size_t b = 0; b < n; ++b)
		for (int k = 0; k < Body::phases; ++k)
			for (unsigned i = 0; i < Body::threads; ++i) {
				const unsigned t = ((b + k) & 1) ? Body::threads - 1 - i : i;
				Body::phase(k, b, t, smem.data(), a...);
			}
}

// lowest_bit / highest_bit: the index of the lowest / highest set bit of m ≠ 0.
inline int lowest_bit(uint32_t m) { return __builtin_ctz(m); }
inline int highest_bit(uint32_t m) { return 31 - __builtin_clz(m); }

// atomic_add returns the old value (sequential: nothing races).
inline uint32_t atomic_add(uint32_t* p, uint32_t v) {
	const uint32_t old = *p;
	*p = old + v;
	return old;
}
// agg_add: the same, for counters many threads of a warp may hit at once.
inline uint32_t agg_add(uint32_t* counters, uint32_t key) { return atomic_add(&counters[key], 1); }

// radix_sort_temp_bytes: the temporary storage radix_sort_u64 needs (none here).
inline size_t radix_sort_temp_bytes(size_t, int) { return 0; }

// radix_sort_u64 sorts the n words of a stably by their bits [0, end_bit), with b as the
// other buffer (both overwritten), and returns the one holding the result: LSD by 8-bit
// digits, from one buffer to the other each pass, so that the result lands in either as
// on the device (CUB's onesweep). The words are copied by bytes (they are pairs elsewhere).
inline uint64_t* radix_sort_u64(void*, size_t, uint64_t* a, uint64_t* b, size_t n, int end_bit, stream_t) {
	std::vector<uint64_t> x(n);
	std::vector<size_t> start(257);
	for (int bit = 0; bit < end_bit; bit += 8) {
		std::memcpy(x.data(), a, n * sizeof(uint64_t));
		const uint64_t mask = (uint64_t(1) << std::min(8, end_bit - bit)) - 1;
		const auto digit = [&](size_t i) { return static_cast<size_t>((x[i] >> bit) & mask); };
		std::fill(start.begin(), start.end(), 0);
		for (size_t i = 0; i < n; ++i) ++start[digit(i) + 1];
		for (size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
		for (size_t i = 0; i < n; ++i) std::memcpy(b + start[digit(i)]++, &x[i], sizeof(uint64_t));
		std::swap(a, b);
	}
	return a;
}

#else

using stream_t = cudaStream_t;

inline void* dev_alloc(size_t bytes) {
	void* p = nullptr;
	FILC2_CUDA(cudaMalloc(&p, bytes ? bytes : 1));
	return p;
}
inline void dev_free(void* p) {
	if (p) cudaFree(p);
}
inline void dev_zero(void* p, size_t bytes, stream_t s) {
	if (bytes) FILC2_CUDA(cudaMemsetAsync(p, 0, bytes, s));
}
inline void copy_to_dev(void* d, const void* h, size_t bytes, stream_t s) {
	if (bytes) FILC2_CUDA(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s));
}
inline void copy_to_host(void* h, const void* d, size_t bytes, stream_t s) {
	if (bytes) FILC2_CUDA(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
}
inline void copy_dev(void* d, const void* src, size_t bytes, stream_t s) {
	if (bytes) FILC2_CUDA(cudaMemcpyAsync(d, src, bytes, cudaMemcpyDeviceToDevice, s));
}
inline void stream_sync(stream_t s) { FILC2_CUDA(cudaStreamSynchronize(s)); }
inline size_t device_free_bytes() {
	size_t free_b = 0, total_b = 0;
	FILC2_CUDA(cudaMemGetInfo(&free_b, &total_b));
	return free_b;
}

// event_t orders work between streams: stream_wait(s, e) holds s's later work until the
// work recorded into e has run (a streamed MSM's copies and kernels).
using event_t = cudaEvent_t;
inline event_t event_new() {
	cudaEvent_t e = nullptr;
	FILC2_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
	return e;
}
inline void event_free(event_t e) {
	if (e) cudaEventDestroy(e);
}
inline void event_record(event_t e, stream_t s) { FILC2_CUDA(cudaEventRecord(e, s)); }
inline void stream_wait(stream_t s, event_t e) { FILC2_CUDA(cudaStreamWaitEvent(s, e, 0)); }

// timer: device events around a region of a stream, and, with want_phases, marks
// inside it: mark(s, p) ends a stretch of phase p (FILC2_MSM_PHASE_*), the time since
// the previous mark (or begin). Marks cost an event record each: a few microseconds.
struct timer {
	static constexpr int max_marks = 64;
	cudaEvent_t a = nullptr, b = nullptr;
	cudaEvent_t m[max_marks] = {};
	int phase_of[max_marks] = {};
	int marks = 0;
	bool want_phases = false;
	timer() {
		FILC2_CUDA(cudaEventCreate(&a));
		const cudaError_t e = cudaEventCreate(&b);
		if (e != cudaSuccess) {
			cudaEventDestroy(a);
			throw_cuda(e, "cudaEventCreate(&b)", __FILE__, __LINE__);
		}
	}
	~timer() {
		cudaEventDestroy(a);
		cudaEventDestroy(b);
		for (cudaEvent_t e : m)
			if (e) cudaEventDestroy(e);
	}
	timer(const timer&) = delete;
	timer& operator=(const timer&) = delete;
	void begin(stream_t s) {
		marks = 0;
		FILC2_CUDA(cudaEventRecord(a, s));
	}
	void mark(stream_t s, int p) {
		if (!want_phases || marks == max_marks) return;
		if (!m[marks]) FILC2_CUDA(cudaEventCreate(&m[marks]));
		phase_of[marks] = p;
		FILC2_CUDA(cudaEventRecord(m[marks++], s));
	}
	void end(stream_t s) { FILC2_CUDA(cudaEventRecord(b, s)); }
	float ms() const {
		FILC2_CUDA(cudaEventSynchronize(b));
		float t = 0;
		FILC2_CUDA(cudaEventElapsedTime(&t, a, b));
		return t;
	}
	// add_phases adds each phase's time of the last run to out[phase] (after ms()).
	void add_phases(float* out) const {
		cudaEvent_t prev = a;
		for (int i = 0; i < marks; ++i) {
			float t = 0;
			FILC2_CUDA(cudaEventElapsedTime(&t, prev, m[i]));
			out[phase_of[i]] += t;
			prev = m[i];
		}
	}
};

// min_blocks_of: Body::min_blocks when declared (a register cap through launch bounds), else 1.
template <class Body, class = void>
struct min_blocks_of {
	static constexpr int value = 1;
};
template <class Body>
struct min_blocks_of<Body, decltype(void(Body::min_blocks))> {
	static constexpr int value = Body::min_blocks;
};

template <class Body, class... A>
__global__ void __launch_bounds__(Body::threads, min_blocks_of<Body>::value) grid_kernel(size_t n, A... a) {
	const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
	for (size_t t = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += stride)
		Body::run(t, a...);
}

// launch runs Body over n logical threads: one per device thread up to 2^31 − 1 blocks,
// grid-stride beyond.
template <class Body, class... A>
void launch(stream_t s, size_t n, A... a) {
	if (n == 0) return;
	constexpr unsigned threads = Body::threads;
	size_t blocks = (n + threads - 1) / threads;
	if (blocks > 0x7fffffffu) blocks = 0x7fffffffu;
	grid_kernel<Body, A...><<<static_cast<unsigned>(blocks), threads, 0, s>>>(n, a...);
	FILC2_LAUNCHED();
}

template <class Body, class... A>
__global__ void __launch_bounds__(Body::threads, min_blocks_of<Body>::value) warp_kernel(size_t n, A... a) {
	extern __shared__ uint4 smem_raw[];
	const unsigned per_block = blockDim.x >> 5, mine = threadIdx.x >> 5, lane = threadIdx.x & 31;
	uint32_t* smem = reinterpret_cast<uint32_t*>(smem_raw) + mine * Body::smem_words;
	const size_t stride = static_cast<size_t>(gridDim.x) * per_block;
	for (size_t w = static_cast<size_t>(blockIdx.x) * per_block + mine; w < n; w += stride)
		Body::run(w, lane, smem, a...);
}

// launch_warps runs a warp body over n warps, Body::smem_words of shared memory each.
template <class Body, class... A>
void launch_warps(stream_t s, size_t n, A... a) {
	static_assert(Body::threads % 32 == 0, "a warp body's block is whole warps");
	if (n == 0) return;
	constexpr unsigned threads = Body::threads, per_block = threads / 32;
	constexpr size_t smem = size_t(per_block) * Body::smem_words * sizeof(uint32_t);
	if (smem > (48u << 10))
		FILC2_CUDA(cudaFuncSetAttribute(warp_kernel<Body, A...>, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                                static_cast<int>(smem)));
	size_t blocks = (n + per_block - 1) / per_block;
	if (blocks > 0x7fffffffu) blocks = 0x7fffffffu;
	warp_kernel<Body, A...><<<static_cast<unsigned>(blocks), threads, smem, s>>>(n, a...);
	FILC2_LAUNCHED();
}

template <class Body, class... A>
__global__ void __launch_bounds__(Body::threads) block_kernel(size_t n, A... a) {
	extern __shared__ uint4 smem_raw[];
	uint32_t* smem = reinterpret_cast<uint32_t*>(smem_raw);
	for (size_t b = blockIdx.x; b < n; b += gridDim.x) {
#pragma unroll 1
		for (int k = 0; k < Body::phases; ++k) {
			Body::phase(k, b, threadIdx.x, smem, a...);
			__syncthreads();
		}
	}
}

// launch_blocks runs a block body over n blocks with smem_words of shared memory each.
template <class Body, class... A>
void launch_blocks(stream_t s, size_t n, size_t smem_words, A... a) {
	if (n == 0) return;
	const size_t smem = smem_words * sizeof(uint32_t);
	if (smem > (48u << 10))
		FILC2_CUDA(cudaFuncSetAttribute(block_kernel<Body, A...>, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                                static_cast<int>(smem)));
	const size_t blocks = n > 0x7fffffffu ? 0x7fffffffu : n;
	block_kernel<Body, A...><<<static_cast<unsigned>(blocks), Body::threads, smem, s>>>(n, a...);
	FILC2_LAUNCHED();
}

// lowest_bit / highest_bit: the index of the lowest / highest set bit of m ≠ 0.
__device__ __forceinline__ int lowest_bit(uint32_t m) { return __ffs(m) - 1; }
__device__ __forceinline__ int highest_bit(uint32_t m) { return 31 - __clz(m); }

// shfl_xor returns v of lane (this lane ^ mask), word by word; the whole warp calls it.
template <class T>
__device__ __forceinline__ T shfl_xor(const T& v, unsigned mask) {
	static_assert(sizeof(T) % 4 == 0, "shfl_xor moves 32-bit words");
	T r;
	const uint32_t* in = reinterpret_cast<const uint32_t*>(&v);
	uint32_t* out = reinterpret_cast<uint32_t*>(&r);
#pragma unroll
	for (unsigned j = 0; j < sizeof(T) / 4; ++j) out[j] = __shfl_xor_sync(0xffffffffu, in[j], mask);
	return r;
}

__device__ __forceinline__ uint32_t atomic_add(uint32_t* p, uint32_t v) { return atomicAdd(p, v); }

// agg_add is atomicAdd(&counters[key], 1) aggregated over the lanes of a warp that
// arrive together with the same key: one atomic per distinct key, the others take
// consecutive slots by rank. Skewed keys (many equal scalars) then cost one atomic per
// warp instead of 32 on one address. The mask is read immediately before the match, so
// every lane in it reaches the match (no branch between).
__device__ __forceinline__ uint32_t agg_add(uint32_t* counters, uint32_t key) {
	const unsigned active = __activemask();
	const unsigned peers = __match_any_sync(active, key);
	unsigned lane;
	asm("mov.u32 %0, %%laneid;" : "=r"(lane));
	const unsigned leader = __ffs(peers) - 1;
	const unsigned rank = __popc(peers & ((1u << lane) - 1));
	uint32_t base = 0;
	if (lane == leader) base = atomicAdd(&counters[key], __popc(peers));
	base = __shfl_sync(peers, base, leader);
	return base + rank;
}

// radix_sort_temp_bytes: the temporary storage radix_sort_u64 needs for n words and end_bit
// (CUB's size query; host only, but it asks the current device's PTX version: it needs one).
// Sorting in place between two buffers keeps CUB from taking a third of n words.
inline size_t radix_sort_temp_bytes(size_t n, int end_bit) {
	if (n > size_t(INT_MAX)) throw failure(FILC2_ERR_INTERNAL, 0, "msm: a radix sort of more than 2^31 - 1 words");
	size_t bytes = 0;
	cub::DoubleBuffer<uint64_t> keys(nullptr, nullptr);
	FILC2_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, static_cast<int>(n), 0, end_bit));
	return bytes;
}

// radix_sort_u64 sorts the n words of a stably by their bits [0, end_bit) on stream s (CUB's
// onesweep LSD radix sort), with b as the other buffer (both overwritten), and returns the
// one holding the result. temp: radix_sort_temp_bytes(n, end_bit) bytes or more.
inline uint64_t* radix_sort_u64(void* temp, size_t temp_bytes, uint64_t* a, uint64_t* b, size_t n, int end_bit,
                                stream_t s) {
	if (n > size_t(INT_MAX)) throw failure(FILC2_ERR_INTERNAL, 0, "msm: a radix sort of more than 2^31 - 1 words");
	cub::DoubleBuffer<uint64_t> keys(a, b);
	FILC2_CUDA(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, static_cast<int>(n), 0, end_bit, s));
	return keys.Current();
}

#endif

// ceil_div for sizes.
template <class T>
__host__ __device__ constexpr T ceil_div(T a, T b) {
	return (a + b - 1) / b;
}

// carver hands out aligned pieces of one allocation. With base == nullptr it only
// counts (the sizing pass): the engine plans its scratch twice, once to size the
// arena and once to take the pointers, through the same code.
struct carver {
	char* base = nullptr;
	size_t cap = 0;
	size_t used = 0;

	template <class T>
	T* take(size_t n) {
		used = (used + 255) & ~size_t(255);
		T* p = base ? reinterpret_cast<T*>(base + used) : nullptr;
		used += n * sizeof(T);
#ifdef FILC2_EMULATE
		if (base && used > cap) throw std::logic_error("msm: scratch plan exceeds the arena");
#else
		if (base && used > cap) throw failure(FILC2_ERR_INTERNAL, 0, "msm: scratch plan exceeds the arena");
#endif
		return p;
	}
};

// dev_arena is a device allocation that grows on demand and is kept between calls.
class dev_arena {
   public:
	dev_arena() = default;
	dev_arena(const dev_arena&) = delete;
	dev_arena& operator=(const dev_arena&) = delete;
	~dev_arena() { release(); }

	// reserve makes the arena hold at least bytes (contents are lost when it grows).
	void reserve(size_t bytes) {
		if (bytes <= cap_) return;
		release();
		p_ = static_cast<char*>(dev_alloc(bytes));
		cap_ = bytes;
	}
	void release() {
		dev_free(p_);
		p_ = nullptr;
		cap_ = 0;
	}
	carver carve() const { return carver{p_, cap_, 0}; }
	size_t capacity() const { return cap_; }

   private:
	char* p_ = nullptr;
	size_t cap_ = 0;
};

}  // namespace msm
}  // namespace filc2

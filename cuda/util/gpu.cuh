// cuda/util/gpu.cuh — small host-side helpers: the current device, device buffers,
// events and grid sizing. Everything throws filc2::failure (util/error.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "error.cuh"

namespace filc2 {

// use_device makes ordinal the calling thread's current device.
inline void use_device(int32_t ordinal) {
	int count = 0;
	FILC2_CUDA(cudaGetDeviceCount(&count));
	if (ordinal < 0 || ordinal >= count) {
		throw failure(FILC2_ERR_INVALID_ARGUMENT, cudaErrorInvalidDevice, "no CUDA device with that ordinal");
	}
	FILC2_CUDA(cudaSetDevice(ordinal));
}

// dev_buffer<T> owns n elements of device memory.
template <class T>
class dev_buffer {
   public:
	explicit dev_buffer(size_t n) : n_(n) {
		if (n == 0) return;
		if (n > SIZE_MAX / sizeof(T)) throw_invalid("device buffer size overflows");
		FILC2_CUDA(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
	}
	~dev_buffer() {
		if (p_) cudaFree(p_);  // cannot usefully fail; a sticky error was reported already
	}
	dev_buffer(const dev_buffer&) = delete;
	dev_buffer& operator=(const dev_buffer&) = delete;

	T* get() const { return p_; }
	size_t size() const { return n_; }
	size_t bytes() const { return n_ * sizeof(T); }

	void upload(const void* host, cudaStream_t s = 0) {
		if (n_) FILC2_CUDA(cudaMemcpyAsync(p_, host, bytes(), cudaMemcpyHostToDevice, s));
	}
	void download(void* host, cudaStream_t s = 0) const {
		if (n_) FILC2_CUDA(cudaMemcpyAsync(host, p_, bytes(), cudaMemcpyDeviceToHost, s));
	}

   private:
	T* p_ = nullptr;
	size_t n_;
};

// event owns a CUDA event.
class event {
   public:
	event() { FILC2_CUDA(cudaEventCreate(&e_)); }
	~event() { cudaEventDestroy(e_); }
	event(const event&) = delete;
	event& operator=(const event&) = delete;
	void record(cudaStream_t s = 0) { FILC2_CUDA(cudaEventRecord(e_, s)); }
	// ms_since returns the time from start to this event, after waiting for it.
	float ms_since(const event& start) const {
		FILC2_CUDA(cudaEventSynchronize(e_));
		float ms = 0;
		FILC2_CUDA(cudaEventElapsedTime(&ms, start.e_, e_));
		return ms;
	}

   private:
	cudaEvent_t e_ = nullptr;
};

// sync waits for the device and reports any execution error of earlier launches.
inline void sync() { FILC2_CUDA(cudaDeviceSynchronize()); }

// grid_for sizes a grid-stride launch: enough blocks to cover n, at most `waves`
// blocks per multiprocessor.
inline unsigned grid_for(size_t n, unsigned threads, unsigned waves = 8) {
	int dev = 0, sms = 0;
	FILC2_CUDA(cudaGetDevice(&dev));
	FILC2_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	size_t blocks = (n + threads - 1) / threads;
	size_t cap = static_cast<size_t>(sms) * waves;
	if (blocks > cap) blocks = cap;
	if (blocks == 0) blocks = 1;
	return static_cast<unsigned>(blocks);
}

// persistent_grid sizes a grid-stride launch to exactly fill the device once: as many
// blocks as can be resident on every multiprocessor at the same time, so a uniform
// workload has no partial last wave.
template <class Kernel>
inline unsigned persistent_grid(Kernel kernel, unsigned threads, size_t dynamic_smem = 0) {
	int dev = 0, sms = 0, per_sm = 0;
	FILC2_CUDA(cudaGetDevice(&dev));
	FILC2_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	FILC2_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_smem));
	return static_cast<unsigned>(sms * (per_sm > 0 ? per_sm : 1));
}

}  // namespace filc2

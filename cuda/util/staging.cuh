// cuda/util/staging.cuh — host → device copies through pinned staging buffers.
//
// A pageable cudaMemcpy goes through the driver's own staging path, on the legacy
// default stream, and holds the copying thread for the whole transfer. staging does the
// same job explicitly: the host memcpy of one chunk into a pinned buffer overlaps the
// DMA of the previous chunks, on the caller's (non-blocking) stream, so other threads'
// kernels and copies are never ordered behind it.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "error.cuh"

namespace filc2 {

class staging {
   public:
	static constexpr int max_buffers = 4;

	// staging with `buffers` pinned buffers of `chunk` bytes each (2 ≤ buffers ≤ 4).
	explicit staging(size_t chunk = size_t(8) << 20, int buffers = 2) : chunk_(chunk), k_(buffers) {
		if (chunk == 0 || buffers < 2 || buffers > max_buffers) throw_invalid("staging: bad chunk or buffer count");
		try {
			for (int k = 0; k < k_; ++k) {
				FILC2_CUDA(cudaHostAlloc(&host_[k], chunk_, cudaHostAllocPortable));
				FILC2_CUDA(cudaEventCreateWithFlags(&ev_[k], cudaEventDisableTiming));
			}
		} catch (...) {
			release();
			throw;
		}
	}
	~staging() { release(); }
	staging(const staging&) = delete;
	staging& operator=(const staging&) = delete;

	size_t chunk() const { return chunk_; }

	// upload copies bytes from host src to device dst on stream s. It returns once the
	// last chunk is in a pinned buffer: the caller syncs s (or orders work after it on s)
	// before reading dst. src may be reused as soon as upload returns.
	void upload(void* dst, const void* src, size_t bytes, cudaStream_t s) {
		char* d = static_cast<char*>(dst);
		const char* h = static_cast<const char*>(src);
		int k = 0;
		for (size_t off = 0; off < bytes; off += chunk_, k = (k + 1) % k_) {
			const size_t len = std::min(chunk_, bytes - off);
			FILC2_CUDA(cudaEventSynchronize(ev_[k]));  // the copy that last used buffer k is done
			std::memcpy(host_[k], h + off, len);
			FILC2_CUDA(cudaMemcpyAsync(d + off, host_[k], len, cudaMemcpyHostToDevice, s));
			FILC2_CUDA(cudaEventRecord(ev_[k], s));
		}
	}

   private:
	void release() {
		for (int k = 0; k < max_buffers; ++k) {
			if (ev_[k]) {
				cudaEventSynchronize(ev_[k]);
				cudaEventDestroy(ev_[k]);
				ev_[k] = nullptr;
			}
			if (host_[k]) {
				cudaFreeHost(host_[k]);
				host_[k] = nullptr;
			}
		}
	}

	size_t chunk_;
	int k_;
	void* host_[max_buffers] = {nullptr, nullptr, nullptr, nullptr};
	cudaEvent_t ev_[max_buffers] = {nullptr, nullptr, nullptr, nullptr};
};

}  // namespace filc2

// cuda/util/error.cuh — CUDA errors as C++ exceptions inside, filc2_status outside.
//
// Host code checks every CUDA call with FILC2_CUDA(call) (and FILC2_LAUNCHED() after
// a kernel launch), which throws cuda_failure. Each exported entry point is a thin
// skin: `return guard([&] { ... });` turns whatever was thrown into a status.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <exception>
#include <new>

#include "../filc2_cuda.h"

namespace filc2 {

struct failure : std::exception {
	int32_t code;
	int32_t cuda;
	char msg[248];
	failure(int32_t code_, int32_t cuda_, const char* text) : code(code_), cuda(cuda_) {
		std::snprintf(msg, sizeof msg, "%s", text);
	}
	const char* what() const noexcept override { return msg; }
};

inline int32_t code_of(cudaError_t e) {
	switch (e) {
	case cudaErrorMemoryAllocation:
		return FILC2_ERR_OUT_OF_MEMORY;
	case cudaErrorNoDevice:
	case cudaErrorInsufficientDriver:
	case cudaErrorInvalidDevice:
	case cudaErrorDevicesUnavailable:
	case cudaErrorNoKernelImageForDevice:
		return FILC2_ERR_NO_DEVICE;
	default:
		return FILC2_ERR_CUDA;
	}
}

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* expr, const char* file, int line) {
	// Reset the runtime's last-error slot: a non-sticky error (an allocation that
	// failed, a bad launch configuration) must not fail every later call.
	cudaGetLastError();
	char text[248];
	std::snprintf(text, sizeof text, "%s: %s (%s) at %s:%d", expr, cudaGetErrorString(e), cudaGetErrorName(e), file,
	              line);
	throw failure(code_of(e), static_cast<int32_t>(e), text);
}

[[noreturn]] inline void throw_invalid(const char* what) { throw failure(FILC2_ERR_INVALID_ARGUMENT, 0, what); }

#define FILC2_CUDA(call)                                                                       \
	do {                                                                                   \
		cudaError_t filc2_e_ = (call);                                                 \
		if (filc2_e_ != cudaSuccess) ::filc2::throw_cuda(filc2_e_, #call, __FILE__, __LINE__); \
	} while (0)

// After a launch: configuration errors now (read and cleared), execution errors
// at the next sync.
#define FILC2_LAUNCHED() FILC2_CUDA(cudaGetLastError())

inline filc2_status status_ok() {
	filc2_status s{};
	return s;
}

inline filc2_status status_of(int32_t code, int32_t cuda, const char* text) {
	filc2_status s{};
	s.code = code;
	s.cuda = cuda;
	std::snprintf(s.msg, sizeof s.msg, "%s", text);
	return s;
}

// guard runs f and turns any exception into a status; nothing escapes into C or Go.
template <class Fn>
filc2_status guard(Fn&& f) noexcept {
	try {
		f();
		return status_ok();
	} catch (const failure& e) {
		return status_of(e.code, e.cuda, e.msg);
	} catch (const std::bad_alloc&) {
		return status_of(FILC2_ERR_HOST_MEMORY, 0, "host allocation failed");
	} catch (const std::exception& e) {
		return status_of(FILC2_ERR_INTERNAL, 0, e.what());
	} catch (...) {
		return status_of(FILC2_ERR_INTERNAL, 0, "unknown C++ exception");
	}
}

}  // namespace filc2

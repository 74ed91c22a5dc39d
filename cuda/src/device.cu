// cuda/src/device.cu — C ABI: error names, versions, device enumeration, test allocation.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "../filc2_cuda.h"
#include "../util/error.cuh"
#include "../util/gpu.cuh"

using namespace filc2;

extern "C" const char* filc2_code_name(int32_t code) {
	switch (code) {
	case FILC2_OK:
		return "ok";
	case FILC2_ERR_OUT_OF_MEMORY:
		return "out of device memory";
	case FILC2_ERR_NO_DEVICE:
		return "no usable CUDA device";
	case FILC2_ERR_INVALID_ARGUMENT:
		return "invalid argument";
	case FILC2_ERR_CUDA:
		return "CUDA error";
	case FILC2_ERR_HOST_MEMORY:
		return "out of host memory";
	case FILC2_ERR_INTERNAL:
		return "internal error";
	}
	return "unknown error code";
}

extern "C" filc2_status filc2_versions(int32_t* runtime, int32_t* driver) {
	return guard([&] {
		if (!runtime || !driver) throw_invalid("null output");
		*runtime = CUDART_VERSION;  // linked statically: the version compiled against
		int d = 0;
		if (cudaDriverGetVersion(&d) != cudaSuccess) d = 0;  // no driver: 0, not an error
		cudaGetLastError();
		*driver = d;
	});
}

extern "C" filc2_status filc2_device_count(int32_t* count) {
	return guard([&] {
		if (!count) throw_invalid("null output");
		int n = 0;
		FILC2_CUDA(cudaGetDeviceCount(&n));
		*count = n;
	});
}

extern "C" filc2_status filc2_device_get(int32_t ordinal, filc2_device_info* info) {
	return guard([&] {
		if (!info) throw_invalid("null output");
		use_device(ordinal);
		cudaDeviceProp p;
		FILC2_CUDA(cudaGetDeviceProperties(&p, ordinal));
		size_t free_b = 0, total_b = 0;
		FILC2_CUDA(cudaMemGetInfo(&free_b, &total_b));
		std::memset(info, 0, sizeof *info);
		std::snprintf(info->name, sizeof info->name, "%s", p.name);
		info->total_memory = p.totalGlobalMem;
		info->free_memory = free_b;
		info->sm_count = p.multiProcessorCount;
		info->cc_major = p.major;
		info->cc_minor = p.minor;
		info->ordinal = ordinal;
	});
}

namespace filc2 {
void ntt_forget_device(int device);  // ntt.cu: the kernel attributes set once per context
}

extern "C" filc2_status filc2_device_probe(int32_t device, int32_t reset) {
	return guard([&] {
		if (reset) {
			// A sticky error fails every call but these: reset the primary context.
			cudaSetDevice(device);
			cudaDeviceReset();
			ntt_forget_device(device);
			cudaGetLastError();
		}
		use_device(device);
		FILC2_CUDA(cudaDeviceSynchronize());
		const size_t n = size_t(1) << 20;
		dev_buffer<uint8_t> b(n);
		FILC2_CUDA(cudaMemset(b.get(), 0xa5, n));
		std::vector<uint8_t> h(n);
		FILC2_CUDA(cudaMemcpy(h.data(), b.get(), n, cudaMemcpyDeviceToHost));
		for (uint8_t x : h) {
			if (x != 0xa5) throw failure(FILC2_ERR_INTERNAL, cudaSuccess, "device memory read back wrong");
		}
	});
}

extern "C" filc2_status filc2_test_alloc(int32_t device, uint64_t bytes) {
	return guard([&] {
		use_device(device);
		dev_buffer<uint8_t> b(bytes);
	});
}

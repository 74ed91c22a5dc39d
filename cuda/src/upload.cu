// cuda/src/upload.cu — filc2_uploader (filc2_cuda.h): staged host → device copies on a
// stream of their own.
#include <memory>

#include "../filc2_cuda.h"
#include "../util/error.cuh"
#include "../util/gpu.cuh"
#include "../util/staging.cuh"

using namespace filc2;

struct filc2_uploader {
	int32_t device;
	cudaStream_t stream = nullptr;
	std::unique_ptr<staging> stage;

	filc2_uploader(int32_t dev, size_t chunk, int buffers) : device(dev) {
		use_device(dev);
		FILC2_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
		try {
			stage = std::make_unique<staging>(chunk, buffers);
		} catch (...) {
			cudaStreamDestroy(stream);
			throw;
		}
	}
	~filc2_uploader() {
		stage.reset();  // waits for its copies
		if (stream) cudaStreamDestroy(stream);
	}
	filc2_uploader(const filc2_uploader&) = delete;
	filc2_uploader& operator=(const filc2_uploader&) = delete;
};

extern "C" filc2_status filc2_uploader_new(int32_t device, uint64_t chunk_bytes, int32_t buffers,
                                           filc2_uploader** out) {
	return guard([&] {
		if (!out) throw_invalid("uploader: null output");
		*out = nullptr;
		if (chunk_bytes == 0) chunk_bytes = uint64_t(16) << 20;
		if (chunk_bytes > (uint64_t(1) << 30)) throw_invalid("uploader: staging chunk over 1 GiB");
		if (buffers < 2 || buffers > staging::max_buffers) throw_invalid("uploader: 2 to 4 staging buffers");
		*out = new filc2_uploader(device, static_cast<size_t>(chunk_bytes), buffers);
	});
}

extern "C" filc2_status filc2_uploader_copy(filc2_uploader* u, void* dst, const void* src, uint64_t bytes) {
	return guard([&] {
		if (!u) throw_invalid("uploader: null handle");
		if (bytes == 0) return;
		if (!dst || !src) throw_invalid("uploader: null pointer");
		use_device(u->device);
		u->stage->upload(dst, src, static_cast<size_t>(bytes), u->stream);
		FILC2_CUDA(cudaStreamSynchronize(u->stream));
	});
}

extern "C" filc2_status filc2_uploader_free(filc2_uploader* u) {
	return guard([&] { delete u; });
}

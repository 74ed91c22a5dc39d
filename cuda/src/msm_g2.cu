// cuda/src/msm_g2.cu — C ABI of the MSM: the G2 instantiation (its own translation unit:
// the Fp2 kernels are the slowest to compile, and build.sh compiles files in parallel).
#include "../filc2_cuda.h"
#include "../msm/handle.cuh"

using namespace filc2;
using namespace filc2::msm;

extern "C" filc2_status filc2_msm_g2_upload(int32_t device, const void* points, size_t n, filc2_msm_bases** out) {
	return guard([&] {
		if (!out) throw_invalid("msm: null output");
		*out = nullptr;
		*out = upload_bases<fp2_t>(device, points, n);
	});
}

extern "C" filc2_status filc2_msm_g2_upload_flags(int32_t device, const void* points, size_t n, int32_t flags,
                                                  filc2_msm_bases** out) {
	return guard([&] {
		if (!out) throw_invalid("msm: null output");
		*out = nullptr;
		if (flags & ~FILC2_MSM_HOST_RESIDENT) throw_invalid("msm: unknown upload flags");
		*out = upload_bases<fp2_t>(device, points, n, (flags & FILC2_MSM_HOST_RESIDENT) != 0);
	});
}

extern "C" filc2_status filc2_msm_g2_fixed_base(int32_t device, const void* table, const void* scalars, size_t n,
                                                filc2_msm_bases** out) {
	return guard([&] {
		if (!out) throw_invalid("msm: null output");
		*out = nullptr;
		*out = fixed_base_bases<fp2_t>(device, table, scalars, n);
	});
}

extern "C" filc2_status filc2_msm_g2_generate(int32_t device, const void* gen, size_t n, uint64_t seed,
                                              filc2_msm_bases** out) {
	return guard([&] {
		if (!out) throw_invalid("msm: null output");
		*out = nullptr;
		*out = generate_bases<fp2_t>(device, gen, n, seed);
	});
}

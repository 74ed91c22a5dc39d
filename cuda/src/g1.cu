// cuda/src/g1.cu — C ABI: G1 test kernels.
// Test kernels: field products as calls, for compile time (see ff/mont.cuh).
#define FILC2_FIELD_NOINLINE 1
#include "curve.cuh"

using namespace filc2;

extern "C" filc2_status filc2_test_g1(int32_t device, int32_t op, int32_t out_format, const void* a, const void* b,
                                      const void* s, void* out, size_t n) {
	return guard([&] { run_curve<fp_t>(device, op, out_format, a, b, s, out, n); });
}

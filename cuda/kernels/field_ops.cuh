// cuda/kernels/field_ops.cuh — element-wise field kernels (grid-stride), one per op.
//
// Used by the test entry points and as the simplest throughput probe. F is any
// type with the mont_t / ext2_t interface.
#pragma once

#include <cstddef>

#include "../ff/inverse.cuh"
#include "../filc2_cuda.h"

namespace filc2 {

template <class F, int OP>
__global__ void field_op_kernel(F* __restrict__ out, const F* __restrict__ a, const F* __restrict__ b, size_t n) {
	const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
	for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
		const F x = a[i];
		F r;
		if constexpr (OP == FILC2_FIELD_MUL) r = x * b[i];
		if constexpr (OP == FILC2_FIELD_ADD) r = x + b[i];
		if constexpr (OP == FILC2_FIELD_SUB) r = x - b[i];
		if constexpr (OP == FILC2_FIELD_SQR) r = x.sqr();
		if constexpr (OP == FILC2_FIELD_INV) r = x.inverse();
		if constexpr (OP == FILC2_FIELD_INV_VARTIME) r = inverse_vartime(x);
		if constexpr (OP == FILC2_FIELD_NEG) r = -x;
		if constexpr (OP == FILC2_FIELD_TO_MONT) r = F::from_canonical(x);
		if constexpr (OP == FILC2_FIELD_FROM_MONT) r = x.to_canonical();
		out[i] = r;
	}
}

}  // namespace filc2

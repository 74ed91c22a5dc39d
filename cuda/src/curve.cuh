// cuda/src/curve.cuh — host side of the curve test entry points (one instantiation
// per group, in g1.cu and g2.cu, so the two compile in parallel).
#pragma once

#include "../ec/bls12_381.cuh"
#include "../filc2_cuda.h"
#include "../kernels/curve_ops.cuh"
#include "../util/error.cuh"
#include "../util/gpu.cuh"

namespace filc2 {

template <class F, int OP>
void launch_curve(xyzz_t<F>* out, const affine_t<F>* a, const affine_t<F>* b, const fr_t* s, size_t n) {
	constexpr unsigned threads = 128;
	curve_op_kernel<F, OP><<<grid_for(n, threads), threads>>>(out, a, b, s, n);
	FILC2_LAUNCHED();
}

template <class F>
void run_curve(int32_t device, int32_t op, int32_t format, const void* a, const void* b, const void* s, void* out,
               size_t n) {
	if (op < FILC2_EC_ADD || op > FILC2_EC_NEG) throw_invalid("unknown curve op");
	if (format < FILC2_OUT_AFFINE || format > FILC2_OUT_JACOBIAN) throw_invalid("unknown output format");
	const bool two = op == FILC2_EC_ADD || op == FILC2_EC_MADD;
	const bool scalars = op == FILC2_EC_SMUL;
	if (n == 0) return;
	if (!a || !out || (two && !b) || (scalars && !s)) throw_invalid("null input or output");
	use_device(device);

	dev_buffer<affine_t<F>> da(n), db(two ? n : 0);
	dev_buffer<fr_t> ds(scalars ? n : 0);
	dev_buffer<xyzz_t<F>> dx(n);
	da.upload(a);
	db.upload(b);
	ds.upload(s);
	switch (op) {
	case FILC2_EC_ADD:
		launch_curve<F, FILC2_EC_ADD>(dx.get(), da.get(), db.get(), nullptr, n);
		break;
	case FILC2_EC_MADD:
		launch_curve<F, FILC2_EC_MADD>(dx.get(), da.get(), db.get(), nullptr, n);
		break;
	case FILC2_EC_DBL:
		launch_curve<F, FILC2_EC_DBL>(dx.get(), da.get(), nullptr, nullptr, n);
		break;
	case FILC2_EC_SMUL:
		launch_curve<F, FILC2_EC_SMUL>(dx.get(), da.get(), nullptr, ds.get(), n);
		break;
	case FILC2_EC_NEG:
		launch_curve<F, FILC2_EC_NEG>(dx.get(), da.get(), nullptr, nullptr, n);
		break;
	}

	constexpr unsigned threads = 128;
	if (format == FILC2_OUT_JACOBIAN) {
		dev_buffer<jacobian_out<F>> dj(n);
		to_jacobian_kernel<F><<<grid_for(n, threads), threads>>>(dj.get(), dx.get(), n);
		FILC2_LAUNCHED();
		dj.download(out);
		sync();
		return;
	}
	dev_buffer<affine_t<F>> dout(n);
	if (format == FILC2_OUT_AFFINE) {
		to_affine_kernel<F><<<grid_for(n, threads), threads>>>(dout.get(), dx.get(), n);
	} else {
		// About 8 points per thread, so one inversion serves several points.
		const size_t want = (n + 7) / 8;
		const unsigned blocks = static_cast<unsigned>((want + threads - 1) / threads);
		batch_to_affine_kernel<F><<<blocks, threads>>>(dout.get(), dx.get(), n);
	}
	FILC2_LAUNCHED();
	dout.download(out);
	sync();
}

}  // namespace filc2

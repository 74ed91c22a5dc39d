// cuda/src/field.cu — C ABI: element-wise Fr, Fp and Fp2 test kernels.
#include "../ff/bls12_381.cuh"
#include "../filc2_cuda.h"
#include "../kernels/field_ops.cuh"
#include "../util/error.cuh"
#include "../util/gpu.cuh"

using namespace filc2;

namespace {

template <class F, int OP>
void launch(F* out, const F* a, const F* b, size_t n) {
	constexpr unsigned threads = 256;
	field_op_kernel<F, OP><<<grid_for(n, threads), threads>>>(out, a, b, n);
	FILC2_LAUNCHED();
}

// run_field copies a (and b) in, runs op over n elements and copies the result out.
// Canonical conversions exist only for prime fields (HasCanonical).
template <class F, bool HasCanonical>
void run_field(int32_t device, int32_t op, const void* a, const void* b, void* out, size_t n) {
	const bool binary = op == FILC2_FIELD_MUL || op == FILC2_FIELD_ADD || op == FILC2_FIELD_SUB;
	if (op < FILC2_FIELD_MUL || op > FILC2_FIELD_INV_VARTIME) throw_invalid("unknown field op");
	if (!HasCanonical && (op == FILC2_FIELD_TO_MONT || op == FILC2_FIELD_FROM_MONT))
		throw_invalid("op not defined for this field");
	if (n == 0) return;
	if (!a || !out || (binary && !b)) throw_invalid("null input or output");
	use_device(device);
	dev_buffer<F> da(n), db(binary ? n : 0), dout(n);
	da.upload(a);
	db.upload(b);
	switch (op) {
	case FILC2_FIELD_MUL:
		launch<F, FILC2_FIELD_MUL>(dout.get(), da.get(), db.get(), n);
		break;
	case FILC2_FIELD_ADD:
		launch<F, FILC2_FIELD_ADD>(dout.get(), da.get(), db.get(), n);
		break;
	case FILC2_FIELD_SUB:
		launch<F, FILC2_FIELD_SUB>(dout.get(), da.get(), db.get(), n);
		break;
	case FILC2_FIELD_SQR:
		launch<F, FILC2_FIELD_SQR>(dout.get(), da.get(), nullptr, n);
		break;
	case FILC2_FIELD_INV:
		launch<F, FILC2_FIELD_INV>(dout.get(), da.get(), nullptr, n);
		break;
	case FILC2_FIELD_NEG:
		launch<F, FILC2_FIELD_NEG>(dout.get(), da.get(), nullptr, n);
		break;
	case FILC2_FIELD_INV_VARTIME:
		launch<F, FILC2_FIELD_INV_VARTIME>(dout.get(), da.get(), nullptr, n);
		break;
	default:
		if constexpr (HasCanonical) {
			if (op == FILC2_FIELD_TO_MONT)
				launch<F, FILC2_FIELD_TO_MONT>(dout.get(), da.get(), nullptr, n);
			else
				launch<F, FILC2_FIELD_FROM_MONT>(dout.get(), da.get(), nullptr, n);
		}
	}
	dout.download(out);
	sync();
}

}  // namespace

extern "C" filc2_status filc2_test_fr(int32_t device, int32_t op, const void* a, const void* b, void* out, size_t n) {
	return guard([&] { run_field<fr_t, true>(device, op, a, b, out, n); });
}

extern "C" filc2_status filc2_test_fp(int32_t device, int32_t op, const void* a, const void* b, void* out, size_t n) {
	return guard([&] { run_field<fp_t, true>(device, op, a, b, out, n); });
}

extern "C" filc2_status filc2_test_fp2(int32_t device, int32_t op, const void* a, const void* b, void* out, size_t n) {
	return guard([&] { run_field<fp2_t, false>(device, op, a, b, out, n); });
}

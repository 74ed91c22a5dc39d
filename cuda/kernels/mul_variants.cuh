// cuda/kernels/mul_variants.cuh — alternative codings of the Montgomery product, kept
// only so that the benchmark can compare them with mont_t's on a device.
#pragma once

#include "../ff/ptx.cuh"

namespace filc2 {

// mul_lohi is mont_t's CIOS with the lo and hi halves of each row in two separate
// chains (t[j] += lo(a_j·b), then t[j+1] += hi(a_j·b)). In SASS every limb product
// then costs an IMAD (or IMAD.HI) plus an IADD3.X for the carry, against one
// IMAD.WIDE.U32.X per product in mont_t::operator*: about 4N² + 2N² instructions
// against 2N² + 7N. Which is faster depends on the IMAD.WIDE rate of the chip.
template <class F>
__device__ __forceinline__ F mul_lohi(const F& x, const F& y) {
	constexpr int N = F::limbs;
	using P = typename F::params;
	const uint32_t* a = x.l;
	const uint32_t* b = y.l;
	uint32_t t[N + 1];
#pragma unroll
	for (int j = 0; j <= N; ++j) t[j] = 0;
#pragma unroll
	for (int i = 0; i < N; ++i) {
		t[0] = ptx::mad_lo_cc(a[0], b[i], t[0]);
#pragma unroll
		for (int j = 1; j < N; ++j) t[j] = ptx::madc_lo_cc(a[j], b[i], t[j]);
		t[N] = ptx::addc(0, 0);
		t[1] = ptx::mad_hi_cc(a[0], b[i], t[1]);
#pragma unroll
		for (int j = 1; j < N - 1; ++j) t[j + 1] = ptx::madc_hi_cc(a[j], b[i], t[j + 1]);
		t[N] = ptx::madc_hi(a[N - 1], b[i], t[N]);
		const uint32_t m = t[0] * F::M0;
		(void)ptx::mad_lo_cc(m, P::mod(0), t[0]);
#pragma unroll
		for (int j = 1; j < N; ++j) t[j] = ptx::madc_lo_cc(m, P::mod(j), t[j]);
		t[N] = ptx::addc(t[N], 0);
		t[1] = ptx::mad_hi_cc(m, P::mod(0), t[1]);
#pragma unroll
		for (int j = 1; j < N - 1; ++j) t[j + 1] = ptx::madc_hi_cc(m, P::mod(j), t[j + 1]);
		t[N] = ptx::madc_hi(m, P::mod(N - 1), t[N]);
#pragma unroll
		for (int j = 0; j < N; ++j) t[j] = t[j + 1];
	}
	F r;
#pragma unroll
	for (int j = 0; j < N; ++j) r.l[j] = t[j];
	return r.reduce();
}

}  // namespace filc2

// cuda/ff/karatsuba.cuh — the Montgomery product with its limb product by one level of
// Karatsuba: three half-size products instead of one full one, then REDC.
//
// For N limbs and H = N/2, a = a0 + a1·X and b = b0 + b1·X with X = 2^(32H):
//   a·b = a0·b0 + (a0·b0 + a1·b1 + (a0 − a1)(b1 − b0))·X + a1·b1·X²
// with the difference product taken as |a0 − a1|·|b1 − b0| and its sign applied to the
// middle sum. Limb products: 3H² = 3N²/4 instead of N², so the product with REDC does
// 3N²/4 + N² wide multiply-adds instead of CIOS's 2N² (−12.5 %), at the price of about
// 10N additions on the ALU pipe. The square does the same with the three squares
// (3·H(H+1)/2 against N(N+1)/2). A measured experiment (cuda/NOTES.md, session 14):
// the products of the MSM and the NTT are bound by the IMAD pipe, not by issue.
#pragma once

#include "mont.cuh"
#include "product_field.cuh"

namespace filc2 {
namespace kara {

// abs_diff: d = |x − y| over H limbs; returns all ones when x < y (the difference was negated).
template <int H>
__device__ __forceinline__ uint32_t abs_diff(uint32_t d[H], const uint32_t* x, const uint32_t* y) {
	d[0] = ptx::sub_cc(x[0], y[0]);
#pragma unroll
	for (int j = 1; j < H; ++j) d[j] = ptx::subc_cc(x[j], y[j]);
	const uint32_t neg = ptx::subc(0, 0);
	// two's complement when negative: (d ^ neg) − neg
	d[0] = ptx::sub_cc(d[0] ^ neg, neg);
#pragma unroll
	for (int j = 1; j < H - 1; ++j) d[j] = ptx::subc_cc(d[j] ^ neg, neg);
	d[H - 1] = ptx::subc(d[H - 1] ^ neg, neg);
	return neg;
}

// combine: t (4H limbs) = lo + (lo + hi ± mid)·X + hi·X², the sign of mid negative when neg
// is all ones. The middle sum is a0·b1 + a1·b0 ≥ 0 (below 2·X², so 2H + 1 limbs).
template <int H>
__device__ __forceinline__ void combine(uint32_t t[4 * H], const uint32_t lo[2 * H], const uint32_t hi[2 * H],
                                        const uint32_t mid[2 * H], uint32_t neg) {
	uint32_t m[2 * H + 1];
	m[0] = ptx::add_cc(lo[0], hi[0]);
#pragma unroll
	for (int k = 1; k < 2 * H; ++k) m[k] = ptx::addc_cc(lo[k], hi[k]);
	m[2 * H] = ptx::addc(0, 0);
	// m += (mid ^ neg) + (neg & 1), sign-extended by neg: ± mid modulo 2^(32(2H+1))
	m[0] = ptx::add_cc(m[0], mid[0] ^ neg);
#pragma unroll
	for (int k = 1; k < 2 * H; ++k) m[k] = ptx::addc_cc(m[k], mid[k] ^ neg);
	m[2 * H] = ptx::addc(m[2 * H], neg);
	m[0] = ptx::add_cc(m[0], neg & 1);
#pragma unroll
	for (int k = 1; k <= 2 * H; ++k) m[k] = ptx::addc_cc(m[k], 0);
	// t = lo + hi·X² then + m·X
#pragma unroll
	for (int k = 0; k < 2 * H; ++k) {
		t[k] = lo[k];
		t[2 * H + k] = hi[k];
	}
	t[H] = ptx::add_cc(t[H], m[0]);
#pragma unroll
	for (int k = 1; k <= 2 * H; ++k) t[H + k] = ptx::addc_cc(t[H + k], m[k]);
#pragma unroll
	for (int k = 3 * H + 1; k < 4 * H - 1; ++k) t[k] = ptx::addc_cc(t[k], 0);
	t[4 * H - 1] = ptx::addc(t[4 * H - 1], 0);
}

}  // namespace kara

// mul_kara: a·b·R⁻¹ mod MOD, reduced, for reduced a and b (same result as mont_t's product).
template <class P>
__device__ __forceinline__ mont_t<P> mul_kara(const mont_t<P>& x, const mont_t<P>& y) {
	using F = mont_t<P>;
	constexpr int N = F::N, H = N / 2;
	static_assert(N % 4 == 0, "mul_kara splits the limbs into two even halves");
	const F a = x, b = y;
	uint32_t da[H], db[H];
	const uint32_t na = kara::abs_diff<H>(da, a.l, a.l + H);
	const uint32_t nb = kara::abs_diff<H>(db, b.l + H, b.l);
	uint32_t lo[2 * H], hi[2 * H], mid[2 * H], t[2 * N];
	wide::mul<H>(lo, a.l, b.l);
	wide::mul<H>(hi, a.l + H, b.l + H);
	wide::mul<H>(mid, da, db);
	kara::combine<H>(t, lo, hi, mid, na ^ nb);
	F r;
	F::redc_wide(r.l, t);
	return r;
}

// sqr_kara: a²·R⁻¹ mod MOD: the three half squares (the middle one (a0 − a1)² enters
// negatively: a0·a1·2 = a0² + a1² − (a0 − a1)²).
template <class P>
__device__ __forceinline__ mont_t<P> sqr_kara(const mont_t<P>& x) {
	using F = mont_t<P>;
	constexpr int N = F::N, H = N / 2;
	const F a = x;
	uint32_t da[H];
	(void)kara::abs_diff<H>(da, a.l, a.l + H);
	uint32_t lo[2 * H], hi[2 * H], mid[2 * H], t[2 * N];
	wide::sqr<H>(lo, a.l);
	wide::sqr<H>(hi, a.l + H);
	wide::sqr<H>(mid, da);
	kara::combine<H>(t, lo, hi, mid, 0xffffffffu);
	F r;
	F::redc_wide(r.l, t);
	return r;
}

// kara_product: mul_kara and sqr_kara as product_field's Prod; kara_field<F> is F with them
// (msm_config variant 9, G1).
template <class F>
struct kara_product {
	__device__ __forceinline__ static F mul(const F& a, const F& b) { return mul_kara(a, b); }
	__device__ __forceinline__ static F sqr(const F& a) { return sqr_kara(a); }
};
template <class F>
using kara_field = product_field<F, kara_product<F>>;

}  // namespace filc2

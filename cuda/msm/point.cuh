// cuda/msm/point.cuh — the point operations of the MSM kernels, ordered for registers,
// with the rare cases out of line and, for G2, the cold paths built from out-of-line
// field products (compile time).
//
// madd (XYZZ += affine, madd-2008-s, 8M + 2S) and add (XYZZ += XYZZ, add-2008-s,
// 12M + 2S) are ec/xyzz.cuh's formulas with three changes:
//   * the degenerate case (equal x: P == ±Q, a doubling or infinity) calls a
//     __noinline__ function instead of inlining a doubling into every copy of the
//     addition: it is taken with probability ~2^-381 on random data, and only by
//     repeated points in practice;
//   * the products are issued in an order that ends live ranges early (ZZ, ZZZ are
//     updated as soon as PP, PPP exist), which keeps the G2 kernels near 255 registers;
//   * the field products go through a policy: inline (fast) or calls to one out-of-line
//     product (slow, for cold G2 code: an inlined Fp2 addition is ~90k PTX lines, and
//     cicc + 4 × ptxas over a handful of them took minutes).
// Only the mixed addition of the first accumulation level, which does ~95 % of the
// additions, is inlined into its kernel. Everything else calls add_noinline /
// dbl_noinline, compiled once per translation unit: a call costs a few dozen
// instructions against ~6000 for a G1 addition.
#pragma once

#include "../ec/bls12_381.cuh"

#ifndef FILC2_NOINLINE
#define FILC2_NOINLINE __noinline__
#endif

namespace filc2 {
namespace msm {

// jac_t is gnark's G1Jac / G2Jac layout (X, Y, Z; infinity (1, 1, 0)).
template <class F>
struct jac_t {
	F x, y, z;
};

template <class F>
__device__ FILC2_NOINLINE F mul_call(const F& a, const F& b) {
	return a * b;
}
template <class F>
__device__ FILC2_NOINLINE F sqr_call(const F& a) {
	return a.sqr();
}

// field_ops<F>: out-of-line products for G2 (Fp2), inline ones for G1 (cold code).
template <class F>
struct field_ops {
	static constexpr bool slow = sizeof(F) > 48;
	static __device__ __forceinline__ F mul(const F& a, const F& b) {
		if constexpr (slow)
			return mul_call(a, b);
		else
			return a * b;
	}
	static __device__ __forceinline__ F sqr(const F& a) {
		if constexpr (slow)
			return sqr_call(a);
		else
			return a.sqr();
	}
};
// hot: always inline.
template <class F>
struct inline_ops {
	static __device__ __forceinline__ F mul(const F& a, const F& b) { return a * b; }
	static __device__ __forceinline__ F sqr(const F& a) { return a.sqr(); }
};

// dbl-2008-s-1 (6M + 3S, a = 0), as xyzz_t::dbl.
template <class F, class O>
__device__ __forceinline__ void dbl_with(xyzz_t<F>& a) {
	if (a.is_inf()) return;
	const F U = a.Y.dbl();
	const F V = O::sqr(U);
	const F W = O::mul(U, V);
	const F S = O::mul(a.X, V);
	const F X2 = O::sqr(a.X);
	const F M = X2.dbl() + X2;
	a.ZZ = O::mul(V, a.ZZ);
	a.ZZZ = O::mul(W, a.ZZZ);
	a.X = O::sqr(M) - S.dbl();
	a.Y = O::mul(M, S - a.X) - O::mul(W, a.Y);
}

template <class F>
__device__ FILC2_NOINLINE void dbl_noinline(xyzz_t<F>& a) {
	dbl_with<F, field_ops<F>>(a);
}

// The degenerate cases of the additions: equal x, so a == q (double) or a == −q.
template <class F>
__device__ FILC2_NOINLINE void madd_same_x(xyzz_t<F>& a, const affine_t<F>& q, bool same_y) {
	if (same_y) {
		a = xyzz_t<F>::from_affine(q);
		dbl_noinline(a);
	} else {
		a = xyzz_t<F>::inf();
	}
}

// madd_same_x_value is madd_same_x with q and the sum passed by value. An accumulator or
// point whose address escapes into a call lives in the stack frame: with madd_same_x,
// ptxas keeps acc0's accumulator and prefetched point in local memory around every
// addition of its loop (6 STL.128 and 12 LDL.128 an addition, sm_90), for a path taken
// almost never; by value the loop has none (cuda/NOTES.md, session 14).
template <class F>
__device__ FILC2_NOINLINE xyzz_t<F> madd_same_x_value(affine_t<F> q, bool same_y) {
	if (!same_y) return xyzz_t<F>::inf();
	xyzz_t<F> a = xyzz_t<F>::from_affine(q);
	dbl_noinline(a);
	return a;
}

template <class F>
__device__ FILC2_NOINLINE void add_same_x(xyzz_t<F>& a, bool same_y) {
	if (same_y)
		dbl_noinline(a);
	else
		a = xyzz_t<F>::inf();
}

// madd: a += q for an affine q (infinity allowed on both sides). ByValue: the equal-x
// case through madd_same_x_value.
template <class F, bool ByValue = false>
__device__ __forceinline__ void madd(xyzz_t<F>& a, const affine_t<F>& q) {
	if (q.is_inf()) return;
	if (a.is_inf()) {
		a = {q.x, q.y, F::one(), F::one()};
		return;
	}
	const F P = q.x * a.ZZ - a.X;
	const F R = q.y * a.ZZZ - a.Y;
	if (P.is_zero()) {
		if constexpr (ByValue)
			a = madd_same_x_value(q, R.is_zero());
		else
			madd_same_x(a, q, R.is_zero());
		return;
	}
	const F PP = P.sqr();
	const F PPP = P * PP;
	a.ZZ = a.ZZ * PP;
	a.ZZZ = a.ZZZ * PPP;
	const F Q = a.X * PP;
	a.X = R.sqr() - PPP - Q.dbl();
	a.Y = R * (Q - a.X) - a.Y * PPP;
}

// add: a += q, both XYZZ.
template <class F, class O>
__device__ __forceinline__ void add_with(xyzz_t<F>& a, const xyzz_t<F>& q) {
	if (q.is_inf()) return;
	if (a.is_inf()) {
		a = q;
		return;
	}
	const F U1 = O::mul(a.X, q.ZZ);
	const F S1 = O::mul(a.Y, q.ZZZ);
	const F P = O::mul(q.X, a.ZZ) - U1;
	const F R = O::mul(q.Y, a.ZZZ) - S1;
	if (P.is_zero()) {
		add_same_x(a, R.is_zero());
		return;
	}
	const F PP = O::sqr(P);
	const F PPP = O::mul(P, PP);
	a.ZZ = O::mul(O::mul(a.ZZ, q.ZZ), PP);
	a.ZZZ = O::mul(O::mul(a.ZZZ, q.ZZZ), PPP);
	const F Q = O::mul(U1, PP);
	a.X = O::sqr(R) - PPP - Q.dbl();
	a.Y = O::mul(R, Q - a.X) - O::mul(S1, PPP);
}

template <class F>
__device__ __forceinline__ void add(xyzz_t<F>& a, const xyzz_t<F>& q) {
	add_with<F, inline_ops<F>>(a, q);
}

template <class F>
__device__ FILC2_NOINLINE void add_noinline(xyzz_t<F>& a, const xyzz_t<F>& q) {
	add_with<F, field_ops<F>>(a, q);
}

// to_jacobian_cold: gnark's Jacobian (X·ZZ², Y·ZZZ², ZZZ), infinity (1, 1, 0).
template <class F>
__device__ __forceinline__ jac_t<F> to_jacobian_cold(const xyzz_t<F>& p) {
	using O = field_ops<F>;
	if (p.is_inf()) return {F::one(), F::one(), F::zero()};
	return {O::mul(p.X, O::sqr(p.ZZ)), O::mul(p.Y, O::sqr(p.ZZZ)), p.ZZZ};
}

// load_point reads base v & 0x7fffffff, negated when bit 31 of v is set.
template <class F>
__device__ __forceinline__ affine_t<F> load_point(const affine_t<F>* __restrict__ bases, uint32_t v) {
	affine_t<F> p = bases[v & 0x7fffffffu];
	p.y = p.y.cneg(v >> 31);  // −0 = 0: infinity stays (0, 0)
	return p;
}

}  // namespace msm
}  // namespace filc2

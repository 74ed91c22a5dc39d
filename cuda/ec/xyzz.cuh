// cuda/ec/xyzz.cuh — points in XYZZ coordinates on y² = x³ + b over F (a = 0).
//
// xyzz_t<F> is (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ and ZZ³ = ZZZ²; the point at
// infinity has ZZ = 0 (and ZZZ = 0). The formulas are the "xyzz" ones of the Explicit-
// Formulas Database for short Weierstrass curves (add-2008-s, madd-2008-s, dbl-2008-s-1,
// mdbl-2008-s-1) with a = 0, so b never enters:
//   add  12M + 2S     madd (affine operand)  8M + 2S     dbl  6M + 3S     mdbl  3M + 3S
// Degenerate cases (either operand at infinity, P + P, P + (−P)) are handled by
// branches; they are data dependent and diverge within a warp, which only costs time.
// Field order is gnark-crypto's g1JacExtended/g2JacExtended (X, Y, ZZ, ZZZ).
#pragma once

#include "affine.cuh"

namespace filc2 {

template <class F>
struct alignas(16) xyzz_t {
	F X, Y, ZZ, ZZZ;

	using affine = affine_t<F>;

	__device__ __forceinline__ static xyzz_t inf() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
	__device__ __forceinline__ bool is_inf() const { return ZZ.is_zero(); }

	__device__ __forceinline__ static xyzz_t from_affine(const affine& p) {
		if (p.is_inf()) return inf();
		return {p.x, p.y, F::one(), F::one()};
	}

	__device__ __forceinline__ xyzz_t neg() const { return {X, -Y, ZZ, ZZZ}; }
	__device__ __forceinline__ xyzz_t cneg(bool c) const { return {X, Y.cneg(c), ZZ, ZZZ}; }

	// dbl: this = 2·this (dbl-2008-s-1). A point with y = 0 (none in a prime-order
	// group) correctly lands on infinity through V = 0.
	__device__ __forceinline__ void dbl() {
		if (is_inf()) return;
		const F U = Y.dbl();
		const F V = U.sqr();
		const F W = U * V;
		const F S = X * V;
		const F X2 = X.sqr();
		const F M = X2.dbl() + X2;
		X = M.sqr() - S.dbl();
		Y = M * (S - X) - W * Y;
		ZZ = V * ZZ;
		ZZZ = W * ZZZ;
	}

	// mdbl: this = 2·p for an affine p (mdbl-2008-s-1).
	__device__ __forceinline__ void dbl_affine(const affine& p) {
		if (p.is_inf()) {
			*this = inf();
			return;
		}
		const F U = p.y.dbl();
		const F V = U.sqr();
		const F W = U * V;
		const F S = p.x * V;
		const F X2 = p.x.sqr();
		const F M = X2.dbl() + X2;
		X = M.sqr() - S.dbl();
		Y = M * (S - X) - W * p.y;
		ZZ = V;
		ZZZ = W;
	}

	// add: this += q, both XYZZ (add-2008-s).
	__device__ __forceinline__ void add(const xyzz_t& q) {
		if (q.is_inf()) return;
		if (is_inf()) {
			*this = q;
			return;
		}
		const F U1 = X * q.ZZ;
		const F S1 = Y * q.ZZZ;
		const F P = q.X * ZZ - U1;
		const F R = q.Y * ZZZ - S1;
		if (P.is_zero()) {
			if (R.is_zero()) {
				dbl();  // this == q
			} else {
				*this = inf();  // this == −q
			}
			return;
		}
		const F PP = P.sqr();
		const F PPP = P * PP;
		const F Q = U1 * PP;
		X = R.sqr() - PPP - Q.dbl();
		Y = R * (Q - X) - S1 * PPP;
		ZZ = ZZ * q.ZZ * PP;
		ZZZ = ZZZ * q.ZZZ * PPP;
	}

	// add: this += q for an affine q (madd-2008-s).
	__device__ __forceinline__ void add(const affine& q) {
		if (q.is_inf()) return;
		if (is_inf()) {
			*this = from_affine(q);
			return;
		}
		const F P = q.x * ZZ - X;
		const F R = q.y * ZZZ - Y;
		if (P.is_zero()) {
			if (R.is_zero()) {
				dbl_affine(q);  // this == q
			} else {
				*this = inf();  // this == −q
			}
			return;
		}
		const F PP = P.sqr();
		const F PPP = P * PP;
		const F Q = X * PP;
		X = R.sqr() - PPP - Q.dbl();
		Y = R * (Q - X) - Y * PPP;
		ZZ = ZZ * PP;
		ZZZ = ZZZ * PPP;
	}

	// to_affine with one inversion: 1/(ZZ·ZZZ) gives both 1/ZZ = ZZZ/(ZZ·ZZZ) and 1/ZZZ.
	__device__ __forceinline__ affine to_affine() const {
		if (is_inf()) return affine::inf();
		const F inv = (ZZ * ZZZ).inverse();
		return {X * (inv * ZZZ), Y * (inv * ZZ)};
	}

	// to_jacobian: (X·ZZ², Y·ZZZ², ZZZ) is the same point in Jacobian coordinates
	// (x = X'/Z'², y = Y'/Z'³; Z'² = ZZZ² = ZZ³), no inversion: gnark's G1Jac/G2Jac layout.
	// Infinity comes out as gnark's (1, 1, 0).
	__device__ __forceinline__ void to_jacobian(F& x, F& y, F& z) const {
		if (is_inf()) {
			x = F::one();
			y = F::one();
			z = F::zero();
			return;
		}
		x = X * ZZ.sqr();
		y = Y * ZZZ.sqr();
		z = ZZZ;
	}
};

}  // namespace filc2

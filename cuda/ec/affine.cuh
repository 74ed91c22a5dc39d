// cuda/ec/affine.cuh — affine points of a short Weierstrass curve y² = x³ + b over F.
//
// affine_t<F> is (x, y), x then y: gnark-crypto's G1Affine (F = fp_t) or G2Affine
// (F = fp2_t<fp_t>) byte for byte. The point at infinity is flagged, as in gnark-crypto,
// by x = y = 0: (0, 0) is not on a curve with b ≠ 0, so the flag costs no storage and
// arrays of gnark points upload as they are.
#pragma once

namespace filc2 {

template <class F>
struct alignas(16) affine_t {
	F x, y;

	__device__ __forceinline__ static affine_t inf() { return {F::zero(), F::zero()}; }
	__device__ __forceinline__ bool is_inf() const { return x.is_zero() & y.is_zero(); }

	__device__ __forceinline__ affine_t neg() const { return {x, -y}; }
	__device__ __forceinline__ affine_t cneg(bool c) const { return {x, y.cneg(c)}; }

	__device__ __forceinline__ friend bool operator==(const affine_t& a, const affine_t& b) {
		return (a.x == b.x) & (a.y == b.y);
	}

	// on_curve reports y² = x³ + b; infinity counts as on the curve.
	__device__ __forceinline__ bool on_curve(const F& b) const {
		return is_inf() | (y.sqr() == x.sqr() * x + b);
	}
};

}  // namespace filc2

// cuda/ff/fp2.cuh — the quadratic extension F[u]/(u² + 1) over a mont_t field.
//
// ext2_t<F> is c0 + c1·u, stored c0 then c1: gnark-crypto's E2{A0, A1} byte for byte
// when F is fp_t. Valid for any base field in which −1 is not a square (p ≡ 3 mod 4,
// as for BLS12-381's Fp).
#pragma once

#include "mont.cuh"

namespace filc2 {

template <class F>
struct alignas(16) ext2_t {
	F c0, c1;

	__device__ __forceinline__ static ext2_t zero() { return {F::zero(), F::zero()}; }
	__device__ __forceinline__ static ext2_t one() { return {F::one(), F::zero()}; }

	__device__ __forceinline__ bool is_zero() const { return c0.is_zero() & c1.is_zero(); }
	__device__ __forceinline__ bool is_one() const { return c0.is_one() & c1.is_zero(); }

	__device__ __forceinline__ friend bool operator==(const ext2_t& a, const ext2_t& b) {
		return (a.c0 == b.c0) & (a.c1 == b.c1);
	}
	__device__ __forceinline__ friend bool operator!=(const ext2_t& a, const ext2_t& b) { return !(a == b); }

	__device__ __forceinline__ static ext2_t csel(bool c, const ext2_t& a, const ext2_t& b) {
		return {F::csel(c, a.c0, b.c0), F::csel(c, a.c1, b.c1)};
	}

	__device__ __forceinline__ friend ext2_t operator+(const ext2_t& a, const ext2_t& b) {
		return {a.c0 + b.c0, a.c1 + b.c1};
	}
	__device__ __forceinline__ friend ext2_t operator-(const ext2_t& a, const ext2_t& b) {
		return {a.c0 - b.c0, a.c1 - b.c1};
	}
	__device__ __forceinline__ friend ext2_t operator-(const ext2_t& a) { return {-a.c0, -a.c1}; }
	__device__ __forceinline__ ext2_t dbl() const { return {c0.dbl(), c1.dbl()}; }
	__device__ __forceinline__ ext2_t cneg(bool c) const { return {c0.cneg(c), c1.cneg(c)}; }
	__device__ __forceinline__ ext2_t conjugate() const { return {c0, -c1}; }

	// Karatsuba: three base multiplications.
	//   (a0 + a1·u)(b0 + b1·u) = (a0·b0 − a1·b1) + ((a0 + a1)(b0 + b1) − a0·b0 − a1·b1)·u
	__device__ __forceinline__ friend ext2_t operator*(const ext2_t& a, const ext2_t& b) {
		const F v0 = a.c0 * b.c0;
		const F v1 = a.c1 * b.c1;
		const F s = (a.c0 + a.c1) * (b.c0 + b.c1);
		return {v0 - v1, s - v0 - v1};
	}

	// mul by an element of the base field.
	__device__ __forceinline__ friend ext2_t operator*(const ext2_t& a, const F& b) { return {a.c0 * b, a.c1 * b}; }

	__device__ __forceinline__ ext2_t& operator*=(const ext2_t& b) { return *this = *this * b; }
	__device__ __forceinline__ ext2_t& operator+=(const ext2_t& b) { return *this = *this + b; }
	__device__ __forceinline__ ext2_t& operator-=(const ext2_t& b) { return *this = *this - b; }

	// Two base multiplications: (a0 + a1·u)² = (a0 + a1)(a0 − a1) + 2·a0·a1·u.
	__device__ __forceinline__ ext2_t sqr() const {
		const F t = c0 * c1;
		return {(c0 + c1) * (c0 - c1), t.dbl()};
	}

	// 1/(a0 + a1·u) = (a0 − a1·u)/(a0² + a1²); inverse(0) = 0.
	__device__ __forceinline__ ext2_t inverse() const {
		const F t = (c0.sqr() + c1.sqr()).inverse();
		return {c0 * t, -(c1 * t)};
	}
};

}  // namespace filc2

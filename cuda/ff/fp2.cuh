// cuda/ff/fp2.cuh — the quadratic extension F[u]/(u² + 1) over a mont_t field.
//
// ext2_t<F> is c0 + c1·u, stored c0 then c1: gnark-crypto's E2{A0, A1} byte for byte
// when F is fp_t. Valid for any base field in which −1 is not a square (p ≡ 3 mod 4,
// as for BLS12-381's Fp).
#pragma once

#include "mont.cuh"

namespace filc2 {

// Lazy (the default): the product reduces twice (below); false: three times, the textbook
// Karatsuba, kept for measurement (the MSM's variant 8, bench op 1). Lazy does 14 % fewer
// wide products; G2's first accumulation level ran 11–15 % faster with it in two H100 runs
// (one of them in both orders), 2.7 % slower in a third (cuda/NOTES.md, session 14).
template <class F, bool Lazy = true>
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
	// Lazy: the products are kept wide (2N limbs) and reduced twice instead of three times:
	// c0 = REDC(a0·b0 − a1·b1, plus MOD·R when negative), c1 = REDC((a0 + a1)(b0 + b1) −
	// a0·b0 − a1·b1) with the sums unreduced. With MOD < R/2 (mont_t's requirement) the
	// sums fit N limbs, the cross term a0·b1 + a1·b0 < 2·MOD² < MOD·R, and c0's input lies
	// in [0, MOD·R): both within REDC's range.
	__device__ __forceinline__ friend ext2_t operator*(const ext2_t& a, const ext2_t& b) {
		if constexpr (Lazy)
			return mul_lazy(a, b);
		else
			return mul_eager(a, b);
	}

	// mul_eager: Karatsuba with three Montgomery products.
	__device__ __forceinline__ static ext2_t mul_eager(const ext2_t& a, const ext2_t& b) {
		const F v0 = a.c0 * b.c0;
		const F v1 = a.c1 * b.c1;
		const F s = (a.c0 + a.c1) * (b.c0 + b.c1);
		return {v0 - v1, s - v0 - v1};
	}

	// mul_lazy: Karatsuba with the products wide and two reductions.
	__device__ __forceinline__ static ext2_t mul_lazy(const ext2_t& a, const ext2_t& b) {
		constexpr int N = F::N;
		const ext2_t x = a, y = b;  // operands in registers
		uint32_t sa[N], sb[N];
		add_raw(sa, x.c0.l, x.c1.l);
		add_raw(sb, y.c0.l, y.c1.l);
		uint32_t w0[2 * N], w1[2 * N], t[2 * N];
		F::mul_wide(w0, x.c0.l, y.c0.l);
		F::mul_wide(w1, x.c1.l, y.c1.l);
		// t = w0 − w1 (+ MOD·R when it borrows: the carry out of that addition cancels the
		// borrow's 2^(64N)); w0 becomes w0 + w1 < 2·MOD².
		t[0] = ptx::sub_cc(w0[0], w1[0]);
#pragma unroll
		for (int k = 1; k < 2 * N; ++k) t[k] = ptx::subc_cc(w0[k], w1[k]);
		const uint32_t borrow = ptx::subc(0, 0);
		t[N] = ptx::add_cc(t[N], F::modulus_limb(0) & borrow);
#pragma unroll
		for (int j = 1; j < N - 1; ++j) t[N + j] = ptx::addc_cc(t[N + j], F::modulus_limb(j) & borrow);
		t[2 * N - 1] = ptx::addc(t[2 * N - 1], F::modulus_limb(N - 1) & borrow);
		w0[0] = ptx::add_cc(w0[0], w1[0]);
#pragma unroll
		for (int k = 1; k < 2 * N - 1; ++k) w0[k] = ptx::addc_cc(w0[k], w1[k]);
		w0[2 * N - 1] = ptx::addc(w0[2 * N - 1], w1[2 * N - 1]);
		ext2_t r;
		F::redc_wide(r.c0.l, t);
		// t = (a0 + a1)(b0 + b1) − (w0 + w1) = a0·b1 + a1·b0 ≥ 0.
		F::mul_wide(t, sa, sb);
		t[0] = ptx::sub_cc(t[0], w0[0]);
#pragma unroll
		for (int k = 1; k < 2 * N - 1; ++k) t[k] = ptx::subc_cc(t[k], w0[k]);
		t[2 * N - 1] = ptx::subc(t[2 * N - 1], w0[2 * N - 1]);
		F::redc_wide(r.c1.l, t);
		return r;
	}

	// add_raw: r = a + b without reduction (a, b < MOD < R/2: no carry out).
	__device__ __forceinline__ static void add_raw(uint32_t* r, const uint32_t* a, const uint32_t* b) {
		r[0] = ptx::add_cc(a[0], b[0]);
#pragma unroll
		for (int j = 1; j < F::N - 1; ++j) r[j] = ptx::addc_cc(a[j], b[j]);
		r[F::N - 1] = ptx::addc(a[F::N - 1], b[F::N - 1]);
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

// eager_of<E>::type is E with the eager product (same layout).
template <class E>
struct eager_of;
template <class F, bool Lazy>
struct eager_of<ext2_t<F, Lazy>> {
	using type = ext2_t<F, false>;
};

}  // namespace filc2

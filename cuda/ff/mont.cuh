// cuda/ff/mont.cuh — a prime field in Montgomery form over N 32-bit limbs.
//
// mont_t<P> is an element of Z/MOD, stored as N little-endian 32-bit limbs of
// x·R mod MOD with R = 2^(32·N). Every operation takes and returns fully reduced
// elements (limbs < MOD), so equality is limb equality and the representation is
// unique. The parameter struct P supplies (see ff/bls12_381.cuh):
//   static constexpr int N;            limbs
//   static constexpr uint32_t M0;      −MOD⁻¹ mod 2^32
//   __device__ static uint32_t mod(int j), one(int j), rr(int j);
//                                      limb j of MOD, R mod MOD, R² mod MOD
// (the limbs live in __constant__ memory; P is a type, not pointers, so kernels
// templated on a field get a host stub that compiles).
//
// Requirement on MOD: its top limb is below 0x7ffffffe (MOD < R/2). Then the
// running sum of CIOS fits N+1 limbs and no final carry word is needed (the
// "no-carry" CIOS, as gnark-crypto uses for these primes with 64-bit words).
// Both BLS12-381 fields qualify (ff/gen_bls12_381.py asserts it when deriving them).
//
// The layout is gnark-crypto's fp.Element / fr.Element byte for byte: those are
// little-endian u64 limbs of x·2^(64·k) mod MOD, and 2^(64·k) = 2^(32·N) when N = 2k,
// so arrays of gnark elements upload with no conversion (see cuda/README.md).
#pragma once

#include <cstdint>

#include "ptx.cuh"

#ifndef FILC2_NOINLINE
#define FILC2_NOINLINE __noinline__
#endif

// FILC2_MUL_INLINE is how mul and sqr are compiled: inlined everywhere by default;
// a translation unit that defines FILC2_FIELD_NOINLINE before including this file gets
// them as calls. Test kernels that chain dozens of curve operations do so (src/g1.cu,
// src/g2.cu): the same code, a fraction of the compile time; kernels that are timed never.
#ifndef FILC2_MUL_INLINE
#ifdef FILC2_FIELD_NOINLINE
#define FILC2_MUL_INLINE FILC2_NOINLINE
#else
#define FILC2_MUL_INLINE __forceinline__
#endif
#endif

namespace filc2 {

// wide: schoolbook products of N-limb values into 2N limbs, for any even N — mont_t's at
// its N, the Karatsuba product's (ff/karatsuba.cuh) at N/2.
namespace wide {

// Carry chains are built from 64-bit partial products: the lo and hi halves of one
// product a_j·b, adjacent in a chain and landing in an even-aligned register pair,
// become one IMAD.WIDE.U32.X (carry in and out) in SASS. A chain of lo halves alone
// costs an IMAD plus an IADD3.X per limb instead, and a pair landing on an odd limb
// costs register moves. So a multi-limb value that receives products is kept as two
// arrays: `e` takes the products a_j·b with j even at limbs j, j+1, and `o` those
// with j odd, o[k] standing for limb k+1; both then receive aligned pairs.

// mad_pairs adds a_j·b into acc[j+off], acc[j+off+1] for j = j0, j0+2, …, j1, as one
// carry chain. carry_in: the chain continues the carry of the instruction before it.
// carry_out: the last carry is added into acc[j1+off+2]; without it the caller has
// proved that carry zero. All arguments but acc, a and b must be compile-time
// constants once inlined and unrolled (ptxas reports a stack frame otherwise).
__device__ __forceinline__ void mad_pairs(uint32_t* acc, int off, const uint32_t* a, uint32_t b, int j0, int j1,
                                          bool carry_in, bool carry_out) {
#pragma unroll
	for (int j = j0; j <= j1; j += 2) {
		if (j == j0 && !carry_in)
			acc[j + off] = ptx::mad_lo_cc(a[j], b, acc[j + off]);
		else
			acc[j + off] = ptx::madc_lo_cc(a[j], b, acc[j + off]);
		if (j == j1 && !carry_out)
			acc[j + off + 1] = ptx::madc_hi(a[j], b, acc[j + off + 1]);
		else
			acc[j + off + 1] = ptx::madc_hi_cc(a[j], b, acc[j + off + 1]);
	}
	if (carry_out) acc[j1 + off + 2] = ptx::addc(acc[j1 + off + 2], 0);
}

// mul writes the full 2N-limb product a·b (any even N). Limb i+j of a_j·b_i goes to A (even
// limbs) or B (odd limbs, B[k] for limb k+1), as in sqr; rows 0..i sum to less
// than 2^(32(i+N+1)), so the chain ending at j = N−2 carries into limb i+N and the
// one ending at j = N−1 carries out nothing.
template <int N>
__device__ __forceinline__ void mul(uint32_t s[2 * N], const uint32_t a[N], const uint32_t b[N]) {
	uint32_t A[2 * N], B[2 * N];
#pragma unroll
	for (int k = 0; k < 2 * N; ++k) A[k] = B[k] = 0;
#pragma unroll
	for (int i = 0; i < N; ++i) {
		if (i % 2 == 0) {
			mad_pairs(A, i, a, b[i], 0, N - 2, false, true);
			mad_pairs(B, i - 1, a, b[i], 1, N - 1, false, false);
		} else {
			mad_pairs(B, i - 1, a, b[i], 0, N - 2, false, true);
			mad_pairs(A, i, a, b[i], 1, N - 1, false, false);
		}
	}
	s[0] = A[0];
	s[1] = ptx::add_cc(A[1], B[0]);
#pragma unroll
	for (int k = 2; k < 2 * N - 1; ++k) s[k] = ptx::addc_cc(A[k], B[k - 1]);
	s[2 * N - 1] = ptx::addc(A[2 * N - 1], B[2 * N - 2]);
}

// sqr writes the full 2N-limb square a² (any even N).
template <int N>
__device__ __forceinline__ void sqr(uint32_t s[2 * N], const uint32_t a[N]) {
	// Cross products Σ_{i<j} a_i·a_j·2^(32(i+j)): limb i+j even → A[i+j], odd → B[i+j−1]
	// (B[k] stands for limb k+1), so every pair is aligned. Rows 0..i sum to less than
	// 2^(32(i+N+1)) in each array, so a chain's carry into limb i+N stays inside it,
	// and a chain whose last pair ends at limb i+N carries out nothing.
	uint32_t A[2 * N], B[2 * N];
#pragma unroll
	for (int k = 0; k < 2 * N; ++k) A[k] = B[k] = 0;
#pragma unroll
	for (int i = 0; i < N - 1; ++i) {
		const int jb1 = ((N - 1 - i) % 2 == 1) ? N - 1 : N - 2;  // last j with j − i odd
		mad_pairs(B, i - 1, a, a[i], i + 1, jb1, false, jb1 != N - 1);
		if (i + 2 <= N - 1) {
			const int ja1 = jb1 == N - 1 ? N - 2 : N - 1;  // last j with j − i even
			mad_pairs(A, i, a, a[i], i + 2, ja1, false, ja1 != N - 1);
		}
	}
	// s = A + 2^32·B, the triangle (below 2^(64N−1)).
	s[0] = A[0];
	s[1] = ptx::add_cc(A[1], B[0]);
#pragma unroll
	for (int k = 2; k < 2 * N - 1; ++k) s[k] = ptx::addc_cc(A[k], B[k - 1]);
	s[2 * N - 1] = ptx::addc(A[2 * N - 1], B[2 * N - 2]);
	// Double: shift the 2N limbs left by one bit.
#pragma unroll
	for (int k = 2 * N - 1; k >= 1; --k) s[k] = __funnelshift_l(s[k - 1], s[k], 1);
	s[0] = s[0] << 1;
	// Add the diagonal a_i² at limbs 2i, 2i+1 (aligned) in one chain; a² < 2^(64N).
	s[0] = ptx::mad_lo_cc(a[0], a[0], s[0]);
	s[1] = ptx::madc_hi_cc(a[0], a[0], s[1]);
#pragma unroll
	for (int i = 1; i < N - 1; ++i) {
		s[2 * i] = ptx::madc_lo_cc(a[i], a[i], s[2 * i]);
		s[2 * i + 1] = ptx::madc_hi_cc(a[i], a[i], s[2 * i + 1]);
	}
	s[2 * N - 2] = ptx::madc_lo_cc(a[N - 1], a[N - 1], s[2 * N - 2]);
	s[2 * N - 1] = ptx::madc_hi(a[N - 1], a[N - 1], s[2 * N - 1]);
}

}  // namespace wide

template <class P>
struct alignas(16) mont_t {
	static constexpr int N = P::N;
	static constexpr uint32_t M0 = P::M0;
	using params = P;
	static_assert(N >= 4 && N % 2 == 0, "mont_t needs an even number of limbs, at least 4");
	static constexpr int limbs = N;

	uint32_t l[N];

	// ---- constants and predicates ------------------------------------------------

	// modulus_limb returns limb j of MOD.
	__device__ __forceinline__ static uint32_t modulus_limb(int j) { return P::mod(j); }

	__device__ __forceinline__ static mont_t zero() {
		mont_t r;
#pragma unroll
		for (int j = 0; j < N; ++j) r.l[j] = 0;
		return r;
	}

	// one is R mod MOD, the Montgomery form of 1.
	__device__ __forceinline__ static mont_t one() {
		mont_t r;
#pragma unroll
		for (int j = 0; j < N; ++j) r.l[j] = P::one(j);
		return r;
	}

	__device__ __forceinline__ bool is_zero() const {
		uint32_t acc = 0;
#pragma unroll
		for (int j = 0; j < N; ++j) acc |= l[j];
		return acc == 0;
	}

	__device__ __forceinline__ bool is_one() const {
		uint32_t acc = 0;
#pragma unroll
		for (int j = 0; j < N; ++j) acc |= l[j] ^ P::one(j);
		return acc == 0;
	}

	__device__ __forceinline__ friend bool operator==(const mont_t& a, const mont_t& b) {
		uint32_t acc = 0;
#pragma unroll
		for (int j = 0; j < N; ++j) acc |= a.l[j] ^ b.l[j];
		return acc == 0;
	}
	__device__ __forceinline__ friend bool operator!=(const mont_t& a, const mont_t& b) { return !(a == b); }

	// csel returns c ? a : b without a branch.
	__device__ __forceinline__ static mont_t csel(bool c, const mont_t& a, const mont_t& b) {
		const uint32_t m = 0u - static_cast<uint32_t>(c);
		mont_t r;
#pragma unroll
		for (int j = 0; j < N; ++j) r.l[j] = (a.l[j] & m) | (b.l[j] & ~m);
		return r;
	}

	// ---- additive group ----------------------------------------------------------

	__device__ __forceinline__ friend mont_t operator+(const mont_t& a, const mont_t& b) {
		uint32_t s[N];
		s[0] = ptx::add_cc(a.l[0], b.l[0]);
#pragma unroll
		for (int j = 1; j < N - 1; ++j) s[j] = ptx::addc_cc(a.l[j], b.l[j]);
		s[N - 1] = ptx::addc(a.l[N - 1], b.l[N - 1]);  // a + b < 2·MOD < 2^(32N): no carry out
		mont_t r;
		sub_mod_if_ge(r.l, s);
		return r;
	}

	__device__ __forceinline__ friend mont_t operator-(const mont_t& a, const mont_t& b) {
		uint32_t d[N];
		d[0] = ptx::sub_cc(a.l[0], b.l[0]);
#pragma unroll
		for (int j = 1; j < N; ++j) d[j] = ptx::subc_cc(a.l[j], b.l[j]);
		const uint32_t borrow = ptx::subc(0, 0);  // all ones when a < b
		mont_t r;
		r.l[0] = ptx::add_cc(d[0], P::mod(0) & borrow);
#pragma unroll
		for (int j = 1; j < N - 1; ++j) r.l[j] = ptx::addc_cc(d[j], P::mod(j) & borrow);
		r.l[N - 1] = ptx::addc(d[N - 1], P::mod(N - 1) & borrow);
		return r;
	}

	__device__ __forceinline__ friend mont_t operator-(const mont_t& a) { return zero() - a; }

	__device__ __forceinline__ mont_t dbl() const { return *this + *this; }

	// cneg returns c ? −this : this.
	__device__ __forceinline__ mont_t cneg(bool c) const { return csel(c, -*this, *this); }

	// reduce maps a value in [0, 2·MOD) (limbs of any such sum) into [0, MOD).
	__device__ __forceinline__ mont_t reduce() const {
		mont_t r;
		sub_mod_if_ge(r.l, l);
		return r;
	}

	// ---- multiplicative group ----------------------------------------------------

	// Montgomery product a·b·R⁻¹: CIOS on split even/odd accumulators, about 2N² + 7N
	// instructions of which 2N² are wide multiply-adds (see "building blocks").
	__device__ FILC2_MUL_INLINE friend mont_t operator*(const mont_t& a, const mont_t& b) {
		const mont_t x = a, y = b;  // operands in registers, whatever the references point at
		mont_t r;
		mul_cios(r.l, x.l, y.l);
		return r;
	}

	__device__ __forceinline__ mont_t& operator*=(const mont_t& b) { return *this = *this * b; }
	__device__ __forceinline__ mont_t& operator+=(const mont_t& b) { return *this = *this + b; }
	__device__ __forceinline__ mont_t& operator-=(const mont_t& b) { return *this = *this - b; }

	// sqr: the triangle of cross products once, doubled, plus the diagonal, then REDC:
	// N(N−1)/2 + N + N² wide multiply-adds against mul's 2N².
	__device__ FILC2_MUL_INLINE mont_t sqr() const {
		const mont_t x = *this;
		uint32_t s[2 * N];
		sqr_wide(s, x.l);
		mont_t r;
		redc_wide(r.l, s);
		return r;
	}

	// inverse is this^(MOD−2) (Fermat) by left-to-right square-and-multiply; the
	// exponent is read from constant memory, so the branch is uniform across a warp.
	// inverse(0) = 0, as in gnark-crypto.
	__device__ FILC2_NOINLINE mont_t inverse() const {
		mont_t r = one();
#pragma unroll 1
		for (int i = N - 1; i >= 0; --i) {
			// Limb i of MOD − 2, borrow included (Fr's low limb is 1).
			uint32_t e = 0, borrow = 2;
#pragma unroll 1
			for (int j = 0; j <= i; ++j) {
				const uint32_t m = P::mod(j);
				e = m - borrow;
				borrow = m < borrow ? 1 : 0;
			}
#pragma unroll 1
			for (int k = 31; k >= 0; --k) {
				r = r.sqr();
				if ((e >> k) & 1) r = r * *this;
			}
		}
		return r;
	}

	// ---- conversions -------------------------------------------------------------

	// from_canonical takes the plain integer x < MOD (limbs as they are) to Montgomery form.
	__device__ __forceinline__ static mont_t from_canonical(const mont_t& x) {
		mont_t rr;
#pragma unroll
		for (int j = 0; j < N; ++j) rr.l[j] = P::rr(j);
		return x * rr;
	}

	// to_canonical returns the plain integer x·R·R⁻¹ (limbs of the value in [0, MOD)).
	__device__ __forceinline__ mont_t to_canonical() const {
		uint32_t t[N];
		redc_rows(t, l);
		mont_t r;
		sub_mod_if_ge(r.l, t);
		return r;
	}

	// ---- building blocks (public for lazy-reduction code elsewhere) ----------------
	// The limb products of namespace wide (above) at N limbs, and REDC.

	// mul_wide writes the full 2N-limb product a·b.
	__device__ __forceinline__ static void mul_wide(uint32_t s[2 * N], const uint32_t a[N], const uint32_t b[N]) {
		wide::mul<N>(s, a, b);
	}
	// sqr_wide writes the full 2N-limb square a².
	__device__ __forceinline__ static void sqr_wide(uint32_t s[2 * N], const uint32_t a[N]) { wide::sqr<N>(s, a); }

	// redc_wide is Montgomery reduction of a 2N-limb s < MOD·R (a product of two reduced
	// elements, or the sum of two such products): r = s·R⁻¹ mod MOD, reduced.
	__device__ __forceinline__ static void redc_wide(uint32_t r[N], const uint32_t s[2 * N]) {
		uint32_t t[N];
		redc_rows(t, s);
		// (s_lo + M·MOD)/R ≤ MOD and s_hi < MOD, so the sum is below 2·MOD < 2^(32N).
		t[0] = ptx::add_cc(t[0], s[N]);
#pragma unroll
		for (int j = 1; j < N - 1; ++j) t[j] = ptx::addc_cc(t[j], s[N + j]);
		t[N - 1] = ptx::addc(t[N - 1], s[2 * N - 1]);
		sub_mod_if_ge(r, t);
	}

   private:
	// One Montgomery row on the split value T = e + 2^32·o + pending (e and o as above,
	// N+1 limbs each; pending is a limb-0 addend left by the previous shift). Adds b·a
	// (when Product) and m·MOD with m = T_0·M0, then divides by 2^32:
	//   * pending joins limb 0 first; its carry belongs to limb 1, which is o[0], so the
	//     odd chain continues it;
	//   * after the row limb 0 is zero, so T/2^32 = (o + e_1) + 2^32·(e >> 64): o becomes
	//     the even array, e_1 the next pending limb and e[2..N] the odd array. Shifting e
	//     by two limbs keeps its pairs aligned.
	// Callers bound T: at most 2^(32(N+1)) at every point, so no chain leaves limb N.
	template <bool Product>
	__device__ __forceinline__ static void cios_row(uint32_t e[N + 1], uint32_t o[N + 1], uint32_t& pending,
	                                                const uint32_t* a, uint32_t b, bool first) {
		uint32_t p[N];
#pragma unroll
		for (int j = 0; j < N; ++j) p[j] = P::mod(j);
		uint32_t m;
		if constexpr (Product) {
			if (!first) e[0] = ptx::add_cc(e[0], pending);
			wide::mad_pairs(o, -1, a, b, 1, N - 1, !first, true);  // odd j: o[0..N−1], carry to o[N]
			wide::mad_pairs(e, 0, a, b, 0, N - 2, false, true);    // even j: e[0..N−1], carry to e[N]
			m = e[0] * M0;
			wide::mad_pairs(o, -1, p, m, 1, N - 1, false, true);
		} else {
			m = (e[0] + pending) * M0;
			if (!first) e[0] = ptx::add_cc(e[0], pending);
			wide::mad_pairs(o, -1, p, m, 1, N - 1, !first, true);
		}
		wide::mad_pairs(e, 0, p, m, 0, N - 2, false, true);  // e[0] becomes 0
		pending = e[1];
		uint32_t odd[N + 1];
#pragma unroll
		for (int k = 0; k < N - 1; ++k) odd[k] = e[k + 2];
		odd[N - 1] = odd[N] = 0;
#pragma unroll
		for (int k = 0; k <= N; ++k) {
			e[k] = o[k];
			o[k] = odd[k];
		}
	}

	// collapse writes the N low limbs of T = e + 2^32·o + pending (T < 2^(32N)).
	__device__ __forceinline__ static void collapse(uint32_t t[N], const uint32_t e[N + 1], const uint32_t o[N + 1],
	                                                uint32_t pending) {
		t[0] = ptx::add_cc(e[0], pending);
#pragma unroll
		for (int k = 1; k < N - 1; ++k) t[k] = ptx::addc_cc(e[k], o[k - 1]);
		t[N - 1] = ptx::addc(e[N - 1], o[N - 2]);
	}

	// mul_cios: r = a·b·R⁻¹ mod MOD for a, b < MOD. The running value T < 2·MOD at the
	// start of each row and T + a·b_i + m·MOD < 2^33·MOD < 2^(32(N+1)) (MOD < R/2): the
	// "no-carry" CIOS. Per row: N wide multiply-adds for a·b_i, one multiply for m, N
	// for m·MOD, and 6 single adds.
	__device__ __forceinline__ static void mul_cios(uint32_t r[N], const uint32_t a[N], const uint32_t b[N]) {
		uint32_t e[N + 1], o[N + 1], pending = 0;
#pragma unroll
		for (int k = 0; k <= N; ++k) e[k] = o[k] = 0;
#pragma unroll
		for (int i = 0; i < N; ++i) cios_row<true>(e, o, pending, a, b[i], i == 0);
		uint32_t t[N];
		collapse(t, e, o, pending);
		sub_mod_if_ge(r, t);
	}

	// redc_rows: t = (x + M·MOD)/R ≤ MOD for the N-limb x, M < R chosen by REDC.
	__device__ __forceinline__ static void redc_rows(uint32_t t[N], const uint32_t x[N]) {
		uint32_t e[N + 1], o[N + 1], pending = 0;
#pragma unroll
		for (int k = 0; k < N; ++k) e[k] = x[k];
		e[N] = 0;
#pragma unroll
		for (int k = 0; k <= N; ++k) o[k] = 0;
#pragma unroll
		for (int i = 0; i < N; ++i) cios_row<false>(e, o, pending, nullptr, 0, i == 0);
		collapse(t, e, o, pending);
	}

	// sub_mod_if_ge: r = t ≥ MOD ? t − MOD : t, for t < 2·MOD.
	__device__ __forceinline__ static void sub_mod_if_ge(uint32_t r[N], const uint32_t t[N]) {
		uint32_t d[N];
		d[0] = ptx::sub_cc(t[0], P::mod(0));
#pragma unroll
		for (int j = 1; j < N; ++j) d[j] = ptx::subc_cc(t[j], P::mod(j));
		const uint32_t borrow = ptx::subc(0, 0);  // all ones when t < MOD
#pragma unroll
		for (int j = 0; j < N; ++j) r[j] = (t[j] & borrow) | (d[j] & ~borrow);
	}
};

}  // namespace filc2

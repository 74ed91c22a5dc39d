// cuda/ff/fp64_mul.cuh — the Montgomery product with its limb products on the FP64 pipe
// (issue 17's experiment; cuda/NOTES.md has the model, the prediction and, once run, the
// measurements).
//
// mont_t's product issues every 32×32 → 64-bit limb product as a wide IMAD (two slots of
// the integer multiplier); the FP64 pipe next to it idles. Here the full product a·b is
// computed in radix 2^52 on the FP64 pipe and only the Montgomery reduction stays on the
// integer multiplier (mont_t::redc_wide):
//   * a, b → D = ⌈32N/52⌉ digits of 52 bits as doubles (exact: x < 2^52; bits OR'ed into
//     the mantissa of 2^52, then 2^52 subtracted);
//   * each digit product a_i·b_j < 2^104, split exactly by two FMAs and a subtraction (the
//     idea of Emmart, Zheng and Weems, ARITH 2018; our own coding):
//       hi = fma_rz(a_i, b_j, 2^104)       = 2^104 + k·2^52, k = ⌊a_i·b_j / 2^52⌋ (toward zero)
//       lo = fma(a_i, b_j, C − hi)         = 2^52 + (a_i·b_j − k·2^52),  C = 2^104 + 2^52
//     (C − hi = (1 − k)·2^52 is exact, and so is lo). hi lies in [2^104, 2^105) and lo in
//     [2^52, 2^53), so their raw bits are the IEEE pattern of the binade plus k, resp. plus
//     the remainder: integers, no conversion instruction;
//   * the raw bits are summed per column in 64-bit integers (wrapping: the binade
//     patterns are subtracted once per column at the end, and the true column sum,
//     below 2^58, comes out exactly), carried in radix 2^52 and repacked into the 2N
//     32-bit limbs that redc_wide reduces.
// Per Fp product (N = 12, D = 8): 64 digit products = 192 FP64 operations and 128 64-bit
// additions (256 integer ALU operations), ~180 integer operations of conversion and
// repacking, and redc_wide (144 wide IMADs, half of today's 288). Fr (N = 8, D = 5): 75 FP64
// operations, 100 additions, redc_wide 64 wide IMADs.
#pragma once

#include <cstdint>
#ifdef FILC2_EMULATE
#include <cfenv>
#include <cmath>
#include <cstring>
#endif

#include "mont.cuh"
#include "product_field.cuh"

namespace filc2 {
namespace fp64 {

#ifdef FILC2_EMULATE
inline double from_bits(uint64_t b) {
	double d;
	std::memcpy(&d, &b, 8);
	return d;
}
inline uint64_t to_bits(double d) {
	uint64_t b;
	std::memcpy(&b, &d, 8);
	return b;
}
inline double fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline double fma_rz(double a, double b, double c) {
	const int old = std::fegetround();
	std::fesetround(FE_TOWARDZERO);
	const volatile double r = std::fma(a, b, c);
	std::fesetround(old);
	return r;
}
#else
__device__ __forceinline__ double from_bits(uint64_t b) { return __longlong_as_double(static_cast<long long>(b)); }
__device__ __forceinline__ uint64_t to_bits(double d) { return static_cast<uint64_t>(__double_as_longlong(d)); }
__device__ __forceinline__ double fma_rn(double a, double b, double c) { return __fma_rn(a, b, c); }
__device__ __forceinline__ double fma_rz(double a, double b, double c) { return __fma_rz(a, b, c); }
#endif

constexpr uint64_t bits_2p52 = uint64_t(1023 + 52) << 52;   // the pattern of 2^52
constexpr uint64_t bits_2p104 = uint64_t(1023 + 104) << 52;  // of 2^104
constexpr uint64_t mask52 = (uint64_t(1) << 52) - 1;
constexpr double two52 = 4503599627370496.0;                                         // 2^52
constexpr double two104 = 20282409603651670423947251286016.0;                        // 2^104
constexpr double split_c = 20282409603651670423947251286016.0 + 4503599627370496.0;  // 2^104 + 2^52 (exact)

// digits: D 52-bit digits of a value of N 32-bit limbs.
template <int N>
struct digits {
	static constexpr int D = (32 * N + 51) / 52;
};

// to_digits writes x's D digits as doubles.
template <int N>
__device__ __forceinline__ void to_digits(double* d, const uint32_t* x) {
	constexpr int D = digits<N>::D;
#pragma unroll
	for (int k = 0; k < D; ++k) {
		const int bit = 52 * k, w = bit / 32, sh = bit % 32;
		uint64_t v = uint64_t(x[w]) >> sh;
		if (w + 1 < N) v |= uint64_t(x[w + 1]) << (32 - sh);
		if (sh > 12 && w + 2 < N) v |= uint64_t(x[w + 2]) << (64 - sh);  // 52 bits from sh reach word w+2
		d[k] = from_bits(bits_2p52 | (v & mask52)) - two52;
	}
}

// mul_wide writes the 2N-limb product of a and b (N-limb values) into s.
template <int N>
__device__ __forceinline__ void mul_wide(uint32_t* s, const uint32_t* a, const uint32_t* b) {
	constexpr int D = digits<N>::D;
	double da[D], db[D];
	to_digits<N>(da, a);
	to_digits<N>(db, b);
	uint64_t col[2 * D];
#pragma unroll
	for (int c = 0; c < 2 * D; ++c) col[c] = 0;
#pragma unroll
	for (int i = 0; i < D; ++i) {
#pragma unroll
		for (int j = 0; j < D; ++j) {
			const double hi = fma_rz(da[i], db[j], two104);
			const double lo = fma_rn(da[i], db[j], split_c - hi);
			col[i + j] += to_bits(lo);
			col[i + j + 1] += to_bits(hi);
		}
	}
	// Take off the binade patterns per column, then carry in radix 2^52.
	uint64_t carry = 0;
	uint64_t dig[2 * D];
#pragma unroll
	for (int c = 0; c < 2 * D; ++c) {
		const int n_lo = c < D ? c + 1 : 2 * D - 1 - c;              // products with i + j = c
		const int n_hi = c == 0 ? 0 : (c - 1 < D ? c : 2 * D - c);   // with i + j = c − 1
		const uint64_t off = uint64_t(n_lo) * bits_2p52 + uint64_t(n_hi) * bits_2p104;
		const uint64_t t = (col[c] - off) + carry;  // < 2^58: D ≤ 8 terms of each kind below 2^52, and the carry
		dig[c] = t & mask52;
		carry = t >> 52;
	}
	// Repack 52-bit digits into 32-bit limbs.
#pragma unroll
	for (int j = 0; j < 2 * N; ++j) {
		const int bit = 32 * j, k = bit / 52, sh = bit % 52;
		uint64_t v = dig[k] >> sh;
		if (sh > 20 && k + 1 < 2 * D) v |= dig[k + 1] << (52 - sh);
		s[j] = static_cast<uint32_t>(v);
	}
}

}  // namespace fp64

// mul_fp64 is x·y (Montgomery) with the full product on the FP64 pipe and the reduction
// on the integer multiplier; equal to x * y for reduced inputs.
template <class P>
__device__ __forceinline__ mont_t<P> mul_fp64(const mont_t<P>& x, const mont_t<P>& y) {
	constexpr int N = P::N;
	uint32_t s[2 * N];
	fp64::mul_wide<N>(s, x.l, y.l);
	mont_t<P> r;
	mont_t<P>::redc_wide(r.l, s);
	return r;
}

}  // namespace filc2

namespace filc2 {

// fp64_product: mul_fp64 as product_field's Prod.
template <class F>
struct fp64_product {
	__device__ __forceinline__ static F mul(const F& a, const F& b) { return mul_fp64<typename F::params>(a, b); }
	__device__ __forceinline__ static F sqr(const F& a) { return mul_fp64<typename F::params>(a, a); }
};

// fp64_field<F> is F (a mont_t) with its product and square on the FP64 pipe: the MSM's
// kernels take it as their field to try the FP64 product in place (msm_config variants 5
// and 6, G1).
template <class F>
using fp64_field = product_field<F, fp64_product<F>>;

}  // namespace filc2

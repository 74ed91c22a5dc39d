// cuda/ff/bls12_381.cuh — the two BLS12-381 fields as mont_t instances.
//
//   fp_t  base field Fp, p = 0x1a0111ea…ffffaaab (381 bits), 12 limbs, R = 2^384
//   fr_t  scalar field Fr, r = 0x73eda753…00000001 (255 bits), 8 limbs, R = 2^256
//   fp2_t Fp[u]/(u² + 1), c0 then c1 (gnark E2{A0, A1})
//
// The constants come from cuda/ff/gen_bls12_381.py (which derives them from p and
// r; `--check` compares this file with it) and are checked against gnark-crypto by
// ffi/constants_test.go. R is gnark-crypto's Montgomery constant for both fields
// (2^384 = 2^(64·6), 2^256 = 2^(64·4)): the limbs are interchangeable with
// fp.Element and fr.Element.
#pragma once

#include <cstdint>

#include "fp2.cuh"
#include "mont.cuh"

namespace filc2 {
namespace bls12_381 {

// Fp: modulus, R mod p (one), R^2 mod p, and 4 in Montgomery form (the curve's b).
static __device__ __constant__ const uint32_t FP_MOD[12] = { 0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0, 0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea };
static __device__ __constant__ const uint32_t FP_ONE[12] = { 0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b, 0x53c758ba, 0x5f489857, 0x70525745, 0x77ce5853, 0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3 };
static __device__ __constant__ const uint32_t FP_RR[12] = { 0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6, 0x4c95b6d5, 0x8de5476c, 0x939d83c0, 0x67eb88a9, 0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5 };
static __device__ __constant__ const uint32_t FP_B4[12] = { 0x000cfff3, 0xaa270000, 0xfc34000a, 0x53cc0032, 0x6b0a807f, 0x478fe97a, 0xe6ba24d7, 0xb1d37ebe, 0xbf78ab2f, 0x8ec9733b, 0x3d83de7e, 0x09d64551 };
static constexpr uint32_t FP_M0 = 0xfffcfffd;  // -p^-1 mod 2^32

// Fr: modulus, R mod r (one), R^2 mod r.
static __device__ __constant__ const uint32_t FR_MOD[8] = { 0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402, 0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753 };
static __device__ __constant__ const uint32_t FR_ONE[8] = { 0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa, 0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159 };
static __device__ __constant__ const uint32_t FR_RR[8] = { 0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb, 0x7254398f, 0x05d31496, 0x9f59ff11, 0x0748d9d9 };
static constexpr uint32_t FR_M0 = 0xffffffff;  // -r^-1 mod 2^32

// The parameter structs of mont_t (ff/mont.cuh).
struct fp_params {
	static constexpr int N = 12;
	static constexpr uint32_t M0 = FP_M0;
	__device__ __forceinline__ static uint32_t mod(int j) { return FP_MOD[j]; }
	__device__ __forceinline__ static uint32_t one(int j) { return FP_ONE[j]; }
	__device__ __forceinline__ static uint32_t rr(int j) { return FP_RR[j]; }
};
struct fr_params {
	static constexpr int N = 8;
	static constexpr uint32_t M0 = FR_M0;
	__device__ __forceinline__ static uint32_t mod(int j) { return FR_MOD[j]; }
	__device__ __forceinline__ static uint32_t one(int j) { return FR_ONE[j]; }
	__device__ __forceinline__ static uint32_t rr(int j) { return FR_RR[j]; }
};

}  // namespace bls12_381

using fp_t = mont_t<bls12_381::fp_params>;
using fr_t = mont_t<bls12_381::fr_params>;
using fp2_t = ext2_t<fp_t>;  // Fp[u]/(u² + 1)

static_assert(sizeof(fp_t) == 48, "fp_t must be 48 bytes (gnark fp.Element)");
static_assert(sizeof(fr_t) == 32, "fr_t must be 32 bytes (gnark fr.Element)");
static_assert(sizeof(fp2_t) == 96, "fp2_t must be 96 bytes (gnark E2)");

}  // namespace filc2

// cuda/ec/bls12_381.cuh — the BLS12-381 groups G1 (over Fp) and G2 (over Fp2).
//
//   G1: y² = x³ + 4            G2: y² = x³ + 4(1 + u)  (the M-twist)
// Sizes are gnark-crypto's: G1Affine 96 B, G2Affine 192 B; XYZZ 192 B and 384 B.
#pragma once

#include "../ff/bls12_381.cuh"
#include "affine.cuh"
#include "batch_affine.cuh"
#include "xyzz.cuh"

namespace filc2 {

using g1_affine_t = affine_t<fp_t>;
using g1_xyzz_t = xyzz_t<fp_t>;
using g2_affine_t = affine_t<fp2_t>;
using g2_xyzz_t = xyzz_t<fp2_t>;

static_assert(sizeof(g1_affine_t) == 96, "G1 affine must be 96 bytes (gnark G1Affine)");
static_assert(sizeof(g2_affine_t) == 192, "G2 affine must be 192 bytes (gnark G2Affine)");
static_assert(sizeof(g1_xyzz_t) == 192 && sizeof(g2_xyzz_t) == 384, "XYZZ sizes");

namespace bls12_381 {

// b of G1 (4) and of G2 (4 + 4u), in Montgomery form.
__device__ __forceinline__ fp_t g1_b() {
	fp_t b;
#pragma unroll
	for (int j = 0; j < 12; ++j) b.l[j] = FP_B4[j];
	return b;
}
__device__ __forceinline__ fp2_t g2_b() { return {g1_b(), g1_b()}; }

}  // namespace bls12_381
}  // namespace filc2

// cuda/emu/emu.h — compile the header-only field and curve templates as plain C++.
//
// Defines the CUDA keywords away and supplies the intrinsics and vector type the templates use;
// ff/ptx.cuh switches to its emulated carry flag under FILC2_EMULATE. Only for
// checking the arithmetic on a CPU (cuda/emu/check.py); nothing here runs in a build.
#pragma once

#define FILC2_EMULATE 1
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline
#define __grid_constant__
#define FILC2_NOINLINE __attribute__((noinline))

#include <cstdint>

inline uint32_t __umulhi(uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); }
inline uint32_t __funnelshift_l(uint32_t lo, uint32_t hi, uint32_t shift) {
	shift &= 31;
	return shift ? (hi << shift) | (lo >> (32 - shift)) : hi;
}

// The CUDA vector type and bit reversal the NTT kernels use (cuda/ntt/kernels.cuh).
struct uint4 {
	uint32_t x, y, z, w;
};
inline uint4 make_uint4(uint32_t x, uint32_t y, uint32_t z, uint32_t w) { return uint4{x, y, z, w}; }
inline uint32_t __brev(uint32_t x) {
	uint32_t r = 0;
	for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
	return r;
}

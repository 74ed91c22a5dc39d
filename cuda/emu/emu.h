// cuda/emu/emu.h — compile the header-only field and curve templates as plain C++.
//
// Defines the CUDA keywords away and supplies the two intrinsics the templates use;
// ff/ptx.cuh switches to its emulated carry flag under FILC2_EMULATE. Only for
// checking the arithmetic on a CPU (cuda/emu/check.py); nothing here runs in a build.
#pragma once

#define FILC2_EMULATE 1
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline
#define FILC2_NOINLINE __attribute__((noinline))

#include <cstdint>

inline uint32_t __umulhi(uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); }
inline uint32_t __funnelshift_l(uint32_t lo, uint32_t hi, uint32_t shift) {
	shift &= 31;
	return shift ? (hi << shift) | (lo >> (32 - shift)) : hi;
}

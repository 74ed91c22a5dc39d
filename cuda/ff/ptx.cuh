// cuda/ff/ptx.cuh — 32-bit carry-chain primitives as inline PTX.
//
// Each helper is one PTX instruction. The carry flag (CC.CF) lives between
// consecutive asm statements; the helpers are `asm volatile`, so NVVM keeps
// them in program order, and NVVM itself never emits carry instructions in
// between (its own 64-bit arithmetic is add.u64 etc., which ptxas lowers with
// its own predicates). ptxas then tracks CC like any register. A chain is
// always: one *_cc opener, any number of c*_cc links, one c* closer (or a
// closer-less chain whose last carry is known to be zero and is dropped).
//
// With FILC2_EMULATE defined (cuda/emu/, a plain C++ build) the same helpers are
// host functions over an emulated carry flag, so the field and curve templates can be
// checked on a CPU; the semantics are PTX's: *_cc writes CF (carry out of the add, or
// borrow out of the subtract), c* reads it (adds it, or subtracts it as a borrow).
#pragma once

#include <cstdint>

namespace filc2 {
namespace ptx {

#ifdef FILC2_EMULATE

inline thread_local uint32_t emulated_cf = 0;

inline uint32_t add3(uint32_t a, uint32_t b, uint32_t c, bool set) {
	const uint64_t s = uint64_t(a) + b + c;
	if (set) emulated_cf = uint32_t(s >> 32);
	return uint32_t(s);
}
inline uint32_t sub3(uint32_t a, uint32_t b, uint32_t c, bool set) {
	const uint64_t d = uint64_t(a) - b - c;
	if (set) emulated_cf = uint32_t(d >> 63);  // borrow
	return uint32_t(d);
}
inline uint32_t lo(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) * b); }
inline uint32_t hi(uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); }

inline uint32_t add_cc(uint32_t a, uint32_t b) { return add3(a, b, 0, true); }
inline uint32_t addc_cc(uint32_t a, uint32_t b) { return add3(a, b, emulated_cf, true); }
inline uint32_t addc(uint32_t a, uint32_t b) { return add3(a, b, emulated_cf, false); }
inline uint32_t sub_cc(uint32_t a, uint32_t b) { return sub3(a, b, 0, true); }
inline uint32_t subc_cc(uint32_t a, uint32_t b) { return sub3(a, b, emulated_cf, true); }
inline uint32_t subc(uint32_t a, uint32_t b) { return sub3(a, b, emulated_cf, false); }
inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return add3(lo(a, b), c, 0, true); }
inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return add3(lo(a, b), c, emulated_cf, true); }
inline uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return add3(hi(a, b), c, 0, true); }
inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return add3(hi(a, b), c, emulated_cf, true); }
inline uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return add3(hi(a, b), c, emulated_cf, false); }

#else

// a + b, sets CC.
__device__ __forceinline__ uint32_t add_cc(uint32_t a, uint32_t b) {
	uint32_t r;
	asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
	return r;
}
// a + b + CC, sets CC.
__device__ __forceinline__ uint32_t addc_cc(uint32_t a, uint32_t b) {
	uint32_t r;
	asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
	return r;
}
// a + b + CC.
__device__ __forceinline__ uint32_t addc(uint32_t a, uint32_t b) {
	uint32_t r;
	asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
	return r;
}
// a - b, sets CC (borrow).
__device__ __forceinline__ uint32_t sub_cc(uint32_t a, uint32_t b) {
	uint32_t r;
	asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
	return r;
}
// a - b - CC, sets CC.
__device__ __forceinline__ uint32_t subc_cc(uint32_t a, uint32_t b) {
	uint32_t r;
	asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
	return r;
}
// a - b - CC.
__device__ __forceinline__ uint32_t subc(uint32_t a, uint32_t b) {
	uint32_t r;
	asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
	return r;
}
// lo(a*b) + c, sets CC.
__device__ __forceinline__ uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
	uint32_t r;
	asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
	return r;
}
// lo(a*b) + c + CC, sets CC.
__device__ __forceinline__ uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
	uint32_t r;
	asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
	return r;
}
// hi(a*b) + c, sets CC.
__device__ __forceinline__ uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
	uint32_t r;
	asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
	return r;
}
// hi(a*b) + c + CC, sets CC.
__device__ __forceinline__ uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
	uint32_t r;
	asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
	return r;
}
// hi(a*b) + c + CC.
__device__ __forceinline__ uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) {
	uint32_t r;
	asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
	return r;
}

#endif  // FILC2_EMULATE

}  // namespace ptx
}  // namespace filc2

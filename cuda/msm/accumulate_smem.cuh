// cuda/msm/accumulate_smem.cuh — the first accumulation level (acc0_body's input, output
// and load balance) with a lane's cold state in shared memory: the accumulator's ZZ and ZZZ,
// and its points, fetched one entry ahead by cp.async (msm_config::variant 11: G2's default
// since session 25, 10–11 % faster than all in registers; 12: X, Y and R there too). On G1,
// whose register kernel prefetches and runs 9 warps an SM, neither is faster (cuda/NOTES.md).
//
// Why: G2's acc0_body holds the XYZZ accumulator (96 words), the point (48) and the Fp2
// temporaries in registers — 255 of them and ~110 spilled, 8 warps an SM, no prefetch —
// and runs at ~63–71 % of its multiply floor where G1's runs at ~85 % (cuda/NOTES.md,
// session 23). Of the accumulator, madd reads ZZ and ZZZ twice and writes them once; of
// the point, x and y once each. Kept in shared memory they leave X, Y and the temporaries
// in registers, and the copy of the next point runs beside the current addition without
// holding a register (cp.async, sm_80 and later).
//
// Layout: each lane owns a row of 6·Q 16-byte units (Q = sizeof(F)/16): ZZ, ZZZ, then
// two point buffers (x, y). Unit k of every lane of a block sits at sm[k][lane], so a
// warp's access of one unit is 32 consecutive 16-byte words (no bank conflict). Shared
// memory is read and written only through volatile asm (ld.shared, st.shared, cp.async),
// which the compiler neither merges nor caches in registers: that is the point. The CPU
// emulation (FILC2_EMULATE) runs each lane alone with a row of its own and copies at once.
#pragma once

#include "accumulate.cuh"

namespace filc2 {
namespace msm {
namespace smem {

#ifdef FILC2_EMULATE
using addr_t = uintptr_t;
inline addr_t addr(const void* p) { return reinterpret_cast<addr_t>(p); }
inline uint4 ld(addr_t a) {
	uint4 v;
	std::memcpy(&v, reinterpret_cast<const void*>(a), sizeof v);
	return v;
}
inline void st(addr_t a, const uint4& v) { std::memcpy(reinterpret_cast<void*>(a), &v, sizeof v); }
inline void copy16(addr_t a, const void* g) { std::memcpy(reinterpret_cast<void*>(a), g, 16); }
inline void commit() {}
inline void wait_all_but_one() {}
#else
using addr_t = uint32_t;
__device__ __forceinline__ addr_t addr(const void* p) { return static_cast<addr_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ uint4 ld(addr_t a) {
	uint4 v;
	asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(a));
	return v;
}
__device__ __forceinline__ void st(uint32_t a, const uint4& v) {
	asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(a), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w));
}
// copy16 starts an asynchronous 16-byte copy from global to shared memory (L2 only: the
// points are gathered at random and read once).
__device__ __forceinline__ void copy16(uint32_t a, const void* g) {
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(a), "l"(g));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;"); }
// wait_all_but_one: every committed group but the latest has landed.
__device__ __forceinline__ void wait_all_but_one() { asm volatile("cp.async.wait_group 1;" ::: "memory"); }
#endif

}  // namespace smem

// acc0_smem_body: acc0_body (accumulate.cuh) with ZZ, ZZZ and the points in shared memory,
// and with XY also X, Y and R (only each product's operands and the few values between
// two products in registers). Threads and MinBlocks as for acc0_body (a register cap
// through launch bounds); the shared memory is 6·sizeof(F)·Threads bytes a block, 9· with
// XY (G2, 32 threads: 18 or 27 KiB).
template <class F, unsigned Threads = 32, int MinBlocks = 1, bool XY = false>
struct acc0_smem_body {
	static constexpr unsigned threads = Threads;
	static constexpr int min_blocks = MinBlocks;
	using affine = affine_t<F>;
	using xyzz = xyzz_t<F>;
	static_assert(sizeof(F) % 16 == 0 && alignof(F) >= 16, "a field element is whole 16-byte units");
	static constexpr int Q = sizeof(F) / 16;
	static constexpr uint32_t row = Threads * 16;  // bytes from one unit to the next of a lane
	// units: ZZ, ZZZ, point buffer b at buf + 2Q·b, then with XY: X, Y, R
	enum : int { zz = 0, zzz = Q, buf = 2 * Q, ux = 6 * Q, uy = 7 * Q, ur = 8 * Q };
	static constexpr int units = XY ? 9 * Q : 6 * Q;

	// lane_state: the shared-memory row of one lane.
	struct lane_state {
		smem::addr_t base;  // shared address of the lane's unit 0
		__device__ __forceinline__ F get(int unit) const {
			F r;
			uint4* w = reinterpret_cast<uint4*>(&r);
#pragma unroll
			for (int q = 0; q < Q; ++q) w[q] = smem::ld(base + (unit + q) * row);
			return r;
		}
		__device__ __forceinline__ void put(int unit, const F& v) const {
			const uint4* w = reinterpret_cast<const uint4*>(&v);
#pragma unroll
			for (int q = 0; q < Q; ++q) smem::st(base + (unit + q) * row, w[q]);
		}
		// fetch starts the copy of base v & 0x7fffffff into buffer b (sign applied on reading).
		__device__ __forceinline__ void fetch(const affine* __restrict__ bases, uint32_t v, int b) const {
			const uint4* g = reinterpret_cast<const uint4*>(bases + (v & 0x7fffffffu));
#pragma unroll
			for (int q = 0; q < 2 * Q; ++q) smem::copy16(base + (buf + 2 * Q * b + q) * row, g + q);
		}
		__device__ __forceinline__ F x(int b) const { return get(buf + 2 * Q * b); }
		__device__ __forceinline__ F y(int b, bool neg) const { return get(buf + 2 * Q * b + Q).cneg(neg); }
	};

	// madd: (X, Y, ZZ, ZZZ) += the point in buffer b, negated when neg: point.cuh's madd with
	// each operand read where it is used. inf says the accumulator is the point at infinity
	// (ZZ and ZZZ then unwritten).
	static __device__ __forceinline__ void madd(const lane_state& s, F& X, F& Y, bool& inf, int b, bool neg) {
		if (s.x(b).is_zero() & s.y(b, false).is_zero()) return;  // the point at infinity
		if (inf) {
			X = s.x(b);
			Y = s.y(b, neg);
			s.put(zz, F::one());
			s.put(zzz, F::one());
			inf = false;
			return;
		}
		const F P = s.x(b) * s.get(zz) - X;
		const F R = s.y(b, neg) * s.get(zzz) - Y;
		if (P.is_zero()) {
			const xyzz r = madd_same_x_value(affine{s.x(b), s.y(b, neg)}, R.is_zero());
			X = r.X;
			Y = r.Y;
			s.put(zz, r.ZZ);
			s.put(zzz, r.ZZZ);
			inf = r.is_inf();
			return;
		}
		const F PP = P.sqr();
		const F PPP = P * PP;
		s.put(zz, s.get(zz) * PP);
		s.put(zzz, s.get(zzz) * PPP);
		const F Qv = X * PP;
		X = R.sqr() - PPP - Qv.dbl();
		Y = R * (Qv - X) - Y * PPP;
	}

	// madd_xy: madd with X, Y and R in shared memory too, the products in an order that keeps
	// at most two field elements live beside a product.
	static __device__ __forceinline__ void madd_xy(const lane_state& s, bool& inf, int b, bool neg) {
		if (s.x(b).is_zero() & s.y(b, false).is_zero()) return;  // the point at infinity
		if (inf) {
			s.put(ux, s.x(b));
			s.put(uy, s.y(b, neg));
			s.put(zz, F::one());
			s.put(zzz, F::one());
			inf = false;
			return;
		}
		s.put(ur, s.y(b, neg) * s.get(zzz) - s.get(uy));
		const F P = s.x(b) * s.get(zz) - s.get(ux);
		if (P.is_zero()) {
			const xyzz r = madd_same_x_value(affine{s.x(b), s.y(b, neg)}, s.get(ur).is_zero());
			s.put(ux, r.X);
			s.put(uy, r.Y);
			s.put(zz, r.ZZ);
			s.put(zzz, r.ZZZ);
			inf = r.is_inf();
			return;
		}
		F PP = P.sqr();
		const F PPP = P * PP;
		s.put(zz, s.get(zz) * PP);
		PP = s.get(ux) * PP;  // Q
		s.put(zzz, s.get(zzz) * PPP);
		const F R = s.get(ur);
		const F X = R.sqr() - PPP - PP.dbl();
		s.put(ux, X);
		const F T = PP - X;
		const F YP = s.get(uy) * PPP;
		s.put(uy, R * T - YP);
	}

	static __device__ __forceinline__ xyzz whole(const lane_state& s, const F& X, const F& Y, bool inf) {
		if (inf) return xyzz::inf();
		if constexpr (XY)
			return xyzz{s.get(ux), s.get(uy), s.get(zz), s.get(zzz)};
		else
			return xyzz{X, Y, s.get(zz), s.get(zzz)};
	}

	static __device__ __forceinline__ void run(size_t t_, const pair_t* __restrict__ pairs, const uint32_t* d_M,
	                                           uint32_t L, const affine* __restrict__ bases, xyzz* __restrict__ buckets,
	                                           uint32_t* __restrict__ s_keys, xyzz* __restrict__ s_pts,
	                                           uint32_t* d_len_out) {
#ifdef FILC2_EMULATE
		static thread_local uint4 sm[units][Threads];
		const lane_state s{smem::addr(&sm[0][0])};
#else
		__shared__ uint4 sm[units][Threads];
		const lane_state s{smem::addr(&sm[0][threadIdx.x])};
#endif
		const uint32_t t = static_cast<uint32_t>(t_);
		const uint32_t M = *d_M;
		if (t == 0) *d_len_out = static_cast<uint32_t>(ceil_div<uint64_t>(M, L));
		const uint64_t start = static_cast<uint64_t>(t) * L;
		if (start >= M) return;
		const uint32_t i0 = static_cast<uint32_t>(start);
		const uint32_t i1 = M - i0 > L ? i0 + L : M;
		pair_t cur = pairs[i0];
		pair_t nx = i0 + 1 < i1 ? pairs[i0 + 1] : pair_t{};
		uint32_t key = cur.key;
		bool starting = i0 == 0 || pairs[i0 - 1].key != key;
		bool head = true, inf = true;
		F X = F::zero(), Y = F::zero();
		s.fetch(bases, cur.val, 0);
		smem::commit();
		for (uint32_t i = i0; i < i1; ++i) {
			const int b = (i - i0) & 1;
			if (i + 1 < i1) s.fetch(bases, nx.val, b ^ 1);  // entry i+1's point, its pair read an entry ago
			smem::commit();                                  // (an empty group at the end)
			const pair_t nx2 = i + 2 < i1 ? pairs[i + 2] : pair_t{};
			smem::wait_all_but_one();  // entry i's point is in buffer b
			if (cur.key != key) {
				emit_first<F>(t, head, starting, key, whole(s, X, Y, inf), buckets, s_keys, s_pts);
				head = false;
				starting = true;
				key = cur.key;
				inf = true;
			}
			if constexpr (XY)
				madd_xy(s, inf, b, cur.val >> 31);
			else
				madd(s, X, Y, inf, b, cur.val >> 31);
			cur = nx;
			nx = nx2;
		}
		emit_first<F>(t, head, starting, key, whole(s, X, Y, inf), buckets, s_keys, s_pts);
	}
};

}  // namespace msm
}  // namespace filc2

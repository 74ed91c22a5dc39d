// cuda/ntt/kernels.cuh — the Fr NTT kernel bodies (plan.cuh describes the split).
//
// Every body is a template over an execution context Ctx that supplies the thread and
// block index, the block barrier and all memory accesses:
//   tid(), bid(), nthreads(), nblocks(), sync();
//   ld(p, i), st(p, i, v)      global fr_t elements (data buffers);
//   ldg(p, i)                  read-only global fr_t (tables);
//   lds(i), sts(i, v)          16-byte slots of the block's shared memory.
// src/ntt.cu runs them as CUDA kernels (cuda_ctx); cuda/emu/ntt_check.cpp runs the
// same code on the CPU, one OS thread per CUDA thread, checking every shared and
// global access for races.
//
// Shared memory of a pass: the tile of 2^(s+lp) elements as two planes of 16-byte
// halves (slot i and T + i, T = tile size), slot index swizzled (swz) so that the eight
// lanes of a quarter warp hit eight different 16-byte bank groups in every exchange
// pattern; then the edge factors (two slots each; at most 2^(lp+LE)).
#pragma once

#include <cstdint>

#include "../ff/bls12_381.cuh"
#include "plan.cuh"

namespace filc2 {
namespace ntt {

enum prog_kind {
	PROG_DIF = 0,      // one DIF pass: natural bits in, bit-reversed out
	PROG_DIT = 1,      // one DIT pass
	PROG_DIF_DIT = 2,  // DIF pass then DIT pass on the same (lowest) bits: iNTT last pass + coset NTT first pass
	PROG_DIT_DIF = 3   // DIT pass, pointwise a·v, DIF pass on the same (top) bits
};

enum edge_kind {
	EDGE_NONE = 0,
	EDGE_R1 = 1,  // natural-side scale on the pass with a = n: DIF input / DIT output
	EDGE_RL = 2   // bit-reversed-side scale on the pass with a = s: DIT input / DIF output
};

// One sub-transform of a pass (a pass kernel runs one, or two fused).
struct sub_args {
	const fr_t* tables;  // this pass's round tables T_0 … T_{R−2} in this variant
	uint32_t trivial;    // bit i: T_i[rest][x' = 0] = 1 for every rest (those products skipped)
	int32_t inverse;     // ω⁻¹ instead of ω
	fr_t w8[3];          // ω8, ω8² (= ω4), ω8³ of this direction
};

struct pass_args {
	const fr_t* src;
	fr_t* dst;
	const fr_t* pa;    // PROG_DIT_DIF: v ← pa·v between the two sub-transforms
	const fr_t* psub;  // PROG_DIF: each output less psub at its position, before a scatter
	const fr_t* twt;  // pass twist: ω_{2^a}^e for e < 2^(a−1); null: W1·W2 (compact domain)
	const fr_t* W1;   // ω_N^j, j < 2^14
	const fr_t* W2;   // ω_N^(j·2^14)
	const fr_t* H1;   // edge base h: h^j
	const fr_t* H2;   // h^(j·2^14)
	sub_args sd[2];
	fr_t edge_c;  // edge factor = edge_c · h^E
	uint32_t n, a, s, lp;
	int32_t twist;       // pass twist (DIT input, DIF output; both of the fused DIT_DIF)
	int32_t edge;        // edge_kind
	int32_t scatter;     // DIF output to dst[bitrev_n(position)] (last pass, a = s)
	int32_t sync_store;  // barrier before storing (dst is src, read by other threads)
	int32_t le;          // log2 of the elements a thread holds: which pass_body<PROG, LE> the backend runs
};

// ---- small helpers ---------------------------------------------------------------

__device__ __forceinline__ uint32_t brev_bits(uint32_t x, uint32_t bits) {
	return bits ? __brev(x) >> (32 - bits) : 0u;
}

// swz: slot i's bank group (its low 3 bits) XOR a linear function of bits 3–5 (bit 3 → 2, bit
// 4 → 5, bit 5 → 6, packed as the table 0x13467520): a bijection within each 64-slot group
// under which every exchange of both thread shapes (8 elements: the lanes of a quarter warp
// spread over slot bits {0,1,2}, {0,1,5}, {0,4,5} or {3,4,5}; 4 elements: {0,1,2}, {0,1,4},
// {0,3,4} or {2,3,4}) is conflict-free (cuda/emu/ntt_banks.cpp checks every shape). The
// swizzle before session 20, i ^ (i >> 3 & 7), left 4 elements a thread one 2-way-conflicted
// exchange a pass.
__device__ __forceinline__ uint32_t swz(uint32_t i) { return i ^ ((0x13467520u >> (((i >> 3) & 7u) * 4)) & 7u); }

__device__ __forceinline__ uint4 half_lo(const fr_t& x) { return make_uint4(x.l[0], x.l[1], x.l[2], x.l[3]); }
__device__ __forceinline__ uint4 half_hi(const fr_t& x) { return make_uint4(x.l[4], x.l[5], x.l[6], x.l[7]); }
__device__ __forceinline__ fr_t from_halves(const uint4& a, const uint4& b) {
	fr_t x;
	x.l[0] = a.x, x.l[1] = a.y, x.l[2] = a.z, x.l[3] = a.w;
	x.l[4] = b.x, x.l[5] = b.y, x.l[6] = b.z, x.l[7] = b.w;
	return x;
}

// Digits of a pass of s bits (plan.cuh digits()): `shorts` rounds of LE − 1 bits first, then
// rounds of LE bits. LE is log2 of the elements a thread holds (2 or 3).
template <int LE>
__device__ __forceinline__ uint32_t shorts_of(uint32_t s) {
	if constexpr (LE == 2)
		return s % 2;
	else
		return s % 3 == 1 ? 2u : (s % 3 == 2 ? 1u : 0u);
}
template <int LE>
__device__ __forceinline__ uint32_t rounds_of(uint32_t s) {
	const uint32_t t = shorts_of<LE>(s);
	return t + (s - (LE - 1) * t) / LE;
}
template <int LE>
__device__ __forceinline__ uint32_t r_of(uint32_t i, uint32_t shorts) {
	return i < shorts ? uint32_t(LE - 1) : uint32_t(LE);
}
template <int LE>
__device__ __forceinline__ uint32_t o_of(uint32_t i, uint32_t s, uint32_t shorts) {
	return i < shorts ? s - (LE - 1) * (i + 1) : s - (LE - 1) * shorts - LE * (i + 1 - shorts);
}

// mid of register j of thread u in a round with an R-bit digit at bit o (R = LE or LE − 1):
// prefix | x | y | z with x the digit (j >> (LE − R)), y = j's low LE − R bits, the rest bits
// just below the digit, z the low rest bits and prefix the bits above, thread
// u = prefix·2^|z| + z.
template <int LE, int R>
__device__ __forceinline__ uint32_t mid_of(uint32_t u, int j, uint32_t o) {
	constexpr uint32_t yb = LE - R;
	const uint32_t zb = o - yb;
	const uint32_t jj = static_cast<uint32_t>(j);
	return ((u >> zb) << (o + R)) | ((jj >> yb) << o) | ((jj & ((1u << yb) - 1)) << zb) | (u & ((1u << zb) - 1));
}

// rest (the mid bits below the digit) of register j: the row of the round table.
template <int LE, int R>
__device__ __forceinline__ uint32_t rest_of(uint32_t u, int j, uint32_t o) {
	constexpr uint32_t yb = LE - R;
	const uint32_t zb = o - yb;
	return ((static_cast<uint32_t>(j) & ((1u << yb) - 1)) << zb) | (u & ((1u << zb) - 1));
}

// ---- butterflies ------------------------------------------------------------------

__device__ __forceinline__ void bf_dif(fr_t& a, fr_t& b) {
	const fr_t t = a - b;
	a = a + b;
	b = t;
}
__device__ __forceinline__ void bf_dif(fr_t& a, fr_t& b, const fr_t& w) {
	const fr_t t = a - b;
	a = a + b;
	b = t * w;
}
__device__ __forceinline__ void bf_dit(fr_t& a, fr_t& b) {
	const fr_t t = b;
	b = a - t;
	a = a + t;
}
__device__ __forceinline__ void bf_dit(fr_t& a, fr_t& b, const fr_t& w) {
	const fr_t t = b * w;
	b = a - t;
	a = a + t;
}

// radix_stage<LE, R, DIF>: stage t of the 2^R-point transform along the digit, for each of the
// 2^(LE−R) values of y (register j = x·2^(LE−R) + y): x with bit t clear is paired with
// x + 2^t, the second of the pair twisted by ω_{2^(t+1)}^(x mod 2^t) = ω8^((x mod 2^t)·2^(2−t))
// (w8 holds ω8, ω8², ω8³; R ≤ 3) — after the DIF butterfly, before the DIT one.
template <int LE, int R, bool DIF>
__device__ __forceinline__ void radix_stage(fr_t v[1 << LE], const fr_t* w8, int t) {
	constexpr int yb = LE - R;
#pragma unroll
	for (int x = 0; x < (1 << R); ++x) {
		if (x & (1 << t)) continue;
		const int k = (x & ((1 << t) - 1)) << (2 - t);
#pragma unroll
		for (int y = 0; y < (1 << yb); ++y) {
			fr_t& a = v[(x << yb) + y];
			fr_t& b = v[((x + (1 << t)) << yb) + y];
			if (k == 0) {
				if constexpr (DIF)
					bf_dif(a, b);
				else
					bf_dit(a, b);
			} else {
				if constexpr (DIF)
					bf_dif(a, b, w8[k - 1]);
				else
					bf_dit(a, b, w8[k - 1]);
			}
		}
	}
}

// radix_dif<LE, R>: the 2^R-point DIF along the digit (natural in, bit-reversed out): its
// stages from the top bit of x down.
template <int LE, int R>
__device__ __forceinline__ void radix_dif(fr_t v[1 << LE], const fr_t* w8) {
#pragma unroll
	for (int t = R - 1; t >= 0; --t) radix_stage<LE, R, true>(v, w8, t);
}

// radix_dit<LE, R>: the transpose of radix_dif<LE, R> (bit-reversed in, natural out): the
// same stages from the bottom bit up.
template <int LE, int R>
__device__ __forceinline__ void radix_dit(fr_t v[1 << LE], const fr_t* w8) {
#pragma unroll
	for (int t = 0; t < R; ++t) radix_stage<LE, R, false>(v, w8, t);
}

// round_twist<LE, R>: v[j] ·= T[rest·2^R + x'] (x' the digit position of register j).
template <int LE, int R, class Ctx>
__device__ __forceinline__ void round_twist(const Ctx& c, fr_t v[1 << LE], const fr_t* T, bool trivial0, uint32_t u,
                                            uint32_t o) {
#pragma unroll
	for (int j = 0; j < (1 << LE); ++j) {
		const int x = j >> (LE - R);
		if (x == 0 && trivial0) continue;
		v[j] = v[j] * c.ldg(T, (rest_of<LE, R>(u, j, o) << R) + static_cast<uint32_t>(x));
	}
}

// ---- shared-memory exchange -----------------------------------------------------------

template <int LE, int R, class Ctx>
__device__ __forceinline__ void sm_store(const Ctx& c, const fr_t v[1 << LE], uint32_t u, uint32_t lo_, uint32_t lp,
                                         uint32_t o, uint32_t tile) {
#pragma unroll
	for (int j = 0; j < (1 << LE); ++j) {
		const uint32_t i = swz((mid_of<LE, R>(u, j, o) << lp) | lo_);
		c.sts(i, half_lo(v[j]));
		c.sts(tile + i, half_hi(v[j]));
	}
}

template <int LE, int R, class Ctx>
__device__ __forceinline__ void sm_load(const Ctx& c, fr_t v[1 << LE], uint32_t u, uint32_t lo_, uint32_t lp,
                                        uint32_t o, uint32_t tile) {
#pragma unroll
	for (int j = 0; j < (1 << LE); ++j) {
		const uint32_t i = swz((mid_of<LE, R>(u, j, o) << lp) | lo_);
		v[j] = from_halves(c.lds(i), c.lds(tile + i));
	}
}

// exchange: from round `from`'s register layout to round `to`'s, through shared memory.
// The first barrier keeps a store from overwriting a slot another thread has still to read.
template <int LE, class Ctx>
__device__ __forceinline__ void exchange(const Ctx& c, fr_t v[1 << LE], uint32_t u, uint32_t lo_, uint32_t lp,
                                         uint32_t s, uint32_t shorts, uint32_t from, uint32_t to, uint32_t tile) {
	c.sync();
	if (r_of<LE>(from, shorts) == LE)
		sm_store<LE, LE>(c, v, u, lo_, lp, o_of<LE>(from, s, shorts), tile);
	else
		sm_store<LE, LE - 1>(c, v, u, lo_, lp, o_of<LE>(from, s, shorts), tile);
	c.sync();
	if (r_of<LE>(to, shorts) == LE)
		sm_load<LE, LE>(c, v, u, lo_, lp, o_of<LE>(to, s, shorts), tile);
	else
		sm_load<LE, LE - 1>(c, v, u, lo_, lp, o_of<LE>(to, s, shorts), tile);
}

// ---- sub-transforms ------------------------------------------------------------------

// sub_dif: the 2^s-point DIF of a pass, registers in round 0's layout ("R1") on entry and
// in the last round's ("RL": mid = u·2^LE + j) on exit.
template <int LE, class Ctx>
__device__ __forceinline__ void sub_dif(const Ctx& c, fr_t v[1 << LE], const pass_args& p, const sub_args& sd,
                                        uint32_t u, uint32_t lo_) {
	const uint32_t s = p.s, shorts = shorts_of<LE>(s), R = rounds_of<LE>(s), tile = 1u << (s + p.lp);
	uint32_t toff = 0;
#pragma unroll 1
	for (uint32_t i = 0; i < R; ++i) {
		if (i > 0) exchange<LE>(c, v, u, lo_, p.lp, s, shorts, i - 1, i, tile);
		const uint32_t r = r_of<LE>(i, shorts), o = o_of<LE>(i, s, shorts);
		const bool twisted = i + 1 < R;
		const bool trivial0 = (sd.trivial >> i) & 1u;
		if (r == LE) {
			radix_dif<LE, LE>(v, sd.w8);
			if (twisted) round_twist<LE, LE>(c, v, sd.tables + toff, trivial0, u, o);
		} else {
			radix_dif<LE, LE - 1>(v, sd.w8);
			if (twisted) round_twist<LE, LE - 1>(c, v, sd.tables + toff, trivial0, u, o);
		}
		toff += 1u << (o + r);
	}
}

// sub_dit: the transpose of sub_dif (RL layout in, R1 out).
template <int LE, class Ctx>
__device__ __forceinline__ void sub_dit(const Ctx& c, fr_t v[1 << LE], const pass_args& p, const sub_args& sd,
                                        uint32_t u, uint32_t lo_) {
	const uint32_t s = p.s, shorts = shorts_of<LE>(s), R = rounds_of<LE>(s), tile = 1u << (s + p.lp);
	uint32_t toff = 0;  // offset of T_i: the sizes of T_0 … T_{i−1}
	for (uint32_t i = 0; i + 1 < R; ++i) toff += 1u << (o_of<LE>(i, s, shorts) + r_of<LE>(i, shorts));
#pragma unroll 1
	for (uint32_t k = R; k-- > 0;) {
		if (k + 1 < R) exchange<LE>(c, v, u, lo_, p.lp, s, shorts, k + 1, k, tile);
		const uint32_t r = r_of<LE>(k, shorts), o = o_of<LE>(k, s, shorts);
		const bool twisted = k + 1 < R;
		if (twisted) toff -= 1u << (o + r);
		const bool trivial0 = (sd.trivial >> k) & 1u;
		if (r == LE) {
			if (twisted) round_twist<LE, LE>(c, v, sd.tables + toff, trivial0, u, o);
			radix_dit<LE, LE>(v, sd.w8);
		} else {
			if (twisted) round_twist<LE, LE - 1>(c, v, sd.tables + toff, trivial0, u, o);
			radix_dit<LE, LE - 1>(v, sd.w8);
		}
	}
}

// ---- pass-level steps ------------------------------------------------------------------

// pass_factor: ω_{2^a}^(±e) for e < 2^a, from the half table and the sign ω^(2^(a−1)) = −1.
template <class Ctx>
__device__ __forceinline__ fr_t pass_factor(const Ctx& c, const pass_args& p, uint32_t e, bool inverse) {
	const uint32_t a = p.a, half = 1u << (a - 1);
	if (inverse) e = (0u - e) & ((1u << a) - 1);
	const bool neg = e >= half;
	e &= half - 1;
	fr_t t;
	if (p.twt) {
		t = c.ldg(p.twt, e);
	} else {
		const uint32_t E = e << (p.n - a);
		t = c.ldg(p.W1, E & ((1u << POW_BITS) - 1)) * c.ldg(p.W2, E >> POW_BITS);
	}
	return t.cneg(neg);
}

// pass_twist: RL layout, element mid = u·2^LE + j of line lo: ·ω_{2^a}^(lo·bitrev_s(mid)).
template <int LE, class Ctx>
__device__ __forceinline__ void pass_twist(const Ctx& c, fr_t v[1 << LE], const pass_args& p, uint32_t u, uint32_t lo,
                                           bool inverse) {
#pragma unroll
	for (int j = 0; j < (1 << LE); ++j) {
		const uint32_t k = brev_bits((u << LE) | static_cast<uint32_t>(j), p.s);
		v[j] = v[j] * pass_factor(c, p, lo * k, inverse);
	}
}

// Edge factors, computed once per block into shared memory (after the tile):
//   EDGE_R1 (pass a = n, natural side): entry (lo_, x) for the round-0 digit x,
//     C·h^(lo + x·2^(n−r0));
//   EDGE_RL (pass a = s, bit-reversed side): entry x for the last digit x (mid bits
//     0..LE−1), C·h^(bitrev_{n−s}(hi) + bitrev_LE(x)·2^(n−LE)).
template <int LE, class Ctx>
__device__ __forceinline__ void edge_setup(const Ctx& c, const pass_args& p, uint32_t hi, uint32_t lo0,
                                           uint32_t r0, uint32_t tile) {
	const uint32_t n = p.n;
	const uint32_t count = p.edge == EDGE_R1 ? (1u << (p.lp + r0)) : (1u << LE);
	for (uint32_t e = c.tid(); e < count; e += c.nthreads()) {
		uint32_t E;
		if (p.edge == EDGE_R1)
			E = lo0 + (e >> r0) + ((e & ((1u << r0) - 1)) << (n - r0));
		else
			E = brev_bits(hi, n - p.s) + (brev_bits(e, LE) << (n - LE));
		const fr_t f = p.edge_c * c.ldg(p.H1, E & ((1u << POW_BITS) - 1)) * c.ldg(p.H2, E >> POW_BITS);
		c.sts(2 * tile + 2 * e, half_lo(f));
		c.sts(2 * tile + 2 * e + 1, half_hi(f));
	}
	c.sync();
}

template <class Ctx>
__device__ __forceinline__ fr_t edge_factor(const Ctx& c, uint32_t e, uint32_t tile) {
	return from_halves(c.lds(2 * tile + 2 * e), c.lds(2 * tile + 2 * e + 1));
}

// R1 layout: address of register j (round 0: prefix empty).
template <int LE>
__device__ __forceinline__ uint32_t mid_r1(uint32_t u, int j, uint32_t s, uint32_t r0) {
	return r0 == LE ? mid_of<LE, LE>(u, j, s - LE) : mid_of<LE, LE - 1>(u, j, s - (LE - 1));
}

// edges_r1 / edges_rl: the natural-side and bit-reversed-side edge scale of all registers.
template <int LE, class Ctx>
__device__ __forceinline__ void edges_r1(const Ctx& c, fr_t v[1 << LE], uint32_t lo_, uint32_t r0, uint32_t tile) {
#pragma unroll
	for (int j = 0; j < (1 << LE); ++j)
		v[j] = v[j] * edge_factor(c, (lo_ << r0) + (static_cast<uint32_t>(j) >> (LE - r0)), tile);
}
template <int LE, class Ctx>
__device__ __forceinline__ void edges_rl(const Ctx& c, fr_t v[1 << LE], uint32_t tile) {
#pragma unroll
	for (int j = 0; j < (1 << LE); ++j) v[j] = v[j] * edge_factor(c, static_cast<uint32_t>(j), tile);
}

// ---- the pass kernel body ----------------------------------------------------------------

template <int PROG, int LE, class Ctx>
__device__ __forceinline__ void pass_body(const Ctx& c, const pass_args& p) {
	const uint32_t s = p.s, lp = p.lp, a = p.a, ll = a - s;
	const uint32_t tid = c.tid();
	const uint32_t lo_ = tid & ((1u << lp) - 1), u = tid >> lp;
	const uint32_t b = c.bid(), lob = ll - lp;
	const uint32_t hi = b >> lob;
	const uint32_t lo0 = (b & ((1u << lob) - 1)) << lp;
	const uint32_t lo = lo0 + lo_;
	const uint32_t base = (hi << a) + lo;  // element (mid) is at base + mid·2^ll
	const uint32_t r0 = shorts_of<LE>(s) ? uint32_t(LE - 1) : uint32_t(LE);
	const uint32_t tile = 1u << (s + lp);
	constexpr bool dit_first = PROG == PROG_DIT || PROG == PROG_DIT_DIF;
	constexpr bool dif_last = PROG == PROG_DIF || PROG == PROG_DIT_DIF;
	constexpr int E = 1 << LE;

	if (p.edge != EDGE_NONE) edge_setup<LE>(c, p, hi, lo0, r0, tile);

	fr_t v[E];
#pragma unroll
	for (int j = 0; j < E; ++j) {
		const uint32_t mid = dit_first ? ((u << LE) | static_cast<uint32_t>(j)) : mid_r1<LE>(u, j, s, r0);
		v[j] = c.ld(p.src, base + (mid << ll));
	}

	if constexpr (PROG == PROG_DIF) {
		if (p.edge == EDGE_R1) edges_r1<LE>(c, v, lo_, r0, tile);
		sub_dif<LE>(c, v, p, p.sd[0], u, lo_);
		if (p.twist) pass_twist<LE>(c, v, p, u, lo, p.sd[0].inverse);
		if (p.edge == EDGE_RL) edges_rl<LE>(c, v, tile);
	} else if constexpr (PROG == PROG_DIT) {
		if (p.twist) pass_twist<LE>(c, v, p, u, lo, p.sd[0].inverse);
		if (p.edge == EDGE_RL) edges_rl<LE>(c, v, tile);
		sub_dit<LE>(c, v, p, p.sd[0], u, lo_);
		if (p.edge == EDGE_R1) edges_r1<LE>(c, v, lo_, r0, tile);
	} else if constexpr (PROG == PROG_DIF_DIT) {
		sub_dif<LE>(c, v, p, p.sd[0], u, lo_);
		if (p.edge == EDGE_RL) edges_rl<LE>(c, v, tile);
		sub_dit<LE>(c, v, p, p.sd[1], u, lo_);
	} else {
		if (p.twist) pass_twist<LE>(c, v, p, u, lo, p.sd[0].inverse);
		sub_dit<LE>(c, v, p, p.sd[0], u, lo_);
#pragma unroll
		for (int j = 0; j < E; ++j) {
			const uint32_t at = base + (mid_r1<LE>(u, j, s, r0) << ll);
			v[j] = c.ld(p.pa, at) * v[j];
		}
		sub_dif<LE>(c, v, p, p.sd[1], u, lo_);
		if (p.twist) pass_twist<LE>(c, v, p, u, lo, p.sd[1].inverse);
	}

	if (p.sync_store) c.sync();
#pragma unroll
	for (int j = 0; j < E; ++j) {
		const uint32_t mid = dif_last ? ((u << LE) | static_cast<uint32_t>(j)) : mid_r1<LE>(u, j, s, r0);
		uint32_t at = base + (mid << ll);
		if constexpr (PROG == PROG_DIF) {
			if (p.psub) v[j] = v[j] - c.ld(p.psub, at);
		}
		if (dif_last && p.scatter) at = brev_bits(at, p.n);
		c.st(p.dst, at, v[j]);
	}
}

// ---- setup kernels (tables) ------------------------------------------------------------

// Field constants of a domain of 2^n points (n ≥ 1), Montgomery form.
struct consts_t {
	fr_t one;
	fr_t omega, omega_inv;  // ω = 7^((r−1)/2^n) (bellperson's; gnark's Generator(2^n)), ω⁻¹
	fr_t g, g_inv;          // the coset shift 7 and 7⁻¹
	fr_t inv_n;             // 1/2^n
	fr_t zinv_n;            // 1/((g^N − 1)·N): H's last scale
	fr_t w8[3], w8_inv[3];  // ω8^1..3 and ω8^−1..−3 (n ≥ 3)
	fr_t omega_14, g_14, g_inv_14;  // the second-level bases (x^(2^14))
};

template <class F>
__device__ __forceinline__ F pow_u32(const F& b, uint32_t e) {
	F r = F::one();
#pragma unroll 1
	for (int k = 31; k >= 0; --k) {
		r = r.sqr();
		if ((e >> k) & 1u) r = r * b;
	}
	return r;
}

template <class F>
__device__ __forceinline__ F sqr_n(F x, uint32_t k) {
#pragma unroll 1
	for (uint32_t i = 0; i < k; ++i) x = x.sqr();
	return x;
}

// consts_body: one thread.
__device__ __forceinline__ void consts_body(consts_t* out, uint32_t n) {
	fr_t seven = fr_t::zero();
	seven.l[0] = 7;
	const fr_t g = fr_t::from_canonical(seven);
	// e = (r − 1) >> n, limbs; r − 1 has a zero low limb (r ≡ 1 mod 2^32).
	uint32_t m[8], e[8];
#pragma unroll
	for (int j = 0; j < 8; ++j) m[j] = fr_t::modulus_limb(j);
	m[0] -= 1;
#pragma unroll
	for (int j = 0; j < 8; ++j) e[j] = (m[j] >> n) | (j < 7 ? (m[j + 1] << (32 - n)) : 0u);
	fr_t w = fr_t::one();
#pragma unroll
	for (int li = 7; li >= 0; --li) {
		const uint32_t word = e[li];
#pragma unroll 1
		for (int k = 31; k >= 0; --k) {
			w = w.sqr();
			if ((word >> k) & 1u) w = w * g;
		}
	}
	consts_t k;
	k.one = fr_t::one();
	k.omega = w;
	k.omega_inv = w.inverse();
	k.g = g;
	k.g_inv = g.inverse();
	fr_t nn = fr_t::zero();
	nn.l[0] = 1u << n;
	k.inv_n = fr_t::from_canonical(nn).inverse();
	const fr_t gN = sqr_n(g, n);
	k.zinv_n = (gN - k.one).inverse() * k.inv_n;
	if (n >= 3) {
		k.w8[0] = sqr_n(k.omega, n - 3);
		k.w8_inv[0] = sqr_n(k.omega_inv, n - 3);
	} else {
		k.w8[0] = k.w8_inv[0] = k.one;
	}
	k.w8[1] = k.w8[0].sqr();
	k.w8[2] = k.w8[1] * k.w8[0];
	k.w8_inv[1] = k.w8_inv[0].sqr();
	k.w8_inv[2] = k.w8_inv[1] * k.w8_inv[0];
	k.omega_14 = sqr_n(k.omega, POW_BITS);
	k.g_14 = sqr_n(k.g, POW_BITS);
	k.g_inv_14 = sqr_n(k.g_inv, POW_BITS);
	*out = k;
}

// pow_body: out[j] = base^j for j < count (grid-stride).
template <class Ctx>
__device__ __forceinline__ void pow_body(const Ctx& c, fr_t* out, const fr_t* base, uint32_t count) {
	const fr_t b = *base;
	for (uint32_t j = c.bid() * c.nthreads() + c.tid(); j < count; j += c.nblocks() * c.nthreads())
		out[j] = pow_u32(b, j);
}

// twist_body: out[e] = ω_N^(e << shift) = W1[·]·W2[·] for e < count.
template <class Ctx>
__device__ __forceinline__ void twist_body(const Ctx& c, fr_t* out, const fr_t* W1, const fr_t* W2, uint32_t count,
                                           uint32_t shift) {
	for (uint32_t e = c.bid() * c.nthreads() + c.tid(); e < count; e += c.nblocks() * c.nthreads()) {
		const uint32_t E = e << shift;
		out[e] = W1[E & ((1u << POW_BITS) - 1)] * W2[E >> POW_BITS];
	}
}

// Round tables from host-made descriptors: entry i = ω_N^d[4i] · h^d[4i+1] · C with h = 1, g or
// g⁻¹ for d[4i+2] = 0, 1, 2 and C = 1, 1/N or 1/((g^N − 1)·N) for d[4i+3] = 0, 1, 2.
struct rtab_args {
	fr_t* out;
	const uint32_t* desc;
	uint32_t count;
	const fr_t *W1, *W2, *G1, *G2, *Gi1, *Gi2;
	const consts_t* k;
};

template <class Ctx>
__device__ __forceinline__ void rtab_body(const Ctx& c, const rtab_args& a) {
	constexpr uint32_t mask = (1u << POW_BITS) - 1;
	for (uint32_t i = c.bid() * c.nthreads() + c.tid(); i < a.count; i += c.nblocks() * c.nthreads()) {
		const uint32_t ew = a.desc[4 * i], eh = a.desc[4 * i + 1], hsel = a.desc[4 * i + 2], fold = a.desc[4 * i + 3];
		fr_t x = a.W1[ew & mask] * a.W2[ew >> POW_BITS];
		if (hsel == 1) x = x * (a.G1[eh & mask] * a.G2[eh >> POW_BITS]);
		if (hsel == 2) x = x * (a.Gi1[eh & mask] * a.Gi2[eh >> POW_BITS]);
		if (fold) x = x * (fold == 1 ? a.k->inv_n : a.k->zinv_n);
		a.out[i] = x;
	}
}

// ---- small transforms and helpers ----------------------------------------------------------

// tiny_body: one thread, N = 2^n ≤ 16 points by definition:
//   X_k = C · post^k · Σ_i (pre^i · x_i) · w^(i·k),
// x_i at src[in_rev ? bitrev(i) : i], X_k to dst[out_rev ? bitrev(k) : k] (dst may be src).
struct tiny_args {
	const fr_t* src;
	fr_t* dst;
	uint32_t n;
	int32_t inverse, in_rev, out_rev;
	int32_t pre, post;  // 0: 1, 1: g, 2: g⁻¹
	int32_t cscale;     // C: 0 one, 1 1/N, 2 zinv_n
	const consts_t* k;
};

__device__ __forceinline__ void tiny_body(const tiny_args& t) {
	const uint32_t n = t.n, N = 1u << n;
	const consts_t& k = *t.k;
	const fr_t w = t.inverse ? k.omega_inv : k.omega;
	const fr_t hs[3] = {k.one, k.g, k.g_inv};
	const fr_t C = t.cscale == 0 ? k.one : (t.cscale == 1 ? k.inv_n : k.zinv_n);
	fr_t x[1 << TINY_MAX_LOG], y[1 << TINY_MAX_LOG];
	fr_t hp = k.one;
	for (uint32_t i = 0; i < N; ++i) {
		x[i] = t.src[t.in_rev ? brev_bits(i, n) : i] * hp;
		hp = hp * hs[t.pre];
	}
	fr_t wk = k.one, qk = C;  // w^k, C·post^k
	for (uint32_t kk = 0; kk < N; ++kk) {
		fr_t acc = fr_t::zero(), wik = k.one;
		for (uint32_t i = 0; i < N; ++i) {
			acc = acc + x[i] * wik;
			wik = wik * wk;
		}
		y[kk] = acc * qk;
		wk = wk * w;
		qk = qk * hs[t.post];
	}
	for (uint32_t kk = 0; kk < N; ++kk) t.dst[t.out_rev ? brev_bits(kk, n) : kk] = y[kk];
}

// bitrev_body: in-place bit-reversal permutation of 2^n elements.
template <class Ctx>
__device__ __forceinline__ void bitrev_body(const Ctx& c, fr_t* x, uint32_t n) {
	const uint32_t N = 1u << n;
	for (uint32_t i = c.bid() * c.nthreads() + c.tid(); i < N; i += c.nblocks() * c.nthreads()) {
		const uint32_t j = brev_bits(i, n);
		if (i < j) {
			const fr_t t = c.ld(x, i);
			c.st(x, i, c.ld(x, j));
			c.st(x, j, t);
		}
	}
}

// pointwise_body: c ← a·b − c.
template <class Ctx>
__device__ __forceinline__ void pointwise_body(const Ctx& cx, fr_t* c, const fr_t* a, const fr_t* b, uint32_t count) {
	for (uint32_t i = cx.bid() * cx.nthreads() + cx.tid(); i < count; i += cx.nblocks() * cx.nthreads())
		cx.st(c, i, cx.ld(a, i) * cx.ld(b, i) - cx.ld(c, i));
}

}  // namespace ntt
}  // namespace filc2

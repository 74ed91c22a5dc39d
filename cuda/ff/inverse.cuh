// cuda/ff/inverse.cuh — a fast, variable-time field inversion by Bernstein–Yang divsteps.
//
// mont_t::inverse is Fermat: ~570 dependent products (381 squarings and the exponent's
// multiplies), fine for the few inversions of a kernel but the whole budget of a batch-
// affine MSM, which inverts once per few hundred additions. inverse_vartime computes the
// same value with the divstep recurrence of Bernstein and Yang ("Fast constant-time gcd
// computation and modular inversion", 2019), 30 divsteps per batch on the low words and a
// 2×2 matrix applied to the full values, in signed 30-bit limbs (S = ⌈(32N + 1)/30⌉ of
// them; every product fits an int64):
//   divstep(δ, f, g) = (1 − δ, g, (g − f)/2)            if δ > 0 and g is odd
//                      (1 + δ, f, (g + (g mod 2)·f)/2)  otherwise
// from (δ, f, g) = (1/2, MOD, x) until g = 0; then f = ±1 and d (kept with d·x ≡ f) is ±1/x.
// δ is tracked as θ = δ − 1/2 (an integer). The loop ends as soon as g = 0, so the time
// depends on x: use it only for public values, as the MSM's points are. Every lane of a
// warp that inverts one shared value runs the same branches.
//
// In Montgomery form x is stored as a·R; the divsteps invert the integer a·R, giving
// a⁻¹·R⁻¹, and two conversions by R² make it a⁻¹·R. inverse_vartime(0) = 0, as inverse.
#pragma once

#include <cstdint>

#include "fp2.cuh"
#include "mont.cuh"

namespace filc2 {
namespace divsteps {

constexpr int bits = 30;
constexpr uint32_t mask = (1u << bits) - 1;

// limbs30 is the number of signed 30-bit limbs that hold a value of N 32-bit limbs and its sign.
template <int N>
struct limbs30 {
	static constexpr int S = (32 * N + 1 + bits - 1) / bits;
};

// matrix: after the batch, 2^30·(f', g') = (u·f + v·g, q·f + r·g).
struct matrix {
	int32_t u, v, q, r;
};

// batch runs 30 divsteps on the low words of f and g (only their parities matter, and
// step i needs bit i of the originals) and returns the new θ.
__device__ __forceinline__ int32_t batch(int32_t theta, uint32_t f, uint32_t g, matrix& t) {
	int32_t u = 1, v = 0, q = 0, r = 1;
#pragma unroll 1
	for (int i = 0; i < bits; ++i) {
		if (g & 1) {
			if (theta >= 0) {  // δ > 0: swap and subtract
				theta = -theta;
				const uint32_t nf = g;
				g = (g - f) >> 1;
				f = nf;
				const int32_t nu = q, nv = r;
				q -= u;
				r -= v;
				u = nu << 1;
				v = nv << 1;
				continue;
			}
			g = (g + f) >> 1;
			q += u;
			r += v;
		} else {
			g >>= 1;
		}
		++theta;
		u <<= 1;
		v <<= 1;
	}
	t = {u, v, q, r};
	return theta;
}

// apply_fg: (f, g) ← (u·f + v·g, q·f + r·g) / 2^30, exact.
template <int S>
__device__ __forceinline__ void apply_fg(int32_t* f, int32_t* g, const matrix& t) {
	int64_t cf = int64_t(t.u) * f[0] + int64_t(t.v) * g[0];
	int64_t cg = int64_t(t.q) * f[0] + int64_t(t.r) * g[0];
	cf >>= bits;
	cg >>= bits;
#pragma unroll
	for (int i = 1; i < S; ++i) {
		cf += int64_t(t.u) * f[i] + int64_t(t.v) * g[i];
		cg += int64_t(t.q) * f[i] + int64_t(t.r) * g[i];
		f[i - 1] = static_cast<int32_t>(static_cast<uint32_t>(cf) & mask);
		g[i - 1] = static_cast<int32_t>(static_cast<uint32_t>(cg) & mask);
		cf >>= bits;
		cg >>= bits;
	}
	f[S - 1] = static_cast<int32_t>(cf);
	g[S - 1] = static_cast<int32_t>(cg);
}

// apply_de: (d, e) ← (u·d + v·e + md·MOD, q·d + r·e + me·MOD) / 2^30 with md, me in
// [0, 2^30) making the sums divisible; for d, e in [0, MOD) the results lie in (−MOD, 2·MOD).
template <int S>
__device__ __forceinline__ void apply_de(int32_t* d, int32_t* e, const matrix& t, const int32_t* m, uint32_t minv) {
	int64_t cd = int64_t(t.u) * d[0] + int64_t(t.v) * e[0];
	int64_t ce = int64_t(t.q) * d[0] + int64_t(t.r) * e[0];
	const int64_t md = (0u - static_cast<uint32_t>(cd)) * minv & mask;
	const int64_t me = (0u - static_cast<uint32_t>(ce)) * minv & mask;
	cd += md * m[0];
	ce += me * m[0];
	cd >>= bits;
	ce >>= bits;
#pragma unroll
	for (int i = 1; i < S; ++i) {
		cd += int64_t(t.u) * d[i] + int64_t(t.v) * e[i] + md * m[i];
		ce += int64_t(t.q) * d[i] + int64_t(t.r) * e[i] + me * m[i];
		d[i - 1] = static_cast<int32_t>(static_cast<uint32_t>(cd) & mask);
		e[i - 1] = static_cast<int32_t>(static_cast<uint32_t>(ce) & mask);
		cd >>= bits;
		ce >>= bits;
	}
	d[S - 1] = static_cast<int32_t>(cd);
	e[S - 1] = static_cast<int32_t>(ce);
}

// add_signed: x += sign·m (sign ±1), limbs renormalised to [0, 2^30) below a signed top.
template <int S>
__device__ __forceinline__ void add_signed(int32_t* x, const int32_t* m, int32_t sign) {
	int32_t c = 0;
#pragma unroll
	for (int i = 0; i < S - 1; ++i) {
		c += x[i] + sign * m[i];
		x[i] = static_cast<int32_t>(static_cast<uint32_t>(c) & mask);
		c >>= bits;
	}
	x[S - 1] += c + sign * m[S - 1];
}

// reduce_once maps x in (−MOD, 2·MOD) into [0, MOD).
template <int S>
__device__ __forceinline__ void reduce_once(int32_t* x, const int32_t* m) {
	if (x[S - 1] < 0) {
		add_signed<S>(x, m, 1);
		return;
	}
	bool ge = true, decided = false;  // x ≥ MOD, compared from the top limb (unrolled: registers)
#pragma unroll
	for (int i = S - 1; i >= 0; --i) {
		if (!decided && x[i] != m[i]) {
			ge = x[i] > m[i];
			decided = true;
		}
	}
	if (ge) add_signed<S>(x, m, -1);
}

// to30 / from30: N 32-bit limbs (a value below 2^(32N)) ↔ S non-negative 30-bit limbs.
template <int N, int S>
__device__ __forceinline__ void to30(int32_t* out, const uint32_t* l) {
#pragma unroll
	for (int k = 0; k < S; ++k) {
		const int bit = k * bits, w = bit / 32, sh = bit % 32;
		uint32_t v = w < N ? l[w] >> sh : 0;
		if (sh > 32 - bits && w + 1 < N) v |= l[w + 1] << (32 - sh);
		out[k] = static_cast<int32_t>(v & mask);
	}
}
template <int N, int S>
__device__ __forceinline__ void from30(uint32_t* l, const int32_t* x) {
#pragma unroll
	for (int j = 0; j < N; ++j) {
		const int bit = 32 * j, k = bit / bits, sh = bit % bits;  // sh even, ≤ 28: two limbs suffice
		uint32_t v = static_cast<uint32_t>(x[k]) >> sh;
		if (k + 1 < S) v |= static_cast<uint32_t>(x[k + 1]) << (bits - sh);
		l[j] = v;
	}
}

// invert_integer: out = x⁻¹ mod MOD for the integer x < MOD given as N limbs (0 for 0).
template <class P>
__device__ FILC2_NOINLINE void invert_integer(uint32_t* out, const uint32_t* x) {
	constexpr int N = P::N;
	constexpr int S = limbs30<N>::S;
	uint32_t ml[N];
#pragma unroll
	for (int j = 0; j < N; ++j) ml[j] = P::mod(j);
	int32_t m[S], f[S], g[S], d[S], e[S];
	to30<N, S>(m, ml);
	to30<N, S>(g, x);
#pragma unroll
	for (int i = 0; i < S; ++i) {
		f[i] = m[i];
		d[i] = 0;
		e[i] = 0;
	}
	e[0] = 1;
	const uint32_t minv = (0u - P::M0) & mask;  // MOD⁻¹ mod 2^30 (M0 = −MOD⁻¹ mod 2^32)
	int32_t theta = 0;                          // δ = 1/2
	// The divstep bound for 381 bits is under 900 steps (30 batches); the cap only keeps a
	// broken input from looping forever.
#pragma unroll 1
	for (int it = 0; it < 128; ++it) {
		uint32_t nz = 0;
#pragma unroll
		for (int i = 0; i < S; ++i) nz |= static_cast<uint32_t>(g[i]);
		if (nz == 0) break;
		matrix t;
		theta = batch(theta, static_cast<uint32_t>(f[0]), static_cast<uint32_t>(g[0]), t);
		apply_fg<S>(f, g, t);
		apply_de<S>(d, e, t, m, minv);
		reduce_once<S>(d, m);
		reduce_once<S>(e, m);
	}
	// f = ±1 (or MOD when x = 0, with d = 0): x⁻¹ = ±d.
	if (f[S - 1] < 0) {
		uint32_t nz = 0;
#pragma unroll
		for (int i = 0; i < S; ++i) nz |= static_cast<uint32_t>(d[i]);
		if (nz) {
#pragma unroll
			for (int i = 0; i < S; ++i) d[i] = -d[i];
			// renormalise −d, then + MOD
			int32_t c = 0;
#pragma unroll
			for (int i = 0; i < S - 1; ++i) {
				c += d[i] + m[i];
				d[i] = static_cast<int32_t>(static_cast<uint32_t>(c) & mask);
				c >>= bits;
			}
			d[S - 1] += c + m[S - 1];
		}
	}
	from30<N, S>(out, d);
}

}  // namespace divsteps

// inverse_vartime returns 1/x (0 for 0), as x.inverse(), in time that depends on x.
template <class P>
__device__ __forceinline__ mont_t<P> inverse_vartime(const mont_t<P>& x) {
	mont_t<P> y;
	divsteps::invert_integer<P>(y.l, x.l);  // (a·R)⁻¹ = a⁻¹·R⁻¹
	return mont_t<P>::from_canonical(mont_t<P>::from_canonical(y));
}

template <class F, bool Lazy>
__device__ __forceinline__ ext2_t<F, Lazy> inverse_vartime(const ext2_t<F, Lazy>& a) {
	const F t = inverse_vartime(a.c0.sqr() + a.c1.sqr());
	return {a.c0 * t, -(a.c1 * t)};
}

}  // namespace filc2

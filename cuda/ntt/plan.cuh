// cuda/ntt/plan.cuh — how an Fr NTT of 2^n points splits into kernel passes and
// register rounds (host-side integers only; shared by src/ntt.cu and cuda/emu).
//
// Positions are n-bit indices into the array. A pass transforms the bits [a−s, a):
// for every value of the bits above (hi) and below (lo), a 2^s-point sub-transform
// along the s "mid" bits, index = hi·2^a + mid·2^(a−s) + lo. Passes run from the top
// bits down in DIF order (pass 0 has a = n, the last pass a = s), in the reverse order
// for DIT. Between passes a "pass twist" ω_{2^a}^(lo·bitrev_s(mid)) multiplies every
// element (after a DIF pass, before a DIT pass); the last DIF pass (lo empty) has none.
//
// Inside a pass, one thread holds 2^le elements in registers: le = 2 (4 elements, the
// default: 80 registers, 24 warps an SM) or le = 3 (8 elements: 128 registers, 16 warps, half
// the exchanges). A round transforms one digit of mid: r = le bits (a 2^le-point DFT per
// thread) or r = le − 1 bits (two 2^(le−1)-point DFTs per thread, paired over the rest bit
// just below the digit); rounds run from the top digit down (DIF numbering; DIT runs them
// backwards) and exchange their data through shared memory. Round i's digit occupies mid
// bits [o_i, o_i + r_i); the bits below it are "rest". After a DIF round that is not the
// last of its pass, a round twist ω_{2^(o+r)}^(rest·bitrev_r(x')) multiplies element
// (x', rest) — read from a table T_i[rest·2^r + x'] of 2^(o+r) entries, so that scale
// factors (coset powers, 1/N) can be folded into it (see driver.cuh).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace filc2 {
namespace ntt {

constexpr int MAX_LOG = 28;      // largest domain 2^28
constexpr int TINY_MAX_LOG = 4;  // up to 2^4 points: one thread, by definition
constexpr int MIN_PASS = 5;      // a pass transforms 5..11 bits
constexpr int MAX_PASS = 11;
constexpr int MAX_ROUNDS = 6;     // 11 = 2 + 3 + 3 + 3 (le = 3); 11 = 1 + 2·5 (le = 2)
constexpr int MAX_TILE_LOG = 11;  // elements per block ≤ 2^11 (256 threads of 8, 64 KiB)
constexpr int MAX_THREADS_LOG = 8;  // at most 256 threads a block (the pass kernels' launch bounds)
// 4 elements a thread: measured on the H100 (cuda/NOTES.md, session 20) against 8 at 2^22–2^27,
// forward 2^24 6.29 → 4.30 ms, 2^27 42.2 → 39.4 ms; the H pipeline at 2^27 285 → 262 ms.
constexpr int DEFAULT_LE = 2;
constexpr int DEFAULT_PASS = 10;
constexpr int DEFAULT_TILE = 10;
constexpr int POW_BITS = 14;  // two-level power tables: x^e = T1[e mod 2^14]·T2[e >> 14], e < 2^28

struct round_plan {
	int r;  // digit bits (2 or 3)
	int o;  // digit's lowest bit within mid
};

struct pass_plan {
	int a = 0, s = 0;
	int lp = 0;  // log2 of the lo lines one block holds
	int le = DEFAULT_LE;  // log2 of the elements a thread holds (2 or 3)
	int nrounds = 0;
	round_plan rounds[MAX_ROUNDS] = {};

	bool twisted() const { return a > s; }
	int l_log() const { return a - s; }
	uint32_t threads() const { return 1u << (s + lp - le); }
	// blocks for a 2^n transform
	uint32_t blocks(int n) const { return 1u << (n - s - lp); }
	// elements per block; shared memory holds them twice 16 bytes (two half planes)
	uint32_t tile() const { return 1u << (s + lp); }
	// round table T_i (i < nrounds − 1) has 2^(o_i + r_i) entries, all of a pass's
	// tables back to back
	uint32_t table_size(int i) const { return 1u << (rounds[i].o + rounds[i].r); }
	uint32_t table_offset(int i) const {
		uint32_t off = 0;
		for (int k = 0; k < i; ++k) off += table_size(k);
		return off;
	}
	uint32_t tables_size() const { return table_offset(nrounds - 1); }
};

// digits splits s (5..11) into rounds of le or le − 1 bits, the short ones first (so that
// the last round, whose mid bits are the lowest, always has le and a short round always has
// a rest bit below its digit to pair its two half-size DFTs with): le = 3, rounds of 3 and
// 2 bits (s mod 3 short rounds: 11 = 2 + 3 + 3 + 3); le = 2, rounds of 2 and 1 bits (s mod
// 2 short rounds: 11 = 1 + 2 + 2 + 2 + 2 + 2).
inline int shorts_of(int s, int le) {
	if (le == 2) return s % 2;
	return s % 3 == 1 ? 2 : (s % 3 == 2 ? 1 : 0);
}

inline int digits(int s, round_plan* out, int le = DEFAULT_LE) {
	if (s < MIN_PASS || s > MAX_PASS) throw std::logic_error("ntt: pass size out of range");
	if (le != 2 && le != 3) throw std::logic_error("ntt: elements a thread must be 4 or 8");
	const int shorts = shorts_of(s, le);
	int r[MAX_ROUNDS];
	int k = 0;
	for (int i = 0; i < shorts; ++i) r[k++] = le - 1;
	for (int left = s - (le - 1) * shorts; left > 0; left -= le) {
		if (k == MAX_ROUNDS) throw std::logic_error("ntt: too many rounds");
		r[k++] = le;
	}
	int o = s;
	for (int i = 0; i < k; ++i) {
		o -= r[i];
		out[i] = {r[i], o};
	}
	if (o != 0) throw std::logic_error("ntt: bad digit split");
	return k;
}

struct plan {
	int n = 0;
	int le = DEFAULT_LE;
	std::vector<pass_plan> passes;  // DIF order: passes[0].a == n
	bool tiny() const { return n <= TINY_MAX_LOG; }
	int npasses() const { return static_cast<int>(passes.size()); }
};

// make_plan: passes of at most max_pass bits — as even as possible, the larger first; or,
// greedy, max_pass bits each and the remainder last (at least MIN_PASS: bits move from the
// first passes to it) — and blocks of about 2^tile_log elements (several lo lines per
// block when s < tile_log); le: log2 of the elements a thread holds (0: DEFAULT_LE; with 4
// a thread, passes and blocks are capped at 2^10 elements: 256 threads).
inline plan make_plan(int n, int max_pass, int tile_log, bool greedy = false, int le = 0) {
	if (n < 1 || n > MAX_LOG) throw std::invalid_argument("ntt: log size out of range");
	if (le == 0) le = DEFAULT_LE;
	if (le != 2 && le != 3) throw std::invalid_argument("ntt: elements a thread must be 4 or 8");
	// Defaults measured on the H200 with 8 elements a thread (cuda/NOTES.md, "NTT variants"):
	// two 11-bit passes beat three at 2^21–2^22 (1.29 ms against 1.54 at 2^22), and blocks of
	// 2^11 elements win from 2^27 up (42.2 ms against 44.4). With 4 a thread both are capped
	// at 2^10 (2^22 in 8+7+7: 1.06 ms on the H100).
	if (max_pass <= 0) max_pass = (n == 21 || n == 22) ? 11 : DEFAULT_PASS;
	if (tile_log <= 0) tile_log = n >= 27 ? 11 : DEFAULT_TILE;
	if (max_pass < MIN_PASS) max_pass = MIN_PASS;
	if (max_pass > MAX_PASS) max_pass = MAX_PASS;
	if (tile_log > MAX_TILE_LOG) tile_log = MAX_TILE_LOG;
	if (max_pass > MAX_THREADS_LOG + le) max_pass = MAX_THREADS_LOG + le;
	if (tile_log > MAX_THREADS_LOG + le) tile_log = MAX_THREADS_LOG + le;
	plan p;
	p.n = n;
	p.le = le;
	if (n <= TINY_MAX_LOG) return p;
	int np = (n + max_pass - 1) / max_pass;
	while (np > 1 && n / np < MIN_PASS) --np;
	while ((n + np - 1) / np > MAX_PASS) ++np;
	std::vector<int> bits(np);
	for (int i = 0; i < np; ++i) bits[i] = n / np + (i < n % np ? 1 : 0);
	if (greedy && np > 1 && n - (np - 1) * max_pass <= max_pass) {
		std::vector<int> g(np, max_pass);
		g[np - 1] = n - (np - 1) * max_pass;
		for (int i = 0; g[np - 1] < MIN_PASS; i = (i + 1) % (np - 1)) {
			--g[i];  // each pass has max_pass ≥ MIN_PASS + 1 bits here: n ≥ np·MIN_PASS
			++g[np - 1];
		}
		bits = g;
	}
	int a = n;
	for (int i = 0; i < np; ++i) {
		const int s = bits[i];
		pass_plan q;
		q.a = a;
		q.s = s;
		int lp = tile_log - s;
		if (lp < 0) lp = 0;
		if (lp > a - s) lp = a - s;
		q.lp = lp;
		q.le = le;
		q.nrounds = digits(s, q.rounds, le);
		p.passes.push_back(q);
		a -= s;
	}
	if (a != 0) throw std::logic_error("ntt: bad pass split");
	return p;
}

inline uint32_t bitrev(uint32_t x, int bits) {
	uint32_t r = 0;
	for (int i = 0; i < bits; ++i) r |= ((x >> i) & 1u) << (bits - 1 - i);
	return r;
}

}  // namespace ntt
}  // namespace filc2

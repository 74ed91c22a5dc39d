// cuda/emu/ntt_banks.cpp — shared-memory bank conflicts of the NTT's exchanges, computed with
// the kernels' own layout functions (cuda/ntt/kernels.cuh: mid_of, swz) for every pass shape
// of both thread shapes (4 and 8 elements a thread, every pass size and lines per block the
// plans allow) and every round. A warp's 16-byte shared access is served a quarter warp at a
// time; it is conflict-free when the quarter warp's 8 lanes hit 8 different bank groups
// (slot mod 8). Prints the worst case and exits 1 if any exchange needs more than one
// wavefront a quarter warp. Run by ntt_run.sh.
#include "emu.h"

#include <cstdio>
#include <set>

#include "../ntt/kernels.cuh"

using namespace filc2::ntt;

// worst: the most slots one bank group gets from a quarter warp, over the round's accesses.
template <int LE, int R>
static int worst(uint32_t s, uint32_t lp, uint32_t o) {
	const uint32_t threads = 1u << (s + lp - LE);
	int w = 0;
	for (uint32_t q0 = 0; q0 < threads; q0 += 8)
		for (int j = 0; j < (1 << LE); ++j) {
			std::set<uint32_t> group[8];
			for (uint32_t t = q0; t < q0 + 8 && t < threads; ++t) {
				const uint32_t lo_ = t & ((1u << lp) - 1), u = t >> lp;
				const uint32_t i = swz((mid_of<LE, R>(u, j, o) << lp) | lo_);
				group[i & 7].insert(i);
			}
			for (auto& g : group)
				if (static_cast<int>(g.size()) > w) w = static_cast<int>(g.size());
		}
	return w;
}

template <int LE>
static int check(int max_threads_log) {
	int bad = 0, shapes = 0;
	for (int s = MIN_PASS; s <= MAX_PASS; ++s) {
		if (s - LE > max_threads_log) continue;
		round_plan rounds[MAX_ROUNDS];
		const int nr = digits(s, rounds, LE);
		for (int lp = 0; s + lp - LE <= max_threads_log && s + lp <= MAX_TILE_LOG; ++lp) {
			++shapes;
			for (int i = 0; i < nr; ++i) {
				const int r = rounds[i].r, o = rounds[i].o;
				const int w = r == LE ? worst<LE, LE>(s, lp, o) : worst<LE, LE - 1>(s, lp, o);
				if (w > 1) {
					std::printf("conflict: %d elements a thread, pass of %d bits, 2^%d lines, round %d (%d bits at %d): %d-way\n",
					            1 << LE, s, lp, i, r, o, w);
					++bad;
				}
			}
		}
	}
	std::printf("ntt banks: %d elements a thread, %d pass shapes, %d conflicted rounds\n", 1 << LE, shapes, bad);
	return bad;
}

int main() {
	const int bad = check<2>(MAX_THREADS_LOG) + check<3>(MAX_THREADS_LOG);
	return bad ? 1 : 0;
}

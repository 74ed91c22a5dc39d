// cuda/msm/emu_msm.cpp — the MSM engine on the CPU: every kernel body, the sort, the
// accumulation levels, the reduction and the orchestration of cuda/msm/engine.cuh run
// sequentially over the emulated field arithmetic (cuda/emu/emu.h), checked against
// naive double-and-add sums. No GPU; catches logic errors before a device run.
//
//   g++ -std=c++17 -O2 -Wall -Wno-unknown-pragmas -pthread -o /tmp/emu_msm cuda/msm/emu_msm.cpp && /tmp/emu_msm
//
// (The warp-aggregated atomics and the grid-stride launcher are the only device code
// this does not run; see backend.cuh.)
#include "../emu/emu.h"

#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "engine.cuh"
#include "fixed_base.cuh"

using namespace filc2;
using namespace filc2::msm;

static int failures = 0;
static std::mt19937_64 rng(12345);

template <class F>
F parse_hex(const char* hex) {
	F x;
	for (int j = 0; j < F::limbs; ++j) x.l[j] = 0;
	const std::string h(hex);
	int bit = 0;
	for (int i = int(h.size()) - 1; i >= 0; --i, bit += 4) {
		const char c = h[i];
		const uint32_t v = c <= '9' ? c - '0' : (c | 32) - 'a' + 10;
		x.l[bit / 32] |= v << (bit % 32);
	}
	return x;
}

g1_affine_t g1_gen() {
	return {fp_t::from_canonical(parse_hex<fp_t>("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb")),
	        fp_t::from_canonical(parse_hex<fp_t>("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"))};
}
g2_affine_t g2_gen() {
	fp2_t x{fp_t::from_canonical(parse_hex<fp_t>("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8")),
	        fp_t::from_canonical(parse_hex<fp_t>("13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"))};
	fp2_t y{fp_t::from_canonical(parse_hex<fp_t>("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801")),
	        fp_t::from_canonical(parse_hex<fp_t>("0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"))};
	return {x, y};
}

template <class F>
F curve_b();
template <>
fp_t curve_b<fp_t>() {
	return bls12_381::g1_b();
}
template <>
fp2_t curve_b<fp2_t>() {
	return bls12_381::g2_b();
}

// canonical scalar limbs (plain integer < r).
fr_t canon_of(const fr_t& mont) { return mont.to_canonical(); }
fr_t mont_of(const fr_t& canon) { return fr_t::from_canonical(canon); }

fr_t random_mont() {
	fr_t x;
	for (int j = 0; j < 8; ++j) x.l[j] = static_cast<uint32_t>(rng());
	x.l[7] %= bls12_381::fr_params::mod(7);
	return x;
}

fr_t small_canon(uint64_t v) {
	fr_t x = fr_t::zero();
	x.l[0] = static_cast<uint32_t>(v);
	x.l[1] = static_cast<uint32_t>(v >> 32);
	return x;
}

// r − k for small k, canonical.
fr_t r_minus(uint32_t k) {
	fr_t x;
	for (int j = 0; j < 8; ++j) x.l[j] = bls12_381::fr_params::mod(j);
	uint32_t borrow = k;
	for (int j = 0; j < 8 && borrow; ++j) {
		const uint32_t v = x.l[j];
		x.l[j] = v - borrow;
		borrow = v < borrow ? 1 : 0;
	}
	return x;
}

// (r − 1)/2 + d for d ∈ {0, 1}, canonical.
fr_t half_plus(uint32_t d) {
	fr_t x;
	for (int j = 0; j < 7; ++j) x.l[j] = (bls12_381::fr_params::mod(j) >> 1) | (bls12_381::fr_params::mod(j + 1) << 31);
	x.l[7] = bls12_381::fr_params::mod(7) >> 1;
	uint64_t carry = d;
	for (int j = 0; j < 8 && carry; ++j) {
		const uint64_t v = uint64_t(x.l[j]) + carry;
		x.l[j] = static_cast<uint32_t>(v);
		carry = v >> 32;
	}
	return x;
}

// booth_pattern: every window digit at ±2^(c−1) (window 0: −, then +, −, …), below 2^253.
fr_t booth_pattern(int c) {
	fr_t x = fr_t::zero();
	auto set = [&](int bit) {
		if (bit < 253) x.l[bit / 32] |= 1u << (bit % 32);
	};
	for (int w = 0; w * c < 253; ++w) {
		if (w % 2 == 0) {
			set(w * c + c - 1);
		} else {
			for (int j = 0; j < c - 1; ++j) set(w * c + j);
		}
	}
	return x;
}

template <class F>
xyzz_t<F> smul(const affine_t<F>& p, const fr_t& k /* canonical */) {
	xyzz_t<F> r = xyzz_t<F>::inf();
	for (int bit = 254; bit >= 0; --bit) {
		r.dbl();
		if ((k.l[bit >> 5] >> (bit & 31)) & 1) r.add(p);
	}
	return r;
}

template <class F>
affine_t<F> naive(const std::vector<affine_t<F>>& bases, const std::vector<fr_t>& scalars) {
	xyzz_t<F> acc = xyzz_t<F>::inf();
	for (size_t i = 0; i < scalars.size(); ++i) acc.add(smul(bases[i], canon_of(scalars[i])));
	return acc.to_affine();
}

template <class F>
xyzz_t<F> from_jac(const jac_t<F>& j) {
	if (j.z.is_zero()) return xyzz_t<F>::inf();
	const F zz = j.z.sqr();
	return {j.x, j.y, zz, zz * j.z};
}

template <class F>
affine_t<F> combine(const jac_t<F>* sums, const msm_result& r) {
	if (r.windows == 0) return affine_t<F>::inf();
	xyzz_t<F> acc = from_jac(sums[r.windows - 1]);
	for (int w = r.windows - 2; w >= 0; --w) {
		for (int k = 0; k < r.window_bits; ++k) acc.dbl();
		acc.add(from_jac(sums[w]));
	}
	return acc.to_affine();
}

template <class F>
std::vector<affine_t<F>> random_points(const affine_t<F>& g, size_t n) {
	std::vector<affine_t<F>> v(n);
	for (size_t i = 0; i < n; ++i) v[i] = smul(g, canon_of(random_mont())).to_affine();
	return v;
}

template <class F>
void expect(const char* what, const affine_t<F>& got, const affine_t<F>& want) {
	if (!(got == want)) {
		std::printf("FAIL %s\n", what);
		++failures;
	}
}

template <class F>
struct checker {
	const char* name;
	std::vector<affine_t<F>> bases;
	engine<F> eng;
	checker(const char* nm, std::vector<affine_t<F>> b) : name(nm), bases(std::move(b)), eng(bases.data(), bases.size(), 0) {}

	void msm(const std::string& what, const std::vector<fr_t>& s, msm_config cfg = {}, bool split_too = true) {
		std::vector<jac_t<F>> out(max_windows);
		const affine_t<F> want = naive(bases, s);
		// Every sum also with the batch-affine first level (variant 2), with it on the FP64 product
		// (variant 6), for G1 on the Karatsuba product (9) and for G2 with the Fp2 product reduced
		// three times (8) and with the equal-x case by reference (10, G2's default before session 16),
		// with the cold state in shared memory (11, G2's default since session 25; 12) and G2's all in
		// registers (13, its default before), unless a variant is asked for.
		constexpr bool g1 = sizeof(F) == sizeof(fp_t);
		for (int variant : {cfg.variant, 2, 6, 8, 9, 10, 11, 12, 13}) {
			if (variant != cfg.variant && cfg.variant != 0) break;
			if (variant != cfg.variant && (variant == (g1 ? 8 : 9) || (g1 && (variant == 10 || variant == 13)) ||
			                               (!g1 && variant == 11)))
				continue;
			msm_config c = cfg;
			c.variant = variant;
			const std::string v = " variant " + std::to_string(variant);
			msm_result r = eng.msm(s.data(), s.size(), c, out.data());
			expect((std::string(name) + " msm " + what + " c=" + std::to_string(r.window_bits) + v).c_str(),
			       combine(out.data(), r), want);
			if (split_too) {
				r = eng.msm_split(s.data(), s.size(), c, out.data());
				expect((std::string(name) + " split " + what + v).c_str(), combine(out.data(), r), want);
			}
		}
		// And with every other sort (atomic, binned, radix).
		for (int sort = 1; sort <= max_sort; ++sort) {
			if (sort == (cfg.sort ? cfg.sort : default_sort)) continue;
			msm_config c = cfg;
			c.sort = sort;
			const std::string v = " sort " + std::to_string(c.sort);
			msm_result r = eng.msm(s.data(), s.size(), c, out.data());
			expect((std::string(name) + " msm " + what + " c=" + std::to_string(r.window_bits) + v).c_str(),
			       combine(out.data(), r), want);
			r = eng.msm_split(s.data(), s.size(), c, out.data());
			expect((std::string(name) + " split " + what + v).c_str(), combine(out.data(), r), want);
		}
		if (split_too) streamed(what, s, cfg, want);
	}

	// lent: the dense sum with its pair buffers in loans (junk-filled first): two loans that
	// hold them, a second one 8 bytes short, a first one short, the atomic sort's single
	// buffer; then a fresh engine whose scratch is reserved for the lent call: the lent call
	// plans every window a pass within it, the same call without loans fewer or none.
	void lent(const std::string& what, const std::vector<fr_t>& s) {
		const size_t n = s.size();
		const affine_t<F> want = naive(bases, s);
		const std::string tag = std::string(name) + " lent " + what;
		std::vector<jac_t<F>> out(max_windows);
		const msm_result r0 = eng.msm(s.data(), n, {}, out.data());
		const size_t words = n * static_cast<size_t>(r0.per_pass);
		std::vector<uint64_t> l0(words + 64), l1(words + 64);
		const auto loans_of = [&](size_t b0, size_t b1) {
			std::fill(l0.begin(), l0.end(), 0xabababababababab);
			std::fill(l1.begin(), l1.end(), 0x5555555555555555);
			loans ln;
			ln.r[0] = {l0.data(), b0};
			ln.r[1] = {l1.data(), b1};
			ln.n = 2;
			return ln;
		};
		const size_t bytes = words * sizeof(uint64_t);
		struct kase {
			const char* what;
			size_t b0, b1;
			int sort, lent;
		} cases[] = {{"both", bytes, bytes, 0, 2},
		             {"second short", bytes, bytes - 8, 0, 1},
		             {"first short", bytes - 8, bytes, 0, 0},
		             {"atomic sort", bytes, bytes, sort_atomic, 1}};
		for (const kase& k : cases) {
			msm_config c;
			c.sort = k.sort;
			const loans ln = loans_of(k.b0, k.b1);
			const msm_result r = eng.msm(s.data(), n, c, out.data(), nullptr, &ln);
			expect((tag + " " + k.what).c_str(), combine(out.data(), r), want);
			if (r.lent != k.lent || r.per_pass != r0.per_pass) {
				std::printf("FAIL %s %s: %d buffers lent (want %d), %d windows a pass (want %d)\n", tag.c_str(), k.what,
				            r.lent, k.lent, r.per_pass, r0.per_pass);
				++failures;
			}
			// The loans the call says it used were written, the others not.
			const bool w0 = std::count(l0.begin(), l0.end(), 0xabababababababab) != std::ptrdiff_t(l0.size());
			const bool w1 = std::count(l1.begin(), l1.end(), 0x5555555555555555) != std::ptrdiff_t(l1.size());
			if (w0 != (k.lent >= 1) || w1 != (k.lent >= 2)) {
				std::printf("FAIL %s %s: loans written %d, %d with %d lent\n", tag.c_str(), k.what, w0, w1, k.lent);
				++failures;
			}
		}
		engine<F> fixed(bases.data(), bases.size(), 0);
		const loans ln = loans_of(bytes, bytes);
		loans sizes = ln;
		sizes.r[0].p = sizes.r[1].p = nullptr;
		const size_t reserved = fixed.reserve(n, false, {}, &sizes);
		const size_t unlent = engine<F>::plan_bytes(n, false, {}, ~size_t(0));
		const msm_result r = fixed.msm(s.data(), n, {}, out.data(), nullptr, &ln);
		expect((tag + " reserved").c_str(), combine(out.data(), r), want);
		if (r.lent != 2 || r.per_pass != r0.per_pass || fixed.scratch_bytes() != reserved || reserved >= unlent) {
			std::printf("FAIL %s reserved: %d lent, %d windows a pass (want %d), scratch %zu of %zu reserved (unlent plan %zu)\n",
			            tag.c_str(), r.lent, r.per_pass, r0.per_pass, fixed.scratch_bytes(), reserved, unlent);
			++failures;
		}
		// Unlent in the same scratch: fewer windows a pass, or chunks.
		const msm_result u = fixed.msm(s.data(), n, {}, out.data());
		expect((tag + " reserved, unlent").c_str(), combine(out.data(), u), want);
		if (u.lent != 0 || (u.per_pass >= r0.per_pass && u.chunks == 0)) {
			std::printf("FAIL %s reserved, unlent: %d lent, %d windows a pass, %d chunks (lent: %d a pass)\n", tag.c_str(),
			            u.lent, u.per_pass, u.chunks, r0.per_pass);
			++failures;
		}
		if (fixed.scratch_bytes() != reserved) {
			std::printf("FAIL %s reserved scratch grew from %zu to %zu\n", tag.c_str(), reserved, fixed.scratch_bytes());
			++failures;
		}
		// The scalars lent too: prepared in place (in a copy), no scratch for them.
		std::vector<fr_t> mine = s;
		loans all = loans_of(bytes, bytes);
		all.scalars = true;
		const msm_result r2 = eng.msm(mine.data(), n, {}, out.data(), nullptr, &all);
		expect((tag + " scalars lent").c_str(), combine(out.data(), r2), want);
		if (mine == s) {
			std::printf("FAIL %s scalars lent: not prepared in place\n", tag.c_str());
			++failures;
		}
		loans sizes_all = all;
		sizes_all.r[0].p = sizes_all.r[1].p = nullptr;
		if (engine<F>::plan_bytes(n, false, {}, ~size_t(0), &sizes_all) + n * sizeof(fr_t) !=
		    engine<F>::plan_bytes(n, false, {}, ~size_t(0), &sizes)) {
			std::printf("FAIL %s scalars lent: the plan does not drop their %zu bytes\n", tag.c_str(), n * sizeof(fr_t));
			++failures;
		}
	}

	// chunks: an engine working in a scratch reserved for 8 scalars, 4-bit windows one a pass
	// (shared from a small engine), runs the dense, split and streamed sums of s in chunks,
	// right; a reserve of the whole on the fixed scratch grows it where the device has room
	// (here it always has).
	void chunks(const std::string& what, const std::vector<fr_t>& s) {
		const size_t n = s.size();
		const affine_t<F> want = naive(bases, s);
		const std::string tag = std::string(name) + " chunks " + what;
		std::vector<jac_t<F>> out(max_windows);
		engine<F> small(bases.data(), 8, 0), big(bases.data(), bases.size(), 0);
		msm_config tiny;
		tiny.window_bits = 4;
		tiny.max_group = 1;
		small.reserve(8, true, tiny);
		big.use_scratch(small.shared_scratch());
		const size_t held = small.scratch_bytes();
		for (bool split : {false, true}) {
			const msm_result r = split ? big.msm_split(s.data(), n, {}, out.data()) : big.msm(s.data(), n, {}, out.data());
			expect((tag + (split ? " split" : " dense")).c_str(), combine(out.data(), r), want);
			if (r.chunks < 2) {
				std::printf("FAIL %s %s: %d chunks in a scratch of %zu bytes\n", tag.c_str(), split ? "split" : "dense",
				            r.chunks, held);
				++failures;
			}
		}
		for (bool split : {false, true}) {
			std::vector<affine_t<F>> b0(n / 3 + 1), b1(n / 3 + 1);
			typename engine<F>::streamer st;
			st.host = bases.data();
			st.buf[0] = b0.data();
			st.buf[1] = b1.data();
			st.chunk = n / 3 + 1;
			const msm_result r = big.msm_streamed(split, s.data(), n, {}, st, out.data());
			expect((tag + (split ? " streamed split" : " streamed dense")).c_str(), combine(out.data(), r), want);
			if (r.chunks < 2) {
				std::printf("FAIL %s streamed %d: %d sub-chunks\n", tag.c_str(), split, r.chunks);
				++failures;
			}
		}
		big.reserve(n, true, {});
		const msm_result r = big.msm_split(s.data(), n, {}, out.data());
		expect((tag + " split after a reserve for all").c_str(), combine(out.data(), r), want);
		if (r.chunks != 0 || small.scratch_bytes() <= held) {
			std::printf("FAIL %s after a reserve for all: %d chunks, scratch %zu (was %zu)\n", tag.c_str(), r.chunks,
			            small.scratch_bytes(), held);
			++failures;
		}
	}

	// streamed: the same sums with the bases streamed from "host" memory through two buffers, in
	// chunks of 7 (a short last chunk), of a third and of all the points, by an engine whose own
	// bases are all infinity (so a kernel reading them instead of the buffers fails the check).
	void streamed(const std::string& what, const std::vector<fr_t>& s, const msm_config& cfg,
	              const affine_t<F>& want) {
		const size_t n = s.size();
		if (n == 0) return;
		std::vector<affine_t<F>> junk(bases.size(), affine_t<F>{});
		engine<F> other(junk.data(), junk.size(), 0);
		std::vector<jac_t<F>> out(max_windows);
		for (size_t chunk : {size_t(7), n / 3 + 1, n}) {
			std::vector<affine_t<F>> b0(chunk), b1(chunk);
			typename engine<F>::streamer st;
			st.host = bases.data();
			st.buf[0] = b0.data();
			st.buf[1] = b1.data();
			st.chunk = chunk;
			for (bool split : {false, true}) {
				const msm_result r = other.msm_streamed(split, s.data(), n, cfg, st, out.data());
				expect((std::string(name) + (split ? " streamed split " : " streamed msm ") + what + " chunk " +
				        std::to_string(chunk))
				           .c_str(),
				       combine(out.data(), r), want);
			}
		}
	}

	// fold: fold_body and to_affine_body (filc2_msm_fold) against sums point by point.
	void fold(const std::string& what, size_t start, size_t per, size_t copies) {
		std::vector<xyzz_t<F>> tmp(per);
		std::vector<affine_t<F>> out(per);
		launch<fold_body<F>>(0, per, static_cast<const affine_t<F>*>(bases.data()), start, per, copies, tmp.data());
		launch<to_affine_body<F>>(0, ceil_div<size_t>(per, gen_block), static_cast<const xyzz_t<F>*>(tmp.data()), per,
		                          out.data());
		for (size_t j = 0; j < per; ++j) {
			xyzz_t<F> acc = xyzz_t<F>::inf();
			for (size_t k = 0; k < copies; ++k) acc.add(bases[start + k * per + j]);
			expect((std::string(name) + " fold " + what + " point " + std::to_string(j)).c_str(), out[j], acc.to_affine());
		}
	}

	void batch(const std::string& what, const std::vector<uint64_t>& words, size_t nbits) {
		xyzz_t<F> acc = xyzz_t<F>::inf();
		std::vector<uint32_t> idx;
		for (size_t i = 0; i < nbits; ++i)
			if ((words[i / 64] >> (i % 64)) & 1) {
				acc.add(bases[i]);
				idx.push_back(static_cast<uint32_t>(i));
			}
		const affine_t<F> want = acc.to_affine();
		std::vector<jac_t<F>> out(1);
		for (int chunk : {0, 1, 3, 2}) {
			msm_config cfg;
			cfg.chunk = chunk;
			cfg.variant = chunk == 2 ? 2 : chunk == 3 ? 4 : chunk == 1 ? 6 : 0;
			msm_result r = eng.batch_add_bitmap(words.data(), nbits, cfg, out.data());
			expect((std::string(name) + " batch bitmap " + what).c_str(), from_jac(out[0]).to_affine(), want);
			if (r.ones != idx.size()) {
				std::printf("FAIL %s batch count %llu want %zu\n", name, (unsigned long long)r.ones, idx.size());
				++failures;
			}
			eng.batch_add_indices(idx.data(), idx.size(), cfg, out.data());
			expect((std::string(name) + " batch indices " + what).c_str(), from_jac(out[0]).to_affine(), want);
		}
	}
};

template <class F>
void run_group(const char* name, const affine_t<F>& g, size_t nb, bool full) {
	const auto t0 = std::chrono::steady_clock::now();
	if (!g.on_curve(curve_b<F>())) {
		std::printf("FAIL %s generator not on the curve\n", name);
		++failures;
		return;
	}
	// Bases through the device generator (gen_body + to_affine_body), checked against smul.
	std::vector<affine_t<F>> bases(nb);
	{
		std::vector<xyzz_t<F>> tmp(nb);
		const size_t blocks = ceil_div<size_t>(nb, gen_block);
		launch<gen_body<F>>(0, blocks, g, uint64_t(7), size_t(0), nb, tmp.data());
		launch<to_affine_body<F>>(0, blocks, static_cast<const xyzz_t<F>*>(tmp.data()), nb, bases.data());
		for (size_t i : {size_t(0), size_t(1), nb / 2, nb - 1}) {
			const uint64_t k = (mix64(7 + i / gen_block) >> 2) + 1 + i % gen_block;
			const affine_t<F> want = smul(g, small_canon(k)).to_affine();
			expect((std::string(name) + " generated base " + std::to_string(i)).c_str(), bases[i], want);
			if (!bases[i].on_curve(curve_b<F>())) {
				std::printf("FAIL %s base %zu off the curve\n", name, i);
				++failures;
			}
		}
	}
	bases[3] = affine_t<F>::inf();  // a base at infinity
	checker<F> ck(name, bases);

	auto rand_scalars = [&](size_t n) {
		std::vector<fr_t> s(n);
		for (auto& x : s) x = random_mont();
		return s;
	};
	const fr_t one = fr_t::one();
	const fr_t zero = fr_t::zero();

	for (size_t n : {size_t(1), size_t(2), size_t(3), size_t(17)}) ck.msm("random n=" + std::to_string(n), rand_scalars(n));
	{
		// Edge scalars, at several window sizes, chunks and group sizes.
		std::vector<fr_t> s = rand_scalars(40);
		s[0] = zero;
		s[1] = one;
		s[2] = mont_of(r_minus(1));
		s[3] = mont_of(small_canon(5));  // on the base at infinity
		s[4] = mont_of(half_plus(0));
		s[5] = mont_of(half_plus(1));
		s[6] = mont_of(r_minus(2));
		s[7] = mont_of(small_canon(2));
		s[8] = mont_of(booth_pattern(13));
		s[9] = mont_of(booth_pattern(4));
		s[10] = mont_of(booth_pattern(7));
		s[11] = mont_of(small_canon(0xffffffffffffull));
		const int cs_full[] = {4, 5, 7, 8, 13, 16};
		const int cs_short[] = {4, 7, 13};
		const int* cs = full ? cs_full : cs_short;
		const int ncs = full ? 6 : 3;
		for (int i = 0; i < ncs; ++i) {
			msm_config cfg;
			cfg.window_bits = cs[i];
			ck.msm("edges c=" + std::to_string(cs[i]), s, cfg, i < 2);
			if (cs[i] == 13 || cs[i] == 7) s[8] = mont_of(booth_pattern(cs[i]));
		}
		for (int chunk : {1, 2, 5}) {
			msm_config cfg;
			cfg.window_bits = 5;
			cfg.chunk = chunk;
			cfg.variant = chunk == 2 ? 1 : chunk == 1 ? 3 : 5;
			cfg.max_group = chunk == 2 ? 3 : chunk == 5 ? 1 : 0;
			ck.msm("edges chunk=" + std::to_string(chunk) + " group=" + std::to_string(cfg.max_group), s, cfg, chunk == 1);
		}
	}
	{
		// Repeated points: one base many times (bucket sums double), one scalar many times.
		std::vector<affine_t<F>> rep(nb, bases[0]);
		checker<F> ck2(name, rep);
		std::vector<fr_t> s = rand_scalars(24);
		for (size_t i = 0; i < 12; ++i) s[i] = s[0];
		msm_config cfg;
		cfg.window_bits = 6;
		cfg.chunk = 2;
		ck2.msm("repeated base and scalar", s, cfg);
		std::vector<fr_t> ones(nb > 64 ? 64 : nb, one);
		ck2.msm("repeated base, all ones", ones, cfg);
		for (int v : {7, 8, 9, 10, 11, 12, 13}) {  // 11, 12: the shared-memory first levels; the equal-x case (doubling, P + (−P)) by reference (7 for G1, 10 for G2; G2's default is by value since session 16); the eager Fp2 and Karatsuba products
			cfg.variant = v;
			ck2.msm("repeated base and scalar", s, cfg);
			ck2.msm("repeated base, all ones", ones, cfg);
		}
	}
	if (full) {
		// Larger: default configuration (several accumulation levels), skewed buckets.
		std::vector<fr_t> s = rand_scalars(nb);
		ck.msm("random n=" + std::to_string(nb), s, {}, false);
		ck.lent("random n=" + std::to_string(nb), s);
		ck.chunks("random n=" + std::to_string(nb), s);
		for (size_t i = 0; i < s.size(); ++i) s[i] = i % 3 ? mont_of(r_minus(1)) : mont_of(small_canon(2));
		msm_config cfg;
		cfg.chunk = 1;
		ck.msm("skewed: -1 and 2", s, cfg);
	}
	ck.msm("all zeros", std::vector<fr_t>(30, zero));
	ck.msm("all ones", std::vector<fr_t>(30, one));
	{
		std::vector<fr_t> s(30);
		for (size_t i = 0; i < s.size(); ++i) s[i] = mont_of(small_canon(rng() & 0xffff));  // high windows empty
		ck.msm("16-bit scalars", s);
		for (size_t i = 0; i < s.size(); ++i) {
			fr_t x = fr_t::zero();
			x.l[6] = static_cast<uint32_t>(rng());  // only bits 192..223: low windows empty
			s[i] = mont_of(x);
		}
		msm_config cfg;
		cfg.window_bits = 11;
		ck.msm("high-bit scalars", s, cfg);
	}
	{
		// No zero digit below the top window (c = 5: digits 1 to 15 in windows 0 to 49, window 50
		// empty): passes whose every pair has a key (none sorts as no_key), and an empty one.
		std::vector<fr_t> s(30);
		for (auto& x : s) {
			fr_t v = fr_t::zero();
			for (int bit = 0; bit + 5 <= 252; bit += 5) {
				const uint32_t d = 1 + static_cast<uint32_t>(rng() % 15);
				v.l[bit / 32] |= d << (bit % 32);
				if (bit % 32 > 28) v.l[bit / 32 + 1] |= d >> (32 - bit % 32);
			}
			x = mont_of(v);
		}
		for (int group : {1, 3, 0}) {
			msm_config cfg;
			cfg.window_bits = 5;
			cfg.max_group = group;
			ck.msm("non-zero digits group=" + std::to_string(group), s, cfg, group == 1);
		}
	}
	{
		// Witness-shaped: 51 % zeros, 47 % ones, 2 % random (here more random, for coverage).
		std::vector<fr_t> s(full ? 120 : 60);
		for (auto& x : s) {
			const int u = static_cast<int>(rng() % 100);
			x = u < 45 ? zero : u < 85 ? one : random_mont();
		}
		ck.msm("witness-shaped", s);
	}
	// Folds: runs of distinct points; runs of one point (each addition a doubling), with
	// infinity among them, and a point with its negation (a sum of infinity).
	ck.fold("runs of 5", 3, 5, (nb - 3) / 5);
	{
		std::vector<affine_t<F>> same(12, ck.bases[1]);
		same[5] = affine_t<F>::inf();
		checker<F> ck3(name, same);
		ck3.fold("one point repeated", 0, 3, 4);
		std::vector<affine_t<F>> pm = {ck.bases[2], ck.bases[2]};
		pm[1].y = -pm[1].y;
		checker<F> ck4(name, pm);
		ck4.fold("a point and its negation", 0, 1, 2);
	}
	{
		std::vector<uint64_t> words(ceil_div<size_t>(nb, 64));
		for (auto& w : words) w = rng();
		ck.batch("random bitmap", words, nb);
		ck.batch("bitmap, 70 bits", words, 70);
		std::vector<uint64_t> none(words.size(), 0), all(words.size(), ~uint64_t(0));
		ck.batch("empty bitmap", none, nb);
		ck.batch("full bitmap", all, nb);
	}
	{
		// Fixed-base multiplication (the setup's): scalars whose 16-bit windows take the
		// values that exercise every digit case (0, small, around 2^15, 2^16 − 1 with and
		// without a carry in), over a table filled at the magnitudes those produce.
		std::vector<affine_t<F>> table(fb_table_points, affine_t<F>::inf());
		const uint32_t mags[] = {1, 2, 3, 4, 0x7ffe, 0x7fff, 0x8000};
		for (int k = 0; k < fb_windows; ++k)
			for (uint32_t d : mags) {
				if (k == fb_windows - 1 && d > 4) continue;  // the top window stays small
				fr_t e = fr_t::zero();                         // d·2^(16k)
				const int bit = 16 * k;
				e.l[bit / 32] = d << (bit % 32);
				if (bit % 32 && (d >> (32 - bit % 32))) e.l[bit / 32 + 1] = d >> (32 - bit % 32);
				table[size_t(k) * fb_half + d - 1] = smul(g, e).to_affine();
			}
		const uint32_t vals[] = {0, 1, 2, 3, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff};
		const size_t n = full ? 40 : 12;
		std::vector<fr_t> canon(n), mont(n);
		for (size_t i = 0; i < n; ++i) {
			fr_t x = fr_t::zero();
			for (int k = 0; k < fb_windows; ++k) {
				const uint32_t v = k == fb_windows - 1 ? vals[rng() % 4] : vals[i == 0 ? 8 : i == 1 ? 0 : rng() % 9];
				x.l[k / 2] |= v << (16 * (k % 2));
			}
			canon[i] = x;
			mont[i] = mont_of(x);
		}
		std::vector<xyzz_t<F>> tmp(n);
		std::vector<affine_t<F>> got(n);
		launch<fixed_base_body<F>>(0, n, static_cast<const affine_t<F>*>(table.data()), static_cast<const fr_t*>(mont.data()),
		                           tmp.data());
		launch<to_affine_body<F>>(0, ceil_div<size_t>(n, gen_block), static_cast<const xyzz_t<F>*>(tmp.data()), n, got.data());
		for (size_t i = 0; i < n; ++i)
			expect((std::string(name) + " fixed base " + std::to_string(i)).c_str(), got[i], smul(g, canon[i]).to_affine());
	}
	{
		// A shared, reserved scratch: two engines, one scratch counted once; the reserved
		// plan serves every call of either without growing; a call beyond it fails.
		std::vector<affine_t<F>> rev(bases.rbegin(), bases.rend());
		checker<F> a(name, bases), b(name, rev);
		b.eng.use_scratch(a.eng.shared_scratch());
		const size_t n = full ? nb : 60;
		const size_t bytes = a.eng.reserve(n, true, {});
		const size_t planned = engine<F>::plan_bytes(n, true, {}, ~size_t(0));
		if (bytes < planned || a.eng.scratch_bytes() != bytes || b.eng.scratch_bytes() != 0) {
			std::printf("FAIL %s shared scratch: reserved %zu, planned %zu, owner %zu, sharer %zu\n", name, bytes, planned,
			            a.eng.scratch_bytes(), b.eng.scratch_bytes());
			++failures;
		}
		// A second reserve on the fixed scratch, a smaller plan (a prover reserves its five
		// queries, largest first): it fits what is there, even when that is under the margin
		// kept from free device memory.
		bool second = true;
		try {
			if (b.eng.reserve(n / 2, true, {}) != bytes) second = false;
		} catch (const std::runtime_error&) {
			second = false;
		}
		if (!second || a.eng.scratch_bytes() != bytes) {
			std::printf("FAIL %s a smaller plan reserved on the fixed scratch: ok %d, scratch %zu (reserved %zu)\n", name,
			            second, a.eng.scratch_bytes(), bytes);
			++failures;
		}
		std::vector<fr_t> s(n);
		for (auto& x : s) {
			const int u = static_cast<int>(rng() % 100);
			x = u < 45 ? zero : u < 85 ? one : random_mont();
		}
		a.msm("shared scratch, witness-shaped", s);
		b.msm("shared scratch, random", rand_scalars(n));
		std::vector<fr_t> all_ones(n, one);
		b.msm("shared scratch, all ones", all_ones);
		std::vector<uint64_t> words(ceil_div<size_t>(n, 64));
		for (auto& w : words) w = rng();
		b.batch("shared scratch bitmap", words, n);
		if (a.eng.scratch_bytes() != bytes) {
			std::printf("FAIL %s shared scratch grew from %zu to %zu\n", name, bytes, a.eng.scratch_bytes());
			++failures;
		}
		// Reserved for 2 scalars: n fit with fewer windows per pass; 2^16 indices do not.
		checker<F> c(name, bases);
		c.eng.reserve(2, false, {});
		c.msm("in a scratch planned for 2", s);
		const size_t small = c.eng.scratch_bytes();  // the counters of a split may grow; the plan does not
		bool refused = false;
		try {
			std::vector<uint32_t> idx(size_t(1) << 16, 0);
			std::vector<jac_t<F>> out(1);
			c.eng.batch_add_indices(idx.data(), idx.size(), {}, out.data());
		} catch (const std::runtime_error&) {
			refused = true;
		}
		if (!refused || c.eng.scratch_bytes() != small) {
			std::printf("FAIL %s a sum beyond the reserved scratch: refused %d, scratch %zu (reserved %zu)\n", name, refused,
			            c.eng.scratch_bytes(), small);
			++failures;
		}
		c.eng.trim();  // unfixed: grows again
		c.msm("after trim", s, {}, false);
	}
	const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	std::printf("%s: done in %.1f s\n", name, sec);
}

// check_estimates: the scratch a loader holds back (estimate_bytes) is the default sort's plan
// within the atomic sort's, and never below the leanest (one window a pass) default plan.
template <class F>
void check_estimates(const char* name) {
	const size_t unlimited = ~size_t(0);
	msm_config atomic, lean;
	atomic.sort = sort_atomic;
	lean.max_group = 1;
	for (size_t n : {size_t(1), size_t(100), size_t(100000), size_t(1) << 24, (size_t(1) << 27) - 1}) {
		for (bool split : {false, true}) {
			const size_t est = engine<F>::estimate_bytes(n, split);
			const size_t a = engine<F>::plan_bytes(n, split, atomic, unlimited);
			const size_t least = engine<F>::plan_bytes(n, split, lean, unlimited);
			const size_t full = engine<F>::plan_bytes(n, split, msm_config{}, unlimited);
			if (est > std::max(a, least) || est < least || est > full) {
				std::printf("FAIL %s estimate n=%zu split=%d: %zu bytes (atomic %zu, one window %zu, unlimited %zu)\n",
				            name, n, split, est, a, least, full);
				++failures;
			}
		}
	}
}

int main(int argc, char** argv) {
	const bool g2 = argc < 2 || std::string(argv[1]) != "g1";
	check_estimates<fp_t>("G1");
	check_estimates<fp2_t>("G2");
	run_group<fp_t>("G1", g1_gen(), 600, true);
	if (g2) run_group<fp2_t>("G2", g2_gen(), 70, false);
	if (g2) {
		// G1 and G2 engines on one scratch (a prover's B_G1 and B_G2 queries).
		checker<fp_t> a("G1", random_points(g1_gen(), 24));
		checker<fp2_t> b("G2", random_points(g2_gen(), 24));
		a.eng.use_scratch(b.eng.shared_scratch());
		b.eng.reserve(24, true, {});
		std::vector<fr_t> s(24);
		for (auto& x : s) x = random_mont();
		s[0] = fr_t::one();
		a.msm("on a G2 scratch", s);
		b.msm("G2 scratch", s);
	}
	if (failures) {
		std::printf("emu_msm: %d FAILURES\n", failures);
		return 1;
	}
	std::printf("emu_msm: all checks passed\n");
	return 0;
}

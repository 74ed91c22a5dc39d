// cuda/ntt/driver.cuh — an NTT domain: its tables, and the pass sequences of the
// transforms and of the H pipeline. Host code, generic over a backend B that allocates,
// copies and launches (src/ntt.cu: CUDA; cuda/emu/ntt_check.cpp: the CPU emulation):
//
//   using stream_t;  void* alloc(size_t); void release(void*);
//   void h2d(void*, const void*, size_t, stream_t); void d2h(void*, const void*, size_t, stream_t);
//   void sync(stream_t);
//   void consts(consts_t*, uint32_t n, stream_t); void pow(fr_t*, const fr_t* base, uint32_t count, stream_t);
//   void twist(fr_t*, const fr_t* W1, const fr_t* W2, uint32_t count, uint32_t shift, stream_t);
//   void rtab(const rtab_args&, stream_t); void pass(int prog, const pass_args&, uint32_t blocks,
//   uint32_t threads, uint32_t smem_bytes, stream_t); void tiny(const tiny_args&, stream_t);
//   void bitrev(fr_t*, uint32_t n, stream_t); void pointwise(fr_t* c, const fr_t* a, const fr_t* b,
//   uint32_t count, stream_t);
//
// Scaling (coset powers h^i with h = g or g⁻¹, and 1/N) is applied on the coefficient side
// of a transform, i = the coefficient index of an element: its position on the natural
// side, bitrev_n(position) on the bit-reversed side. h^i factors over the bits of i, so
// the factor of every digit but one of the pass next to that side is folded into a round
// table of that pass (the "variants" below), and the rest — the bits outside the pass and
// one edge digit — is one multiplication per element from 8·2^lp factors a block computes
// once (EDGE_R1 / EDGE_RL in kernels.cuh). 1/N alone is folded into T_0 of that pass.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "kernels.cuh"
#include "plan.cuh"

namespace filc2 {
namespace ntt {

// Round-table variants of a pass.
enum variant {
	V_FWD = 0,      // ω, pure
	V_INV = 1,      // ω⁻¹, pure
	V_A = 2,        // pass 0, forward DIF on the coset: input scaled by g^i (natural side)
	V_D_COSET = 3,  // pass 0, inverse DIT on the coset: output scaled by g^−i / N (natural side)
	V_D_SCALE = 4,  // pass 0, inverse DIT: output scaled by 1/N (folded into T_0)
	V_B = 5,        // last pass, forward DIT on the coset: input scaled by g^i (bit-reversed side)
	V_C_COSET = 6,  // last pass, inverse DIF on the coset: output scaled by g^−i·C (bit-reversed side)
	V_C_SCALE = 7,  // last pass, inverse DIF: output scaled by 1/N (folded into T_0)
	V_C_ZSCALE = 8, // last pass, inverse DIF: output scaled by 1/((g^N − 1)·N) (folded into T_0; H's c)
	NVARIANTS = 9
};

enum order_kind { ORDER_NN = 0, ORDER_NR = 1, ORDER_RN = 2 };

// The constant C of an edge or of a tiny transform.
enum scale_kind { SCALE_ONE = 0, SCALE_INV_N = 1, SCALE_ZINV_N = 2 };

struct variant_spec {
	bool inverse;
	int fold;  // 0: none; 1: each table folds its own digit (bit-reversed side, last pass);
	           // 2: each table folds the digit just below it (natural side, pass 0)
	int hsel;  // the h of the folded digits: 1 = g, 2 = g⁻¹
	int fold_c;  // T_0 times a constant: a scale_kind (SCALE_ONE: none)
};

inline variant_spec spec_of(int v) {
	switch (v) {
	case V_FWD:
		return {false, 0, 0, SCALE_ONE};
	case V_INV:
		return {true, 0, 0, SCALE_ONE};
	case V_A:
		return {false, 2, 1, SCALE_ONE};
	case V_D_COSET:
		return {true, 2, 2, SCALE_ONE};
	case V_D_SCALE:
		return {true, 0, 0, SCALE_INV_N};
	case V_B:
		return {false, 1, 1, SCALE_ONE};
	case V_C_COSET:
		return {true, 1, 2, SCALE_ONE};
	case V_C_ZSCALE:
		return {true, 0, 0, SCALE_ZINV_N};
	default:
		return {true, 0, 0, SCALE_INV_N};
	}
}

template <class B>
class domain {
   public:
	using stream_t = typename B::stream_t;

	// max_pass, tile_log, greedy: plan overrides (0, 0, false = default; make_plan);
	// compact: no 2^(n−1)-entry table for pass 0's twist (one extra product per element
	// there instead).
	// le: log2 of the elements a thread holds (0: DEFAULT_LE).
	domain(B be, int n, int max_pass, int tile_log, bool compact, stream_t st, bool greedy = false, int le = 0)
	    : be_(be), pl_(make_plan(n, max_pass, tile_log, greedy, le)), compact_(compact) {
		try {
			build(st);
		} catch (...) {
			release_all();
			throw;
		}
	}
	~domain() { release_all(); }
	domain(const domain&) = delete;
	domain& operator=(const domain&) = delete;

	const plan& get_plan() const { return pl_; }
	const consts_t& constants() const { return k_; }
	size_t table_bytes() const { return bytes_; }
	uint32_t size() const { return 1u << pl_.n; }
	B& backend() { return be_; }

	// transform: 2^n elements from src to dst (device pointers; dst may be src).
	//   forward X_k = Σ_i x_i·(g^i if coset)·ω^(ik); inverse x_i = (g^−i if coset)/N·Σ_k X_k ω^(−ik);
	//   order NN: natural in and out; NR: natural in, bit-reversed out (gnark DIF); RN:
	//   bit-reversed in, natural out (gnark DIT). Bit-reversed means position p holds index
	//   bitrev_n(p). NN over several passes ends with an in-place bit-reversal of dst.
	void transform(fr_t* dst, const fr_t* src, bool inverse, bool coset, int order, stream_t st) {
		if (order < ORDER_NN || order > ORDER_RN) throw std::invalid_argument("ntt: bad order");
		if (pl_.tiny()) {
			tiny_args t{};
			t.src = src;
			t.dst = dst;
			t.n = pl_.n;
			t.inverse = inverse;
			t.in_rev = order == ORDER_RN;
			t.out_rev = order == ORDER_NR;
			t.pre = !inverse && coset ? 1 : 0;
			t.post = inverse && coset ? 2 : 0;
			t.cscale = inverse ? SCALE_INV_N : SCALE_ONE;
			t.k = dk_;
			be_.tiny(t, st);
			return;
		}
		const int scale = inverse ? SCALE_INV_N : SCALE_ONE;
		switch (order) {
		case ORDER_NR:
			dif(src, dst, nullptr, inverse, coset, scale, st);
			break;
		case ORDER_RN:
			dit(src, dst, inverse, coset, SCALE_ONE, st);
			break;
		default:
			if (pl_.npasses() == 1) {
				dif(src, dst, dst, inverse, coset, scale, st);
			} else {
				dif(src, dst, nullptr, inverse, coset, scale, st);
				be_.bitrev(dst, pl_.n, st);
			}
		}
	}

	// h: bellperson's H from the evaluations a, b, c (2^n each, natural order; all three
	// are overwritten): returns the buffer holding the 2^n coefficients of
	// iNTT_coset((NTT_coset(iNTT a)·NTT_coset(iNTT b) − NTT_coset(iNTT c)) / (g^N − 1)),
	// natural order, of which the first N − 1 are h. That buffer is a.
	//
	// iNTT_coset is linear and iNTT_coset(NTT_coset(C)) = C, so this equals
	// (iNTT_coset(NTT_coset(iNTT a)·NTT_coset(iNTT b)) − iNTT c) / (g^N − 1), value for value,
	// for any a, b, c: six transforms instead of seven (c is never taken to the coset), and
	// c's coefficients are subtracted in the last pass. Plans of one pass keep the seven.
	fr_t* h(fr_t* a, fr_t* b, fr_t* c, stream_t st) {
		const uint32_t N = size();
		if (pl_.tiny()) {
			for (fr_t* v : {a, b, c}) {
				tiny_args t{};
				t.src = v;
				t.dst = v;
				t.n = pl_.n;
				t.inverse = 1;
				t.cscale = SCALE_INV_N;
				t.k = dk_;
				be_.tiny(t, st);
				t.inverse = 0;
				t.pre = 1;
				t.cscale = SCALE_ONE;
				be_.tiny(t, st);
			}
			be_.pointwise(c, a, b, N, st);
			tiny_args t{};
			t.src = c;
			t.dst = a;
			t.n = pl_.n;
			t.inverse = 1;
			t.post = 2;
			t.cscale = SCALE_ZINV_N;
			t.k = dk_;
			be_.tiny(t, st);
			return a;
		}
		const int P = pl_.npasses();
		if (P == 1) {
			// One pass: a, b and c to the coset (iNTT, ·g^i/N, NTT in one kernel), a·b − c,
			// then the coset iNTT scaled by g^−i/((g^N − 1)·N), scattered to natural order in a.
			for (fr_t* v : {a, b, c}) coset_lde(v, st);
			be_.pointwise(c, a, b, N, st);
			last_h_pass(c, a, nullptr, st);
			return a;
		}
		// a and b to the coset; b's last coset-NTT pass is fused below.
		coset_lde(a, st);
		coset_lde(b, st, true);
		// c's coefficients, scaled by 1/((g^N − 1)·N) in its last pass, bit-reversed order:
		// the positions of the coset iNTT's output before its scatter.
		dif(c, c, nullptr, true, false, SCALE_ZINV_N, st);
		// b's last coset-NTT pass, a·b, and the first pass of the coset iNTT.
		{
			pass_args pa = args(0, b, b);
			pa.sd[0] = sub(0, V_FWD);
			pa.sd[1] = sub(0, V_INV);
			pa.pa = a;
			launch(PROG_DIT_DIF, pa, 0, st);
		}
		for (int q = 1; q + 1 < P; ++q) {
			pass_args pq = args(q, b, b);
			pq.sd[0] = sub(q, V_INV);
			launch(PROG_DIF, pq, q, st);
		}
		last_h_pass(b, a, c, st);
		return a;
	}

   private:
	B be_;
	plan pl_;
	bool compact_;
	consts_t k_{};
	consts_t* dk_ = nullptr;
	fr_t *W1_ = nullptr, *W2_ = nullptr, *G1_ = nullptr, *G2_ = nullptr, *Gi1_ = nullptr, *Gi2_ = nullptr;
	std::vector<fr_t*> twt_;  // per pass: its twist half table (null: none, or compact pass 0)
	fr_t* rt_ = nullptr;      // all round tables
	std::vector<uint32_t> off_, triv_;  // [pass·NVARIANTS + v]: offset in rt_ (or ~0), trivial mask
	size_t bytes_ = 0;

	template <class T>
	T* alloc(size_t count) {
		void* p = be_.alloc(count * sizeof(T));
		bytes_ += count * sizeof(T);
		return static_cast<T*>(p);
	}

	void release_all() {
		for (void* p : {static_cast<void*>(dk_), static_cast<void*>(W1_), static_cast<void*>(W2_),
		                static_cast<void*>(G1_), static_cast<void*>(G2_), static_cast<void*>(Gi1_),
		                static_cast<void*>(Gi2_), static_cast<void*>(rt_)})
			if (p) be_.release(p);
		for (fr_t* p : twt_)
			if (p) be_.release(p);
		twt_.clear();
		dk_ = nullptr;
		W1_ = W2_ = G1_ = G2_ = Gi1_ = Gi2_ = rt_ = nullptr;
	}

	static bool applies(int q, int P, int v) {
		if (v == V_FWD || v == V_INV) return true;
		if (v == V_A || v == V_D_COSET || v == V_D_SCALE) return q == 0;
		return q == P - 1;
	}

	void build(stream_t st) {
		const int n = pl_.n;
		const uint32_t N = 1u << n;
		dk_ = alloc<consts_t>(1);
		be_.consts(dk_, n, st);
		be_.d2h(&k_, dk_, sizeof k_, st);
		be_.sync(st);
		if (pl_.tiny()) return;
		const uint32_t c1 = N < (1u << POW_BITS) ? N : (1u << POW_BITS);
		const uint32_t c2 = (N >> POW_BITS) ? (N >> POW_BITS) : 1u;
		W1_ = alloc<fr_t>(c1);
		W2_ = alloc<fr_t>(c2);
		G1_ = alloc<fr_t>(c1);
		G2_ = alloc<fr_t>(c2);
		Gi1_ = alloc<fr_t>(c1);
		Gi2_ = alloc<fr_t>(c2);
		be_.pow(W1_, &dk_->omega, c1, st);
		be_.pow(W2_, &dk_->omega_14, c2, st);
		be_.pow(G1_, &dk_->g, c1, st);
		be_.pow(G2_, &dk_->g_14, c2, st);
		be_.pow(Gi1_, &dk_->g_inv, c1, st);
		be_.pow(Gi2_, &dk_->g_inv_14, c2, st);
		const int P = pl_.npasses();
		twt_.assign(P, nullptr);
		for (int q = 0; q + 1 < P; ++q) {
			if (q == 0 && compact_) continue;
			const int a = pl_.passes[q].a;
			const uint32_t count = 1u << (a - 1);
			twt_[q] = alloc<fr_t>(count);
			be_.twist(twt_[q], W1_, W2_, count, n - a, st);
		}
		// Round tables: descriptors (ω exponent, h exponent, h, folded constant) per entry.
		std::vector<uint32_t> desc;
		off_.assign(P * NVARIANTS, ~0u);
		triv_.assign(P * NVARIANTS, 0u);
		for (int q = 0; q < P; ++q) {
			const pass_plan& pp = pl_.passes[q];
			for (int v = 0; v < NVARIANTS; ++v) {
				if (!applies(q, P, v)) continue;
				const variant_spec sp = spec_of(v);
				off_[q * NVARIANTS + v] = static_cast<uint32_t>(desc.size() / 4);
				uint32_t triv = 0;
				for (int i = 0; i + 1 < pp.nrounds; ++i) {
					const int r = pp.rounds[i].r, o = pp.rounds[i].o;
					const bool fc = sp.fold_c != SCALE_ONE && i == 0;
					if (sp.fold != 2 && !fc) triv |= 1u << i;
					for (uint32_t rest = 0; rest < (1u << o); ++rest) {
						for (uint32_t x = 0; x < (1u << r); ++x) {
							uint32_t ew = (rest * bitrev(x, r)) << (n - o - r);
							if (sp.inverse) ew = (N - ew) & (N - 1);
							uint32_t eh = 0, hs = 0;
							if (sp.fold == 1) {
								eh = bitrev(x, r) << (n - o - r);
								hs = sp.hsel;
							} else if (sp.fold == 2) {
								const int o2 = pp.rounds[i + 1].o;
								eh = (rest >> o2) << (n - pp.s + o2);
								hs = sp.hsel;
							}
							desc.push_back(ew);
							desc.push_back(eh);
							desc.push_back(hs);
							desc.push_back(fc ? static_cast<uint32_t>(sp.fold_c) : 0u);
						}
					}
				}
				triv_[q * NVARIANTS + v] = triv;
			}
		}
		const uint32_t count = static_cast<uint32_t>(desc.size() / 4);
		if (count) {
			rt_ = alloc<fr_t>(count);
			uint32_t* ddesc = static_cast<uint32_t*>(be_.alloc(desc.size() * sizeof(uint32_t)));
			try {
				be_.h2d(ddesc, desc.data(), desc.size() * sizeof(uint32_t), st);
				rtab_args ra{};
				ra.out = rt_;
				ra.desc = ddesc;
				ra.count = count;
				ra.W1 = W1_;
				ra.W2 = W2_;
				ra.G1 = G1_;
				ra.G2 = G2_;
				ra.Gi1 = Gi1_;
				ra.Gi2 = Gi2_;
				ra.k = dk_;
				be_.rtab(ra, st);
				be_.sync(st);
			} catch (...) {
				be_.release(ddesc);
				throw;
			}
			be_.release(ddesc);
		}
		be_.sync(st);
	}

	sub_args sub(int q, int v) const {
		const uint32_t off = off_[q * NVARIANTS + v];
		if (off == ~0u) throw std::logic_error("ntt: round-table variant missing");
		sub_args s{};
		s.tables = rt_ ? rt_ + off : nullptr;
		s.trivial = triv_[q * NVARIANTS + v];
		s.inverse = spec_of(v).inverse;
		for (int j = 0; j < 3; ++j) s.w8[j] = s.inverse ? k_.w8_inv[j] : k_.w8[j];
		return s;
	}

	pass_args args(int q, const fr_t* src, fr_t* dst) const {
		const pass_plan& pp = pl_.passes[q];
		pass_args p{};
		p.src = src;
		p.dst = dst;
		p.twt = twt_[q];
		p.W1 = W1_;
		p.W2 = W2_;
		p.n = pl_.n;
		p.a = pp.a;
		p.s = pp.s;
		p.lp = pp.lp;
		p.twist = pp.twisted();
		p.edge = EDGE_NONE;
		p.edge_c = k_.one;
		p.le = pp.le;
		return p;
	}

	const fr_t& scale_value(int scale) const {
		return scale == SCALE_INV_N ? k_.inv_n : (scale == SCALE_ZINV_N ? k_.zinv_n : k_.one);
	}

	void set_edge(pass_args& p, int kind, int hsel, int scale) const {
		p.edge = kind;
		p.H1 = hsel == 1 ? G1_ : Gi1_;
		p.H2 = hsel == 1 ? G2_ : Gi2_;
		p.edge_c = scale_value(scale);
	}

	void launch(int prog, const pass_args& p, int q, stream_t st) {
		const pass_plan& pp = pl_.passes[q];
		const uint32_t edges = 1u << (pp.lp + pp.le);  // EDGE_R1: 2^(lp+r0) ≤ 2^(lp+le); EDGE_RL: 2^le
		const uint32_t smem = (2 * pp.tile() + 2 * edges) * 16;
		be_.pass(prog, p, pp.blocks(pl_.n), pp.threads(), smem, st);
	}

	// coset_lde: v (evaluations, natural order) in place to its coset evaluations g·ω^k,
	// natural order: the iNTT's DIF passes (unscaled), its last fused with the coset NTT's
	// first DIT pass, which scales coefficient i by g^i/N in between, then the other DIT
	// passes — all but the last (pass 0) when skip_last (the caller fuses it).
	void coset_lde(fr_t* v, stream_t st, bool skip_last = false) {
		const int P = pl_.npasses();
		for (int q = 0; q + 1 < P; ++q) {
			pass_args pa = args(q, v, v);
			pa.sd[0] = sub(q, V_INV);
			launch(PROG_DIF, pa, q, st);
		}
		{
			const int q = P - 1;
			pass_args pa = args(q, v, v);
			pa.twist = 0;
			pa.sd[0] = sub(q, V_INV);
			pa.sd[1] = sub(q, V_B);
			set_edge(pa, EDGE_RL, 1, SCALE_INV_N);
			launch(PROG_DIF_DIT, pa, q, st);
		}
		for (int q = P - 2; q >= (skip_last ? 1 : 0); --q) {
			pass_args pa = args(q, v, v);
			pa.sd[0] = sub(q, V_FWD);
			launch(PROG_DIT, pa, q, st);
		}
	}

	// last_h_pass: the coset iNTT's last DIF pass from src, scaled by g^−i/((g^N − 1)·N), less
	// sub (null: nothing) at each position, scattered to natural order in dst.
	void last_h_pass(const fr_t* src, fr_t* dst, const fr_t* sub_, stream_t st) {
		const int q = pl_.npasses() - 1;
		pass_args pa = args(q, src, dst);
		pa.twist = 0;
		pa.sd[0] = sub(q, V_C_COSET);
		pa.scatter = 1;
		pa.psub = sub_;
		set_edge(pa, EDGE_RL, 2, SCALE_ZINV_N);
		launch(PROG_DIF, pa, q, st);
	}

	// dif: the DIF passes from src into work (in place after the first); with scatter_to,
	// the last pass writes natural order there instead. Inverse output is scaled by C
	// (scale); coset: forward input ·g^i, inverse output ·g^−i.
	void dif(const fr_t* src, fr_t* work, fr_t* scatter_to, bool inverse, bool coset, int scale, stream_t st) {
		const int P = pl_.npasses();
		for (int q = 0; q < P; ++q) {
			pass_args p = args(q, q == 0 ? src : work, work);
			int v = inverse ? V_INV : V_FWD;
			if (!inverse && coset && q == 0) {
				v = V_A;
				set_edge(p, EDGE_R1, 1, SCALE_ONE);
			}
			if (inverse && q == P - 1) {
				if (coset) {
					v = V_C_COSET;
					set_edge(p, EDGE_RL, 2, scale);
				} else if (scale == SCALE_INV_N) {
					v = V_C_SCALE;
				} else if (scale == SCALE_ZINV_N) {
					v = V_C_ZSCALE;
				} else if (scale != SCALE_ONE) {
					throw std::logic_error("ntt: unsupported scale");
				}
			}
			if (q == P - 1 && scatter_to) {
				p.dst = scatter_to;
				p.scatter = 1;
				p.sync_store = scatter_to == p.src;
			}
			p.sd[0] = sub(q, v);
			launch(PROG_DIF, p, q, st);
		}
	}

	// dit: the DIT passes (last pass of the plan first). Forward coset scales the input by
	// C·g^i (C = fwd_scale); inverse output is ·1/N (coset: ·g^−i/N).
	void dit(const fr_t* src, fr_t* work, bool inverse, bool coset, int fwd_scale, stream_t st) {
		const int P = pl_.npasses();
		for (int q = P - 1; q >= 0; --q) {
			pass_args p = args(q, q == P - 1 ? src : work, work);
			int v = inverse ? V_INV : V_FWD;
			if (!inverse && coset && q == P - 1) {
				v = V_B;
				set_edge(p, EDGE_RL, 1, fwd_scale);
			}
			if (inverse && q == 0) {
				if (coset) {
					v = V_D_COSET;
					set_edge(p, EDGE_R1, 2, SCALE_INV_N);
				} else {
					v = V_D_SCALE;
				}
			}
			p.sd[0] = sub(q, v);
			launch(PROG_DIT, p, q, st);
		}
	}
};

}  // namespace ntt
}  // namespace filc2

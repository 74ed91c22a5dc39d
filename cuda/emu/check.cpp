// cuda/emu/check.cpp — a line-oriented driver over the emulated templates, for check.py.
//
// Each input line is an operation on canonical integers in hex; each output line the
// result, canonical, in hex. Values enter through from_canonical and leave through
// to_canonical, so those are exercised by every line. Points are "x y" (Fp) or
// "x0 x1 y0 y1" (Fp2) with all-zero coordinates for infinity.
//   fr|fp  mul|add|sub|sqr|inv|vinv|neg|wide|lohi|f64|kara|ksqr a [b]  (vinv: inverse_vartime;
//          wide: redc_wide(mul_wide(a, b)); lohi: mul_lohi; f64: mul_fp64; kara, ksqr: mul_kara, sqr_kara)
//   fp2    mul|add|sub|sqr|inv|vinv a0 a1 [b0 b1]
//   g1|g2  add|madd|dbl|neg|jac P [Q]               (jac: 2P through to_jacobian, as X Y Z)
//   g1|g2  smul k P                                 (k canonical, double-and-add)
//   g1|g2  batch n P1 … Pn                          (2·P_i through batch_to_affine)
#include "emu.h"

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "../ec/bls12_381.cuh"
#include "../ff/fp64_mul.cuh"
#include "../ff/inverse.cuh"
#include "../ff/karatsuba.cuh"
#include "../kernels/mul_variants.cuh"

using namespace filc2;

template <class F>
F parse_limbs(const std::string& hex) {
	F x;
	for (int j = 0; j < F::limbs; ++j) x.l[j] = 0;
	int bit = 0;
	for (int i = int(hex.size()) - 1; i >= 0; --i, bit += 4) {
		const char c = hex[i];
		const uint32_t v = c <= '9' ? c - '0' : (c | 32) - 'a' + 10;
		x.l[bit / 32] |= v << (bit % 32);
	}
	return x;
}

template <class F>
std::string hex_of(const F& x) {
	std::string s;
	char buf[16];
	for (int j = F::limbs - 1; j >= 0; --j) {
		std::snprintf(buf, sizeof buf, "%08x", x.l[j]);
		s += buf;
	}
	return s;
}

// Prime-field values in and out (canonical ↔ Montgomery).
template <class F>
F in(std::istream& is) {
	std::string h;
	is >> h;
	return F::from_canonical(parse_limbs<F>(h));
}
template <class F>
std::string out(const F& x) {
	return hex_of(x.to_canonical());
}

// Fp2 values.
struct fp2_io {
	static fp2_t in(std::istream& is) {
		fp2_t r;
		r.c0 = ::in<fp_t>(is);
		r.c1 = ::in<fp_t>(is);
		return r;
	}
	static std::string out(const fp2_t& x) { return ::out(x.c0) + " " + ::out(x.c1); }
};
struct fp_io {
	static fp_t in(std::istream& is) { return ::in<fp_t>(is); }
	static std::string out(const fp_t& x) { return ::out(x); }
};

template <class F>
void field_line(const std::string& op, std::istream& is) {
	const F a = in<F>(is);
	if (op == "sqr") return void(std::cout << out(a.sqr()) << "\n");
	if (op == "ksqr") return void(std::cout << out(sqr_kara(a)) << "\n");
	if (op == "inv") return void(std::cout << out(a.inverse()) << "\n");
	if (op == "vinv") return void(std::cout << out(inverse_vartime(a)) << "\n");
	if (op == "neg") return void(std::cout << out(-a) << "\n");
	const F b = in<F>(is);
	if (op == "mul") return void(std::cout << out(a * b) << "\n");
	if (op == "add") return void(std::cout << out(a + b) << "\n");
	if (op == "sub") return void(std::cout << out(a - b) << "\n");
	if (op == "lohi") return void(std::cout << out(mul_lohi(a, b)) << "\n");
	if (op == "f64") return void(std::cout << out(mul_fp64(a, b)) << "\n");
	if (op == "kara") return void(std::cout << out(mul_kara(a, b)) << "\n");
	if (op == "wide") {
		uint32_t s[2 * F::limbs];
		F::mul_wide(s, a.l, b.l);
		F r;
		F::redc_wide(r.l, s);
		return void(std::cout << out(r) << "\n");
	}
	std::cout << "bad op\n";
}

void fp2_line(const std::string& op, std::istream& is) {
	const fp2_t a = fp2_io::in(is);
	if (op == "sqr") return void(std::cout << fp2_io::out(a.sqr()) << "\n");
	if (op == "inv") return void(std::cout << fp2_io::out(a.inverse()) << "\n");
	if (op == "vinv") return void(std::cout << fp2_io::out(inverse_vartime(a)) << "\n");
	const fp2_t b = fp2_io::in(is);
	if (op == "mul") {  // the lazy product, and the eager one must agree with it
		const fp2_t r = a * b;
		if (r != fp2_t::mul_eager(a, b)) return void(std::cout << "eager product differs\n");
		return void(std::cout << fp2_io::out(r) << "\n");
	}
	if (op == "add") return void(std::cout << fp2_io::out(a + b) << "\n");
	if (op == "sub") return void(std::cout << fp2_io::out(a - b) << "\n");
	std::cout << "bad op\n";
}

// lift to XYZZ with Z = λ ≠ 1, as the device test kernels do.
template <class F>
xyzz_t<F> lift(const affine_t<F>& p, const F& seed) {
	if (p.is_inf()) return xyzz_t<F>::inf();
	F lambda = seed + F::one();
	if (lambda.is_zero()) lambda = F::one();
	const F l2 = lambda.sqr(), l3 = l2 * lambda;
	return {p.x * l2, p.y * l3, l2, l3};
}

template <class F, class IO>
void curve_line(const std::string& op, std::istream& is, const F& b) {
	auto read_point = [&]() {
		affine_t<F> p;
		p.x = IO::in(is);
		p.y = IO::in(is);
		return p;
	};
	auto put = [&](const affine_t<F>& p) {
		if (!p.is_inf() && !p.on_curve(b)) std::cout << "OFFCURVE ";
		std::cout << IO::out(p.x) << " " << IO::out(p.y) << "\n";
	};
	if (op == "smul") {
		std::string h;
		is >> h;
		const fr_t k = parse_limbs<fr_t>(h);
		const affine_t<F> p = read_point();
		xyzz_t<F> r = xyzz_t<F>::inf();
		for (int bit = 254; bit >= 0; --bit) {
			r.dbl();
			if ((k.l[bit >> 5] >> (bit & 31)) & 1) r.add(p);
		}
		return put(r.to_affine());
	}
	if (op == "batch") {
		size_t n;
		is >> n;
		std::vector<xyzz_t<F>> xs(n);
		std::vector<affine_t<F>> outs(n);
		for (size_t i = 0; i < n; ++i) {
			const affine_t<F> p = read_point();
			xs[i] = lift(p, p.y);
			xs[i].dbl();
		}
		// Several strided "threads", as on the device.
		const size_t stride = n < 3 ? 1 : 3;
		for (size_t t = 0; t < stride; ++t) batch_to_affine(outs.data(), xs.data(), n, t, stride);
		for (size_t i = 0; i < n; ++i) put(outs[i]);
		return;
	}
	const affine_t<F> p = read_point();
	if (op == "dbl" || op == "jac") {
		xyzz_t<F> r = lift(p, p.x);
		r.dbl();
		if (op == "dbl") return put(r.to_affine());
		F X, Y, Z;
		r.to_jacobian(X, Y, Z);
		return void(std::cout << IO::out(X) << " " << IO::out(Y) << " " << IO::out(Z) << "\n");
	}
	if (op == "neg") return put(lift(p, p.y).neg().to_affine());
	const affine_t<F> q = read_point();
	if (op == "add") {
		xyzz_t<F> r = lift(p, q.x);
		r.add(lift(q, p.y));
		return put(r.to_affine());
	}
	if (op == "madd") {
		xyzz_t<F> r = lift(p, q.y);
		r.add(q);
		return put(r.to_affine());
	}
	std::cout << "bad op\n";
}

int main() {
	std::ios::sync_with_stdio(false);
	std::string line;
	fp_t b1;
	for (int j = 0; j < 12; ++j) b1.l[j] = bls12_381::FP_B4[j];
	const fp2_t b2 = {b1, b1};
	while (std::getline(std::cin, line)) {
		std::istringstream is(line);
		std::string kind, op;
		is >> kind >> op;
		if (kind == "fr") field_line<fr_t>(op, is);
		else if (kind == "fp") field_line<fp_t>(op, is);
		else if (kind == "fp2") fp2_line(op, is);
		else if (kind == "g1") curve_line<fp_t, fp_io>(op, is, b1);
		else if (kind == "g2") curve_line<fp2_t, fp2_io>(op, is, b2);
		else std::cout << "bad kind\n";
	}
	return 0;
}

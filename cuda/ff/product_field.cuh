// cuda/ff/product_field.cuh — a field type that is F with another coding of its product.
//
// product_field<F, Prod> has F's layout and every operation of F except the product and
// the square, which are Prod::mul and Prod::sqr: arrays of F (and of points over F) are
// arrays of it, so a kernel templated on the field runs with another product in place.
// The MSM's variants use it to measure products against mont_t's: the FP64 one
// (ff/fp64_mul.cuh, fp64_field) and the Karatsuba one (ff/karatsuba.cuh, kara_field).
#pragma once

namespace filc2 {

template <class F, class Prod>
struct alignas(16) product_field : F {
	product_field() = default;
	__device__ __forceinline__ product_field(const F& x) : F(x) {}

	// The additive operations return product_field too, so that expressions stay in this
	// type (a mixed product would be ambiguous between the two operator*).
	__device__ __forceinline__ const F& base() const { return *this; }
	__device__ __forceinline__ static product_field zero() { return F::zero(); }
	__device__ __forceinline__ static product_field one() { return F::one(); }
	__device__ __forceinline__ static product_field csel(bool c, const product_field& a, const product_field& b) {
		return F::csel(c, a, b);
	}
	__device__ __forceinline__ friend product_field operator+(const product_field& a, const product_field& b) {
		return a.base() + b.base();
	}
	__device__ __forceinline__ friend product_field operator-(const product_field& a, const product_field& b) {
		return a.base() - b.base();
	}
	__device__ __forceinline__ friend product_field operator-(const product_field& a) { return -a.base(); }
	__device__ __forceinline__ product_field dbl() const { return base().dbl(); }
	__device__ __forceinline__ product_field cneg(bool c) const { return base().cneg(c); }

	__device__ __forceinline__ friend product_field operator*(const product_field& a, const product_field& b) {
		return Prod::mul(a.base(), b.base());
	}
	__device__ __forceinline__ product_field sqr() const { return Prod::sqr(base()); }
};

}  // namespace filc2

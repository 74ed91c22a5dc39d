// Package refh is bellperson's H polynomial computed the way bellperson computes it, seven
// transforms on gnark-crypto's FFT, for the tests of faster routes (proofs/groth16's
// computeH, the CUDA H pipeline) to compare against.
package refh

import (
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

// H returns the m − 1 coefficients of H for the evaluations a, b and c over domain's m
// points: iFFT of each over ω, FFT on the coset g = 7, pointwise (a·b − c)/(g^m − 1),
// iFFT on the coset, natural order. a, b and c are overwritten; the result aliases a.
// It holds for any a, b and c, satisfied or not.
func H(domain *fft.Domain, a, b, c []fr.Element) []fr.Element {
	for _, v := range [][]fr.Element{a, b, c} {
		domain.FFTInverse(v, fft.DIF)
		domain.FFT(v, fft.DIT, fft.OnCoset())
	}
	m := len(a)
	var zInv, one fr.Element // (g^m − 1)^−1: Z is constant on the coset
	zInv.Exp(domain.FrMultiplicativeGen, new(big.Int).SetUint64(uint64(m)))
	one.SetOne()
	zInv.Sub(&zInv, &one).Inverse(&zInv)
	for i := range a {
		a[i].Mul(&a[i], &b[i]).Sub(&a[i], &c[i]).Mul(&a[i], &zInv)
	}
	domain.FFTInverse(a, fft.DIF, fft.OnCoset())
	fft.BitReverse(a)
	return a[:m-1]
}

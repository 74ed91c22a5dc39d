package groth16

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/filc2/filc2/proofs/r1cs"
)

var benchSizes = []int{16, 18, 20}

var benchPoints = sync.OnceValues(func() ([]bls.G1Affine, []bls.G2Affine) {
	_, _, g1, g2 := bls.Generators()
	r := rand.New(rand.NewPCG(9, 9))
	fb1 := newFixedBase[bls.G1Affine, bls.G1Jac, g1Ops](&g1)
	fb2 := newFixedBase[bls.G2Affine, bls.G2Jac, g2Ops](&g2)
	s1 := randomVec(r, 1<<20)
	p1 := make([]bls.G1Affine, len(s1))
	p2 := make([]bls.G2Affine, 1<<18)
	fb1.mulMany(context.Background(), p1, s1, nil)
	fb2.mulMany(context.Background(), p2, s1[:len(p2)], nil)
	return p1, p2
})

// witnessLike returns n scalars shaped like a PoRep witness: 51% zeros, 47% ones,
// 2% random field elements.
func witnessLike(n int) []fr.Element {
	r := rand.New(rand.NewPCG(1, 1))
	s := make([]fr.Element, n)
	for i := range s {
		switch x := r.IntN(100); {
		case x < 51:
		case x < 98:
			s[i].SetOne()
		default:
			s[i].SetUint64(r.Uint64())
			s[i].Square(&s[i]).Square(&s[i])
		}
	}
	return s
}

func BenchmarkFixedBaseG1(b *testing.B) {
	_, _, g1, _ := bls.Generators()
	fb := newFixedBase[bls.G1Affine, bls.G1Jac, g1Ops](&g1)
	s := randomVec(rand.New(rand.NewPCG(1, 2)), 1<<16)
	out := make([]bls.G1Affine, len(s))
	b.ResetTimer()
	for b.Loop() {
		fb.mulMany(context.Background(), out, s, nil)
	}
	b.ReportMetric(float64(len(s)*b.N)/b.Elapsed().Seconds(), "points/s")
}

func BenchmarkFixedBaseG2(b *testing.B) {
	_, _, _, g2 := bls.Generators()
	fb := newFixedBase[bls.G2Affine, bls.G2Jac, g2Ops](&g2)
	s := randomVec(rand.New(rand.NewPCG(1, 2)), 1<<14)
	out := make([]bls.G2Affine, len(s))
	b.ResetTimer()
	for b.Loop() {
		fb.mulMany(context.Background(), out, s, nil)
	}
	b.ReportMetric(float64(len(s)*b.N)/b.Elapsed().Seconds(), "points/s")
}

func BenchmarkSetup(b *testing.B) {
	bt := build(b, func(cs *r1cs.System) { randomCircuit(cs, 1<<16, 8, 3, 4) })
	b.ResetTimer()
	var pts int
	for b.Loop() {
		pk, err := Setup(context.Background(), bt.circuit)
		if err != nil {
			b.Fatal(err)
		}
		pts = len(pk.H) + len(pk.L) + len(pk.A) + len(pk.BG1) + len(pk.VK.IC) + 3*len(pk.BG2)
	}
	b.ReportMetric(float64(pts*b.N)/b.Elapsed().Seconds(), "G1-equiv-points/s")
}

func BenchmarkMSMG1(b *testing.B) {
	p1, _ := benchPoints()
	for _, k := range benchSizes {
		s := randomVec(rand.New(rand.NewPCG(3, 3)), 1<<k)
		b.Run(fmt.Sprintf("dense/2^%d", k), func(b *testing.B) {
			var out bls.G1Jac
			for b.Loop() {
				msmG1(&out, p1[:1<<k], s, 0)
			}
		})
		w := witnessLike(1 << k)
		b.Run(fmt.Sprintf("witness-split/2^%d", k), func(b *testing.B) {
			var out bls.G1Jac
			for b.Loop() {
				splitMSMG1(context.Background(), &out, p1[:1<<k], w, 0)
			}
		})
	}
}

func BenchmarkMSMG2(b *testing.B) {
	_, p2 := benchPoints()
	for _, k := range []int{16, 18} {
		s := randomVec(rand.New(rand.NewPCG(3, 3)), 1<<k)
		b.Run(fmt.Sprintf("dense/2^%d", k), func(b *testing.B) {
			var out bls.G2Jac
			for b.Loop() {
				msmG2(&out, p2[:1<<k], s, 0)
			}
		})
		w := witnessLike(1 << k)
		b.Run(fmt.Sprintf("witness-split/2^%d", k), func(b *testing.B) {
			var out bls.G2Jac
			for b.Loop() {
				splitMSMG2(context.Background(), &out, p2[:1<<k], w, 0)
			}
		})
	}
}

func BenchmarkFFT(b *testing.B) {
	for _, k := range benchSizes {
		d := fft.NewDomain(1 << k)
		v := randomVec(rand.New(rand.NewPCG(4, 4)), 1<<k)
		b.Run(fmt.Sprintf("2^%d", k), func(b *testing.B) {
			for b.Loop() {
				d.FFT(v, fft.DIF)
			}
		})
	}
}

// BenchmarkH is the whole H computation (7 FFTs and the pointwise steps).
func BenchmarkH(b *testing.B) {
	for _, k := range benchSizes {
		d := fft.NewDomain(1 << k)
		r := rand.New(rand.NewPCG(5, 5))
		a, bb, c := randomVec(r, 1<<k), randomVec(r, 1<<k), randomVec(r, 1<<k)
		b.Run(fmt.Sprintf("2^%d", k), func(b *testing.B) {
			for b.Loop() {
				computeH(d, append([]fr.Element(nil), a...), append([]fr.Element(nil), bb...), append([]fr.Element(nil), c...), 0)
			}
		})
	}
}

func BenchmarkFixedBaseG1AffineBatch(b *testing.B) {
	_, _, g1, _ := bls.Generators()
	fb := newFixedBase[bls.G1Affine, bls.G1Jac, g1Ops](&g1)
	s := randomVec(rand.New(rand.NewPCG(1, 2)), 1<<16)
	out := make([]bls.G1Affine, len(s))
	b.ResetTimer()
	for b.Loop() {
		mulManyAffineG1(context.Background(), fb, out, s, nil)
	}
	b.ReportMetric(float64(len(s)*b.N)/b.Elapsed().Seconds(), "points/s")
}

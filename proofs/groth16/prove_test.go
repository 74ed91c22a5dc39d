package groth16

import (
	"context"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/filc2/filc2/internal/refh"
)

// bellperson's ω for 2^27 (spec §6.2) and the 2^32 root it derives from.
func TestDomainOmegaIsBellpersons(t *testing.T) {
	for _, tc := range []struct {
		logM int
		hex  string
	}{
		{32, "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b"},
		{27, "23397a9300f8f98bece8ea224f31d25db94f1101b1d7a628e2d0a7869f0319ed"},
	} {
		d := fft.NewDomain(1<<tc.logM, fft.WithoutPrecompute())
		var want fr.Element
		want.SetString("0x" + tc.hex)
		if !d.Generator.Equal(&want) {
			t.Errorf("2^%d: ω = %s", tc.logM, d.Generator.Text(16))
		}
	}
	// And ω = 7^((p−1)/m), with the coset generator 7.
	m := uint64(1 << 10)
	d := fft.NewDomain(m)
	var seven, w fr.Element
	seven.SetUint64(7)
	e := new(big.Int).Sub(fr.Modulus(), big.NewInt(1))
	e.Div(e, new(big.Int).SetUint64(m))
	w.Exp(seven, e)
	if !d.Generator.Equal(&w) || !d.FrMultiplicativeGen.Equal(&seven) {
		t.Fatal("ω or the coset generator differ from bellperson's")
	}
}

func randomVec(r *rand.Rand, n int) []fr.Element {
	v := make([]fr.Element, n)
	for i := range v {
		v[i].SetUint64(r.Uint64())
		v[i].Square(&v[i]).Square(&v[i])
	}
	return v
}

// evalLagrange returns Σ_j v_j·L_j(z) over the m-th roots of unity ω^j, computed
// directly: L_j(z) = ω^j·(z^m − 1)/(m·(z − ω^j)).
func evalLagrange(v []fr.Element, omega, z *fr.Element) fr.Element {
	m := len(v)
	var zm, one, minv, acc, wj fr.Element
	one.SetOne()
	zm.Exp(*z, big.NewInt(int64(m))).Sub(&zm, &one)
	minv.SetUint64(uint64(m))
	minv.Inverse(&minv)
	wj.SetOne()
	for j := range v {
		var den, term fr.Element
		den.Sub(z, &wj).Inverse(&den)
		term.Mul(&wj, &zm).Mul(&term, &minv).Mul(&term, &den).Mul(&term, &v[j])
		acc.Add(&acc, &term)
		wj.Mul(&wj, omega)
	}
	return acc
}

// H satisfies A(z)·B(z) − C(z) = h(z)·Z(z) at a random point, with A, B, C
// interpolated directly from their values on bellperson's domain.
func TestComputeHPolynomialIdentity(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, m := range []int{8, 64, 256} {
		n := m - m/3 // evaluations beyond the constraints are zero, as when padding
		a, b, c := randomVec(r, m), randomVec(r, m), randomVec(r, m)
		for i := n; i < m; i++ {
			a[i], b[i], c[i] = fr.Element{}, fr.Element{}, fr.Element{}
		}
		// Make a·b − c vanish on the domain, as a satisfied R1CS does.
		for i := 0; i < n; i++ {
			c[i].Mul(&a[i], &b[i])
		}
		d := fft.NewDomain(uint64(m))
		var z fr.Element
		z.SetUint64(r.Uint64())
		az, bz, cz := evalLagrange(a, &d.Generator, &z), evalLagrange(b, &d.Generator, &z), evalLagrange(c, &d.Generator, &z)
		h := computeH(d, append([]fr.Element(nil), a...), append([]fr.Element(nil), b...), append([]fr.Element(nil), c...), 1)
		if len(h) != m-1 {
			t.Fatalf("m=%d: %d coefficients", m, len(h))
		}
		var hz, zz, one, lhs, rhs fr.Element
		for i := len(h) - 1; i >= 0; i-- { // Horner
			hz.Mul(&hz, &z).Add(&hz, &h[i])
		}
		one.SetOne()
		zz.Exp(z, big.NewInt(int64(m))).Sub(&zz, &one)
		lhs.Mul(&az, &bz).Sub(&lhs, &cz)
		rhs.Mul(&hz, &zz)
		if !lhs.Equal(&rhs) {
			t.Fatalf("m=%d: A·B − C ≠ h·Z at z", m)
		}
	}
}

// computeH takes c only through its iFFT; bellperson takes it to the coset and back. The
// two agree value for value on any a, b, c, satisfied or not, and any task count.
func TestComputeHEqualsSevenTransforms(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, m := range []int{2, 16, 1024} {
		a, b, c := randomVec(r, m), randomVec(r, m), randomVec(r, m)
		d := fft.NewDomain(uint64(m))
		want := refh.H(d, slices.Clone(a), slices.Clone(b), slices.Clone(c))
		for _, tasks := range []int{1, 3} {
			got := computeH(d, slices.Clone(a), slices.Clone(b), slices.Clone(c), tasks)
			if len(got) != len(want) {
				t.Fatalf("m=%d: %d coefficients, want %d", m, len(got), len(want))
			}
			for i := range got {
				if !got[i].Equal(&want[i]) {
					t.Fatalf("m=%d tasks=%d: coefficient %d differs", m, tasks, i)
				}
			}
		}
	}
}

// The 0/1 split gives the same sum as plain Pippenger, for G1 and G2.
func TestSplitMSMEqualsPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	_, _, g1, g2 := bls.Generators()
	for _, n := range []int{1, 7, 300, 2000} {
		scal := randomVec(r, n)
		for i := range scal {
			switch r.IntN(3) {
			case 0:
				scal[i].SetZero()
			case 1:
				scal[i].SetOne()
			}
		}
		p1 := make([]bls.G1Affine, n)
		p2 := make([]bls.G2Affine, n)
		for i := range p1 {
			k := big.NewInt(int64(r.Uint32()) + 1)
			p1[i].ScalarMultiplication(&g1, k)
			p2[i].ScalarMultiplication(&g2, k)
		}
		for _, tasks := range []int{1, 3} {
			var a, b bls.G1Jac
			if err := splitMSMG1(ctx, &a, p1, scal, tasks); err != nil {
				t.Fatal(err)
			}
			if err := msmG1(&b, p1, scal, tasks); err != nil {
				t.Fatal(err)
			}
			if !a.Equal(&b) {
				t.Fatalf("G1 n=%d tasks=%d: split ≠ plain", n, tasks)
			}
			var c, d bls.G2Jac
			if err := splitMSMG2(ctx, &c, p2, scal, tasks); err != nil {
				t.Fatal(err)
			}
			if err := msmG2(&d, p2, scal, tasks); err != nil {
				t.Fatal(err)
			}
			if !c.Equal(&d) {
				t.Fatalf("G2 n=%d tasks=%d: split ≠ plain", n, tasks)
			}
		}
	}
}

func TestFixedBaseMatchesScalarMultiplication(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	_, _, g1, g2 := bls.Generators()
	var base1 bls.G1Affine
	base1.ScalarMultiplication(&g1, big.NewInt(12345))
	fb1 := newFixedBase[bls.G1Affine, bls.G1Jac, g1Ops](&base1)
	fb2 := newFixedBase[bls.G2Affine, bls.G2Jac, g2Ops](&g2)
	var rm1 fr.Element
	rm1.SetOne()
	rm1.Neg(&rm1)
	scalars := append(randomVec(r, 40), fr.Element{}, fr.One(), rm1, fr.NewElement(1<<15), fr.NewElement(1<<16-1))
	out1 := make([]bls.G1Affine, len(scalars))
	out2 := make([]bls.G2Affine, len(scalars))
	if err := fb1.mulMany(context.Background(), out1, scalars, nil); err != nil {
		t.Fatal(err)
	}
	if err := fb2.mulMany(context.Background(), out2, scalars, nil); err != nil {
		t.Fatal(err)
	}
	for i := range scalars {
		k := scalars[i].BigInt(new(big.Int))
		var w1 bls.G1Affine
		var w2 bls.G2Affine
		w1.ScalarMultiplication(&base1, k)
		w2.ScalarMultiplication(&g2, k)
		if !out1[i].Equal(&w1) || !out2[i].Equal(&w2) {
			t.Fatalf("scalar %d (%s) differs", i, scalars[i].String())
		}
	}
}

// The affine-batch fixed-base path equals the Jacobian one.
func TestFixedBaseAffineBatch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	_, _, g1, _ := bls.Generators()
	fb := newFixedBase[bls.G1Affine, bls.G1Jac, g1Ops](&g1)
	var rm1 fr.Element
	rm1.SetOne()
	rm1.Neg(&rm1)
	scalars := append(randomVec(r, 3000), fr.Element{}, fr.One(), rm1, fr.NewElement(1<<15), fr.NewElement(1<<16-1))
	a := make([]bls.G1Affine, len(scalars))
	b := make([]bls.G1Affine, len(scalars))
	if err := fb.mulMany(context.Background(), a, scalars, nil); err != nil {
		t.Fatal(err)
	}
	if err := mulManyAffineG1(context.Background(), fb, b, scalars, nil); err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if !a[i].Equal(&b[i]) {
			t.Fatalf("scalar %d (%s): affine batch differs", i, scalars[i].String())
		}
	}
}

//go:build cuda

package ffi

import (
	"fmt"
	"math/big"
	"testing"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// group is what the curve tests need of G1 or G2: random points, gnark references,
// the device entry point and the Jacobian type the device can write.
type group[A comparable, J any] struct {
	name     string
	gen      A
	points   func(scalars []fr.Element) []A
	neg      func(a *A) A
	add      func(a, b *A) A // through gnark's Jacobian formulas (infinity, P + P and P − P handled)
	dbl      func(a *A) A
	smul     func(a *A, s *big.Int) A
	affineOf func(j *J) A
	run      func(op curveOp, f outFormat, out unsafe.Pointer, a, b []A, s []fr.Element) error
}

var g1 = func() group[bls.G1Affine, bls.G1Jac] {
	_, _, gen, _ := bls.Generators()
	return group[bls.G1Affine, bls.G1Jac]{
		name:   "G1",
		gen:    gen,
		points: func(s []fr.Element) []bls.G1Affine { return bls.BatchScalarMultiplicationG1(&gen, s) },
		neg:    func(a *bls.G1Affine) (r bls.G1Affine) { r.Neg(a); return },
		add: func(a, b *bls.G1Affine) (r bls.G1Affine) {
			var p, q bls.G1Jac
			p.FromAffine(a)
			q.FromAffine(b)
			p.AddAssign(&q)
			r.FromJacobian(&p)
			return
		},
		dbl: func(a *bls.G1Affine) (r bls.G1Affine) {
			var p bls.G1Jac
			p.FromAffine(a)
			p.DoubleAssign()
			r.FromJacobian(&p)
			return
		},
		smul:     func(a *bls.G1Affine, s *big.Int) (r bls.G1Affine) { r.ScalarMultiplication(a, s); return },
		affineOf: func(j *bls.G1Jac) (r bls.G1Affine) { r.FromJacobian(j); return },
		run:      testG1,
	}
}()

var g2 = func() group[bls.G2Affine, bls.G2Jac] {
	_, _, _, gen := bls.Generators()
	return group[bls.G2Affine, bls.G2Jac]{
		name:   "G2",
		gen:    gen,
		points: func(s []fr.Element) []bls.G2Affine { return bls.BatchScalarMultiplicationG2(&gen, s) },
		neg:    func(a *bls.G2Affine) (r bls.G2Affine) { r.Neg(a); return },
		add: func(a, b *bls.G2Affine) (r bls.G2Affine) {
			var p, q bls.G2Jac
			p.FromAffine(a)
			q.FromAffine(b)
			p.AddAssign(&q)
			r.FromJacobian(&p)
			return
		},
		dbl: func(a *bls.G2Affine) (r bls.G2Affine) {
			var p bls.G2Jac
			p.FromAffine(a)
			p.DoubleAssign()
			r.FromJacobian(&p)
			return
		},
		smul:     func(a *bls.G2Affine, s *big.Int) (r bls.G2Affine) { r.ScalarMultiplication(a, s); return },
		affineOf: func(j *bls.G2Jac) (r bls.G2Affine) { r.FromJacobian(j); return },
		run:      testG2,
	}
}()

func TestG1(t *testing.T) { testGroup(t, g1) }
func TestG2(t *testing.T) { testGroup(t, g2) }

// inputs returns n random points a and b with the edge cases first: ∞ + P, P + ∞,
// ∞ + ∞, P + P, P + (−P), G + G.
func inputs[A comparable, J any](g group[A, J], n int) (a, b []A) {
	a, b = g.points(randomFr(n)), g.points(randomFr(n))
	var inf A
	edges := []func(i int){
		func(i int) { a[i] = inf },
		func(i int) { b[i] = inf },
		func(i int) { a[i], b[i] = inf, inf },
		func(i int) { b[i] = a[i] },
		func(i int) { b[i] = g.neg(&a[i]) },
		func(i int) { a[i], b[i] = g.gen, g.gen },
	}
	for i := 0; i < len(edges) && i < n; i++ {
		edges[i](i)
	}
	return a, b
}

func testGroup[A comparable, J any](t *testing.T, g group[A, J]) {
	for _, n := range sizes() {
		a, b := inputs(g, n)
		refs := map[curveOp]func(i int) A{
			ecAdd:  func(i int) A { return g.add(&a[i], &b[i]) },
			ecMadd: func(i int) A { return g.add(&a[i], &b[i]) },
			ecDbl:  func(i int) A { return g.dbl(&a[i]) },
			ecNeg:  func(i int) A { return g.neg(&a[i]) },
		}
		for _, op := range []curveOp{ecAdd, ecMadd, ecDbl, ecNeg} {
			want := make([]A, n)
			parallel(n, func(i int) { want[i] = refs[op](i) })
			for _, f := range []outFormat{outAffine, outAffineBatch, outJacobian} {
				t.Run(fmt.Sprintf("%s/%v/%v/%d", g.name, op, f, n), func(t *testing.T) {
					got := runGroup(t, g, op, f, a, b, nil)
					mismatches(t, op.String(), got, want, func(i int) string {
						return fmt.Sprintf("a %v b %v: got %v, want %v", a[i], b[i], got[i], want[i])
					})
				})
			}
		}
	}
	// Scalar multiplication is 255 doublings and additions per point: smaller sizes.
	smulSizes := []int{1, 7, 1000, 4099}
	if testing.Short() {
		smulSizes = []int{1, 7, 100}
	}
	for _, n := range smulSizes {
		t.Run(fmt.Sprintf("%s/smul/%d", g.name, n), func(t *testing.T) {
			a, _ := inputs(g, n)
			s := randomFr(n)
			rMinus1 := new(big.Int).Sub(fr.Modulus(), big.NewInt(1))
			for i, k := range []*big.Int{big.NewInt(0), big.NewInt(1), rMinus1, big.NewInt(2), big.NewInt(3)} {
				if i < n {
					s[i] = bigFr(k)
				}
			}
			want := make([]A, n)
			parallel(n, func(i int) { want[i] = g.smul(&a[i], s[i].BigInt(new(big.Int))) })
			got := runGroup(t, g, ecSmul, outAffine, a, nil, s)
			mismatches(t, "smul", got, want, func(i int) string {
				return fmt.Sprintf("s %v · %v: got %v, want %v", s[i].String(), a[i], got[i], want[i])
			})
		})
	}
}

// runGroup runs one device op and returns affine results (Jacobian ones converted by gnark).
func runGroup[A comparable, J any](t *testing.T, g group[A, J], op curveOp, f outFormat, a, b []A, s []fr.Element) []A {
	t.Helper()
	n := len(a)
	if f == outJacobian {
		jac := make([]J, n)
		poison(jac)
		if err := g.run(op, f, unsafe.Pointer(&jac[0]), a, b, s); err != nil {
			t.Fatal(err)
		}
		got := make([]A, n)
		for i := range jac {
			got[i] = g.affineOf(&jac[i])
		}
		return got
	}
	got := make([]A, n)
	poison(got)
	if err := g.run(op, f, unsafe.Pointer(&got[0]), a, b, s); err != nil {
		t.Fatal(err)
	}
	return got
}

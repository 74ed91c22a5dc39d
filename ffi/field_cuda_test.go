//go:build cuda

package ffi

import (
	"fmt"
	"math/big"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Every test here draws fresh random inputs, puts the edge cases first (0, 1, m − 1,
// m − 2, (m ± 1)/2, 2^64, 2^255 mod m, and at larger sizes every pair of them), poisons
// the output and compares each element with gnark-crypto.

func edgeInts(m *big.Int) []*big.Int {
	one := big.NewInt(1)
	half := new(big.Int).Rsh(m, 1)
	return []*big.Int{
		big.NewInt(0), one, big.NewInt(2),
		new(big.Int).Sub(m, one), new(big.Int).Sub(m, big.NewInt(2)),
		half, new(big.Int).Add(half, one),
		new(big.Int).Lsh(one, 64), new(big.Int).Mod(new(big.Int).Lsh(one, 255), m),
		new(big.Int).Sub(new(big.Int).Lsh(one, 128), one),
	}
}

// withEdges overwrites the front of a and b with edge values: every pair when n allows,
// else each edge against itself.
func withEdges[T any](a, b []T, edges []T) {
	k := len(edges)
	if len(a) >= k*k {
		for i := 0; i < k*k; i++ {
			a[i], b[i] = edges[i/k], edges[i%k]
		}
		return
	}
	for i := 0; i < k && i < len(a); i++ {
		a[i], b[i] = edges[i], edges[(i+1)%k]
	}
}

func TestFr(t *testing.T) {
	var edges []fr.Element
	for _, x := range edgeInts(fr.Modulus()) {
		edges = append(edges, bigFr(x))
	}
	ops := map[fieldOp]func(z, x, y *fr.Element){
		opMul:        func(z, x, y *fr.Element) { z.Mul(x, y) },
		opAdd:        func(z, x, y *fr.Element) { z.Add(x, y) },
		opSub:        func(z, x, y *fr.Element) { z.Sub(x, y) },
		opSqr:        func(z, x, _ *fr.Element) { z.Square(x) },
		opInv:        func(z, x, _ *fr.Element) { z.Inverse(x) },
		opInvVartime: func(z, x, _ *fr.Element) { z.Inverse(x) },
		opNeg:        func(z, x, _ *fr.Element) { z.Neg(x) },
		// TO_MONT's input holds the plain integer's limbs; FROM_MONT's output does.
		opToMont:   func(z, x, _ *fr.Element) { *z = *x; *x = fr.Element(x.Bits()) },
		opFromMont: func(z, x, _ *fr.Element) { *z = fr.Element(x.Bits()) },
	}
	for _, n := range sizes() {
		for op := opMul; op <= opInvVartime; op++ {
			t.Run(fmt.Sprintf("%v/%d", op, n), func(t *testing.T) {
				a, b := randomFr(n), randomFr(n)
				withEdges(a, b, edges)
				want := make([]fr.Element, n)
				parallel(n, func(i int) { ops[op](&want[i], &a[i], &b[i]) })
				got := make([]fr.Element, n)
				poison(got)
				if err := testFr(op, got, a, b); err != nil {
					t.Fatal(err)
				}
				mismatches(t, op.String(), got, want, func(i int) string {
					return fmt.Sprintf("a %v b %v: got %x, want %x", a[i].String(), b[i].String(), got[i], want[i])
				})
			})
		}
	}
}

func randomFp(n int) []fp.Element {
	v := make([]fp.Element, n)
	for i := range v {
		if _, err := v[i].SetRandom(); err != nil {
			panic(err)
		}
	}
	return v
}

func TestFp(t *testing.T) {
	var edges []fp.Element
	for _, x := range edgeInts(fp.Modulus()) {
		var e fp.Element
		e.SetBigInt(x)
		edges = append(edges, e)
	}
	ops := map[fieldOp]func(z, x, y *fp.Element){
		opMul:        func(z, x, y *fp.Element) { z.Mul(x, y) },
		opAdd:        func(z, x, y *fp.Element) { z.Add(x, y) },
		opSub:        func(z, x, y *fp.Element) { z.Sub(x, y) },
		opSqr:        func(z, x, _ *fp.Element) { z.Square(x) },
		opInv:        func(z, x, _ *fp.Element) { z.Inverse(x) },
		opInvVartime: func(z, x, _ *fp.Element) { z.Inverse(x) },
		opNeg:        func(z, x, _ *fp.Element) { z.Neg(x) },
		opToMont:     func(z, x, _ *fp.Element) { *z = *x; *x = fp.Element(x.Bits()) },
		opFromMont:   func(z, x, _ *fp.Element) { *z = fp.Element(x.Bits()) },
	}
	for _, n := range sizes() {
		for op := opMul; op <= opInvVartime; op++ {
			t.Run(fmt.Sprintf("%v/%d", op, n), func(t *testing.T) {
				a, b := randomFp(n), randomFp(n)
				withEdges(a, b, edges)
				want := make([]fp.Element, n)
				parallel(n, func(i int) { ops[op](&want[i], &a[i], &b[i]) })
				got := make([]fp.Element, n)
				poison(got)
				if err := testFp(op, got, a, b); err != nil {
					t.Fatal(err)
				}
				mismatches(t, op.String(), got, want, func(i int) string {
					return fmt.Sprintf("a %v b %v: got %x, want %x", a[i].String(), b[i].String(), got[i], want[i])
				})
			})
		}
	}
}

func randomFp2(n int) []bls.E2 {
	v := make([]bls.E2, n)
	for i := range v {
		if _, err := v[i].SetRandom(); err != nil {
			panic(err)
		}
	}
	return v
}

func TestFp2(t *testing.T) {
	var one, minus fp.Element
	one.SetOne()
	minus.Neg(&one)
	edges := []bls.E2{{}, {A0: one}, {A1: one}, {A0: minus, A1: minus}, {A0: minus}, {A1: minus}, {A0: one, A1: minus}}
	ops := map[fieldOp]func(z, x, y *bls.E2){
		opMul:        func(z, x, y *bls.E2) { z.Mul(x, y) },
		opAdd:        func(z, x, y *bls.E2) { z.Add(x, y) },
		opSub:        func(z, x, y *bls.E2) { z.Sub(x, y) },
		opSqr:        func(z, x, _ *bls.E2) { z.Square(x) },
		opInv:        func(z, x, _ *bls.E2) { z.Inverse(x) },
		opNeg:        func(z, x, _ *bls.E2) { z.Neg(x) },
		opInvVartime: func(z, x, _ *bls.E2) { z.Inverse(x) },
	}
	for _, n := range sizes() {
		for op := opMul; op <= opInvVartime; op++ {
			if op == opToMont || op == opFromMont {
				continue // not defined for Fp2
			}
			t.Run(fmt.Sprintf("%v/%d", op, n), func(t *testing.T) {
				a, b := randomFp2(n), randomFp2(n)
				withEdges(a, b, edges)
				want := make([]bls.E2, n)
				parallel(n, func(i int) { ops[op](&want[i], &a[i], &b[i]) })
				got := make([]bls.E2, n)
				poison(got)
				if err := testFp2(op, got, a, b); err != nil {
					t.Fatal(err)
				}
				mismatches(t, op.String(), got, want, func(i int) string {
					return fmt.Sprintf("a %v b %v: got %v, want %v", a[i].String(), b[i].String(), got[i].String(),
						want[i].String())
				})
			})
		}
	}
}

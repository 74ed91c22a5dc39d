package groth16

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// mulManyAffineG1 is mulMany for G1 with the accumulators kept affine: each
// window adds one table point to every accumulator of a chunk at once, with
// one field inversion for the whole chunk (Montgomery's trick). An affine
// addition then costs about 6 multiplications against 11 for a mixed Jacobian
// one, and no normalisation is left at the end.
func mulManyAffineG1(ctx context.Context, fb *g1FixedBase, out []bls.G1Affine, scalars []fr.Element, tick func(int)) error {
	const chunk = 1 << 10
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var b affineBatch
			for ctx.Err() == nil {
				lo := int(next.Add(chunk)) - chunk
				if lo >= len(scalars) {
					return
				}
				hi := min(lo+chunk, len(scalars))
				b.run(fb, out[lo:hi], scalars[lo:hi])
				if tick != nil {
					tick(hi - lo)
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// affineBatch holds one goroutine's scratch for mulManyAffineG1.
type affineBatch struct {
	digits  [][fbWindows]int32
	empty   []bool
	pending []int          // accumulators to add to in this window
	addend  []bls.G1Affine // the table point each pending accumulator gets
	den     []fp.Element   // x2 − x1, inverted in place
	prefix  []fp.Element   // batchInvert's scratch
}

func (b *affineBatch) run(fb *g1FixedBase, acc []bls.G1Affine, scalars []fr.Element) {
	n := len(acc)
	if cap(b.digits) < n {
		b.digits = make([][fbWindows]int32, n)
		b.empty = make([]bool, n)
		b.pending = make([]int, 0, n)
		b.addend = make([]bls.G1Affine, n)
		b.den = make([]fp.Element, n)
		b.prefix = make([]fp.Element, n)
	}
	digits, empty := b.digits[:n], b.empty[:n]
	for i := range scalars {
		fbDigits(&scalars[i], &digits[i])
		empty[i] = true
	}
	for k := range fbWindows {
		b.pending = b.pending[:0]
		for i := range acc {
			d := digits[i][k]
			if d == 0 {
				continue
			}
			var p bls.G1Affine
			if d > 0 {
				p = fb.table[k][d-1]
			} else {
				p.Neg(&fb.table[k][-d-1])
			}
			switch {
			case empty[i]:
				acc[i], empty[i] = p, false
			case acc[i].X.Equal(&p.X):
				// Doubling or cancellation. The partial sum of windows < k is below
				// 2^(16k) in magnitude and the addend at least 2^(16k), so this cannot
				// happen; the general formula keeps it correct if it ever did.
				var j bls.G1Jac
				j.FromAffine(&acc[i])
				j.AddMixed(&p)
				acc[i].FromJacobian(&j)
				empty[i] = acc[i].IsInfinity()
			default:
				m := len(b.pending)
				b.pending = append(b.pending, i)
				b.addend[m] = p
				b.den[m].Sub(&p.X, &acc[i].X)
			}
		}
		m := len(b.pending)
		batchInvert(b.den[:m], b.prefix[:m])
		for q, i := range b.pending {
			a, p := &acc[i], &b.addend[q]
			var lambda, x3, t fp.Element
			lambda.Sub(&p.Y, &a.Y).Mul(&lambda, &b.den[q])
			x3.Square(&lambda).Sub(&x3, &a.X).Sub(&x3, &p.X)
			t.Sub(&a.X, &x3).Mul(&t, &lambda)
			a.Y.Sub(&t, &a.Y)
			a.X = x3
		}
	}
	for i := range acc {
		if empty[i] {
			acc[i].SetInfinity()
		}
	}
}

// batchInvert inverts every (non-zero) element of v in place with one
// inversion; prefix is scratch of the same length.
func batchInvert(v, prefix []fp.Element) {
	if len(v) == 0 {
		return
	}
	acc := fp.One()
	for i := range v {
		prefix[i] = acc
		acc.Mul(&acc, &v[i])
	}
	acc.Inverse(&acc)
	for i := len(v) - 1; i >= 0; i-- {
		var inv fp.Element
		inv.Mul(&acc, &prefix[i])
		acc.Mul(&acc, &v[i])
		v[i] = inv
	}
}

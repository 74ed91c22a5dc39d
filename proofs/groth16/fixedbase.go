package groth16

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Fixed-base multiplication with one table per 16-bit window of signed digits:
// table[k][d−1] = d·2^(16k)·G for d = 1..2^15, so k·G costs at most 16 mixed
// additions. Scalars are below r < 2^255 whose top window is below 2^15, so the
// signed recoding never carries out of the 16th window.
const (
	fbWindow  = 16
	fbWindows = 256 / fbWindow
	fbHalf    = 1 << (fbWindow - 1)
)

type fixedBase[A, J any, G groupOps[A, J]] struct {
	ops   G
	table [fbWindows][]A
}

// newFixedBase builds the tables for base g.
func newFixedBase[A, J any, G groupOps[A, J]](g *A) *fixedBase[A, J, G] {
	fb := &fixedBase[A, J, G]{}
	var base J
	fb.ops.fromAffine(&base, g)
	var wg sync.WaitGroup
	for k := range fbWindows {
		b := base // 2^(16k)·G
		wg.Add(1)
		go func() {
			defer wg.Done()
			js := make([]J, fbHalf)
			js[0] = b
			for d := 1; d < fbHalf; d++ {
				js[d] = js[d-1]
				fb.ops.add(&js[d], &b)
			}
			fb.table[k] = make([]A, fbHalf)
			fb.ops.toAffine(fb.table[k], js)
		}()
		for range fbWindow {
			fb.ops.double(&base)
		}
	}
	wg.Wait()
	return fb
}

// digits recodes s (canonical) into fbWindows signed digits in [−2^15, 2^15).
func fbDigits(s *fr.Element, out *[fbWindows]int32) {
	w := s.Bits()
	carry := uint64(0)
	for k := range fbWindows {
		d := (w[k/4]>>(16*(k%4)))&0xffff + carry
		carry = 0
		if d >= fbHalf {
			carry = 1
			out[k] = int32(d) - 1<<fbWindow
		} else {
			out[k] = int32(d)
		}
	}
}

// mulJac sets j = s·G.
func (fb *fixedBase[A, J, G]) mulJac(j *J, s *fr.Element) {
	var ds [fbWindows]int32
	fbDigits(s, &ds)
	fb.ops.setInfinity(j)
	first := true
	var neg A
	for k, d := range ds {
		if d == 0 {
			continue
		}
		p := &fb.table[k][0]
		if d > 0 {
			p = &fb.table[k][d-1]
		} else {
			fb.ops.neg(&neg, &fb.table[k][-d-1])
			p = &neg
		}
		if first {
			fb.ops.fromAffine(j, p)
			first = false
		} else {
			fb.ops.addMixed(j, p)
		}
	}
}

// mulMany sets out[i] = scalars[i]·G on all cores, calling tick with the number
// of points done after each chunk.
func (fb *fixedBase[A, J, G]) mulMany(ctx context.Context, out []A, scalars []fr.Element, tick func(int)) error {
	const chunk = 1 << 12
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			js := make([]J, chunk)
			for ctx.Err() == nil {
				lo := int(next.Add(chunk)) - chunk
				if lo >= len(scalars) {
					return
				}
				hi := min(lo+chunk, len(scalars))
				for i := lo; i < hi; i++ {
					fb.mulJac(&js[i-lo], &scalars[i])
				}
				fb.ops.toAffine(out[lo:hi], js[:hi-lo])
				if tick != nil {
					tick(hi - lo)
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

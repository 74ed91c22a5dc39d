package groth16

import (
	"context"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/r1cs"
)

// Repeat says that an assignment's aux end in equal blocks: Aux[Start+k·Len+j] =
// Aux[Start+j] for every k < Copies and j < Len, and Start + Copies·Len = len(Aux).
// A WindowPoSt partition of fewer sectors than its circuit holds is padded so, by
// repeating its last sector (proofs/post). A prover may then fold each query's bases
// over the copies, Σ_k Σ_j w_j·Q[Start+k·Len+j] = Σ_j w_j·F_j with F_j = Σ_k
// Q[Start+k·Len+j]: a pass of additions, kept for the next proof with the same Repeat,
// and a short multi-scalar product where a full one would run. The proof is the same.
type Repeat struct {
	Start, Len, Copies int
}

// Check reports whether w's aux have r's shape and its blocks are equal.
func (r *Repeat) Check(w *Assignment) error {
	if r.Start < 0 || r.Len <= 0 || r.Copies < 2 || r.Copies > (len(w.Aux)-r.Start)/r.Len ||
		r.Start+r.Copies*r.Len != len(w.Aux) {
		return fmt.Errorf("groth16: repeat of %d blocks of %d aux from %d does not end %d aux", r.Copies, r.Len, r.Start, len(w.Aux))
	}
	if k := (span{r.Start, r.Len, r.Copies}).differs(w.Aux); k > 0 {
		return fmt.Errorf("groth16: repeated block %d of %d (aux from %d) differs from the first", k, r.Copies, r.Start+k*r.Len)
	}
	return nil
}

// span is a Repeat on one query's points: copies runs of per points from start.
type span struct {
	start, per, copies int
}

// differs returns the first copy of sp whose scalars differ from the first copy's, or 0.
func (sp span) differs(scalars []fr.Element) int {
	if sp.start+sp.copies*sp.per > len(scalars) {
		return 1
	}
	first := scalars[sp.start : sp.start+sp.per]
	bad := make([]bool, sp.copies)
	par.Range(sp.copies-1, runtime.GOMAXPROCS(0), func(lo, hi int) {
		for k := lo + 1; k <= hi; k++ {
			o := sp.start + k*sp.per
			bad[k] = !slices.Equal(scalars[o:o+sp.per], first)
		}
	})
	return max(slices.Index(bad, true), 0)
}

// dense maps r onto a query that holds `before` points ahead of the aux, then one a
// variable set in d: false when the copies do not hold equally many such variables.
// (Whether the query's scalars repeat is for the proof to check: span.differs.)
func (r *Repeat) dense(before int, d *r1cs.Bitset) (span, bool) {
	words, ranks := d.Words(), d.Ranks()
	rank := func(i int) int {
		w := i >> 6
		if w >= len(words) {
			return int(ranks[len(words)])
		}
		return int(ranks[w]) + bits.OnesCount64(words[w]&(1<<(uint(i)&63)-1))
	}
	sp := span{start: before + rank(r.Start), per: rank(r.Start+r.Len) - rank(r.Start), copies: r.Copies}
	for k := 1; k < r.Copies; k++ {
		if rank(r.Start+(k+1)*r.Len)-rank(r.Start+k*r.Len) != sp.per {
			return span{}, false
		}
	}
	return sp, sp.per > 0
}

// folded holds one Repeat's folded bases of the L, A and B queries (nil where a query's
// copies hold unequally many of its variables: that query runs in full).
type folded struct {
	l, a, b    span
	fl, fa, fb []bls.G1Affine
	fb2        []bls.G2Affine
}

// foldCache keeps the folded bases of the last Repeat a prover saw (the padding of a
// miner's short partitions is mostly the same from proof to proof).
type foldCache struct {
	mu  sync.Mutex
	key Repeat
	f   *folded
}

// get returns r's folded bases of pk, made on first use.
func (c *foldCache) get(ctx context.Context, r Repeat, pk *ProvingKey, numInputs int, d Densities, tasks int) (*folded, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f != nil && c.key == r {
		return c.f, nil
	}
	f := &folded{l: span{start: r.Start, per: r.Len, copies: r.Copies}}
	f.fl = fold[bls.G1Affine, bls.G1Jac, g1Ops](pk.L, f.l, tasks)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var ok bool
	if f.a, ok = r.dense(numInputs, d.AAux); ok && f.a.start+f.a.copies*f.a.per == len(pk.A) {
		f.fa = fold[bls.G1Affine, bls.G1Jac, g1Ops](pk.A, f.a, tasks)
	}
	if f.b, ok = r.dense(d.BInput.Count(), d.BAux); ok && f.b.start+f.b.copies*f.b.per == len(pk.BG1) {
		f.fb = fold[bls.G1Affine, bls.G1Jac, g1Ops](pk.BG1, f.b, tasks)
		f.fb2 = fold[bls.G2Affine, bls.G2Jac, g2Ops](pk.BG2, f.b, tasks)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.key, c.f = r, f
	return f, nil
}

// fold returns F_j = Σ_k points[sp.start + k·sp.per + j], j < sp.per, in affine form.
func fold[A, J any, G groupOps[A, J]](points []A, sp span, tasks int) []A {
	var ops G
	if tasks <= 0 {
		tasks = runtime.GOMAXPROCS(0)
	}
	out := make([]A, sp.per)
	par.Range(sp.per, tasks, func(lo, hi int) {
		acc := make([]J, hi-lo)
		for j := range acc {
			ops.setInfinity(&acc[j])
		}
		for k := 0; k < sp.copies; k++ { // block by block: the points in memory order
			row := points[sp.start+k*sp.per+lo : sp.start+k*sp.per+hi]
			for j := range row {
				ops.addMixed(&acc[j], &row[j])
			}
		}
		ops.toAffine(out[lo:hi], acc)
	})
	return out
}

// foldedMSM is Σ scalars[i]·points[i] (the split MSM) with the copies of sp summed as
// the folded bases f against the first copy's scalars.
func foldedMSM[A, J any, G groupOps[A, J]](ctx context.Context, out *J, points, f []A, sp span, scalars []fr.Element,
	tasks int, msm func(*J, []A, []fr.Element, int) error) error {
	var ops G
	if err := splitMSM[A, J, G](ctx, out, points[:sp.start], scalars[:sp.start], tasks, msm); err != nil {
		return err
	}
	var tail J
	if err := splitMSM[A, J, G](ctx, &tail, f, scalars[sp.start:sp.start+sp.per], tasks, msm); err != nil {
		return err
	}
	ops.add(out, &tail)
	return nil
}

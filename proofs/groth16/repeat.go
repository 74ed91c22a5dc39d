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
	if k := (Span{r.Start, r.Len, r.Copies}).Differs(w.Aux); k > 0 {
		return fmt.Errorf("groth16: repeated block %d of %d (aux from %d) differs from the first", k, r.Copies, r.Start+k*r.Len)
	}
	return nil
}

// Span is a Repeat on one query's points: Copies runs of Per points from Start.
type Span struct {
	Start, Per, Copies int
}

// Spans maps r onto the L, A and B queries of a circuit with numInputs inputs and
// densities d (the A and B queries hold inputs first, then the aux in their densities).
// A or B is the zero Span where the copies' variables in it are not alike (not the same
// positions in every block): there the query's scalars need not repeat.
func (r *Repeat) Spans(numInputs int, d Densities) (l, a, b Span) {
	l = Span{Start: r.Start, Per: r.Len, Copies: r.Copies}
	a, _ = r.dense(numInputs, d.AAux)
	b, _ = r.dense(d.BInput.Count(), d.BAux)
	return l, a, b
}

// Differs returns the first copy of sp whose scalars differ from the first copy's, or 0.
func (sp Span) Differs(scalars []fr.Element) int {
	if sp.Start+sp.Copies*sp.Per > len(scalars) {
		return 1
	}
	first := scalars[sp.Start : sp.Start+sp.Per]
	bad := make([]bool, sp.Copies)
	// A copy a task (par.Range would give 2349 copies of 1.7 MB to two goroutines).
	par.Each(sp.Copies-1, runtime.GOMAXPROCS(0), func(i int) {
		o := sp.Start + (i+1)*sp.Per
		bad[i+1] = !slices.Equal(scalars[o:o+sp.Per], first)
	})
	return max(slices.Index(bad, true), 0)
}

// dense maps r onto a query that holds `before` points ahead of the aux, then one a
// variable set in d: false (and the zero Span) unless every copy has d's bits of the
// first, so that a repeated aux makes the query's scalars repeat.
func (r *Repeat) dense(before int, d *r1cs.Bitset) (Span, bool) {
	if r.Start < 0 || r.Len <= 0 || r.Copies < 2 || r.Start+r.Copies*r.Len > d.Len() {
		return Span{}, false
	}
	words, ranks := d.Words(), d.Ranks()
	rank := func(i int) int {
		w := i >> 6
		if w >= len(words) {
			return int(ranks[len(words)])
		}
		return int(ranks[w]) + bits.OnesCount64(words[w]&(1<<(uint(i)&63)-1))
	}
	sp := Span{Start: before + rank(r.Start), Per: rank(r.Start+r.Len) - rank(r.Start), Copies: r.Copies}
	if sp.Per == 0 {
		return Span{}, false
	}
	alike := make([]bool, r.Copies)
	par.Each(r.Copies-1, runtime.GOMAXPROCS(0), func(i int) {
		k := i + 1
		o := r.Start + k*r.Len
		alike[k] = true
		for j := 0; j < r.Len && alike[k]; j++ {
			alike[k] = d.Get(o+j) == d.Get(r.Start+j)
		}
	})
	for k := 1; k < r.Copies; k++ {
		if !alike[k] {
			return Span{}, false
		}
	}
	return sp, true
}

// folded holds one Repeat's folded bases of the L, A and B queries (nil where a query's
// copies are not alike in it: that query runs in full).
type folded struct {
	l, a, b    Span
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
	f := &folded{}
	f.l, f.a, f.b = r.Spans(numInputs, d)
	f.fl = fold[bls.G1Affine, bls.G1Jac, g1Ops](pk.L, f.l, tasks)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.a.Per > 0 && f.a.Start+f.a.Copies*f.a.Per == len(pk.A) {
		f.fa = fold[bls.G1Affine, bls.G1Jac, g1Ops](pk.A, f.a, tasks)
	}
	if f.b.Per > 0 && f.b.Start+f.b.Copies*f.b.Per == len(pk.BG1) {
		f.fb = fold[bls.G1Affine, bls.G1Jac, g1Ops](pk.BG1, f.b, tasks)
		f.fb2 = fold[bls.G2Affine, bls.G2Jac, g2Ops](pk.BG2, f.b, tasks)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.key, c.f = r, f
	return f, nil
}

// fold returns F_j = Σ_k points[sp.Start + k·sp.Per + j], j < sp.Per, in affine form.
func fold[A, J any, G groupOps[A, J]](points []A, sp Span, tasks int) []A {
	var ops G
	if tasks <= 0 {
		tasks = runtime.GOMAXPROCS(0)
	}
	out := make([]A, sp.Per)
	par.Range(sp.Per, tasks, func(lo, hi int) {
		acc := make([]J, hi-lo)
		for j := range acc {
			ops.setInfinity(&acc[j])
		}
		for k := 0; k < sp.Copies; k++ { // block by block: the points in memory order
			row := points[sp.Start+k*sp.Per+lo : sp.Start+k*sp.Per+hi]
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
func foldedMSM[A, J any, G groupOps[A, J]](ctx context.Context, out *J, points, f []A, sp Span, scalars []fr.Element,
	tasks int, msm func(*J, []A, []fr.Element, int) error) error {
	var ops G
	if err := splitMSM[A, J, G](ctx, out, points[:sp.Start], scalars[:sp.Start], tasks, msm); err != nil {
		return err
	}
	var tail J
	if err := splitMSM[A, J, G](ctx, &tail, f, scalars[sp.Start:sp.Start+sp.Per], tasks, msm); err != nil {
		return err
	}
	ops.add(out, &tail)
	return nil
}

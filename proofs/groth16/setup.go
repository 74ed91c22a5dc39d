package groth16

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"runtime"
	"sync"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/r1cs"
)

type (
	g1FixedBase = fixedBase[bls.G1Affine, bls.G1Jac, g1Ops]
	g2FixedBase = fixedBase[bls.G2Affine, bls.G2Jac, g2Ops]
)

// Toxic is the trapdoor of one setup: random generators as multiples of the
// standard ones (as bellperson draws them), α, β, γ, δ and τ. Whoever knows it
// can forge proofs under the key it makes: a test setup's is thrown away.
type Toxic struct {
	G1, G2                         fr.Element
	Alpha, Beta, Gamma, Delta, Tau fr.Element
}

// NewToxic draws toxic waste from rd: crypto/rand for a setup, a seeded stream
// only for reproducible test keys. Setup draws its own the same way, so a key
// made by SetupWith from NewToxic(rd) equals Setup's with WithRandom(rd).
func NewToxic(rd io.Reader) (Toxic, error) {
	var t Toxic
	for _, p := range []*fr.Element{&t.G1, &t.G2, &t.Alpha, &t.Beta, &t.Gamma, &t.Delta, &t.Tau} {
		s, err := randomScalar(rd)
		if err != nil {
			return t, err
		}
		*p = s
	}
	return t, nil
}

// KeyMaker makes a setup's queries from their exponents: the fixed-base
// multiplications, which are almost all of a setup's work (a 32GiB key is
// 427 M G1 and 33 M G2 points). SetupWith calls MulG1 for H, L, A and B_G1
// and MulG2 for B_G2, once each, in that order; the scalars are SetupWith's
// and only valid during the call.
type KeyMaker interface {
	// MulG1 makes query q: point i = scalars[i]·G for the G of table.
	MulG1(ctx context.Context, q Query, table *G1Table, scalars []fr.Element) error
	// MulG2 makes B_G2 the same way in G2.
	MulG2(ctx context.Context, q Query, table *G2Table, scalars []fr.Element) error
}

// SeededToxic returns toxic waste drawn from a ChaCha8 stream keyed by seed:
// the same for every caller, so anyone can forge proofs under its keys. For
// reproducible test and benchmark keys only (several GPUs making one key each).
func SeededToxic(seed uint64) (Toxic, error) {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	copy(key[8:], "filc2 seeded toxic waste")
	return NewToxic(chachaReader{rand.NewChaCha8(key)})
}

type chachaReader struct{ c *rand.ChaCha8 }

func (r chachaReader) Read(p []byte) (int, error) { return r.c.Read(p) }

// Setup generates a proving key for the recorded circuit from fresh toxic waste,
// in bellperson's layout. The key is only as trustworthy as this process: it is
// for tests and development, never a replacement for the official parameters.
func Setup(ctx context.Context, c *r1cs.Circuit, opts ...Option) (*ProvingKey, error) {
	cfg := newConfig(opts)
	t, err := NewToxic(cfg.rand)
	if err != nil {
		return nil, err
	}
	return SetupFromToxic(ctx, c, &t, opts...)
}

// SetupFromToxic is Setup on the host's cores with the given toxic waste.
func SetupFromToxic(ctx context.Context, c *r1cs.Circuit, t *Toxic, opts ...Option) (*ProvingKey, error) {
	pk := &ProvingKey{}
	vk, err := SetupWith(ctx, c, t, (*cpuKeyMaker)(pk), opts...)
	if err != nil {
		return nil, err
	}
	pk.VK = *vk
	return pk, nil
}

// cpuKeyMaker makes the queries on the host's cores into a ProvingKey.
type cpuKeyMaker ProvingKey

func (m *cpuKeyMaker) MulG1(ctx context.Context, q Query, t *G1Table, scalars []fr.Element) error {
	out := make([]bls.G1Affine, len(scalars))
	dst := map[Query]*[]bls.G1Affine{QueryH: &m.H, QueryL: &m.L, QueryA: &m.A, QueryBG1: &m.BG1}[q]
	if dst == nil {
		return fmt.Errorf("groth16: %v is not a G1 query", q)
	}
	if err := mulManyAffineG1(ctx, t.fb, out, scalars, t.tick); err != nil {
		return err
	}
	*dst = out
	return nil
}

func (m *cpuKeyMaker) MulG2(ctx context.Context, q Query, t *G2Table, scalars []fr.Element) error {
	if q != QueryBG2 {
		return fmt.Errorf("groth16: %v is not a G2 query", q)
	}
	m.BG2 = make([]bls.G2Affine, len(scalars))
	return t.fb.mulMany(ctx, m.BG2, scalars, t.tick)
}

// G1Table is the window table of a fixed G1 base G that Setup multiplies from.
type G1Table struct {
	fb   *g1FixedBase
	tick func(int) // the setup's progress, for a KeyMaker on the host
}

// NewG1Table builds the window table of g (on all cores; ~0.3 s).
func NewG1Table(g *bls.G1Affine) *G1Table {
	return &G1Table{fb: newFixedBase[bls.G1Affine, bls.G1Jac, g1Ops](g), tick: func(int) {}}
}

// NewG2Table builds the window table of g in G2.
func NewG2Table(g *bls.G2Affine) *G2Table {
	return &G2Table{fb: newFixedBase[bls.G2Affine, bls.G2Jac, g2Ops](g), tick: func(int) {}}
}

// G2Table is G1Table in G2.
type G2Table struct {
	fb   *g2FixedBase
	tick func(int)
}

// TableWindows and TableHalf give a table's layout: point k·TableHalf + d − 1
// is d·2^(16k)·G, for k < TableWindows and d in [1, TableHalf]. A scalar's 16
// signed 16-bit digits (canonical form, digit ≥ 2^15 borrowing 2^16 from the
// next) then pick at most 16 points to add.
const (
	TableWindows = fbWindows
	TableHalf    = fbHalf
)

// Points returns the table in its layout (a copy: 50 MB for G1).
func (t *G1Table) Points() []bls.G1Affine { return flatTable(&t.fb.table) }

// Points returns the table in its layout (100 MB for G2).
func (t *G2Table) Points() []bls.G2Affine { return flatTable(&t.fb.table) }

// Tick reports n more points made to the setup's progress.
func (t *G1Table) Tick(n int) { t.tick(n) }

// Tick reports n more points made to the setup's progress.
func (t *G2Table) Tick(n int) { t.tick(n) }

func flatTable[A any](tb *[fbWindows][]A) []A {
	out := make([]A, 0, fbWindows*fbHalf)
	for k := range tb {
		out = append(out, tb[k]...)
	}
	return out
}

// SetupWith runs the setup of circuit c with toxic waste t: it evaluates the
// QAP at τ — the Lagrange basis of the domain at τ, then u_i(τ), v_i(τ), w_i(τ)
// for every variable as sums over the constraint matrices — and hands each
// query's exponents to m, which makes the points; it returns the verifying
// key, made on the host. opts: WithProgress, WithTasks (the host's share).
func SetupWith(ctx context.Context, c *r1cs.Circuit, t *Toxic, m KeyMaker, opts ...Option) (*VerifyingKey, error) {
	cfg := newConfig(opts)
	shape := ShapeOf(c.Stats())
	n := shape.Domain
	ni, na := c.NumInputs, c.NumAux

	_, _, g1gen, g2gen := bls.Generators()
	var g1 bls.G1Affine
	var g2 bls.G2Affine
	g1.ScalarMultiplication(&g1gen, t.G1.BigInt(new(big.Int)))
	g2.ScalarMultiplication(&g2gen, t.G2.BigInt(new(big.Int)))
	tick := cfg.stage("tables", 2)
	lens := shape.Lengths()
	t1 := NewG1Table(&g1)
	t1.tick = cfg.stage("G1 points", int64(lens[0]+lens[1]+lens[2]+lens[3]))
	tick(1)
	t2 := NewG2Table(&g2)
	t2.tick = cfg.stage("G2 points", int64(lens[4]))
	tick(1)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Powers of τ, then H: τ^i·Z(τ)/δ for i < n−1.
	pow := make([]fr.Element, n)
	powers(pow, &t.Tau)
	var zt, one, gammaInv, deltaInv fr.Element
	one.SetOne()
	zt.Mul(&pow[n-1], &t.Tau).Sub(&zt, &one)
	gammaInv.Inverse(&t.Gamma)
	deltaInv.Inverse(&t.Delta)
	var hc fr.Element
	hc.Mul(&zt, &deltaInv)
	hs := make([]fr.Element, n-1)
	par.Range(len(hs), 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			hs[i].Mul(&pow[i], &hc)
		}
	})
	if err := m.MulG1(ctx, QueryH, t1, hs); err != nil {
		return nil, fmt.Errorf("groth16: setup of the h query: %w", err)
	}
	hs = nil

	// Lagrange basis at τ: L_j(τ) = IFFT(powers of τ)_j, for bellperson's ω.
	domain := fft.NewDomain(uint64(n), fft.WithoutPrecompute())
	domain.FFTInverse(pow, fft.DIF)
	fft.BitReverse(pow)

	u, v, w := evalAtTau(c, pow, cfg.nbTasks)
	pow = nil
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// IC and L: (β·u + α·v + w)/γ for inputs, /δ for aux.
	ext := func(i int, inv *fr.Element) fr.Element {
		var e, t2 fr.Element
		e.Mul(&u[i], &t.Beta)
		t2.Mul(&v[i], &t.Alpha)
		e.Add(&e, &t2).Add(&e, &w[i]).Mul(&e, inv)
		return e
	}
	ics := make([]fr.Element, ni)
	for i := range ics {
		ics[i] = ext(i, &gammaInv)
	}
	ls := make([]fr.Element, na)
	var unconstrained atomicMin
	unconstrained.init(na)
	par.Range(na, 0, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			ls[j] = ext(ni+j, &deltaInv)
			if ls[j].IsZero() {
				unconstrained.offer(j)
			}
		}
	})
	if j := unconstrained.get(); j < na {
		return nil, fmt.Errorf("groth16: aux %d is unconstrained (appears in no constraint)", j)
	}
	w = nil
	if err := m.MulG1(ctx, QueryL, t1, ls); err != nil {
		return nil, fmt.Errorf("groth16: setup of the l query: %w", err)
	}
	ls = nil

	// A and B queries, compacted by density (bellperson drops identity points,
	// which for a sound τ are exactly the variables absent from A or B).
	as := make([]fr.Element, 0, lens[2])
	as = append(as, u[:ni]...)
	for j := range na {
		if c.AAux.Get(j) {
			as = append(as, u[ni+j])
		}
	}
	if err := nonZero(as); err != nil {
		return nil, err
	}
	if err := m.MulG1(ctx, QueryA, t1, as); err != nil {
		return nil, fmt.Errorf("groth16: setup of the a query: %w", err)
	}
	as, u = nil, nil
	bs := make([]fr.Element, 0, lens[3])
	for i := range ni {
		if c.BInput.Get(i) {
			bs = append(bs, v[i])
		}
	}
	for j := range na {
		if c.BAux.Get(j) {
			bs = append(bs, v[ni+j])
		}
	}
	v = nil
	if err := nonZero(bs); err != nil {
		return nil, err
	}
	if err := m.MulG1(ctx, QueryBG1, t1, bs); err != nil {
		return nil, fmt.Errorf("groth16: setup of the b_g1 query: %w", err)
	}
	if err := m.MulG2(ctx, QueryBG2, t2, bs); err != nil {
		return nil, fmt.Errorf("groth16: setup of the b_g2 query: %w", err)
	}

	vk := &VerifyingKey{
		AlphaG1: t1.fb.mul(&t.Alpha),
		BetaG1:  t1.fb.mul(&t.Beta),
		BetaG2:  t2.fb.mul(&t.Beta),
		GammaG2: t2.fb.mul(&t.Gamma),
		DeltaG1: t1.fb.mul(&t.Delta),
		DeltaG2: t2.fb.mul(&t.Delta),
		IC:      make([]bls.G1Affine, ni),
	}
	if err := mulManyAffineG1(ctx, t1.fb, vk.IC, ics, nil); err != nil {
		return nil, err
	}
	return vk, nil
}

// nonZero refuses a query scalar that is zero (a point at infinity in the key).
func nonZero(s []fr.Element) error {
	var bad atomicMin
	bad.init(len(s))
	par.Range(len(s), 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if s[i].IsZero() {
				bad.offer(i)
			}
		}
	})
	if bad.get() < len(s) {
		return fmt.Errorf("groth16: degenerate τ (a query scalar is zero); run the setup again")
	}
	return nil
}

// atomicMin keeps the lowest index offered from several goroutines.
type atomicMin struct {
	mu sync.Mutex
	v  int
}

func (a *atomicMin) init(n int) { a.v = n }
func (a *atomicMin) offer(i int) {
	a.mu.Lock()
	a.v = min(a.v, i)
	a.mu.Unlock()
}
func (a *atomicMin) get() int { return a.v }

// powers sets pow[i] = x^i, in parallel chunks.
func powers(pow []fr.Element, x *fr.Element) {
	par.Range(len(pow), 0, func(lo, hi int) {
		var p fr.Element
		p.Exp(*x, new(big.Int).SetUint64(uint64(lo)))
		for i := lo; i < hi; i++ {
			pow[i] = p
			p.Mul(&p, x)
		}
	})
}

// evalAtTau returns u_i(τ), v_i(τ), w_i(τ) for every variable i in [inputs | aux]:
// Σ over the rows j of A (B, C) of coeff·L_j(τ). The work is split by matrix and
// by column range (each job scans its matrix and adds the entries of its
// columns), on tasks goroutines (≤ 0: all cores): no two jobs write one sum.
func evalAtTau(c *r1cs.Circuit, lagrange []fr.Element, tasks int) (u, v, w []fr.Element) {
	nv := c.NumInputs + c.NumAux
	out := [3][]fr.Element{make([]fr.Element, nv), make([]fr.Element, nv), make([]fr.Element, nv)}
	ms := c.Matrices()
	if tasks <= 0 {
		tasks = runtime.GOMAXPROCS(0)
	}
	total := 0
	for _, m := range ms {
		total += m.NNZ()
	}
	type job struct {
		m      *r1cs.Matrix
		acc    []fr.Element
		lo, hi uint32 // columns
	}
	var jobs []job
	for k, m := range ms {
		parts := 1
		if total > 0 {
			parts = max(1, (tasks*m.NNZ()+total/2)/total)
		}
		for p := range parts {
			jobs = append(jobs, job{m: m, acc: out[k], lo: uint32(p * nv / parts), hi: uint32((p + 1) * nv / parts)})
		}
	}
	par.Each(len(jobs), tasks, func(i int) {
		j := &jobs[i]
		evalColumns(c, j.m, lagrange, j.acc, j.lo, j.hi)
	})
	return out[0], out[1], out[2]
}

// evalColumns adds coeff·L_row(τ) into acc[col] for the entries of m whose
// column is in [lo, hi).
func evalColumns(c *r1cs.Circuit, m *r1cs.Matrix, lagrange, acc []fr.Element, lo, hi uint32) {
	var t fr.Element
	row := 0
	for e, col := range m.Col {
		for uint32(e) >= m.RowPtr[row+1] {
			row++
		}
		if col < lo || col >= hi {
			continue
		}
		l := &lagrange[row]
		switch id := m.Val[e]; id {
		case 0:
			acc[col].Add(&acc[col], l)
		case 1:
			acc[col].Sub(&acc[col], l)
		default:
			t.Mul(l, &c.Coeffs[id])
			acc[col].Add(&acc[col], &t)
		}
	}
}

// mul returns s·G in affine form.
func (fb *fixedBase[A, J, G]) mul(s *fr.Element) A {
	var j J
	fb.mulJac(&j, s)
	out := make([]A, 1)
	fb.ops.toAffine(out, []J{j})
	return out[0]
}

package groth16

import (
	"context"
	"fmt"
	"math/big"
	"runtime"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/r1cs"
)

// Assignment is one circuit's witness: input values (ONE first) and aux values.
type Assignment struct {
	Inputs []fr.Element
	Aux    []fr.Element
	// Repeat, when not nil, says the aux end in equal blocks (a padded WindowPoSt
	// partition): provers may fold the blocks' bases. A hint: a prover checks it, and
	// proves in full where it does not hold.
	Repeat *Repeat
}

// evalABC returns a = A·w, b = B·w, c = C·w, each padded with zeros to m.
func evalABC(c *r1cs.Circuit, w *Assignment, m, tasks int) (a, b, cc []fr.Element, err error) {
	a, b, cc = make([]fr.Element, m), make([]fr.Element, m), make([]fr.Element, m)
	n := c.NumConstraints
	if err := c.Eval(w.Inputs, w.Aux, a[:n], b[:n], cc[:n], tasks); err != nil {
		return nil, nil, nil, err
	}
	return a, b, cc, nil
}

// computeH returns the m−1 coefficients of h = (a·b − c)/Z as bellperson does:
// iFFT of a, b and c over bellperson's ω, FFT on the coset g = 7, pointwise
// (a·b − c)/(g^m − 1), iFFT on the coset. a is overwritten and returned; b and c too.
//
// The coset iFFT is linear and undoes the coset FFT, so c need not go to the coset:
// h = (iFFT_coset(a′·b′) − iFFT(c))/(g^m − 1) with a′, b′ on the coset, the same values
// for any a, b, c, one FFT fewer.
func computeH(domain *fft.Domain, a, b, c []fr.Element, tasks int) []fr.Element {
	if tasks <= 0 {
		tasks = runtime.GOMAXPROCS(0)
	}
	opt := fft.WithNbTasks(tasks)
	for _, v := range [][]fr.Element{a, b} {
		domain.FFTInverse(v, fft.DIF, opt)
		domain.FFT(v, fft.DIT, fft.OnCoset(), opt)
	}
	domain.FFTInverse(c, fft.DIF, opt) // bit-reversed, as a's coset iFFT below
	m := len(a)
	var zInv fr.Element // (g^m − 1)^−1: Z is constant on the coset
	zInv.Exp(domain.FrMultiplicativeGen, new(big.Int).SetUint64(uint64(m)))
	var one fr.Element
	one.SetOne()
	zInv.Sub(&zInv, &one).Inverse(&zInv)
	par.Range(m, tasks, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a[i].Mul(&a[i], &b[i])
		}
	})
	domain.FFTInverse(a, fft.DIF, fft.OnCoset(), opt)
	par.Range(m, tasks, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a[i].Sub(&a[i], &c[i]).Mul(&a[i], &zInv)
		}
	})
	fft.BitReverse(a)
	return a[:m-1]
}

// QueryScalars returns the scalars that multiply the compacted A and B queries
// (bellperson's density-filtered multiexps): every input then the aux in A's
// density; the inputs and aux in B's densities.
func QueryScalars(d Densities, w *Assignment) (as, bs []fr.Element) {
	as = make([]fr.Element, 0, len(w.Inputs)+d.AAux.Count())
	bs = make([]fr.Element, 0, d.BInput.Count()+d.BAux.Count())
	as = append(as, w.Inputs...)
	for i := range w.Inputs {
		if d.BInput.Get(i) {
			bs = append(bs, w.Inputs[i])
		}
	}
	for j := range w.Aux {
		if d.AAux.Get(j) {
			as = append(as, w.Aux[j])
		}
	}
	for j := range w.Aux {
		if d.BAux.Get(j) {
			bs = append(bs, w.Aux[j])
		}
	}
	return as, bs
}

// Sums are the five multi-scalar products of one proof.
type Sums struct {
	H, L, A, BG1 bls.G1Jac
	BG2          bls.G2Jac
}

// Assemble builds the proof from the five sums and the blinding r, s:
// A = α + A′ + rδ, B = β + B′ + sδ, C = sA′ + rB′₁ + rsδ + sα + rβ + H + L.
func Assemble(vk *VerifyingKey, sums *Sums, r, s *fr.Element) *Proof {
	bi := func(e *fr.Element) *big.Int { return e.BigInt(new(big.Int)) }
	var rs fr.Element
	rs.Mul(r, s)

	var ga, t1 bls.G1Jac
	ga.FromAffine(&vk.DeltaG1)
	ga.ScalarMultiplication(&ga, bi(r))
	ga.AddMixed(&vk.AlphaG1)
	ga.AddAssign(&sums.A)

	var gb bls.G2Jac
	gb.FromAffine(&vk.DeltaG2)
	gb.ScalarMultiplication(&gb, bi(s))
	gb.AddMixed(&vk.BetaG2)
	gb.AddAssign(&sums.BG2)

	var gc bls.G1Jac
	gc.ScalarMultiplication(&sums.A, bi(s))
	t1.ScalarMultiplication(&sums.BG1, bi(r))
	gc.AddAssign(&t1)
	t1.FromAffine(&vk.DeltaG1)
	t1.ScalarMultiplication(&t1, bi(&rs))
	gc.AddAssign(&t1)
	t1.FromAffine(&vk.AlphaG1)
	t1.ScalarMultiplication(&t1, bi(s))
	gc.AddAssign(&t1)
	t1.FromAffine(&vk.BetaG1)
	t1.ScalarMultiplication(&t1, bi(r))
	gc.AddAssign(&t1)
	gc.AddAssign(&sums.H)
	gc.AddAssign(&sums.L)

	p := &Proof{}
	p.A.FromJacobian(&ga)
	p.B.FromJacobian(&gb)
	p.C.FromJacobian(&gc)
	return p
}

// cpuProver holds what the CPU prover keeps between proofs of one circuit.
type cpuProver struct {
	pk      *ProvingKey
	circuit *r1cs.Circuit
	dens    Densities
	domain  *fft.Domain
	folds   foldCache // the folded bases of the last Repeat proved
}

func newCPUProver(pk *ProvingKey, c *r1cs.Circuit) (*cpuProver, error) {
	shape := ShapeOf(c.Stats())
	if err := pk.CheckShape(shape); err != nil {
		return nil, err
	}
	return &cpuProver{pk: pk, circuit: c, dens: DensitiesOf(c), domain: fft.NewDomain(uint64(shape.Domain))}, nil
}

// StageTimes is where one CPU proof's time went.
type StageTimes struct {
	ABC    time.Duration // a, b, c: the sparse matrix-vector products
	H      time.Duration // the 7 FFTs and pointwise steps
	MSMH   time.Duration // H: dense G1
	MSML   time.Duration // L: G1, mostly 0/1 scalars
	MSMA   time.Duration // A: G1
	MSMBG1 time.Duration // B in G1
	MSMBG2 time.Duration // B in G2
	Folded int           // queries (of L, A, B_G1, B_G2) whose repeated blocks were folded (Assignment.Repeat)
}

// Total is the sum of the stages.
func (t *StageTimes) Total() time.Duration {
	return t.ABC + t.H + t.MSMH + t.MSML + t.MSMA + t.MSMBG1 + t.MSMBG2
}

// sums computes the five MSMs of one assignment, timing each stage into st.
func (p *cpuProver) sums(ctx context.Context, w *Assignment, cfg *config, st *StageTimes) (*Sums, error) {
	c := p.circuit
	if len(w.Inputs) != c.NumInputs || len(w.Aux) != c.NumAux {
		return nil, fmt.Errorf("groth16: assignment has %d inputs and %d aux, circuit has %d and %d",
			len(w.Inputs), len(w.Aux), c.NumInputs, c.NumAux)
	}
	tick := cfg.stage("prove", 7)
	t0 := time.Now()
	lap := func(d *time.Duration) {
		now := time.Now()
		*d = now.Sub(t0)
		t0 = now
		tick(1)
	}
	a, b, cc, err := evalABC(c, w, int(p.domain.Cardinality), cfg.nbTasks)
	if err != nil {
		return nil, err
	}
	lap(&st.ABC)
	h := computeH(p.domain, a, b, cc, cfg.nbTasks)
	b, cc = nil, nil
	lap(&st.H)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var s Sums
	if err := msmG1(&s.H, p.pk.H, h, cfg.nbTasks); err != nil {
		return nil, err
	}
	lap(&st.MSMH)
	fd, err := p.foldsOf(ctx, w, cfg.nbTasks)
	if err != nil {
		return nil, err
	}
	if fd != nil {
		err = foldedMSM[bls.G1Affine, bls.G1Jac, g1Ops](ctx, &s.L, p.pk.L, fd.fl, fd.l, w.Aux, cfg.nbTasks, msmG1)
		st.Folded++
	} else {
		err = splitMSMG1(ctx, &s.L, p.pk.L, w.Aux, cfg.nbTasks)
	}
	if err != nil {
		return nil, err
	}
	lap(&st.MSML)
	as, bs := QueryScalars(p.dens, w)
	if fd != nil && fd.fa != nil && fd.a.Differs(as) == 0 {
		err = foldedMSM[bls.G1Affine, bls.G1Jac, g1Ops](ctx, &s.A, p.pk.A, fd.fa, fd.a, as, cfg.nbTasks, msmG1)
		st.Folded++
	} else {
		err = splitMSMG1(ctx, &s.A, p.pk.A, as, cfg.nbTasks)
	}
	if err != nil {
		return nil, err
	}
	lap(&st.MSMA)
	foldB := fd != nil && fd.fb != nil && fd.b.Differs(bs) == 0
	if foldB {
		err = foldedMSM[bls.G1Affine, bls.G1Jac, g1Ops](ctx, &s.BG1, p.pk.BG1, fd.fb, fd.b, bs, cfg.nbTasks, msmG1)
		st.Folded++
	} else {
		err = splitMSMG1(ctx, &s.BG1, p.pk.BG1, bs, cfg.nbTasks)
	}
	if err != nil {
		return nil, err
	}
	lap(&st.MSMBG1)
	if foldB {
		err = foldedMSM[bls.G2Affine, bls.G2Jac, g2Ops](ctx, &s.BG2, p.pk.BG2, fd.fb2, fd.b, bs, cfg.nbTasks, msmG2)
		st.Folded++
	} else {
		err = splitMSMG2(ctx, &s.BG2, p.pk.BG2, bs, cfg.nbTasks)
	}
	if err != nil {
		return nil, err
	}
	lap(&st.MSMBG2)
	return &s, nil
}

// foldsOf returns the folded bases of w's Repeat, nil when it has none or it does not
// hold (the proof then runs every query in full).
func (p *cpuProver) foldsOf(ctx context.Context, w *Assignment, tasks int) (*folded, error) {
	if w.Repeat == nil || len(p.pk.L) != len(w.Aux) || w.Repeat.Check(w) != nil {
		return nil, nil
	}
	return p.folds.get(ctx, *w.Repeat, p.pk, p.circuit.NumInputs, p.dens, tasks)
}

// ProveTimed is Prove that also reports where the time went.
func ProveTimed(ctx context.Context, pk *ProvingKey, c *r1cs.Circuit, w *Assignment, opts ...Option) (*Proof, StageTimes, error) {
	var st StageTimes
	cfg := newConfig(opts)
	p, err := newCPUProver(pk, c)
	if err != nil {
		return nil, st, err
	}
	r, err := randomScalar(cfg.rand)
	if err != nil {
		return nil, st, err
	}
	s, err := randomScalar(cfg.rand)
	if err != nil {
		return nil, st, err
	}
	sums, err := p.sums(ctx, w, &cfg, &st)
	if err != nil {
		return nil, st, err
	}
	return Assemble(&pk.VK, sums, &r, &s), st, nil
}

// Prove computes a proof of the assignment on the CPU with fresh r and s.
func Prove(ctx context.Context, pk *ProvingKey, c *r1cs.Circuit, w *Assignment, opts ...Option) (*Proof, error) {
	p, _, err := ProveTimed(ctx, pk, c, w, opts...)
	return p, err
}

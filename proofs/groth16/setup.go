package groth16

import (
	"context"
	"fmt"
	"math/big"

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

// toxic is the trapdoor of one setup, with random generators as bellperson uses.
type toxic struct {
	g1, g2                         fr.Element // generators as multiples of the standard ones
	alpha, beta, gamma, delta, tau fr.Element
}

func sampleToxic(c *config) (toxic, error) {
	var t toxic
	for _, p := range []*fr.Element{&t.g1, &t.g2, &t.alpha, &t.beta, &t.gamma, &t.delta, &t.tau} {
		s, err := randomScalar(c.rand)
		if err != nil {
			return t, err
		}
		*p = s
	}
	return t, nil
}

// Setup generates a proving key for the recorded circuit from fresh toxic waste,
// in bellperson's layout. The key is only as trustworthy as this process: it is
// for tests and development, never a replacement for the official parameters.
func Setup(ctx context.Context, c *r1cs.Circuit, opts ...Option) (*ProvingKey, error) {
	cfg := newConfig(opts)
	t, err := sampleToxic(&cfg)
	if err != nil {
		return nil, err
	}
	return setupWith(ctx, c, &t, &cfg)
}

func setupWith(ctx context.Context, c *r1cs.Circuit, t *toxic, cfg *config) (*ProvingKey, error) {
	shape := ShapeOf(c.Stats())
	m := shape.Domain
	ni, na := c.NumInputs, c.NumAux

	_, _, g1gen, g2gen := bls.Generators()
	var g1 bls.G1Affine
	var g2 bls.G2Affine
	g1.ScalarMultiplication(&g1gen, t.g1.BigInt(new(big.Int)))
	g2.ScalarMultiplication(&g2gen, t.g2.BigInt(new(big.Int)))
	tick := cfg.stage("tables", 2)
	fb1 := newFixedBase[bls.G1Affine, bls.G1Jac, g1Ops](&g1)
	tick(1)
	fb2 := newFixedBase[bls.G2Affine, bls.G2Jac, g2Ops](&g2)
	tick(1)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Powers of τ, then H: τ^i·Z(τ)/δ for i < m−1.
	pow := make([]fr.Element, m)
	powers(pow, &t.tau)
	var zt, one, gammaInv, deltaInv fr.Element
	one.SetOne()
	zt.Mul(&pow[m-1], &t.tau).Sub(&zt, &one)
	gammaInv.Inverse(&t.gamma)
	deltaInv.Inverse(&t.delta)
	var hc fr.Element
	hc.Mul(&zt, &deltaInv)

	lens := shape.Lengths()
	totalG1 := int64(lens[0] + lens[1] + lens[2] + lens[3] + ni)
	g1tick := cfg.stage("G1 points", totalG1)

	pk := &ProvingKey{}
	hs := make([]fr.Element, m-1)
	for i := range hs {
		hs[i].Mul(&pow[i], &hc)
	}
	pk.H = make([]bls.G1Affine, m-1)
	if err := mulManyAffineG1(ctx, fb1, pk.H, hs, g1tick); err != nil {
		return nil, err
	}
	hs = nil

	// Lagrange basis at τ: L_j(τ) = IFFT(powers of τ)_j, for bellperson's ω.
	domain := fft.NewDomain(uint64(m), fft.WithoutPrecompute())
	domain.FFTInverse(pow, fft.DIF)
	fft.BitReverse(pow)

	u, v, w := evalAtTau(c, pow)
	pow = nil

	// IC and L: (β·u + α·v + w)/γ for inputs, /δ for aux.
	ext := func(i int, inv *fr.Element) fr.Element {
		var e, t2 fr.Element
		e.Mul(&u[i], &t.beta)
		t2.Mul(&v[i], &t.alpha)
		e.Add(&e, &t2).Add(&e, &w[i]).Mul(&e, inv)
		return e
	}
	ics := make([]fr.Element, ni)
	for i := range ics {
		ics[i] = ext(i, &gammaInv)
	}
	ls := make([]fr.Element, na)
	for j := range ls {
		ls[j] = ext(ni+j, &deltaInv)
		if ls[j].IsZero() {
			return nil, fmt.Errorf("groth16: aux %d is unconstrained (appears in no constraint)", j)
		}
	}
	w = nil

	// A and B queries, compacted by density (bellperson drops identity points,
	// which for a sound τ are exactly the variables absent from A or B).
	as := make([]fr.Element, 0, lens[2])
	bs := make([]fr.Element, 0, lens[3])
	for i := range ni {
		as = append(as, u[i])
		if c.BInput.Get(i) {
			bs = append(bs, v[i])
		}
	}
	for j := range na {
		if c.AAux.Get(j) {
			as = append(as, u[ni+j])
		}
		if c.BAux.Get(j) {
			bs = append(bs, v[ni+j])
		}
	}
	for _, s := range [][]fr.Element{as, bs} {
		for i := range s {
			if s[i].IsZero() {
				return nil, fmt.Errorf("groth16: degenerate τ (a query scalar is zero); run the setup again")
			}
		}
	}
	u, v = nil, nil

	pk.VK.IC = make([]bls.G1Affine, ni)
	pk.L = make([]bls.G1Affine, na)
	pk.A = make([]bls.G1Affine, len(as))
	pk.BG1 = make([]bls.G1Affine, len(bs))
	for _, job := range []struct {
		out []bls.G1Affine
		s   []fr.Element
	}{{pk.VK.IC, ics}, {pk.L, ls}, {pk.A, as}, {pk.BG1, bs}} {
		if err := mulManyAffineG1(ctx, fb1, job.out, job.s, g1tick); err != nil {
			return nil, err
		}
	}
	pk.BG2 = make([]bls.G2Affine, len(bs))
	if err := fb2.mulMany(ctx, pk.BG2, bs, cfg.stage("G2 points", int64(len(bs)))); err != nil {
		return nil, err
	}

	vk := &pk.VK
	vk.AlphaG1 = fb1.mul(&t.alpha)
	vk.BetaG1 = fb1.mul(&t.beta)
	vk.BetaG2 = fb2.mul(&t.beta)
	vk.GammaG2 = fb2.mul(&t.gamma)
	vk.DeltaG1 = fb1.mul(&t.delta)
	vk.DeltaG2 = fb2.mul(&t.delta)
	return pk, nil
}

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
// Σ over the rows j of A (B, C) of coeff·L_j(τ).
func evalAtTau(c *r1cs.Circuit, lagrange []fr.Element) (u, v, w []fr.Element) {
	nv := c.NumInputs + c.NumAux
	out := [3][]fr.Element{make([]fr.Element, nv), make([]fr.Element, nv), make([]fr.Element, nv)}
	ms := c.Matrices()
	done := make(chan struct{}, 3)
	for k := range ms {
		go func() {
			m, acc := ms[k], out[k]
			var t fr.Element
			for row := 0; row < c.NumConstraints; row++ {
				l := &lagrange[row]
				cols, vals := m.Row(row)
				for i, col := range cols {
					switch vals[i] {
					case 0:
						acc[col].Add(&acc[col], l)
					case 1:
						acc[col].Sub(&acc[col], l)
					default:
						t.Mul(l, &c.Coeffs[vals[i]])
						acc[col].Add(&acc[col], &t)
					}
				}
			}
			done <- struct{}{}
		}()
	}
	for range ms {
		<-done
	}
	return out[0], out[1], out[2]
}

// mul returns s·G in affine form.
func (fb *fixedBase[A, J, G]) mul(s *fr.Element) A {
	var j J
	fb.mulJac(&j, s)
	out := make([]A, 1)
	fb.ops.toAffine(out, []J{j})
	return out[0]
}

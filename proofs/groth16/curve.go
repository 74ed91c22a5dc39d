package groth16

import (
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// groupOps lets the fixed-base and batch-add code run over G1 and G2 alike:
// A is the affine type, J the Jacobian one.
type groupOps[A, J any] interface {
	fromAffine(j *J, a *A)
	addMixed(j *J, a *A)
	add(j, k *J)
	double(j *J)
	neg(dst, a *A)
	setInfinity(j *J)
	// toAffine converts js into out with one field inversion; js is clobbered.
	toAffine(out []A, js []J)
}

type g1Ops struct{}

func (g1Ops) fromAffine(j *bls.G1Jac, a *bls.G1Affine) { j.FromAffine(a) }
func (g1Ops) addMixed(j *bls.G1Jac, a *bls.G1Affine)   { j.AddMixed(a) }
func (g1Ops) add(j, k *bls.G1Jac)                      { j.AddAssign(k) }
func (g1Ops) double(j *bls.G1Jac)                      { j.DoubleAssign() }
func (g1Ops) neg(dst, a *bls.G1Affine)                 { dst.Neg(a) }
func (g1Ops) setInfinity(j *bls.G1Jac)                 { j.X.SetOne(); j.Y.SetOne(); j.Z.SetZero() }

func (g1Ops) toAffine(out []bls.G1Affine, js []bls.G1Jac) {
	// Montgomery's trick: prefix products of Z in out[i].X, one inversion, then unwind.
	acc := fp.One()
	for i := range js {
		if js[i].Z.IsZero() {
			continue
		}
		out[i].X = acc
		acc.Mul(&acc, &js[i].Z)
	}
	var inv fp.Element
	inv.Inverse(&acc)
	for i := len(js) - 1; i >= 0; i-- {
		if js[i].Z.IsZero() {
			out[i].X.SetZero()
			out[i].Y.SetZero()
			continue
		}
		var zi, zi2 fp.Element
		zi.Mul(&out[i].X, &inv)
		inv.Mul(&inv, &js[i].Z)
		zi2.Square(&zi)
		out[i].X.Mul(&js[i].X, &zi2)
		out[i].Y.Mul(&js[i].Y, &zi2).Mul(&out[i].Y, &zi)
	}
}

type g2Ops struct{}

func (g2Ops) fromAffine(j *bls.G2Jac, a *bls.G2Affine) { j.FromAffine(a) }
func (g2Ops) addMixed(j *bls.G2Jac, a *bls.G2Affine)   { j.AddMixed(a) }
func (g2Ops) add(j, k *bls.G2Jac)                      { j.AddAssign(k) }
func (g2Ops) double(j *bls.G2Jac)                      { j.DoubleAssign() }
func (g2Ops) neg(dst, a *bls.G2Affine)                 { dst.Neg(a) }
func (g2Ops) setInfinity(j *bls.G2Jac)                 { j.X.SetOne(); j.Y.SetOne(); j.Z.SetZero() }

func (g2Ops) toAffine(out []bls.G2Affine, js []bls.G2Jac) {
	var acc bls.E2
	acc.SetOne()
	for i := range js {
		if js[i].Z.IsZero() {
			continue
		}
		out[i].X = acc
		acc.Mul(&acc, &js[i].Z)
	}
	var inv bls.E2
	inv.Inverse(&acc)
	for i := len(js) - 1; i >= 0; i-- {
		if js[i].Z.IsZero() {
			out[i].X.SetZero()
			out[i].Y.SetZero()
			continue
		}
		var zi, zi2 bls.E2
		zi.Mul(&out[i].X, &inv)
		inv.Mul(&inv, &js[i].Z)
		zi2.Square(&zi)
		out[i].X.Mul(&js[i].X, &zi2)
		out[i].Y.Mul(&js[i].Y, &zi2).Mul(&out[i].Y, &zi)
	}
}

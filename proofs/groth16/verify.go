package groth16

import (
	"fmt"
	"io"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// PreparedVerifyingKey is a verifying key with e(α, β) and −γ, −δ ready for pairing.
type PreparedVerifyingKey struct {
	VK        *VerifyingKey
	alphaBeta bls.GT
	negGamma  bls.G2Affine
	negDelta  bls.G2Affine
}

// Prepare precomputes the pairing-side constants of vk.
func Prepare(vk *VerifyingKey) (*PreparedVerifyingKey, error) {
	ab, err := bls.Pair([]bls.G1Affine{vk.AlphaG1}, []bls.G2Affine{vk.BetaG2})
	if err != nil {
		return nil, err
	}
	p := &PreparedVerifyingKey{VK: vk, alphaBeta: ab}
	p.negGamma.Neg(&vk.GammaG2)
	p.negDelta.Neg(&vk.DeltaG2)
	return p, nil
}

// publicAcc returns IC_0 + Σ x_i·IC_{i+1}.
func (p *PreparedVerifyingKey) publicAcc(public []fr.Element) (bls.G1Affine, error) {
	ic := p.VK.IC
	if len(public)+1 != len(ic) {
		return bls.G1Affine{}, fmt.Errorf("groth16: %d public inputs, the key expects %d", len(public), len(ic)-1)
	}
	var acc bls.G1Jac
	acc.FromAffine(&ic[0])
	if len(public) > 0 {
		var t bls.G1Jac
		if _, err := t.MultiExp(ic[1:], public, ecc.MultiExpConfig{}); err != nil {
			return bls.G1Affine{}, err
		}
		acc.AddAssign(&t)
	}
	var out bls.G1Affine
	out.FromJacobian(&acc)
	return out, nil
}

// Verify checks e(A,B) = e(α,β)·e(IC(x),γ)·e(C,δ) for public inputs x (ONE excluded).
func Verify(p *PreparedVerifyingKey, proof *Proof, public []fr.Element) (bool, error) {
	acc, err := p.publicAcc(public)
	if err != nil {
		return false, err
	}
	ml, err := bls.MillerLoop(
		[]bls.G1Affine{proof.A, acc, proof.C},
		[]bls.G2Affine{proof.B, p.negGamma, p.negDelta})
	if err != nil {
		return false, err
	}
	got := bls.FinalExponentiation(&ml)
	return got.Equal(&p.alphaBeta), nil
}

// VerifyBatch checks many proofs at once with a random linear combination
// (bellperson's verify_proofs_batch): one multi-pairing of n+2 terms. It is true
// only if, with overwhelming probability, every proof verifies; on false, use
// Verify to find which. rand supplies the 128-bit combiners.
func VerifyBatch(p *PreparedVerifyingKey, proofs []Proof, public [][]fr.Element, rand io.Reader) (bool, error) {
	if len(proofs) != len(public) {
		return false, fmt.Errorf("groth16: %d proofs but %d input vectors", len(proofs), len(public))
	}
	if len(proofs) == 0 {
		return true, nil
	}
	g1s := make([]bls.G1Affine, 0, len(proofs)+2)
	g2s := make([]bls.G2Affine, 0, len(proofs)+2)
	var accIC, accC bls.G1Jac
	var sumR fr.Element
	var buf [16]byte
	for i := range proofs {
		if _, err := io.ReadFull(rand, buf[:]); err != nil {
			return false, err
		}
		var r fr.Element
		r.SetBytes(buf[:])
		if r.IsZero() {
			r.SetOne()
		}
		rb := r.BigInt(new(big.Int))
		sumR.Add(&sumR, &r)
		acc, err := p.publicAcc(public[i])
		if err != nil {
			return false, fmt.Errorf("proof %d: %w", i, err)
		}
		var t bls.G1Jac
		t.FromAffine(&acc)
		t.ScalarMultiplication(&t, rb)
		accIC.AddAssign(&t)
		t.FromAffine(&proofs[i].C)
		t.ScalarMultiplication(&t, rb)
		accC.AddAssign(&t)
		var ra bls.G1Affine
		ra.ScalarMultiplication(&proofs[i].A, rb)
		g1s = append(g1s, ra)
		g2s = append(g2s, proofs[i].B)
	}
	var a1, a2 bls.G1Affine
	a1.FromJacobian(&accIC)
	a2.FromJacobian(&accC)
	g1s = append(g1s, a1, a2)
	g2s = append(g2s, p.negGamma, p.negDelta)
	ml, err := bls.MillerLoop(g1s, g2s)
	if err != nil {
		return false, err
	}
	got := bls.FinalExponentiation(&ml)
	var want bls.GT
	want.Exp(p.alphaBeta, sumR.BigInt(new(big.Int)))
	return got.Equal(&want), nil
}

package groth16

import (
	"fmt"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/filc2/filc2/proofs/r1cs"
)

// VerifyingKey is bellperson's verifying key: e(A,B) = e(α,β)·e(Σ IC_i·x_i, γ)·e(C,δ).
type VerifyingKey struct {
	AlphaG1 bls.G1Affine
	BetaG1  bls.G1Affine
	BetaG2  bls.G2Affine
	GammaG2 bls.G2Affine
	DeltaG1 bls.G1Affine
	DeltaG2 bls.G2Affine
	IC      []bls.G1Affine // one per input, ONE first: (β·u_i(τ) + α·v_i(τ) + w_i(τ))/γ
}

// ProvingKey is bellperson's Parameters: the verifying key and the five queries.
type ProvingKey struct {
	VK  VerifyingKey
	H   []bls.G1Affine // τ^i·Z(τ)/δ for i < m−1
	L   []bls.G1Affine // (β·u_j(τ) + α·v_j(τ) + w_j(τ))/δ for every aux j
	A   []bls.G1Affine // u_i(τ) for every input, then for aux in A's density
	BG1 []bls.G1Affine // v_i(τ) for inputs, then aux, in B's densities
	BG2 []bls.G2Affine // the same in G2
}

// Shape is what a circuit fixes of its keys' lengths.
type Shape struct {
	NumInputs int // ONE included; len(IC)
	NumAux    int // len(L)
	Domain    int // m, the power of two ≥ constraints; len(H) = m−1
	AAux      int // aux variables in A: len(A) = NumInputs + AAux
	BInput    int // inputs in B
	BAux      int // aux in B: len(BG1) = len(BG2) = BInput + BAux
}

// ShapeOf returns the key shape of a circuit with the given counts.
func ShapeOf(s r1cs.Stats) Shape {
	return Shape{
		NumInputs: s.Inputs, NumAux: s.Aux, Domain: 1 << s.DomainLog2(),
		AAux: s.AAuxDensity, BInput: s.BInputDensity, BAux: s.BAuxDensity,
	}
}

// Lengths returns the expected number of points of h, l, a, b_g1 and b_g2.
func (s Shape) Lengths() [5]int {
	return [5]int{s.Domain - 1, s.NumAux, s.NumInputs + s.AAux, s.BInput + s.BAux, s.BInput + s.BAux}
}

// CheckShape reports the first query whose length differs from the shape's
// (every backend checks a key against its circuit this way before loading it).
func (pk *ProvingKey) CheckShape(s Shape) error {
	if len(pk.VK.IC) != s.NumInputs {
		return fmt.Errorf("groth16: key has %d IC points, circuit has %d inputs", len(pk.VK.IC), s.NumInputs)
	}
	got := [5]int{len(pk.H), len(pk.L), len(pk.A), len(pk.BG1), len(pk.BG2)}
	want := s.Lengths()
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("groth16: key has %d %s points, circuit needs %d", got[i], sectionNames[i], want[i])
		}
	}
	return nil
}

var sectionNames = [5]string{"h", "l", "a", "b_g1", "b_g2"}

// Proof is one Groth16 proof.
type Proof struct {
	A bls.G1Affine
	B bls.G2Affine
	C bls.G1Affine
}

// Densities are the circuit's density bitmaps, which index the compacted A and B queries.
type Densities struct {
	AAux   *r1cs.Bitset
	BInput *r1cs.Bitset
	BAux   *r1cs.Bitset
}

// DensitiesOf returns the densities of a recorded circuit.
func DensitiesOf(c *r1cs.Circuit) Densities {
	return Densities{AAux: &c.AAux, BInput: &c.BInput, BAux: &c.BAux}
}

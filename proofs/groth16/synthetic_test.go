package groth16

import (
	"context"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// A synthetic key has the circuit's lengths, valid distinct points, and
// proves on the CPU; the proof verifies under neither key.
func TestSyntheticKeyProves(t *testing.T) {
	b := build(t, func(cs *r1cs.System) { randomCircuit(cs, 300, 4, 1, 2) })
	pk, err := SyntheticKey(context.Background(), b.circuit, 9, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := pk.CheckShape(ShapeOf(b.circuit.Stats())); err != nil {
		t.Fatal(err)
	}
	seen := map[bls.G1Affine]bool{}
	for i := range pk.H {
		if !pk.H[i].IsOnCurve() || !pk.H[i].IsInSubGroup() {
			t.Fatalf("h[%d] is not a valid point", i)
		}
		if seen[pk.H[i]] {
			t.Fatalf("h[%d] repeats a point", i)
		}
		seen[pk.H[i]] = true
	}
	for i := range pk.BG2 {
		if !pk.BG2[i].IsOnCurve() {
			t.Fatalf("b_g2[%d] is not on the curve", i)
		}
	}
	cpu := CPU{}
	srs, err := cpu.LoadSRS(context.Background(), pk, b.circuit)
	if err != nil {
		t.Fatal(err)
	}
	var r, s fr.Element
	r.SetUint64(3)
	s.SetUint64(5)
	proof, err := cpu.Prove(context.Background(), srs, b.w, r, s)
	if err != nil {
		t.Fatal(err)
	}
	pvk, err := Prepare(&pk.VK)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := Verify(pvk, proof, b.w.Inputs[1:]); err != nil || ok {
		t.Fatalf("a proof under a synthetic key verified (%v, %v)", ok, err)
	}
	if vk := SyntheticVerifyingKey(7, 1); len(vk.IC) != 7 || !vk.DeltaG2.IsOnCurve() {
		t.Fatalf("synthetic vk %+v", vk)
	}
}

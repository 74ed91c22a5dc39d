package groth16

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// seeded is a deterministic io.Reader for reproducible toxic waste.
type seeded struct{ r *rand.ChaCha8 }

func newSeeded(seed byte) *seeded {
	var s [32]byte
	s[0] = seed
	return &seeded{rand.NewChaCha8(s)}
}

func (s *seeded) Read(p []byte) (int, error) { return s.r.Read(p) }

func roundTrip(t *testing.T, b built, seed byte) (*ProvingKey, *Proof) {
	t.Helper()
	ctx := context.Background()
	pk, err := Setup(ctx, b.circuit, WithRandom(newSeeded(seed)))
	if err != nil {
		t.Fatal(err)
	}
	proof, err := Prove(ctx, pk, b.circuit, b.w)
	if err != nil {
		t.Fatal(err)
	}
	return pk, proof
}

func mustVerify(t *testing.T, vk *VerifyingKey, p *Proof, public []fr.Element) bool {
	t.Helper()
	pvk, err := Prepare(vk)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := Verify(pvk, p, public)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestCubicEndToEnd(t *testing.T) {
	b := build(t, func(cs *r1cs.System) { cubic(cs, 3) })
	pk, proof := roundTrip(t, b, 1)
	public := b.w.Inputs[1:] // y = 35
	if !mustVerify(t, &pk.VK, proof, public) {
		t.Fatal("valid proof rejected")
	}
	wrong := []fr.Element{fr.NewElement(36)}
	if mustVerify(t, &pk.VK, proof, wrong) {
		t.Fatal("proof accepted for y = 36")
	}
	other, _ := roundTrip(t, b, 2)
	if mustVerify(t, &other.VK, proof, public) {
		t.Fatal("proof accepted under another setup's vk")
	}
}

func TestRandomCircuitEndToEnd(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 2000
	}
	b := build(t, func(cs *r1cs.System) { randomCircuit(cs, n, 5, 7, 8) })
	if b.circuit.NumInputs != 6 {
		t.Fatalf("%d inputs, want 6", b.circuit.NumInputs)
	}
	pk, proof := roundTrip(t, b, 3)
	public := b.w.Inputs[1:]
	if !mustVerify(t, &pk.VK, proof, public) {
		t.Fatal("valid proof rejected")
	}
	for i := range public {
		changed := append([]fr.Element(nil), public...)
		changed[i].Add(&changed[i], &changed[i]).Add(&changed[i], &fr.Element{1})
		if mustVerify(t, &pk.VK, proof, changed) {
			t.Fatalf("proof accepted with input %d changed", i)
		}
	}
	enc := proof.Bytes()
	for _, i := range []int{0, 17, 47, 48, 100, 143, 144, 191} {
		flipped := enc
		flipped[i] ^= 0x04
		var p Proof
		if p.SetBytes(flipped[:]) != nil {
			continue // rejected by decoding: also a failure to verify
		}
		if mustVerify(t, &pk.VK, &p, public) {
			t.Fatalf("proof with byte %d flipped verified", i)
		}
	}
	// A second witness of the same circuit (other values) proves and verifies too.
	b2 := build(t, func(cs *r1cs.System) { randomCircuit(cs, n, 5, 7, 9) })
	p2, err := Prove(context.Background(), pk, b.circuit, b2.w)
	if err != nil {
		t.Fatal(err)
	}
	if !mustVerify(t, &pk.VK, p2, b2.w.Inputs[1:]) {
		t.Fatal("second witness rejected")
	}
	if bytes.Equal(enc[:], func() []byte { x := p2.Bytes(); return x[:] }()) {
		t.Fatal("two proofs are equal")
	}
	pvk, _ := Prepare(&pk.VK)
	ok, err := VerifyBatch(pvk, []Proof{*proof, *p2}, [][]fr.Element{public, b2.w.Inputs[1:]}, newSeeded(9))
	if err != nil || !ok {
		t.Fatalf("batch of two valid proofs: %v %v", ok, err)
	}
	ok, err = VerifyBatch(pvk, []Proof{*proof, *p2}, [][]fr.Element{b2.w.Inputs[1:], public}, newSeeded(9))
	if err != nil || ok {
		t.Fatalf("batch with swapped inputs: %v %v", ok, err)
	}
}

// The Backend seam gives the same kind of proof as Prove.
func TestCPUBackend(t *testing.T) {
	b := build(t, func(cs *r1cs.System) { randomCircuit(cs, 500, 2, 11, 12) })
	ctx := context.Background()
	pk, err := Setup(ctx, b.circuit, WithRandom(newSeeded(5)))
	if err != nil {
		t.Fatal(err)
	}
	var be Backend = CPU{}
	srs, err := be.LoadSRS(ctx, pk, b.circuit)
	if err != nil {
		t.Fatal(err)
	}
	defer srs.Close()
	proof, err := be.Prove(ctx, srs, b.w, fr.NewElement(3), fr.NewElement(4))
	if err != nil {
		t.Fatal(err)
	}
	if !mustVerify(t, &pk.VK, proof, b.w.Inputs[1:]) {
		t.Fatal("backend proof rejected")
	}
	short := &Assignment{Inputs: b.w.Inputs, Aux: b.w.Aux[1:]}
	if _, err := be.Prove(ctx, srs, short, fr.NewElement(3), fr.NewElement(4)); err == nil {
		t.Fatal("short assignment accepted")
	}
}

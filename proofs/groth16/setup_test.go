package groth16

import (
	"bytes"
	"context"
	"math/big"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// recordingMaker checks the calls SetupWith makes and passes them on.
type recordingMaker struct {
	t     *testing.T
	next  KeyMaker
	calls []Query
	lens  []int
}

func (m *recordingMaker) MulG1(ctx context.Context, q Query, t *G1Table, s []fr.Element) error {
	m.calls, m.lens = append(m.calls, q), append(m.lens, len(s))
	return m.next.MulG1(ctx, q, t, s)
}

func (m *recordingMaker) MulG2(ctx context.Context, q Query, t *G2Table, s []fr.Element) error {
	m.calls, m.lens = append(m.calls, q), append(m.lens, len(s))
	return m.next.MulG2(ctx, q, t, s)
}

// SetupWith asks its KeyMaker for the five queries in order with the shape's
// lengths, and with NewToxic of the same stream it makes Setup's key byte for
// byte; the key proves and verifies.
func TestSetupWithKeyMaker(t *testing.T) {
	b := build(t, func(cs *r1cs.System) { randomCircuit(cs, 3000, 4, 11, 12) })
	ctx := context.Background()
	want, err := Setup(ctx, b.circuit, WithRandom(newSeeded(5)))
	if err != nil {
		t.Fatal(err)
	}
	tox, err := NewToxic(newSeeded(5))
	if err != nil {
		t.Fatal(err)
	}
	pk := &ProvingKey{}
	rec := &recordingMaker{t: t, next: (*cpuKeyMaker)(pk)}
	vk, err := SetupWith(ctx, b.circuit, &tox, rec, WithTasks(3))
	if err != nil {
		t.Fatal(err)
	}
	pk.VK = *vk
	lens := ShapeOf(b.circuit.Stats()).Lengths()
	if len(rec.calls) != 5 {
		t.Fatalf("calls %v", rec.calls)
	}
	for i, q := range rec.calls {
		if q != Query(i) || rec.lens[i] != lens[i] {
			t.Fatalf("call %d: %v of %d scalars, want %v of %d", i, q, rec.lens[i], Query(i), lens[i])
		}
	}
	var x, y bytes.Buffer
	if _, err := want.WriteTo(&x); err != nil {
		t.Fatal(err)
	}
	if _, err := pk.WriteTo(&y); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x.Bytes(), y.Bytes()) {
		t.Fatal("SetupWith's key differs from Setup's for the same toxic waste")
	}
	proof, err := Prove(ctx, pk, b.circuit, b.w)
	if err != nil {
		t.Fatal(err)
	}
	if !mustVerify(t, &pk.VK, proof, b.w.Inputs[1:]) {
		t.Fatal("the key's proof does not verify")
	}
}

// The tables handed to a KeyMaker have the documented layout.
func TestTableLayout(t *testing.T) {
	_, _, g1, g2 := bls.Generators()
	var s fr.Element
	s.SetUint64(7)
	var g bls.G1Affine
	g.ScalarMultiplication(&g1, s.BigInt(new(big.Int)))
	t1, t2 := NewG1Table(&g), NewG2Table(&g2)
	p1, p2 := t1.Points(), t2.Points()
	if len(p1) != TableWindows*TableHalf || len(p2) != TableWindows*TableHalf {
		t.Fatalf("%d and %d table points", len(p1), len(p2))
	}
	for _, c := range [][2]int{{0, 1}, {0, 2}, {3, 1}, {7, TableHalf}, {15, 12345}} {
		k, d := c[0], c[1]
		e := new(big.Int).Lsh(big.NewInt(int64(d)), uint(16*k))
		var w1 bls.G1Affine
		w1.ScalarMultiplication(&g, e)
		var w2 bls.G2Affine
		w2.ScalarMultiplication(&g2, e)
		if !p1[k*TableHalf+d-1].Equal(&w1) || !p2[k*TableHalf+d-1].Equal(&w2) {
			t.Fatalf("table point (%d, %d) is not d·2^(16k)·G", k, d)
		}
	}
}

// The column-split evaluation of the QAP at τ equals the single-job one.
func TestEvalAtTauSplit(t *testing.T) {
	b := build(t, func(cs *r1cs.System) { randomCircuit(cs, 2000, 3, 21, 22) })
	n := 1 << b.circuit.Stats().DomainLog2()
	lag := make([]fr.Element, n)
	for i := range lag {
		lag[i].SetUint64(uint64(i*i + 3))
	}
	u1, v1, w1 := evalAtTau(b.circuit, lag, 1)
	for _, tasks := range []int{2, 5, 16} {
		u, v, w := evalAtTau(b.circuit, lag, tasks)
		for i := range u {
			if !u[i].Equal(&u1[i]) || !v[i].Equal(&v1[i]) || !w[i].Equal(&w1[i]) {
				t.Fatalf("tasks %d: variable %d differs", tasks, i)
			}
		}
	}
}

// Seeded toxic waste is the same for the same seed, another for another.
func TestSeededToxic(t *testing.T) {
	a, err := SeededToxic(3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := SeededToxic(3)
	c, _ := SeededToxic(4)
	if a != b || a == c || a.Tau.IsZero() {
		t.Fatalf("seeded toxic waste: %v %v %v", a == b, a == c, a.Tau.IsZero())
	}
}

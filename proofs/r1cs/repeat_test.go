package r1cs

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// repeatPiece synthesises a small piece of circuit whose values depend on seed:
// an input, two aux and two constraints.
func repeatPiece(cs *System, seed uint64) {
	var a, b, c fr.Element
	a.SetUint64(seed)
	b.SetUint64(seed + 7)
	c.Mul(&a, &b)
	x := cs.AllocInput(c)
	va, vb := cs.Alloc(a), cs.Alloc(b)
	cs.Enforce(func(la, lb, lc *LC) { la.Add(va); lb.Add(vb); lc.Add(x) })
	cs.Enforce(func(la, lb, lc *LC) { la.Add(va); lb.Add(One); lc.Add(va) })
}

// RepeatLast gives the assignment and counts of synthesising the piece again,
// also past the storage's capacity; it refuses other modes, a forked child,
// outstanding children and a layout larger than the System.
func TestRepeatLast(t *testing.T) {
	for _, copies := range []int{0, 1, 5, 3000} {
		want := New(Witness)
		got := New(Witness, WithCapacity(4, 0))
		repeatPiece(want, 3)
		repeatPiece(got, 3)
		repeatPiece(want, 9)
		repeatPiece(got, 9)
		for range copies {
			repeatPiece(want, 9)
		}
		if err := got.RepeatLast(Layout{Inputs: 1, Aux: 2, Constraints: 2}, copies); err != nil {
			t.Fatal(err)
		}
		for _, cs := range []*System{want, got} {
			if err := cs.Finish(); err != nil {
				t.Fatal(err)
			}
		}
		wi, wa := want.Assignment()
		gi, ga := got.Assignment()
		if want.NumConstraints() != got.NumConstraints() || !equalElements(wi, gi) || !equalElements(wa, ga) {
			t.Fatalf("%d copies: %d/%d constraints, %d/%d inputs, %d/%d aux, or values differ", copies,
				got.NumConstraints(), want.NumConstraints(), len(gi), len(wi), len(ga), len(wa))
		}
	}

	for _, m := range []Mode{Count, Record, Check} {
		cs := New(m)
		repeatPiece(cs, 1)
		if err := cs.RepeatLast(Layout{Inputs: 1, Aux: 2, Constraints: 2}, 1); err == nil {
			t.Errorf("%v mode repeated", m)
		}
	}
	cs := New(Witness)
	repeatPiece(cs, 1)
	if err := cs.RepeatLast(Layout{Inputs: 1, Aux: 3, Constraints: 2}, 1); err == nil {
		t.Error("a layout with more aux than the System repeated")
	}
	if err := cs.RepeatLast(Layout{Inputs: 1, Aux: 2, Constraints: 2}, -1); err == nil {
		t.Error("-1 copies repeated")
	}
	ch, err := cs.Fork(Layout{Inputs: 1, Aux: 2, Constraints: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.RepeatLast(Layout{Aux: 1}, 1); err == nil {
		t.Error("repeated with a child outstanding")
	}
	repeatPiece(ch[0], 2)
	if err := ch[0].RepeatLast(Layout{Aux: 1}, 1); err == nil {
		t.Error("a forked child repeated")
	}
}

func equalElements(a, b []fr.Element) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

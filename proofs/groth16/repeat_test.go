package groth16

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// Repeat.Check refuses shapes that do not end the aux and blocks that differ, without
// panicking; dense counts a query's variables in each copy.
func TestRepeatCheck(t *testing.T) {
	aux := make([]fr.Element, 10)
	for i := range aux {
		aux[i].SetUint64(uint64(i % 3)) // 0 1 2 0 1 2 0 1 2 0
	}
	w := &Assignment{Aux: aux}
	for _, r := range []Repeat{{0, 3, 3}, {1, 3, 3}, {-1, 3, 3}, {1, 0, 3}, {1, 3, 1}, {1, 3, 4}, {4, 3, 2}, {1, 9, 1}} {
		want := r == Repeat{1, 3, 3} || r == Repeat{4, 3, 2}
		if err := r.Check(w); (err == nil) != want {
			t.Errorf("%+v: %v, want ok %v", r, err, want)
		}
	}
	aux[7].SetUint64(9)
	if err := (&Repeat{1, 3, 3}).Check(w); err == nil {
		t.Error("blocks that differ passed")
	}

	var d r1cs.Bitset
	d.Grow(10)
	for _, i := range []int{0, 2, 4, 5, 8} { // blocks of 3 from 1: {2} {4 5} {8}
		d.Set(i)
	}
	if _, ok := (&Repeat{1, 3, 3}).dense(7, &d); ok {
		t.Error("copies with 1, 2 and 1 variables folded")
	}
	d.Set(3) // {2 3} {4 5} {8}: the third has one
	d.Set(7) // {2 3} {4 5} {7 8}: as many, not alike
	if _, ok := (&Repeat{1, 3, 3}).dense(7, &d); ok {
		t.Error("copies with their variables at other positions folded")
	}
	var e r1cs.Bitset
	e.Grow(10)
	for _, i := range []int{0, 2, 3, 5, 6, 8, 9} { // {2 3} {5 6} {8 9}
		e.Set(i)
	}
	sp, ok := (&Repeat{1, 3, 3}).dense(7, &e)
	if want := (Span{Start: 7 + 1, Per: 2, Copies: 3}); !ok || sp != want {
		t.Errorf("dense: %+v %v, want %+v", sp, ok, want)
	}
	if _, ok := (&Repeat{1, 3, 4}).dense(7, &e); ok {
		t.Error("a repeat past the bits was mapped")
	}
}

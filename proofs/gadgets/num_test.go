package gadgets

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

func TestToBitsLE(t *testing.T) {
	rng := newRand(t)
	for _, strict := range []bool{false, true} {
		for i := range 20 {
			v := randFr(rng)
			switch i {
			case 0:
				v.SetZero()
			case 1:
				v.SetOne().Neg(&v) // r − 1
			}
			var bits []Boolean
			checkSatisfied(t, func(cs *r1cs.System) {
				n := AllocNum(cs, v)
				if strict {
					bits = n.ToBitsLEStrict(cs)
				} else {
					bits = n.ToBitsLE(cs)
				}
			})
			if len(bits) != NumBits {
				t.Fatalf("strict=%v: %d bits", strict, len(bits))
			}
			limbs := v.Bits()
			for k := range bits {
				if bits[k].Kind() != KindIs || bits[k].Value() != leBit(&limbs, k) {
					t.Fatalf("strict=%v, value %s: bit %d wrong", strict, v.String(), k)
				}
			}
			// A different number with the same bits breaks the unpacking constraint.
			checkUnsatisfied(t, func(cs *r1cs.System) {
				n := AllocNum(cs, v)
				n.Value.Add(&n.Value, &frOne) // the bits are computed from the forged value
				nn := AllocatedNum{Var: n.Var, Value: n.Value}
				if strict {
					nn.ToBitsLEStrict(cs)
				} else {
					nn.ToBitsLE(cs)
				}
			})
		}
	}
}

// ToBitsLE: 255 boolean constraints, then 0·0 = Σ 2^i b_i − n.
func TestToBitsLEConstraints(t *testing.T) {
	c := record(t, func(cs *r1cs.System) { AllocNum(cs, frOne).ToBitsLE(cs) })
	if got := c.NumConstraints - c.NumInputs; got != NumBits+1 || c.NumAux != 1+NumBits {
		t.Fatalf("%d constraints, %d aux", got, c.NumAux)
	}
	if got := renderRow(c, 0); got != "1*ONE -1*a1 | 1*a1 | " {
		t.Errorf("first bit: %s", got)
	}
	cols, vals := c.C.Row(NumBits)
	if a, _ := c.A.Row(NumBits); len(a) != 0 || len(cols) != NumBits+1 {
		t.Fatalf("unpacking row: %d A terms, %d C terms", len(a), len(cols))
	}
	want := frMinusOne
	if !c.Coeffs[vals[0]].Equal(&want) || int(cols[0]) != c.NumInputs {
		t.Errorf("unpacking: num coefficient %s", c.Coeffs[vals[0]].String())
	}
	for i := range NumBits {
		if int(cols[i+1]) != c.NumInputs+1+i || !c.Coeffs[vals[i+1]].Equal(&pow2[i]) {
			t.Fatalf("unpacking: bit %d term wrong", i)
		}
	}
}

// ToBitsLEStrict: the bits are allocated most significant first; making the
// least significant bit of r − 1 a one (the value r) breaks that bit's
// conditional boolean constraint, as bellpepper's test_into_bits_strict.
func TestToBitsLEStrictRejectsModulus(t *testing.T) {
	var m fr.Element
	m.SetOne().Neg(&m)
	build := func(cs *r1cs.System) { AllocNum(cs, m).ToBitsLEStrict(cs) }
	c := record(t, build)
	w := r1cs.New(r1cs.Witness)
	bits := AllocNum(w, m).ToBitsLEStrict(w)
	mustFinish(t, w)
	inputs, aux := w.Assignment()
	if i, _ := c.IsSatisfied(inputs, aux); i != -1 {
		t.Fatalf("r − 1 unsatisfied at %d", i)
	}
	lsb := bits[0].v.Index()
	aux[lsb] = frOne
	i, _ := c.IsSatisfied(inputs, aux)
	// The LSB is the last bit allocated; its constraint A = ONE − lastRun − b.
	cols, _ := c.A.Row(i)
	if i < 0 || len(cols) != 3 || int(cols[2]) != c.NumInputs+lsb {
		t.Fatalf("value r: first unsatisfied constraint %d (%s)", i, renderRow(c, max(i, 0)))
	}
	n, aux2 := count(build)
	t.Logf("to_bits_le_strict: %d constraints, %d aux", n, aux2)
	if aux2 != 1+NumBits+(n-1-NumBits) {
		t.Errorf("every constraint but the unpacking one allocates: %d constraints, %d aux", n, aux2)
	}
}

func TestNumOps(t *testing.T) {
	rng := newRand(t)
	x, y := randFr(rng), randFr(rng)
	var prod, sq, sum, diff fr.Element
	prod.Mul(&x, &y)
	sq.Square(&x)
	sum.Add(&x, &y)
	diff.Sub(&x, &y)
	checkSatisfied(t, func(cs *r1cs.System) {
		a, b := AllocNum(cs, x), AllocNum(cs, y)
		if p := a.Mul(cs, b); !p.Value.Equal(&prod) {
			t.Error("mul")
		}
		if s := a.Square(cs); !s.Value.Equal(&sq) {
			t.Error("square")
		}
		a.AssertNonzero(cs)
		in := a.Inputize(cs)
		if in.IsAux() || in.Index() != 1 {
			t.Error("inputize variable")
		}
		for _, cond := range []bool{false, true} {
			c, d := ConditionallyReverse(cs, a, b, Is(AllocBit(cs, cond)))
			if cond != c.Value.Equal(&y) || cond != d.Value.Equal(&x) {
				t.Error("conditionally_reverse")
			}
		}
		if s := Add(cs, a, b); !s.Value.Equal(&sum) {
			t.Error("add")
		}
		if d := Sub(cs, a, b); !d.Value.Equal(&diff) {
			t.Error("sub")
		}
		if e := Encode(cs, a, b); !e.Value.Equal(&sum) {
			t.Error("encode")
		}
		if d := Decode(cs, b, a); !d.Value.Equal(&diff) {
			t.Error("decode")
		}
		Equal(cs, a, a)
	})
	checkUnsatisfied(t, func(cs *r1cs.System) { AllocNum(cs, frZero).AssertNonzero(cs) })
	checkUnsatisfied(t, func(cs *r1cs.System) { Equal(cs, AllocNum(cs, x), AllocNum(cs, y)) })

	got := rows(t, 0, func(cs *r1cs.System) {
		a, b := AllocNum(cs, x), AllocNum(cs, y)
		a.Inputize(cs)
		a.Mul(cs, b)
		a.Square(cs)
		Equal(cs, a, b)
		Add(cs, a, b)
		Sub(cs, a, b)
		ConditionallyReverse(cs, a, b, Is(AllocBit(cs, true)).Not())
	})
	wantRows(t, "num constraints", got,
		"1*in1 | 1*ONE | 1*a0",                  // inputize
		"1*a0 | 1*a1 | 1*a2",                    // mul
		"1*a0 | 1*a0 | 1*a3",                    // square
		"1*a0 | 1*ONE | 1*a1",                   // equal
		"1*a0 1*a1 | 1*ONE | 1*a4",              // add: (a + b)·1 = res
		"1*a1 1*a5 | 1*ONE | 1*a0",              // sub: (res + b)·1 = a
		"1*ONE -1*a6 | 1*a6 | ",                 // the condition bit
		"1*a0 -1*a1 | 1*ONE -1*a6 | 1*a0 -1*a7", // (a − b)·cond = a − c
		"-1*a0 1*a1 | 1*ONE -1*a6 | 1*a1 -1*a8", // (b − a)·cond = b − d
	)
}

func TestNumLC(t *testing.T) {
	rng := newRand(t)
	x := randFr(rng)
	three := fr.NewElement(3)
	cs := r1cs.New(r1cs.Check)
	n := NumOf(AllocNum(cs, x))
	bit := Is(AllocBit(cs, true)).Not() // value false
	n.AddBoolWithCoeff(bit, &three)
	n.AddBoolWithCoeff(Constant(true), &three)
	m := Num{}
	m.AddBoolWithCoeff(Is(AllocBit(cs, true)), &frOne)
	n.Add(&m)
	n.Scale(&three)
	var want fr.Element
	want.Add(&x, &three).Add(&want, &frOne).Mul(&want, &three)
	if !n.Value.Equal(&want) {
		t.Fatalf("value %s, want %s", n.Value.String(), want.String())
	}
	_, aux := cs.Assignment()
	inputs := []fr.Element{frOne}
	if got := n.LC.Eval(inputs, aux); !got.Equal(&want) {
		t.Fatalf("LC evaluates to %s, want %s", got.String(), want.String())
	}
	var lc r1cs.LC
	n.AppendLC(&lc, &three)
	want.Mul(&want, &three)
	if got := lc.Eval(inputs, aux); !got.Equal(&want) {
		t.Fatal("AppendLC")
	}
}

// The head of to_bits_le_strict, derived by hand from num.rs and the top byte
// 0x73 and next 0xed of r − 1 (bit 255 is a leading zero, skipped): bits 254,
// 253, 252 (a1..a3), the run's AND left to right (a4, a5), bits 251 and 250
// conditional on it (a6, a7), bits 249..245 (a8..a12), their AND with the
// previous run's last (a13..a17), bit 244 conditional on that (a18).
func TestToBitsLEStrictHead(t *testing.T) {
	got := rows(t, 0, func(cs *r1cs.System) { AllocNum(cs, frOne).ToBitsLEStrict(cs) })
	wantRows(t, "strict head", got[:18],
		"1*ONE -1*a1 | 1*a1 | ", "1*ONE -1*a2 | 1*a2 | ", "1*ONE -1*a3 | 1*a3 | ",
		"1*a1 | 1*a2 | 1*a4", "1*a4 | 1*a3 | 1*a5",
		"1*ONE -1*a5 -1*a6 | 1*a6 | ", "1*ONE -1*a5 -1*a7 | 1*a7 | ",
		"1*ONE -1*a8 | 1*a8 | ", "1*ONE -1*a9 | 1*a9 | ", "1*ONE -1*a10 | 1*a10 | ",
		"1*ONE -1*a11 | 1*a11 | ", "1*ONE -1*a12 | 1*a12 | ",
		"1*a8 | 1*a9 | 1*a13", "1*a13 | 1*a10 | 1*a14", "1*a14 | 1*a11 | 1*a15",
		"1*a15 | 1*a12 | 1*a16", "1*a16 | 1*a5 | 1*a17",
		"1*ONE -1*a17 -1*a18 | 1*a18 | ")
}

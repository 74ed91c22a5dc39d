package gadgets

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/filc2/filc2/proofs/r1cs"
)

func TestAddManyWidth(t *testing.T) {
	for n, want := range map[int]int{2: 33, 3: 34, 4: 34, 5: 35, 6: 35, 7: 35, 8: 35, 9: 36, 10: 36} {
		if got := AddManyWidth(n); got != want {
			t.Errorf("AddManyWidth(%d) = %d, want %d", n, got, want)
		}
	}
}

// randWord is a UInt32 whose bits are a random mix of constants, bits and
// negated bits, with the given value.
func randWord(cs *r1cs.System, rng *rand.Rand, v uint32, constant bool) UInt32 {
	if constant {
		return UInt32Constant(v)
	}
	var u UInt32
	u.Value = v
	for i := range u.Bits {
		bit := v>>uint(i)&1 == 1
		switch rng.IntN(3) {
		case 0:
			u.Bits[i] = Constant(bit)
		case 1:
			u.Bits[i] = Is(AllocBit(cs, bit))
		default:
			u.Bits[i] = Is(AllocBit(cs, !bit)).Not()
		}
	}
	return u
}

// TestAddMany checks sums mod 2^32 for 2..10 operands, the result width
// allocated, one MultiEq equality per addition, and satisfaction.
func TestAddMany(t *testing.T) {
	rng := newRand(t)
	for range 200 {
		n := 2 + rng.IntN(9)
		allConst := rng.IntN(8) == 0
		cs := r1cs.New(r1cs.Check)
		me := NewMultiEq(cs)
		ops := make([]UInt32, n)
		ptrs := make([]*UInt32, n)
		var want uint32
		for i := range ops {
			v := rng.Uint32()
			if rng.IntN(4) == 0 {
				v = 0xffffffff
			}
			ops[i] = randWord(cs, rng, v, allConst)
			ptrs[i] = &ops[i]
			want += v
		}
		a0, c0 := cs.NumAux(), cs.NumConstraints()
		r := AddMany(me, ptrs...)
		me.Close()
		if r.Value != want || UInt32FromBits(r.Bits[:]).Value != want {
			t.Fatalf("%d operands: %08x (bits %08x), want %08x", n, r.Value, UInt32FromBits(r.Bits[:]).Value, want)
		}
		allocated, constraints := cs.NumAux()-a0, cs.NumConstraints()-c0
		switch {
		case allConst:
			if allocated != 0 || constraints != 0 || !r.Bits[0].IsConstant() {
				t.Fatalf("constant addition allocated %d, enforced %d", allocated, constraints)
			}
		case allocated != AddManyWidth(n) || constraints != AddManyWidth(n)+1:
			t.Fatalf("%d operands: %d bits and %d constraints, want %d and %d",
				n, allocated, constraints, AddManyWidth(n), AddManyWidth(n)+1)
		}
		mustFinish(t, cs)
	}
	// A forged operand value breaks the MultiEq constraint.
	checkUnsatisfied(t, func(cs *r1cs.System) {
		me := NewMultiEq(cs)
		x, y := AllocUInt32(cs, 5), AllocUInt32(cs, 7)
		x.Value = 6
		AddMany(me, &x, &y)
		me.Close()
	})
}

// TestMultiEqFlushRule exercises the flush rule at its edges: a flush happens
// before an equality that would bring the bits used to Capacity (254) or more,
// so 253 bits fit in one constraint and 254 do not; Close flushes the rest.
func TestMultiEqFlushRule(t *testing.T) {
	cases := []struct {
		widths  []int
		flushes int
	}{
		{[]int{200, 53}, 1},      // 253 < 254: one constraint at Close
		{[]int{200, 54}, 2},      // 254: flush before the second
		{[]int{253}, 1},          // the widest equality that fits
		{[]int{100, 100, 54}, 2}, // 254 again
		{[]int{34, 34, 34, 34, 34, 34, 34, 34}, 2},
		{nil, 0},
	}
	for _, tc := range cases {
		cs := r1cs.New(r1cs.Check)
		me := NewMultiEq(cs)
		for _, w := range tc.widths {
			// lhs = rhs = a w-bit value in one aux each.
			v := AllocNum(cs, pow2[w-1])
			me.EnforceEqual(w, r1cs.LC{{Var: v.Var, Coeff: frOne}}, r1cs.LC{{Var: v.Var, Coeff: frOne}})
		}
		before := cs.NumConstraints()
		me.Close()
		me.Close() // a second Close adds nothing
		if me.Flushes() != tc.flushes || me.BitsUsed() != 0 {
			t.Errorf("%v: %d flushes, %d bits left, want %d", tc.widths, me.Flushes(), me.BitsUsed(), tc.flushes)
		}
		if len(tc.widths) > 0 && cs.NumConstraints()-before != 1 {
			t.Errorf("%v: Close enforced %d constraints", tc.widths, cs.NumConstraints()-before)
		}
		mustFinish(t, cs)
	}
	// The packed constraint: lhs_k scaled by 2^{bits before k}.
	got := rows(t, 0, func(cs *r1cs.System) {
		me := NewMultiEq(cs)
		x, y := AllocNum(cs, frOne), AllocNum(cs, frOne)
		me.EnforceEqual(3, r1cs.LC{{Var: x.Var, Coeff: frOne}}, r1cs.LC{{Var: y.Var, Coeff: frOne}})
		me.EnforceEqual(5, r1cs.LC{{Var: y.Var, Coeff: frOne}}, r1cs.LC{{Var: x.Var, Coeff: frOne}})
		me.Close()
	})
	wantRows(t, "multieq", got, "1*a0 8*a1 | 1*ONE | 8*a0 1*a1")
}

// The addmany constraint: bits of the operands (constant true as ONE, a
// negated bit as ONE − bit) against the result bits, inside the MultiEq.
func TestAddManyConstraint(t *testing.T) {
	c := record(t, func(cs *r1cs.System) {
		me := NewMultiEq(cs)
		x := UInt32Constant(3)
		x.Bits[1] = Is(AllocBit(cs, false)).Not() // value still 3
		y := UInt32Constant(1)
		AddMany(me, &x, &y)
		me.Close()
	})
	// aux: a0 the bit, a1..a33 the result bits; the last circuit row is the
	// MultiEq: (1 + 2·(1 − a0) + 1)·ONE = Σ 2^i a_{1+i}.
	row := c.NumConstraints - c.NumInputs - 1
	colsA, valsA := c.A.Row(row)
	if len(colsA) != 2 || coeffString(&c.Coeffs[valsA[0]]) != "4" || coeffString(&c.Coeffs[valsA[1]]) != "-2" {
		t.Errorf("lhs: %s", renderRow(c, row))
	}
	colsC, valsC := c.C.Row(row)
	if len(colsC) != 33 {
		t.Fatalf("rhs has %d terms", len(colsC))
	}
	for i := range colsC {
		if int(colsC[i]) != c.NumInputs+1+i || !c.Coeffs[valsC[i]].Equal(&pow2[i]) {
			t.Fatalf("rhs term %d wrong: %s", i, renderRow(c, row))
		}
	}
}

func TestUInt32Bits(t *testing.T) {
	rng := newRand(t)
	cs := r1cs.New(r1cs.Check)
	for range 100 {
		v := rng.Uint32()
		u := randWord(cs, rng, v, false)
		be := u.IntoBitsBE()
		if UInt32FromBitsBE(be[:]).Value != v || len(u.AppendBitsBE(nil)) != 32 {
			t.Fatal("from/into bits BE")
		}
		for i := range 32 {
			if be[i] != u.Bits[31-i] || u.AppendBitsBE(nil)[i] != be[i] {
				t.Fatal("bit order BE")
			}
		}
		by := rng.IntN(40)
		r, s := u.Rotr(by), u.Shr(by)
		if r.Value != bits.RotateLeft32(v, -(by%32)) || UInt32FromBits(r.Bits[:]).Value != r.Value {
			t.Fatal("rotr")
		}
		if s.Value != v>>uint(by%32) || UInt32FromBits(s.Bits[:]).Value != s.Value {
			t.Fatal("shr")
		}
		w, x := randWord(cs, rng, rng.Uint32(), false), randWord(cs, rng, rng.Uint32(), false)
		xr := u.Xor(cs, &w)
		ch := UInt32SHA256Ch(cs, &u, &w, &x)
		maj := UInt32SHA256Maj(cs, &u, &w, &x)
		if xr.Value != v^w.Value || UInt32FromBits(xr.Bits[:]).Value != xr.Value {
			t.Fatal("xor")
		}
		if want := (v & w.Value) ^ (^v & x.Value); ch.Value != want || UInt32FromBits(ch.Bits[:]).Value != want {
			t.Fatal("ch")
		}
		if want := (v & w.Value) ^ (v & x.Value) ^ (w.Value & x.Value); maj.Value != want || UInt32FromBits(maj.Bits[:]).Value != want {
			t.Fatal("maj")
		}
		a := AllocUInt32(cs, v)
		if UInt32FromBits(a.Bits[:]).Value != v || a.Bits[5].Kind() != KindIs {
			t.Fatal("alloc")
		}
	}
	mustFinish(t, cs)
}

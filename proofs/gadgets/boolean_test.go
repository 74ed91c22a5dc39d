package gadgets

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// renderRow writes constraint row of c as "A | B | C", each LC as sorted
// terms "coeff*var" with var ONE, inN or aN and coeff a small signed integer.
func renderRow(c *r1cs.Circuit, row int) string {
	parts := make([]string, 3)
	for k, m := range c.Matrices() {
		cols, vals := m.Row(row)
		terms := make([]string, len(cols))
		for j, col := range cols {
			name := fmt.Sprintf("a%d", int(col)-c.NumInputs)
			if int(col) < c.NumInputs {
				name = fmt.Sprintf("in%d", col)
				if col == 0 {
					name = "ONE"
				}
			}
			terms[j] = coeffString(&c.Coeffs[vals[j]]) + "*" + name
		}
		parts[k] = strings.Join(terms, " ")
	}
	return strings.Join(parts, " | ")
}

// coeffString renders a coefficient as a signed integer when it is small.
func coeffString(e *fr.Element) string {
	var b big.Int
	e.BigInt(&b)
	half := new(big.Int).Rsh(fr.Modulus(), 1)
	if b.Cmp(half) > 0 {
		b.Sub(&b, fr.Modulus())
	}
	return b.String()
}

// rows records build and returns its constraints from index `from` on,
// without the trailing input constraints.
func rows(t *testing.T, from int, build func(cs *r1cs.System)) []string {
	t.Helper()
	c := record(t, build)
	var out []string
	for i := from; i < c.NumConstraints-c.NumInputs; i++ {
		out = append(out, renderRow(c, i))
	}
	return out
}

func wantRows(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// The exact linear combinations of bellpepper-core boolean.rs, operand order
// included (A and B are not interchangeable in the canonical digest).
func TestAllocatedBitConstraints(t *testing.T) {
	wantRows(t, "alloc", rows(t, 0, func(cs *r1cs.System) { AllocBit(cs, true) }),
		"1*ONE -1*a0 | 1*a0 | ")
	wantRows(t, "alloc_conditionally", rows(t, 1, func(cs *r1cs.System) {
		AllocBitConditionally(cs, false, AllocBit(cs, false))
	}), "1*ONE -1*a0 -1*a1 | 1*a1 | ")
	two := func(op func(cs *r1cs.System, x, y AllocatedBit)) func(cs *r1cs.System) {
		return func(cs *r1cs.System) { op(cs, AllocBit(cs, true), AllocBit(cs, false)) }
	}
	wantRows(t, "xor", rows(t, 2, two(func(cs *r1cs.System, x, y AllocatedBit) { XorBits(cs, x, y) })),
		"2*a0 | 1*a1 | 1*a0 1*a1 -1*a2")
	wantRows(t, "and", rows(t, 2, two(func(cs *r1cs.System, x, y AllocatedBit) { AndBits(cs, x, y) })),
		"1*a0 | 1*a1 | 1*a2")
	wantRows(t, "and_not", rows(t, 2, two(func(cs *r1cs.System, x, y AllocatedBit) { AndNotBits(cs, x, y) })),
		"1*a0 | 1*ONE -1*a1 | 1*a2")
	wantRows(t, "nor", rows(t, 2, two(func(cs *r1cs.System, x, y AllocatedBit) { NorBits(cs, x, y) })),
		"1*ONE -1*a0 | 1*ONE -1*a1 | 1*a2")
}

// Boolean::xor and Boolean::and on non-constant operands: which AllocatedBit
// operation runs, with which operand first.
func TestBooleanOperandOrder(t *testing.T) {
	type op func(cs *r1cs.System, a, b Boolean) Boolean
	cases := []struct {
		name   string
		f      op
		ka, kb BooleanKind
		want   string
		negRes bool
	}{
		{"xor Is,Is", Xor, KindIs, KindIs, "2*a0 | 1*a1 | 1*a0 1*a1 -1*a2", false},
		{"xor Not,Not", Xor, KindNot, KindNot, "2*a0 | 1*a1 | 1*a0 1*a1 -1*a2", false},
		{"xor Is,Not", Xor, KindIs, KindNot, "2*a0 | 1*a1 | 1*a0 1*a1 -1*a2", true},
		{"xor Not,Is", Xor, KindNot, KindIs, "2*a1 | 1*a0 | 1*a0 1*a1 -1*a2", true},
		{"and Is,Is", And, KindIs, KindIs, "1*a0 | 1*a1 | 1*a2", false},
		{"and Is,Not", And, KindIs, KindNot, "1*a0 | 1*ONE -1*a1 | 1*a2", false},
		{"and Not,Is", And, KindNot, KindIs, "1*a1 | 1*ONE -1*a0 | 1*a2", false},
		{"and Not,Not", And, KindNot, KindNot, "1*ONE -1*a0 | 1*ONE -1*a1 | 1*a2", false},
	}
	for _, tc := range cases {
		var res Boolean
		got := rows(t, 2, func(cs *r1cs.System) {
			a, b := Is(AllocBit(cs, false)), Is(AllocBit(cs, true))
			if tc.ka == KindNot {
				a = a.Not()
			}
			if tc.kb == KindNot {
				b = b.Not()
			}
			res = tc.f(cs, a, b)
		})
		wantRows(t, tc.name, got, tc.want)
		if (res.Kind() == KindNot) != tc.negRes {
			t.Errorf("%s: result kind %v", tc.name, res.Kind())
		}
	}
}

// booleanCases are the six Boolean shapes: constants, bits, negated bits.
func booleanCases(cs *r1cs.System) []Boolean {
	return []Boolean{
		Constant(false), Constant(true),
		Is(AllocBit(cs, false)), Is(AllocBit(cs, true)),
		Is(AllocBit(cs, false)).Not(), Is(AllocBit(cs, true)).Not(),
	}
}

// modelCost is porep_counts.py's constraint model of Xor/And/Ch/Maj, an
// independent statement of the constant-folding branches.
func modelCost(op string, xs ...Boolean) int {
	c := func(b Boolean, v bool) bool { return b.IsConstant() && b.Value() == v }
	anyConst := func(bs ...Boolean) bool {
		for _, b := range bs {
			if b.IsConstant() {
				return true
			}
		}
		return false
	}
	and := func(a, b Boolean) int {
		if anyConst(a, b) {
			return 0
		}
		return 1
	}
	a, b := xs[0], xs[1]
	switch op {
	case "xor", "and":
		return and(a, b)
	case "ch":
		cc := xs[2]
		switch {
		case a.IsConstant() && b.IsConstant() && cc.IsConstant(), c(a, false):
			return 0
		case c(b, false):
			return and(a, cc)
		case c(cc, false), c(cc, true):
			return and(a, b)
		case c(b, true):
			return and(a, cc)
		}
		return 1
	case "maj":
		cc := xs[2]
		switch {
		case a.IsConstant() && b.IsConstant() && cc.IsConstant():
			return 0
		case c(a, false):
			return and(b, cc)
		case c(b, false):
			return and(a, cc)
		case c(cc, false), c(cc, true):
			return and(a, b)
		case c(b, true):
			return and(a, cc)
		case c(a, true):
			return and(b, cc)
		}
		return 2
	}
	panic(op)
}

// Truth tables of every Boolean operation over all shapes of its operands:
// the value, the constraint count of the folding model, and satisfaction.
func TestBooleanTruthTables(t *testing.T) {
	n := len(booleanCases(r1cs.New(r1cs.Count)))
	for i := range n {
		for j := range n {
			for k := range n {
				for _, op := range []string{"xor", "and", "ch", "maj"} {
					if (op == "xor" || op == "and") && k > 0 {
						continue
					}
					var res Boolean
					var a, b, c Boolean
					var before int
					cs := r1cs.New(r1cs.Check)
					bs := booleanCases(cs)
					a, b, c = bs[i], bs[j], bs[k]
					before = cs.NumConstraints()
					switch op {
					case "xor":
						res = Xor(cs, a, b)
					case "and":
						res = And(cs, a, b)
					case "ch":
						res = SHA256Ch(cs, a, b, c)
					case "maj":
						res = SHA256Maj(cs, a, b, c)
					}
					got := cs.NumConstraints() - before
					mustFinish(t, cs)
					av, bv, cv := a.Value(), b.Value(), c.Value()
					var want bool
					switch op {
					case "xor":
						want = av != bv
					case "and":
						want = av && bv
					case "ch":
						want = (av && bv) != (!av && cv)
					case "maj":
						want = (av && bv) != (av && cv) != (bv && cv)
					}
					name := fmt.Sprintf("%s(%d,%d,%d)", op, i, j, k)
					if res.Value() != want {
						t.Errorf("%s = %v, want %v", name, res.Value(), want)
					}
					if m := modelCost(op, a, b, c); got != m {
						t.Errorf("%s: %d constraints, model %d", name, got, m)
					}
					if bit, ok := res.Bit(); ok && (res.Kind() == KindNot) == (bit.Value == res.Value()) {
						t.Errorf("%s: bit value %v inconsistent with %v of kind %v", name, bit.Value, res.Value(), res.Kind())
					}
				}
			}
		}
	}
}

// The general sha256_ch and sha256_maj constraints, with negated operands so
// that every ONE term shows.
func TestSHA256ChMajConstraints(t *testing.T) {
	// ch: a = ¬a0, b = a1, c = ¬a2: A = b − c = a1 + a2 − ONE, B = a = ONE − a0,
	// C = ch − c = a3 + a2 − ONE.
	wantRows(t, "ch", rows(t, 3, func(cs *r1cs.System) {
		a, b, c := Is(AllocBit(cs, true)).Not(), Is(AllocBit(cs, true)), Is(AllocBit(cs, false)).Not()
		SHA256Ch(cs, a, b, c)
	}), "-1*ONE 1*a1 1*a2 | 1*ONE -1*a0 | -1*ONE 1*a2 1*a3")
	// ch with a constant true: B = ONE.
	wantRows(t, "ch a=true", rows(t, 2, func(cs *r1cs.System) {
		SHA256Ch(cs, Constant(true), Is(AllocBit(cs, true)), Is(AllocBit(cs, false)))
	}), "1*a0 -1*a1 | 1*ONE | -1*a1 1*a2")
	// maj: a = a0, b = ¬a1, c = a2. maj is a3, then bc = And(¬a1, a2) =
	// AndNot(a2, a1) is a4; then (2bc − b − c)·a = bc − maj.
	wantRows(t, "maj", rows(t, 3, func(cs *r1cs.System) {
		a, b, c := Is(AllocBit(cs, true)), Is(AllocBit(cs, false)).Not(), Is(AllocBit(cs, true))
		SHA256Maj(cs, a, b, c)
	}), "1*a2 | 1*ONE -1*a1 | 1*a4", "-1*ONE 1*a1 -1*a2 2*a4 | 1*a0 | -1*a3 1*a4")
}

func TestEnforceEqualBooleans(t *testing.T) {
	got := rows(t, 2, func(cs *r1cs.System) {
		x, y := Is(AllocBit(cs, true)), Is(AllocBit(cs, true)).Not()
		for _, p := range [][2]Boolean{{Constant(true), x}, {y, Constant(true)}, {Constant(false), y}, {x, y}} {
			if err := EnforceEqualBooleans(cs, p[0], p[1]); err != nil {
				t.Fatal(err)
			}
		}
	})
	wantRows(t, "enforce_equal", got,
		" |  | 1*ONE -1*a0", " |  | 1*a1", " |  | 1*ONE -1*a1", " |  | -1*ONE 1*a0 1*a1")
	if err := EnforceEqualBooleans(r1cs.New(r1cs.Count), Constant(true), Constant(false)); err != ErrUnsatisfiable {
		t.Errorf("true = false: %v", err)
	}
	checkSatisfied(t, func(cs *r1cs.System) {
		x := Is(AllocBit(cs, true))
		_ = EnforceEqualBooleans(cs, x, Constant(true))
		_ = EnforceEqualBooleans(cs, x.Not(), Constant(false))
	})
	checkUnsatisfied(t, func(cs *r1cs.System) {
		_ = EnforceEqualBooleans(cs, Is(AllocBit(cs, true)), Constant(false))
	})
}

// A Boolean whose claimed value disagrees with its bit is caught by Check mode.
func TestBooleanCorruption(t *testing.T) {
	checkUnsatisfied(t, func(cs *r1cs.System) {
		x := AllocBit(cs, true)
		y := AllocBit(cs, false)
		x.Value = false // forged
		XorBits(cs, x, y)
	})
	checkUnsatisfied(t, func(cs *r1cs.System) {
		bs := booleanCases(cs)
		a, b, c := bs[2], bs[5], bs[3]
		a.value = !a.value
		SHA256Maj(cs, a, b, c)
	})
}

// Every folding branch of sha256_ch and sha256_maj that still enforces a
// constraint, with its exact operands (x = a0, y = a1, result a2).
func TestSHA256ChMajFoldedConstraints(t *testing.T) {
	F, T := Constant(false), Constant(true)
	const (
		and    = "1*a0 | 1*a1 | 1*a2"
		andNot = "1*a0 | 1*ONE -1*a1 | 1*a2"
		notAnd = "1*a1 | 1*ONE -1*a0 | 1*a2" // AndNot(y, x)
		nor    = "1*ONE -1*a0 | 1*ONE -1*a1 | 1*a2"
	)
	type ops func(x, y Boolean) (Boolean, Boolean, Boolean)
	cases := []struct {
		name string
		ch   bool
		args ops
		want string
	}{
		{"ch b=false", true, func(x, y Boolean) (Boolean, Boolean, Boolean) { return x, F, y }, notAnd},
		{"ch c=false", true, func(x, y Boolean) (Boolean, Boolean, Boolean) { return x, y, F }, and},
		{"ch c=true", true, func(x, y Boolean) (Boolean, Boolean, Boolean) { return x, y, T }, andNot},
		{"ch b=true", true, func(x, y Boolean) (Boolean, Boolean, Boolean) { return x, T, y }, nor},
		{"maj a=false", false, func(x, y Boolean) (Boolean, Boolean, Boolean) { return F, x, y }, and},
		{"maj b=false", false, func(x, y Boolean) (Boolean, Boolean, Boolean) { return x, F, y }, and},
		{"maj c=false", false, func(x, y Boolean) (Boolean, Boolean, Boolean) { return x, y, F }, and},
		{"maj c=true", false, func(x, y Boolean) (Boolean, Boolean, Boolean) { return x, y, T }, nor},
		{"maj b=true", false, func(x, y Boolean) (Boolean, Boolean, Boolean) { return x, T, y }, nor},
		{"maj a=true", false, func(x, y Boolean) (Boolean, Boolean, Boolean) { return T, x, y }, nor},
	}
	for _, tc := range cases {
		got := rows(t, 2, func(cs *r1cs.System) {
			a, b, c := tc.args(Is(AllocBit(cs, true)), Is(AllocBit(cs, false)))
			if tc.ch {
				SHA256Ch(cs, a, b, c)
			} else {
				SHA256Maj(cs, a, b, c)
			}
		})
		wantRows(t, tc.name, got, tc.want)
	}
}

package r1cs

import (
	"bytes"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// piece is a constraint-rich piece of circuit for the recording tests: k aux,
// one input, coefficients from c on (new ones per piece, some shared), terms in
// A, B and C on the prefix's variables, the piece's own and inputs.
func piece(cs *System, x Variable, c uint64, k int) {
	co := func(d uint64) *fr.Element { e := fr.NewElement(c + d); return &e }
	two := fr.NewElement(2)
	cur := x
	for j := range k {
		n := cs.Alloc(fr.NewElement(uint64(j)))
		prev := cur
		cs.Enforce(func(a, b, cc *LC) {
			a.AddTerm(co(uint64(j)), prev)
			a.AddTerm(&two, x)
			b.Add(One)
			b.AddTerm(co(7), InputVar(1))
			cc.AddTerm(co(1), n)
		})
		cur = n
	}
	in := cs.AllocInput(fr.NewElement(c))
	cs.Enforce(func(a, b, cc *LC) { a.Add(cur); b.AddTerm(co(3), in); cc.Add(x) })
}

// twoPieces is one block: two pieces, each its own coefficients.
func twoPieces(cs *System, x Variable, i int) {
	piece(cs, x, uint64(100*i), 3+i)
	piece(cs, x, uint64(100*i+50), 2)
}

func recordSequential(t *testing.T, m Mode, n int) *System {
	t.Helper()
	cs := New(m)
	x, _ := prefix(cs)
	for i := range n {
		twoPieces(cs, x, i)
	}
	cs.Alloc(fr.NewElement(5))
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
	return cs
}

// recordForked synthesises the same blocks in children; child 1 forks its two
// pieces in turn, and the parent allocates after the blocks while they run.
func recordForked(t *testing.T, m Mode, n int) *System {
	t.Helper()
	cs := New(m)
	x, _ := prefix(cs)
	var layouts []Layout
	for i := range n {
		l, err := cs.Measure(func(s *System) error { twoPieces(s, x, i); return nil })
		if err != nil {
			t.Fatal(err)
		}
		layouts = append(layouts, l)
	}
	children, err := cs.Fork(layouts...)
	if err != nil {
		t.Fatal(err)
	}
	wait := synthesise(children, func(i int, ch *System) {
		if i != 1 {
			twoPieces(ch, x, i)
			return
		}
		var ls []Layout
		for k, c := range []uint64{100, 150} {
			l, _ := ch.Measure(func(s *System) error { piece(s, x, c, []int{4, 2}[k]); return nil })
			ls = append(ls, l)
		}
		grand, err := ch.Fork(ls...)
		if err != nil {
			t.Error(err)
			return
		}
		synthesise(grand, func(k int, g *System) { piece(g, x, []uint64{100, 150}[k], []int{4, 2}[k]) })()
		if err := ch.Join(grand...); err != nil {
			t.Error(err)
		}
	})
	cs.Alloc(fr.NewElement(5)) // after the blocks, while they run
	wait()
	if err := cs.Join(children...); err != nil {
		t.Fatal(err)
	}
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
	return cs
}

func pceBytes(t *testing.T, cs *System) []byte {
	t.Helper()
	c, err := cs.Circuit()
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A forked recording is the sequential one byte for byte (matrices, coefficient
// table in first-seen order, densities); forked counting gives the same Stats.
func TestForkRecordEqualsSequential(t *testing.T) {
	const n = 6
	want := pceBytes(t, recordSequential(t, Record, n))
	got := pceBytes(t, recordForked(t, Record, n))
	if !bytes.Equal(got, want) {
		t.Fatalf("forked recording differs from the sequential one (%d and %d bytes)", len(got), len(want))
	}
	if s, w := recordForked(t, Count, n).Stats(), recordSequential(t, Count, n).Stats(); s != w {
		t.Fatalf("forked count %+v, sequential %+v", s, w)
	}
	c, _ := recordSequential(t, Record, n).Circuit()
	if len(c.Coeffs) < 2*n+3 {
		t.Fatalf("only %d coefficients: the test does not exercise the table's merge", len(c.Coeffs))
	}
}

// Record mode keeps rows in order: the parent may not enforce while children
// are outstanding, and children join in fork order.
func TestForkRecordOrder(t *testing.T) {
	// two forks two one-constraint children, each synthesised, after the prefix.
	two := func(m Mode) (*System, Variable, []*System) {
		cs := New(m)
		x, _ := prefix(cs)
		ch, err := cs.Fork(Layout{Aux: 1, Constraints: 1}, Layout{Aux: 1, Constraints: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range ch {
			v := c.Alloc(fr.NewElement(1))
			c.Enforce(func(a, b, cc *LC) { a.Add(v); b.Add(x); cc.Add(v) })
		}
		return cs, x, ch
	}
	cs, x, _ := two(Record)
	cs.Enforce(func(a, _, _ *LC) { a.Add(x) })
	if cs.err == nil || !strings.Contains(cs.err.Error(), "outstanding") {
		t.Fatalf("parent enforced with children outstanding: %v", cs.err)
	}
	cs, _, ch := two(Record)
	if err := cs.Join(ch[1]); err == nil || !strings.Contains(err.Error(), "out of order") {
		t.Fatalf("out-of-order Join: %v", err)
	}
	// Count mode has no rows: any order goes.
	cs, x, ch = two(Count)
	cs.Enforce(func(a, _, _ *LC) { a.Add(x) })
	if err := cs.Join(ch[1], ch[0]); err != nil {
		t.Fatal(err)
	}
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
	if s := cs.Stats(); s.AAuxDensity != 3 || s.BAuxDensity != 1 || s.Constraints != 4+s.Inputs {
		t.Fatalf("stats %+v", s)
	}
}

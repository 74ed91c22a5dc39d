package r1cs

import (
	"strings"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// block is a piece of a circuit that refers to a variable allocated before it:
// k aux chained from x (x·x, then ·x…), one input, and one constraint per aux.
func block(cs *System, x Variable, xv fr.Element, k int) {
	cur, cv := x, xv
	for range k {
		var nv fr.Element
		nv.Mul(&cv, &xv)
		n := cs.Alloc(nv)
		prev := cur
		cs.Enforce(func(a, b, c *LC) { a.Add(prev); b.Add(x); c.Add(n) })
		cur, cv = n, nv
	}
	in := cs.AllocInput(cv)
	cs.Enforce(func(a, b, c *LC) { a.Add(cur); b.Add(One); c.Add(in) })
}

// prefix allocates what every block refers to.
func prefix(cs *System) (Variable, fr.Element) {
	xv := fr.NewElement(3)
	x := cs.Alloc(xv)
	cs.AllocInput(fr.NewElement(11))
	cs.Enforce(func(a, b, c *LC) { a.Add(x); b.Add(One); c.Add(x) })
	return x, xv
}

func sizes() []int { return []int{5, 1, 8, 3} }

// sequential synthesises the prefix and the blocks in order into a new System.
func sequential(t *testing.T, m Mode) *System {
	t.Helper()
	cs := New(m)
	x, xv := prefix(cs)
	for _, k := range sizes() {
		block(cs, x, xv, k)
	}
	cs.Alloc(fr.NewElement(99)) // after the blocks
	return cs
}

// forked synthesises the same circuit with each block in a child,
// concurrently. With room in storage, the parent allocates its last aux while
// the children run; without, after they are joined (storage may move again).
func forked(t *testing.T, opts ...Option) *System {
	t.Helper()
	cs := New(Witness, opts...)
	room := len(opts) > 0
	x, xv := prefix(cs)
	var layouts []Layout
	for _, k := range sizes() {
		l, err := cs.Measure(func(m *System) error { block(m, x, xv, k); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if want := (Layout{Inputs: 1, Aux: k, Constraints: k + 1}); l != want {
			t.Fatalf("Measure: %v, want %v", l, want)
		}
		layouts = append(layouts, l)
	}
	if cs.NumAux() != 1 || cs.NumInputs() != 2 || cs.NumConstraints() != 1 {
		t.Fatalf("Measure changed the System: %v", cs.layout())
	}
	children, err := cs.Fork(layouts...)
	if err != nil {
		t.Fatal(err)
	}
	wait := synthesise(children, func(i int, ch *System) { block(ch, x, xv, sizes()[i]) })
	if room {
		cs.Alloc(fr.NewElement(99)) // concurrently with the children, after their blocks
	}
	wait()
	if err := cs.Join(children...); err != nil {
		t.Fatal(err)
	}
	if !room {
		cs.Alloc(fr.NewElement(99))
	}
	return cs
}

// synthesise runs f on every child, each on a goroutine of its own, and returns
// the wait for them all.
func synthesise(children []*System, f func(i int, ch *System)) (wait func()) {
	var wg sync.WaitGroup
	for i, ch := range children {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(i, ch)
		}()
	}
	return wg.Wait
}

func sameValues(t *testing.T, a, b *System) {
	t.Helper()
	ai, aa := a.Assignment()
	bi, ba := b.Assignment()
	if len(ai) != len(bi) || len(aa) != len(ba) {
		t.Fatalf("%d inputs, %d aux; want %d, %d", len(bi), len(ba), len(ai), len(aa))
	}
	for i := range ai {
		if !ai[i].Equal(&bi[i]) {
			t.Fatalf("input %d differs", i)
		}
	}
	for i := range aa {
		if !aa[i].Equal(&ba[i]) {
			t.Fatalf("aux %d differs", i)
		}
	}
}

// Forked children write the sequential assignment in place, with the
// sequential counts; the assignment satisfies the recorded circuit.
func TestForkEqualsSequential(t *testing.T) {
	want := sequential(t, Witness)
	if err := want.Finish(); err != nil {
		t.Fatal(err)
	}
	rec := sequential(t, Record)
	if err := rec.Finish(); err != nil {
		t.Fatal(err)
	}
	c, err := rec.Circuit()
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]Option{nil, {WithCapacity(1000, 0)}} {
		got := forked(t, opts...)
		if err := got.Finish(); err != nil {
			t.Fatal(err)
		}
		if got.Stats() != want.Stats() {
			t.Fatalf("stats %+v, want %+v", got.Stats(), want.Stats())
		}
		sameValues(t, want, got)
		in, aux := got.Assignment()
		if bad, err := c.IsSatisfied(in, aux); err != nil || bad >= 0 {
			t.Fatalf("forked assignment: constraint %d unsatisfied (%v)", bad, err)
		}
	}
}

// A child numbers its variables as the sequential System would and may refer
// to its parent's; a child can fork in turn.
func TestForkVariablesAndNesting(t *testing.T) {
	cs := New(Witness, WithCapacity(6, 0))
	x, xv := prefix(cs) // input 1, aux 0
	ch, err := cs.Fork(Layout{Inputs: 2, Aux: 4, Constraints: 2})
	if err != nil {
		t.Fatal(err)
	}
	if v := ch[0].Alloc(xv); v != AuxVar(1) {
		t.Fatalf("child's first aux is %v, want aux1", v)
	}
	if v := ch[0].AllocInput(xv); v != InputVar(2) {
		t.Fatalf("child's first input is %v, want input2", v)
	}
	if v := cs.Alloc(xv); v != AuxVar(5) {
		t.Fatalf("parent's aux after the fork is %v, want aux5", v)
	}
	grand, err := ch[0].Fork(Layout{Inputs: 1, Aux: 2, Constraints: 1}, Layout{Aux: 1, Constraints: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v := grand[1].Alloc(xv); v != AuxVar(4) {
		t.Fatalf("second grandchild's aux is %v, want aux4", v)
	}
	grand[1].Enforce(func(a, _, _ *LC) { a.Add(x) })
	block(grand[0], x, xv, 2)
	grand[0].constraints -= 2 // block enforces 3; pretend it enforced the reserved 1
	if err := ch[0].Join(grand...); err != nil {
		t.Fatal(err)
	}
	if err := ch[0].Join(grand...); err == nil || !strings.Contains(err.Error(), "already joined") {
		t.Fatalf("second Join: %v", err)
	}
	ch[0].err = nil // the double Join above was recorded
	if err := cs.Join(ch...); err != nil {
		t.Fatal(err)
	}
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
	if s := cs.Stats(); s.Aux != 6 || s.Inputs != 4 {
		t.Fatalf("stats %+v", s)
	}
}

// Check mode and Count mode with a digest cannot fork (both follow the
// sequential order); a child has its parent's mode.
func TestForkModes(t *testing.T) {
	for _, cs := range []*System{New(Check), New(Count, WithDigest(Header{NumInputs: 1}, 16))} {
		if ch, err := cs.Fork(Layout{Aux: 1}); err == nil || ch != nil || !strings.Contains(err.Error(), "Witness, Record or Count") {
			t.Errorf("%v: Fork gave %v, %v", cs.Mode(), ch, err)
		}
		if cs.err != nil {
			t.Errorf("%v: the refused Fork broke the System: %v", cs.Mode(), cs.err)
		}
	}
	for _, m := range []Mode{Count, Record} {
		cs := New(m)
		ch, err := cs.Fork(Layout{Aux: 1})
		if err != nil {
			t.Fatal(err)
		}
		if ch[0].Mode() != m || !ch[0].Constraining() {
			t.Errorf("%v: child mode %v", m, ch[0].Mode())
		}
		ch[0].Alloc(fr.NewElement(1))
		if err := cs.Join(ch...); err != nil {
			t.Fatal(err)
		}
		if err := cs.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	cs := New(Witness)
	ch, err := cs.Fork(Layout{Aux: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ch[0].Mode() != Witness || ch[0].Constraining() {
		t.Fatalf("child mode %v", ch[0].Mode())
	}
	if _, err := cs.Fork(Layout{Aux: -1}); err == nil {
		t.Error("negative layout accepted")
	}
	fin := New(Witness)
	fin.Finish()
	if _, err := fin.Fork(Layout{Aux: 1}); err == nil {
		t.Error("Fork after Finish accepted")
	}
}

// Join checks every child against its reservation, and the parent records
// the failure.
func TestJoinChecksChildren(t *testing.T) {
	v := fr.NewElement(1)
	cases := []struct {
		name string
		run  func(ch *System)
		want string
	}{
		{"short", func(ch *System) { ch.Alloc(v) }, "synthesised"},
		{"long", func(ch *System) { ch.Alloc(v); ch.Alloc(v); ch.Alloc(v) }, "more aux than the 2 reserved"},
		{"extra input", func(ch *System) { ch.Alloc(v); ch.Alloc(v); ch.AllocInput(v) }, "more inputs"},
		{"constraints", func(ch *System) { ch.Alloc(v); ch.Alloc(v); ch.Enforce(func(_, _, _ *LC) {}) }, "synthesised"},
		{"finished", func(ch *System) { ch.Alloc(v); ch.Alloc(v); ch.Finish() }, "Finish of a forked child"},
		{"grandchild not joined", func(ch *System) { ch.Fork(Layout{Aux: 2}) }, "not joined"},
	}
	for _, tc := range cases {
		cs := New(Witness)
		ch, err := cs.Fork(Layout{Aux: 2})
		if err != nil {
			t.Fatal(err)
		}
		tc.run(ch[0])
		if err := cs.Join(ch...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Join: %v, want %q", tc.name, err, tc.want)
		}
		if err := cs.Finish(); err == nil {
			t.Errorf("%s: Finish after a failed Join succeeded", tc.name)
		}
	}
	a, b := New(Witness), New(Witness)
	ch, _ := a.Fork(Layout{})
	if err := b.Join(ch...); err == nil || !strings.Contains(err.Error(), "not forked from") {
		t.Errorf("Join into another System: %v", err)
	}
	if err := a.Finish(); err == nil || !strings.Contains(err.Error(), "not joined") {
		t.Errorf("Finish with an outstanding child: %v", err)
	}
	if err := a.Join(ch...); err != nil {
		t.Fatal(err)
	}
	ch[0].Alloc(v)
	if ch[0].err == nil {
		t.Error("a joined child accepted an allocation")
	}
}

// While children are outstanding the parent's storage cannot move: a full
// parent reports an error instead of reallocating under them.
func TestForkPinsStorage(t *testing.T) {
	v := fr.NewElement(1)
	cs := New(Witness, WithCapacity(4, 0))
	cs.Alloc(v)
	ch, err := cs.Fork(Layout{Aux: 2})
	if err != nil {
		t.Fatal(err)
	}
	cs.Alloc(v) // the last free slot
	if _, err := cs.Fork(Layout{Aux: 1}); err == nil || !strings.Contains(err.Error(), "outstanding") {
		t.Fatalf("Fork past the capacity with a child outstanding: %v", err)
	}
	cs.Alloc(v)
	if cs.err == nil || !strings.Contains(cs.err.Error(), "outstanding") {
		t.Fatalf("allocation past the capacity with a child outstanding: %v", cs.err)
	}
	ch[0].Alloc(v)
	ch[0].Alloc(v)
	cs.Join(ch...)
	if err := cs.Finish(); err == nil {
		t.Fatal("Finish hid the storage error")
	}

	// Without outstanding children, Fork grows the storage as needed.
	cs = New(Witness)
	if _, aux := cs.Assignment(); cap(aux) != 0 {
		t.Fatalf("fresh System has aux capacity %d", cap(aux))
	}
	ch, err = cs.Fork(Layout{Aux: 1000, Inputs: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, aux := cs.Assignment(); len(aux) != 1000 {
		t.Fatalf("reserved aux %d", len(aux))
	}
}

// WithStorage recycles an earlier assignment's arrays.
func TestWithStorage(t *testing.T) {
	old := sequential(t, Witness)
	old.Finish()
	oi, oa := old.Assignment()
	for i := range oa {
		oa[i] = fr.NewElement(12345) // stale contents must be overwritten
	}
	got := forked(t, WithStorage(oi, oa), WithCapacity(len(oa), 0))
	if err := got.Finish(); err != nil {
		t.Fatal(err)
	}
	_, ga := got.Assignment()
	if &ga[0] != &oa[0] {
		t.Error("the aux storage was not reused")
	}
	want := sequential(t, Witness)
	want.Finish()
	sameValues(t, want, got)
}

// Witness mode counts the constraints a gadget skipped building; the other
// modes refuse SkipConstraints.
func TestSkipConstraints(t *testing.T) {
	cs := New(Witness)
	cs.SkipConstraints(7)
	if cs.NumConstraints() != 7 {
		t.Fatalf("%d constraints", cs.NumConstraints())
	}
	for _, m := range []Mode{Count, Record, Check} {
		cs := New(m)
		cs.SkipConstraints(1)
		if err := cs.Finish(); err == nil {
			t.Errorf("%v: SkipConstraints accepted", m)
		}
	}
}

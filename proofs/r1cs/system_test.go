package r1cs

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// cubic synthesises x³ + x + 5 = y with y public: the classic small circuit.
func cubic(cs *System, x uint64) {
	var xv, x2v, x3v, yv, five fr.Element
	xv.SetUint64(x)
	x2v.Square(&xv)
	x3v.Mul(&x2v, &xv)
	five.SetUint64(5)
	yv.Add(&x3v, &xv).Add(&yv, &five)

	xs := cs.Alloc(xv)
	x2 := cs.Alloc(x2v)
	cs.Enforce(func(a, b, c *LC) { a.Add(xs); b.Add(xs); c.Add(x2) })
	x3 := cs.Alloc(x3v)
	cs.Enforce(func(a, b, c *LC) { a.Add(x2); b.Add(xs); c.Add(x3) })
	y := cs.AllocInput(yv)
	cs.Enforce(func(a, b, c *LC) {
		a.Add(x3)
		a.Add(xs)
		a.AddConst(&five)
		b.Add(One)
		c.Add(y)
	})
}

func TestCubicModes(t *testing.T) {
	for _, m := range []Mode{Count, Record, Witness, Check} {
		cs := New(m)
		cubic(cs, 3)
		if err := cs.Finish(); err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		s := cs.Stats()
		if s.Constraints != 5 || s.Inputs != 2 || s.Aux != 3 {
			t.Errorf("%v: stats %+v", m, s)
		}
		if m != Witness && (s.AAuxDensity != 3 || s.BInputDensity != 1 || s.BAuxDensity != 1) {
			t.Errorf("%v: densities %+v", m, s)
		}
	}
}

func TestCheckReportsFirstFailure(t *testing.T) {
	cs := New(Check)
	cubic(cs, 3)
	bad := cs.Alloc(fr.NewElement(7))
	cs.Push("outer")
	cs.Pushf("bit %d", 4)
	cs.Enforce(func(a, b, c *LC) { a.Add(bad); b.Add(bad); c.Add(bad) }) // 49 ≠ 7
	cs.Pop()
	cs.Pop()
	cs.Enforce(func(a, b, c *LC) { a.Add(bad); b.Add(bad); c.Add(One) }) // also false
	err := cs.Finish()
	var ue *UnsatisfiedError
	if !errors.As(err, &ue) || ue.Index != 3 || ue.Path != "outer/bit 4" {
		t.Fatalf("got %v", err)
	}
}

func TestNormalizeMergesAndDrops(t *testing.T) {
	two, three := fr.NewElement(2), fr.NewElement(3)
	var lc LC
	lc.AddTerm(&three, AuxVar(5))
	lc.Add(InputVar(1))
	lc.AddTerm(&two, AuxVar(5))
	lc.Sub(InputVar(1)) // cancels
	lc.Add(AuxVar(2))
	lc.Add(One)
	got := normalize(lc)
	five := fr.NewElement(5)
	want := LC{{One, frOne}, {AuxVar(2), frOne}, {AuxVar(5), five}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].Var != want[i].Var || !got[i].Coeff.Equal(&want[i].Coeff) {
			t.Fatalf("term %d: got %v", i, got[i])
		}
	}
	// A long unsorted LC takes the other sort path.
	var long LC
	for i := 40; i > 0; i-- {
		long.Add(AuxVar(i % 20))
	}
	got = normalize(long)
	if len(got) != 20 || !got[0].Coeff.Equal(&two) {
		t.Fatalf("long: %d terms, first %v", len(got), got[0])
	}
	for i := 1; i < len(got); i++ {
		if got[i].Var <= got[i-1].Var {
			t.Fatal("not sorted")
		}
	}
}

// The RecordingCS bug of prior-art §3: aux columns must be placed after the
// final input count even when inputs are allocated after aux was used.
func TestRecordRemapsAuxAfterLateInputs(t *testing.T) {
	cs := New(Record)
	a0 := cs.Alloc(fr.NewElement(1))
	cs.Enforce(func(a, b, c *LC) { a.Add(a0); b.Add(One); c.Add(a0) })
	in1 := cs.AllocInput(fr.NewElement(1))
	in2 := cs.AllocInput(fr.NewElement(1))
	cs.Enforce(func(a, b, c *LC) { a.Add(in2); a.Add(a0); b.Add(in1); c.Add(a0) })
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
	c, err := cs.Circuit()
	if err != nil {
		t.Fatal(err)
	}
	if c.NumInputs != 3 || c.NumAux != 1 || c.NumConstraints != 5 {
		t.Fatalf("shape %+v", c.Header())
	}
	cols, _ := c.A.Row(0)
	if len(cols) != 1 || cols[0] != 3 {
		t.Fatalf("row 0 A cols %v, want [3]", cols)
	}
	cols, _ = c.A.Row(1)
	if len(cols) != 2 || cols[0] != 2 || cols[1] != 3 {
		t.Fatalf("row 1 A cols %v, want [2 3]", cols)
	}
	for i := 0; i < 3; i++ { // trailing input constraints
		cols, vals := c.A.Row(2 + i)
		bc, _ := c.B.Row(2 + i)
		cc, _ := c.C.Row(2 + i)
		if len(cols) != 1 || cols[0] != uint32(i) || vals[0] != 0 || len(bc) != 0 || len(cc) != 0 {
			t.Fatalf("input constraint %d: %v %v %v %v", i, cols, vals, bc, cc)
		}
	}
}

func recordCubic(t *testing.T) *Circuit {
	t.Helper()
	cs := New(Record)
	cubic(cs, 3)
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
	c, err := cs.Circuit()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEvalAndSatisfied(t *testing.T) {
	c := recordCubic(t)
	w := New(Witness)
	cubic(w, 3)
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	inputs, aux := w.Assignment()
	if i, err := c.IsSatisfied(inputs, aux); err != nil || i != -1 {
		t.Fatalf("satisfied: %d %v", i, err)
	}
	aux[2].SetUint64(10)
	if i, _ := c.IsSatisfied(inputs, aux); i != 1 {
		t.Fatalf("first unsatisfied = %d, want 1", i)
	}
	if err := c.Eval(inputs[:1], aux, nil, nil, nil, 1); err == nil {
		t.Fatal("short assignment accepted")
	}
}

func TestDigestStreamedEqualsRecorded(t *testing.T) {
	c := recordCubic(t)
	cs := New(Count, WithDigest(c.Header(), 2))
	cubic(cs, 5)
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
	got, err := cs.Digest()
	if err != nil {
		t.Fatal(err)
	}
	want := c.Digest(2)
	if got.Sum != want.Sum || len(got.Chunks) != 3 || len(want.Chunks) != 3 || got.Chunks[2] != want.Chunks[2] {
		t.Fatalf("streamed %x (%d chunks), recorded %x (%d chunks)", got.Sum, len(got.Chunks), want.Sum, len(want.Chunks))
	}
	wrong := New(Count, WithDigest(Header{NumInputs: 2, NumAux: 3, NumConstraints: 6}, 0))
	cubic(wrong, 5)
	if err := wrong.Finish(); err == nil {
		t.Fatal("wrong header accepted")
	}
}

func TestPCERoundTrip(t *testing.T) {
	c := recordCubic(t)
	path := filepath.Join(t.TempDir(), "c.pce")
	if err := WritePCE(path, c); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPCE(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Digest(0).Sum != c.Digest(0).Sum || !got.AAux.Equal(&c.AAux) || !got.BAux.Equal(&c.BAux) || !got.BInput.Equal(&c.BInput) {
		t.Fatal("round trip changed the circuit")
	}
}

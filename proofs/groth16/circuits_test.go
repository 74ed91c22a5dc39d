package groth16

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// cubic synthesises x³ + x + 5 = y with y public.
func cubic(cs *r1cs.System, x uint64) {
	var xv, x2v, x3v, yv, five fr.Element
	xv.SetUint64(x)
	x2v.Square(&xv)
	x3v.Mul(&x2v, &xv)
	five.SetUint64(5)
	yv.Add(&x3v, &xv).Add(&yv, &five)
	xs := cs.Alloc(xv)
	x2 := cs.Alloc(x2v)
	cs.Enforce(func(a, b, c *r1cs.LC) { a.Add(xs); b.Add(xs); c.Add(x2) })
	x3 := cs.Alloc(x3v)
	cs.Enforce(func(a, b, c *r1cs.LC) { a.Add(x2); b.Add(xs); c.Add(x3) })
	y := cs.AllocInput(yv)
	cs.Enforce(func(a, b, c *r1cs.LC) { a.Add(x3); a.Add(xs); a.AddConst(&five); b.Add(r1cs.One); c.Add(y) })
}

// randomCircuit synthesises a satisfiable random R1CS of about n constraints:
// each constraint multiplies two random sparse LCs over earlier variables and
// allocates the aux that makes it hold. Inputs are allocated along the way; most
// aux values are 0 or 1, as in a real witness. The structure depends on seed
// only; values also on vseed.
func randomCircuit(cs *r1cs.System, n, inputs int, seed, vseed uint64) {
	rs := rand.New(rand.NewPCG(seed, 1))  // structure
	rv := rand.New(rand.NewPCG(vseed, 2)) // values
	type v struct {
		id  r1cs.Variable
		val fr.Element
	}
	vars := []v{{r1cs.One, fr.One()}}
	randVal := func() fr.Element {
		var e fr.Element
		switch rv.IntN(4) {
		case 0:
		case 1, 2:
			e.SetOne()
		default:
			e.SetUint64(rv.Uint64())
			e.Square(&e)
		}
		return e
	}
	for i := 0; i < 8; i++ {
		val := randVal()
		x := cs.Alloc(val)
		vars = append(vars, v{x, val})
		cs.Enforce(func(a, b, c *r1cs.LC) { a.Add(x); b.Add(r1cs.One); c.Add(x) })
	}
	randLC := func(lc *r1cs.LC) fr.Element {
		var acc fr.Element
		for k := 0; k < 1+rs.IntN(3); k++ {
			x := vars[rs.IntN(len(vars))]
			var c fr.Element
			c.SetInt64(int64(rs.IntN(7)) - 3)
			if c.IsZero() {
				c.SetOne()
			}
			lc.AddTerm(&c, x.id)
			var t fr.Element
			t.Mul(&c, &x.val)
			acc.Add(&acc, &t)
		}
		return acc
	}
	perInput := max(n/max(inputs, 1), 1)
	for i := 0; i < n; i++ {
		if inputs > 0 && i%perInput == perInput/2 && cs.NumInputs() <= inputs {
			val := randVal()
			vars = append(vars, v{cs.AllocInput(val), val})
		}
		// Structure and values are drawn before Enforce, whose builder does not run
		// in Witness mode.
		var la, lb, lt r1cs.LC
		av, bv := randLC(&la), randLC(&lb)
		tv := randLC(&lt)
		var zv fr.Element
		zv.Mul(&av, &bv).Sub(&zv, &tv)
		z := cs.Alloc(zv)
		vars = append(vars, v{z, zv})
		cs.Enforce(func(a, b, c *r1cs.LC) { a.AddLC(la); b.AddLC(lb); c.Add(z); c.AddLC(lt) })
	}
}

type built struct {
	circuit *r1cs.Circuit
	w       *Assignment
}

func build(t testing.TB, synth func(*r1cs.System)) built {
	t.Helper()
	rec := r1cs.New(r1cs.Record)
	synth(rec)
	if err := rec.Finish(); err != nil {
		t.Fatal(err)
	}
	c, err := rec.Circuit()
	if err != nil {
		t.Fatal(err)
	}
	wit := r1cs.New(r1cs.Check)
	synth(wit)
	if err := wit.Finish(); err != nil {
		t.Fatal(err)
	}
	in, aux := wit.Assignment()
	return built{c, &Assignment{Inputs: in, Aux: aux}}
}

package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// Num is an allocated variable together with its value (meaningful in Witness
// and Check modes), the gadget's input and output type.
type Num struct {
	Var r1cs.Variable
	Val fr.Element
}

// GadgetConstraints is the number of constraints, and of aux variables, that one
// HashCircuit call adds: 3a + 4·t·(RF − 1) + 4·RP + 1 for arity a, width t.
func (c *Constants) GadgetConstraints() int {
	return 3*c.arity + 4*c.width*(FullRounds-1) + 4*c.rp + 1
}

// HashCircuit synthesises the MerkleTree Poseidon hash of the allocated inputs
// (len = c.Arity()) with exactly the R1CS of neptune's legacy poseidon_hash
// gadget, and returns the allocated digest. Each of its c.GadgetConstraints()
// constraints allocates one aux just before it is enforced; the element linear
// combinations between S-boxes are never constrained on their own.
func HashCircuit(cs *r1cs.System, c *Constants, inputs []Num) (Num, error) {
	return HashCircuitTagged(cs, c, c.merkleTag, inputs)
}

// HashCircuitTagged is HashCircuit with the domain tag tag (HashTagged): the
// same gadget, whose tag enters only as a constant of its first round, so
// its constraints and aux are as many as HashCircuit's.
func HashCircuitTagged(cs *r1cs.System, c *Constants, tag fr.Element, inputs []Num) (Num, error) {
	if len(inputs) != c.arity {
		return Num{}, fmt.Errorf("poseidon: %d circuit inputs for arity %d", len(inputs), c.arity)
	}
	g := c.getRun()
	defer c.putRun(g)
	*g = gadgetRun{cs: cs, inputs: inputs, tag: tag}
	if cs.Constraining() {
		g.shape = c.gadgetShapeFor(tag)
		g.check = cs.Mode() == r1cs.Check
		g.aux = make([]r1cs.Variable, 0, len(g.shape.rows))
	}
	out := g.run(c)
	if g.shape != nil && g.n != len(g.shape.rows) {
		panic(fmt.Sprintf("poseidon: gadget allocated %d aux for a template of %d constraints", g.n, len(g.shape.rows)))
	}
	if g.shape == nil {
		cs.SkipConstraints(g.n) // one constraint per aux, none built
	}
	return out, nil
}

// gadgetRun is one HashCircuit call: it walks the optimised permutation on the
// witness values, allocating each intermediate value in the gadget's order and,
// when the System is constraining, replaying the template row of that aux.
type gadgetRun struct {
	cs     *r1cs.System // nil: record the values into trace instead
	inputs []Num
	tag    fr.Element   // the domain tag, element 0 of the state
	shape  *gadgetShape // nil in Witness mode
	check  bool
	aux    []r1cs.Variable // the gadget's aux so far (constraining modes)
	n      int             // aux allocated so far
	trace  []fr.Element    // with cs nil, the values of the aux in order
	t      int             // the width
	s, tmp [maxWidth]fr.Element
	inBuf  [maxWidth]Num // Trace's inputs
}

func (g *gadgetRun) run(c *Constants) Num {
	g.t = c.width
	walkGadget(c, g.tag, g)
	out := Num{Val: dot(c.mixM[g.t:2*g.t], g.s[:g.t])}
	out.Var = g.emit(&out.Val)
	return out
}

// getRun returns a gadgetRun from c's pool: walkGadget takes it as an
// interface, so a gadgetRun on the stack would escape to the heap at every
// hash.
func (c *Constants) getRun() *gadgetRun {
	if g, ok := c.runs.Get().(*gadgetRun); ok {
		return g
	}
	return new(gadgetRun)
}

// putRun returns g to c's pool without what it refers to: a pooled run must
// not keep a System (and its witness, gigabytes) reachable.
func (c *Constants) putRun(g *gadgetRun) {
	g.cs, g.inputs, g.shape, g.aux, g.trace = nil, nil, nil, nil, nil
	c.runs.Put(g)
}

// constant sets element 0 to k0.
func (g *gadgetRun) constant(k0 fr.Element) { g.s[0] = k0 }

// sboxPreAdd allocates (x + pre)², its square and (x + pre)^5 + post for
// input i.
func (g *gadgetRun) sboxPreAdd(i int, pre, post *fr.Element) {
	var u, l2, l4 fr.Element
	u.Add(&g.inputs[i-1].Val, pre)
	l2.Square(&u)
	g.emit(&l2)
	l4.Square(&l2)
	g.emit(&l4)
	x := &g.s[i]
	x.Mul(&l4, &u)
	x.Add(x, post)
	g.emit(x)
}

// sbox allocates v = x (ensure_allocated), v², v⁴ and v⁵ + key for element
// i, leaving the last in it.
func (g *gadgetRun) sbox(i, _ int, key *fr.Element) {
	x := &g.s[i]
	g.emit(x)
	var l2, l4 fr.Element
	l2.Square(x)
	g.emit(&l2)
	l4.Square(&l2)
	g.emit(&l4)
	x.Mul(x, &l4)
	if key != nil {
		x.Add(x, key)
	}
	g.emit(x)
}

func (g *gadgetRun) mulDense(mt []fr.Element) { mulDense(g.s[:g.t], mt, g.tmp[:g.t]) }
func (g *gadgetRun) mulSparse(w []fr.Element) { mulSparse(g.s[:g.t], w) }

// emit allocates the gadget's next aux with value v and enforces its constraint.
func (g *gadgetRun) emit(v *fr.Element) r1cs.Variable {
	if g.cs == nil {
		g.trace[g.n] = *v
		g.n++
		return 0
	}
	x := g.cs.Alloc(*v)
	if g.shape != nil {
		g.aux = append(g.aux, x)
		row := &g.shape.rows[g.n]
		if g.check {
			g.cs.Push(row.name)
		}
		g.cs.Enforce(func(a, b, c *r1cs.LC) {
			g.fill(a, row.a)
			g.fill(b, row.b)
			g.fill(c, row.c)
		})
		if g.check {
			g.cs.Pop()
		}
	}
	g.n++
	return x
}

// fill appends the template combination l with its slots resolved.
func (g *gadgetRun) fill(dst *r1cs.LC, l lin) {
	for i := range l {
		dst.AddTerm(&l[i].c, g.variable(l[i].s))
	}
}

func (g *gadgetRun) variable(s slot) r1cs.Variable {
	switch {
	case s == slotOne:
		return r1cs.One
	case int(s) <= len(g.inputs):
		return g.inputs[s-1].Var
	}
	return g.aux[int(s)-len(g.inputs)-1]
}

// Trace writes to trace (len c.GadgetConstraints()) the values HashCircuit
// allocates for inputs, in its order, and returns the hash: the witness of
// one gadget call computed apart from any System, for ReplayCircuit.
func (c *Constants) Trace(trace, inputs []fr.Element) fr.Element {
	if len(inputs) != c.arity || len(trace) != c.GadgetConstraints() {
		panic(fmt.Sprintf("poseidon: a trace of %d values of %d inputs, arity %d wants %d and %d", len(trace), len(inputs), c.arity, c.GadgetConstraints(), c.arity))
	}
	g := c.getRun()
	defer c.putRun(g)
	*g = gadgetRun{tag: c.merkleTag, trace: trace}
	for i := range inputs {
		g.inBuf[i].Val = inputs[i]
	}
	g.inputs = g.inBuf[:c.arity]
	return g.run(c).Val
}

// ReplayCircuit is HashCircuit in Witness mode from a trace (Trace or
// Batch.HashTrace of the same inputs): it allocates the trace's values as
// HashCircuit would compute them, without computing. Other modes build
// constraints, which a trace does not hold: they are refused.
func ReplayCircuit(cs *r1cs.System, c *Constants, trace []fr.Element) (Num, error) {
	if cs.Constraining() {
		return Num{}, fmt.Errorf("poseidon: a traced hash replayed in %v mode (Witness only)", cs.Mode())
	}
	if len(trace) != c.GadgetConstraints() {
		return Num{}, fmt.Errorf("poseidon: a trace of %d values, arity %d allocates %d", len(trace), c.arity, c.GadgetConstraints())
	}
	var out Num
	for i := range trace {
		out.Var = cs.Alloc(trace[i])
	}
	out.Val = trace[len(trace)-1]
	cs.SkipConstraints(len(trace))
	return out, nil
}

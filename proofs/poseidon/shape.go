package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// The gadget's constraints do not depend on the witness, so each arity's are
// derived once, symbolically, by following neptune's legacy circuit (circuit.rs
// poseidon_hash) step by step, and then replayed by HashCircuit for every call.
// A template refers to variables by slot: 0 is ONE, 1..arity the caller's
// inputs, arity+1+k the gadget's k-th aux. Every constraint allocates exactly
// one aux just before it is enforced, so row k is the constraint of aux k.

type slot uint32

const slotOne slot = 0

// shapeTerm is one coefficient·slot of a template linear combination.
type shapeTerm struct {
	s slot
	c fr.Element
}

// lin is a linear combination over slots, sorted by slot, without zero
// coefficients: the canonical form bellpepper's merged LCs reduce to.
type lin []shapeTerm

func linOf(s slot) lin {
	return lin{{s: s, c: fr.One()}}
}

func linConst(c fr.Element) lin {
	if c.IsZero() {
		return nil
	}
	return lin{{s: slotOne, c: c}}
}

// addScaled returns a + f·b.
func addScaled(a lin, f *fr.Element, b lin) lin {
	out := make(lin, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var t shapeTerm
		switch {
		case j == len(b) || (i < len(a) && a[i].s < b[j].s):
			t = a[i]
			i++
		case i == len(a) || b[j].s < a[i].s:
			t.s = b[j].s
			t.c.Mul(&b[j].c, f)
			j++
		default:
			t.s = a[i].s
			t.c.Mul(&b[j].c, f)
			t.c.Add(&t.c, &a[i].c)
			i++
			j++
		}
		if !t.c.IsZero() {
			out = append(out, t)
		}
	}
	return out
}

// shapeRow is one constraint A·B = C of the template.
type shapeRow struct {
	name    string // namespace reported by Check mode
	a, b, c lin
}

// gadgetShape is the constraint template of one HashCircuit call.
type gadgetShape struct {
	rows []shapeRow
}

// gadgetShape returns the arity's MerkleTree gadget template, built on first use.
func (c *Constants) gadgetShape() *gadgetShape {
	c.gadgetOnce.Do(func() { c.gadget = buildShape(c, c.merkleTag) })
	return c.gadget
}

// gadgetShapeFor returns the template for domain tag tag, built on first use
// and kept (a circuit uses one or two tags).
func (c *Constants) gadgetShapeFor(tag fr.Element) *gadgetShape {
	if tag == c.merkleTag {
		return c.gadgetShape()
	}
	if sh, ok := c.tagShapes.Load(tag); ok {
		return sh.(*gadgetShape)
	}
	sh, _ := c.tagShapes.LoadOrStore(tag, buildShape(c, tag))
	return sh.(*gadgetShape)
}

// shapeElt is one state element during synthesis: an allocated slot, or a
// linear combination not yet allocated (neptune's Elt::Allocated / Elt::Num).
type shapeElt struct {
	lc        lin
	allocated bool
	s         slot
}

type shapeBuilder struct {
	c    *Constants
	rows []shapeRow
	elts []shapeElt
}

// alloc returns the slot of the next gadget aux.
func (b *shapeBuilder) alloc() slot { return slot(b.c.arity + 1 + len(b.rows)) }

func (b *shapeBuilder) enforce(name string, la, lb, lc lin) {
	b.rows = append(b.rows, shapeRow{name: name, a: la, b: lb, c: lc})
}

// ensureAllocated is neptune's Elt::ensure_allocated: a linear combination gets
// an aux v and the constraint lc·ONE = v.
func (b *shapeBuilder) ensureAllocated(e shapeElt, name string) slot {
	if e.allocated {
		return e.s
	}
	v := b.alloc()
	b.enforce(name, e.lc, linOf(slotOne), linOf(v))
	return v
}

// sbox is neptune's quintic_s_box: l = ensure_allocated(e), l2 = l·l, l4 = l2·l2,
// l5 with l·l4 = l5 − key (C = l5 when there is no key).
func (b *shapeBuilder) sbox(i int, r int, key *fr.Element) {
	where := fmt.Sprintf("r%d/sbox%d", r, i)
	l := b.ensureAllocated(b.elts[i], "ensure_allocated/"+where)
	l2 := b.alloc()
	b.enforce("square/"+where+"/l2", linOf(l), linOf(l), linOf(l2))
	l4 := b.alloc()
	b.enforce("square/"+where+"/l4", linOf(l2), linOf(l2), linOf(l4))
	l5 := b.alloc()
	cl := linOf(l5)
	if key != nil {
		var neg fr.Element
		neg.Neg(key)
		cl = addScaled(cl, &neg, linOf(slotOne))
	}
	b.enforce("mul_sum/"+where+"/l5", linOf(l), linOf(l4), cl)
	b.elts[i] = shapeElt{lc: linOf(l5), allocated: true, s: l5}
}

// constant sets element 0 to the constant k0.
func (b *shapeBuilder) constant(k0 fr.Element) { b.elts[0] = shapeElt{lc: linConst(k0)} }

// sboxPreAdd is round 0's quintic_s_box_pre_add on an allocated input x:
// (x + pre)² = l2, l2² = l4, (x + pre)·l4 = l5 − post.
func (b *shapeBuilder) sboxPreAdd(i int, pre, post *fr.Element) {
	where := fmt.Sprintf("r0/sbox%d", i)
	x := b.ensureAllocated(b.elts[i], "ensure_allocated/"+where)
	xk := addScaled(linOf(x), pre, linOf(slotOne))
	l2 := b.alloc()
	b.enforce("square_sum/"+where+"/l2", xk, xk, linOf(l2))
	l4 := b.alloc()
	b.enforce("square/"+where+"/l4", linOf(l2), linOf(l2), linOf(l4))
	l5 := b.alloc()
	var neg fr.Element
	neg.Neg(post)
	b.enforce("mul_sum/"+where+"/l5", xk, linOf(l4), addScaled(linOf(l5), &neg, linOf(slotOne)))
	b.elts[i] = shapeElt{lc: linOf(l5), allocated: true, s: l5}
}

// mulDense replaces the elements by elements·P, P given transposed (mt row j
// yields new[j]); the results are linear combinations.
func (b *shapeBuilder) mulDense(mt []fr.Element) {
	t := len(b.elts)
	next := make([]shapeElt, t)
	for j := range t {
		var acc lin
		for i := range t {
			acc = addScaled(acc, &mt[j*t+i], b.elts[i].lc)
		}
		next[j] = shapeElt{lc: acc}
	}
	b.elts = next
}

// mulSparse replaces the elements by elements·M″ for the sparse factor w.
func (b *shapeBuilder) mulSparse(w []fr.Element) {
	t := len(b.elts)
	wHat, vRest := w[:t], w[t:2*t-1]
	next := make([]shapeElt, t)
	var acc lin
	for i := range t {
		acc = addScaled(acc, &wHat[i], b.elts[i].lc)
	}
	next[0] = shapeElt{lc: acc}
	for j := 1; j < t; j++ {
		next[j] = shapeElt{lc: addScaled(b.elts[j].lc, &vRest[j-1], b.elts[0].lc)}
	}
	b.elts = next
}

// buildShape synthesises the legacy gadget symbolically for domain tag tag.
func buildShape(c *Constants, tag fr.Element) *gadgetShape {
	t := c.width
	b := &shapeBuilder{c: c, elts: make([]shapeElt, t)}

	for i := 1; i < t; i++ {
		s := slot(i)
		b.elts[i] = shapeElt{lc: linOf(s), allocated: true, s: s}
	}
	walkGadget(c, tag, b)
	b.mulDense(c.mixM)
	b.ensureAllocated(b.elts[1], "ensure_allocated/out")

	return &gadgetShape{rows: b.rows}
}

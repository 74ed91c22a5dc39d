package gadgets

import (
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// AllocatedBit is an aux variable constrained to be 0 or 1 (bellpepper-core
// boolean.rs AllocatedBit).
type AllocatedBit struct {
	Var   r1cs.Variable
	Value bool
}

// AllocBit allocates a bit with the boolean constraint (1 − b)·b = 0, as
// A = ONE − b, B = b, C = 0.
func AllocBit(cs *r1cs.System, value bool) AllocatedBit {
	v := cs.Alloc(bitElem(value))
	cs.Enforce(func(a, b, _ *r1cs.LC) {
		a.Add(r1cs.One)
		a.Sub(v)
		b.Add(v)
	})
	return AllocatedBit{Var: v, Value: value}
}

// AllocBitConditionally allocates a bit that must be false when mustBeFalse is
// true: (1 − mustBeFalse − b)·b = 0, as A = ONE − mustBeFalse − b, B = b, C = 0
// (bellpepper's alloc_conditionally, used by ToBitsLEStrict).
func AllocBitConditionally(cs *r1cs.System, value bool, mustBeFalse AllocatedBit) AllocatedBit {
	v := cs.Alloc(bitElem(value))
	cs.Enforce(func(a, b, _ *r1cs.LC) {
		a.Add(r1cs.One)
		a.Sub(mustBeFalse.Var)
		a.Sub(v)
		b.Add(v)
	})
	return AllocatedBit{Var: v, Value: value}
}

// XorBits allocates a ⊕ b with the constraint (a + a)·b = a + b − c.
func XorBits(cs *r1cs.System, x, y AllocatedBit) AllocatedBit {
	val := x.Value != y.Value
	r := cs.Alloc(bitElem(val))
	cs.Enforce(func(a, b, c *r1cs.LC) {
		a.Add(x.Var)
		a.Add(x.Var)
		b.Add(y.Var)
		c.Add(x.Var)
		c.Add(y.Var)
		c.Sub(r)
	})
	return AllocatedBit{Var: r, Value: val}
}

// AndBits allocates a ∧ b with the constraint a·b = c.
func AndBits(cs *r1cs.System, x, y AllocatedBit) AllocatedBit {
	val := x.Value && y.Value
	r := cs.Alloc(bitElem(val))
	cs.Enforce(func(a, b, c *r1cs.LC) {
		a.Add(x.Var)
		b.Add(y.Var)
		c.Add(r)
	})
	return AllocatedBit{Var: r, Value: val}
}

// AndNotBits allocates a ∧ ¬b with the constraint a·(1 − b) = c.
func AndNotBits(cs *r1cs.System, x, y AllocatedBit) AllocatedBit {
	val := x.Value && !y.Value
	r := cs.Alloc(bitElem(val))
	cs.Enforce(func(a, b, c *r1cs.LC) {
		a.Add(x.Var)
		b.Add(r1cs.One)
		b.Sub(y.Var)
		c.Add(r)
	})
	return AllocatedBit{Var: r, Value: val}
}

// NorBits allocates ¬a ∧ ¬b with the constraint (1 − a)·(1 − b) = c.
func NorBits(cs *r1cs.System, x, y AllocatedBit) AllocatedBit {
	val := !x.Value && !y.Value
	r := cs.Alloc(bitElem(val))
	cs.Enforce(func(a, b, c *r1cs.LC) {
		a.Add(r1cs.One)
		a.Sub(x.Var)
		b.Add(r1cs.One)
		b.Sub(y.Var)
		c.Add(r)
	})
	return AllocatedBit{Var: r, Value: val}
}

// BooleanKind says what a Boolean is: a constant, an allocated bit, or the
// negation of an allocated bit.
type BooleanKind uint8

const (
	// KindConstant is Boolean::Constant: no variable.
	KindConstant BooleanKind = iota
	// KindIs is Boolean::Is: the bit itself.
	KindIs
	// KindNot is Boolean::Not: the negation of the bit.
	KindNot
)

// Boolean is a constant or a (possibly negated) view of an AllocatedBit
// (bellpepper-core boolean.rs Boolean). It is 8 bytes and passed by value.
type Boolean struct {
	v     r1cs.Variable // the underlying bit (KindIs, KindNot)
	value bool          // the Boolean's own value (for KindNot: the negated bit)
	kind  BooleanKind
}

// Constant is Boolean::Constant(b).
func Constant(b bool) Boolean { return Boolean{value: b, kind: KindConstant} }

// Is is Boolean::Is(bit).
func Is(bit AllocatedBit) Boolean { return Boolean{v: bit.Var, value: bit.Value, kind: KindIs} }

// Kind reports whether b is a constant, a bit or a negated bit.
func (b Boolean) Kind() BooleanKind { return b.kind }

// IsConstant reports whether b is Boolean::Constant.
func (b Boolean) IsConstant() bool { return b.kind == KindConstant }

// Value is the Boolean's value (negated for KindNot).
func (b Boolean) Value() bool { return b.value }

// Bit returns the underlying AllocatedBit (with the bit's own value) of a
// KindIs or KindNot Boolean; ok is false for a constant.
func (b Boolean) Bit() (bit AllocatedBit, ok bool) {
	switch b.kind {
	case KindIs:
		return AllocatedBit{Var: b.v, Value: b.value}, true
	case KindNot:
		return AllocatedBit{Var: b.v, Value: !b.value}, true
	}
	return AllocatedBit{}, false
}

// Not is Boolean::not: the negated interpretation, no constraint.
func (b Boolean) Not() Boolean {
	switch b.kind {
	case KindIs:
		b.kind = KindNot
	case KindNot:
		b.kind = KindIs
	}
	b.value = !b.value
	return b
}

func (b Boolean) bit() AllocatedBit {
	if b.kind == KindNot {
		return AllocatedBit{Var: b.v, Value: !b.value}
	}
	return AllocatedBit{Var: b.v, Value: b.value}
}

// AppendLC appends coeff·b to lc, as Boolean::lc(ONE, coeff): nothing for
// false, coeff·ONE for true, coeff·bit for Is, coeff·ONE − coeff·bit for Not.
func (b Boolean) AppendLC(lc *r1cs.LC, coeff *fr.Element) {
	switch b.kind {
	case KindConstant:
		if b.value {
			lc.AddConst(coeff)
		}
	case KindIs:
		lc.AddTerm(coeff, b.v)
	case KindNot:
		var neg fr.Element
		neg.Neg(coeff)
		lc.AddConst(coeff)
		lc.AddTerm(&neg, b.v)
	}
}

// addTo appends +1·b to lc (Boolean::lc(ONE, ONE)).
func (b Boolean) addTo(lc *r1cs.LC) {
	switch b.kind {
	case KindConstant:
		if b.value {
			lc.Add(r1cs.One)
		}
	case KindIs:
		lc.Add(b.v)
	case KindNot:
		lc.Add(r1cs.One)
		lc.Sub(b.v)
	}
}

// subFrom appends −1·b to lc (− Boolean::lc(ONE, ONE)).
func (b Boolean) subFrom(lc *r1cs.LC) {
	switch b.kind {
	case KindConstant:
		if b.value {
			lc.Sub(r1cs.One)
		}
	case KindIs:
		lc.Sub(b.v)
	case KindNot:
		lc.Sub(r1cs.One)
		lc.Add(b.v)
	}
}

// Xor is Boolean::xor with its constant folding: a constant false returns the
// other operand, a constant true its negation; otherwise one XorBits on the
// underlying bits (Is first when the kinds differ, the result negated then).
func Xor(cs *r1cs.System, a, b Boolean) Boolean {
	switch {
	case a.kind == KindConstant && !a.value:
		return b
	case b.kind == KindConstant && !b.value:
		return a
	case a.kind == KindConstant: // true
		return b.Not()
	case b.kind == KindConstant: // true
		return a.Not()
	case a.kind == KindIs && b.kind == KindNot:
		return Is(XorBits(cs, a.bit(), b.bit())).Not()
	case a.kind == KindNot && b.kind == KindIs:
		return Is(XorBits(cs, b.bit(), a.bit())).Not()
	default: // Is,Is or Not,Not
		return Is(XorBits(cs, a.bit(), b.bit()))
	}
}

// And is Boolean::and with its constant folding: false if either is false, the
// other if one is true; otherwise AndBits (Is,Is), AndNotBits (Is,Not in either
// order, the Is bit first) or NorBits (Not,Not).
func And(cs *r1cs.System, a, b Boolean) Boolean {
	switch {
	case a.kind == KindConstant && !a.value, b.kind == KindConstant && !b.value:
		return Constant(false)
	case a.kind == KindConstant: // true
		return b
	case b.kind == KindConstant: // true
		return a
	case a.kind == KindIs && b.kind == KindNot:
		return Is(AndNotBits(cs, a.bit(), b.bit()))
	case a.kind == KindNot && b.kind == KindIs:
		return Is(AndNotBits(cs, b.bit(), a.bit()))
	case a.kind == KindNot: // Not,Not
		return Is(NorBits(cs, a.bit(), b.bit()))
	default: // Is,Is
		return Is(AndBits(cs, a.bit(), b.bit()))
	}
}

// ErrUnsatisfiable is returned by EnforceEqualBooleans for two different constants.
var ErrUnsatisfiable = errors.New("gadgets: constraint is unsatisfiable")

// EnforceEqualBooleans is Boolean::enforce_equal: no constraint for two
// constants (an error if they differ); otherwise 0·0 = C with C = ONE − x
// (x = true), C = x (x = false) or C = a − b.
func EnforceEqualBooleans(cs *r1cs.System, a, b Boolean) error {
	switch {
	case a.kind == KindConstant && b.kind == KindConstant:
		if a.value != b.value {
			return ErrUnsatisfiable
		}
		return nil
	case a.kind == KindConstant && a.value, b.kind == KindConstant && b.value:
		x := a
		if a.kind == KindConstant {
			x = b
		}
		cs.Enforce(func(_, _, c *r1cs.LC) {
			c.Add(r1cs.One)
			x.subFrom(c)
		})
	case a.kind == KindConstant, b.kind == KindConstant: // one is false
		x := a
		if a.kind == KindConstant {
			x = b
		}
		cs.Enforce(func(_, _, c *r1cs.LC) { x.addTo(c) })
	default:
		cs.Enforce(func(_, _, c *r1cs.LC) {
			a.addTo(c)
			b.subFrom(c)
		})
	}
	return nil
}

// SHA256Ch is Boolean::sha256_ch, (a ∧ b) ⊕ (¬a ∧ c), with bellpepper's
// constant folding in its order: all constant; a false → c; b false →
// ¬a ∧ c; c false → a ∧ b; c true → ¬(a ∧ ¬b); b true → ¬(¬a ∧ ¬c). Otherwise
// (a may be constant true) one aux ch with a·(b − c) = ch − c, as A = b − c,
// B = a, C = ch − c.
func SHA256Ch(cs *r1cs.System, a, b, c Boolean) Boolean {
	val := (a.value && b.value) != (!a.value && c.value)
	ac, bc, cc := a.kind == KindConstant, b.kind == KindConstant, c.kind == KindConstant
	switch {
	case ac && bc && cc:
		return Constant(val)
	case ac && !a.value:
		return c
	case bc && !b.value:
		return And(cs, a.Not(), c)
	case cc && !c.value:
		return And(cs, a, b)
	case cc: // c true
		return And(cs, a, b.Not()).Not()
	case bc: // b true
		return And(cs, a.Not(), c.Not()).Not()
	}
	ch := cs.Alloc(bitElem(val))
	cs.Enforce(func(la, lb, lc *r1cs.LC) {
		b.addTo(la)
		c.subFrom(la)
		a.addTo(lb)
		lc.Add(ch)
		c.subFrom(lc)
	})
	return Boolean{v: ch, value: val, kind: KindIs}
}

// SHA256Maj is Boolean::sha256_maj, (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c), with
// bellpepper's constant folding in its order: all constant; a false → b ∧ c;
// b false → a ∧ c; c false → a ∧ b; c true → ¬(¬a ∧ ¬b); b true → ¬(¬a ∧ ¬c);
// a true → ¬(¬b ∧ ¬c). Otherwise it allocates maj, then bc = And(b, c), then
// enforces (2bc − b − c)·a = bc − maj.
func SHA256Maj(cs *r1cs.System, a, b, c Boolean) Boolean {
	val := (a.value && b.value) != (a.value && c.value) != (b.value && c.value)
	ac, bc, cc := a.kind == KindConstant, b.kind == KindConstant, c.kind == KindConstant
	switch {
	case ac && bc && cc:
		return Constant(val)
	case ac && !a.value:
		return And(cs, b, c)
	case bc && !b.value:
		return And(cs, a, c)
	case cc && !c.value:
		return And(cs, a, b)
	case cc: // c true
		return And(cs, a.Not(), b.Not()).Not()
	case bc: // b true
		return And(cs, a.Not(), c.Not()).Not()
	case ac: // a true
		return And(cs, b.Not(), c.Not()).Not()
	}
	maj := cs.Alloc(bitElem(val))
	bAndC := And(cs, b, c)
	cs.Enforce(func(la, lb, lc *r1cs.LC) {
		bAndC.addTo(la)
		bAndC.addTo(la)
		b.subFrom(la)
		c.subFrom(la)
		a.addTo(lb)
		bAndC.addTo(lc)
		lc.Sub(maj)
	})
	return Boolean{v: maj, value: val, kind: KindIs}
}

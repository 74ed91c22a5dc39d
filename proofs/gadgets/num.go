package gadgets

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// AllocatedNum is a field element held by one variable (bellpepper-core num.rs
// AllocatedNum).
type AllocatedNum struct {
	Var   r1cs.Variable
	Value fr.Element
}

// AllocNum allocates an aux number.
func AllocNum(cs *r1cs.System, value fr.Element) AllocatedNum {
	return AllocatedNum{Var: cs.Alloc(value), Value: value}
}

// AllocNumInput allocates a public-input number.
func AllocNumInput(cs *r1cs.System, value fr.Element) AllocatedNum {
	return AllocatedNum{Var: cs.AllocInput(value), Value: value}
}

// Inputize allocates a public input equal to n and enforces input·ONE = n
// (A = input, B = ONE, C = n). It returns the input variable.
func (n AllocatedNum) Inputize(cs *r1cs.System) r1cs.Variable {
	in := cs.AllocInput(n.Value)
	cs.Enforce(func(a, b, c *r1cs.LC) {
		a.Add(in)
		b.Add(r1cs.One)
		c.Add(n.Var)
	})
	return in
}

// FieldIntoAllocatedBitsLE allocates the NumBits (255) low bits of the
// canonical integer of v, least significant first, each an AllocBit
// (bellpepper's field_into_allocated_bits_le). The result is appended to dst.
func FieldIntoAllocatedBitsLE(cs *r1cs.System, dst []AllocatedBit, v *fr.Element) []AllocatedBit {
	limbs := v.Bits()
	for i := 0; i < NumBits; i++ {
		dst = append(dst, AllocBit(cs, leBit(&limbs, i)))
	}
	return dst
}

// ToBitsLE is AllocatedNum::to_bits_le, the non-strict decomposition: 255
// AllocBits, least significant first, then the unpacking constraint
// 0·0 = Σ 2^i·b_i − n (A = B = ∅). It does not enforce that the bits are the
// canonical representative.
func (n AllocatedNum) ToBitsLE(cs *r1cs.System) []Boolean {
	return n.AppendBitsLE(cs, make([]Boolean, 0, 256))
}

// AppendBitsLE is ToBitsLE appending the 255 bits to dst.
func (n AllocatedNum) AppendBitsLE(cs *r1cs.System, dst []Boolean) []Boolean {
	limbs := n.Value.Bits()
	start := len(dst)
	for i := 0; i < NumBits; i++ {
		dst = append(dst, Is(AllocBit(cs, leBit(&limbs, i))))
	}
	bits := dst[start:]
	cs.Enforce(func(_, _, c *r1cs.LC) {
		for i := range bits {
			c.AddTerm(&pow2[i], bits[i].v)
		}
		c.Sub(n.Var)
	})
	return dst
}

// ToBitsLEStrict is AllocatedNum::to_bits_le_strict: the 255 bits, allocated
// most significant first, constrained to be at most r − 1. Bits where r − 1
// has a one are plain AllocBits collected into runs; when a run of ones ends,
// the run (and the previous run's AND, last) is AND-ed left to right; bits
// where r − 1 has a zero are AllocBitConditionally on the last run's AND.
// Then the unpacking constraint 0·0 = Σ 2^i·b_i − n. The result is least
// significant bit first.
func (n AllocatedNum) ToBitsLEStrict(cs *r1cs.System) []Boolean {
	limbs := n.Value.Bits()
	result := make([]AllocatedBit, 0, NumBits) // most significant first
	var (
		lastRun    AllocatedBit
		hasLastRun bool
		run        []AllocatedBit
	)
	foundOne := false
	for pos := 255; pos >= 0; pos-- {
		aBit := leBit(&limbs, pos)
		rb := rMinusOneBits[pos]
		foundOne = foundOne || rb
		if !foundOne {
			continue // leading zero of r − 1; a's bit is zero too
		}
		if rb {
			bit := AllocBit(cs, aBit)
			run = append(run, bit)
			result = append(result, bit)
			continue
		}
		if len(run) > 0 {
			if hasLastRun {
				run = append(run, lastRun)
			}
			cur := run[0]
			for _, v := range run[1:] {
				cur = AndBits(cs, cur, v)
			}
			lastRun, hasLastRun = cur, true
			run = run[:0]
		}
		result = append(result, AllocBitConditionally(cs, aBit, lastRun))
	}
	if len(run) != 0 {
		panic("gadgets: r − 1 must end in a run of zeros")
	}
	out := make([]Boolean, len(result))
	for i := range result {
		out[i] = Is(result[len(result)-1-i])
	}
	cs.Enforce(func(_, _, c *r1cs.LC) {
		for i := range out {
			c.AddTerm(&pow2[i], out[i].v)
		}
		c.Sub(n.Var)
	})
	return out
}

// Mul allocates n·o with the constraint n·o = product.
func (n AllocatedNum) Mul(cs *r1cs.System, o AllocatedNum) AllocatedNum {
	var v fr.Element
	v.Mul(&n.Value, &o.Value)
	p := AllocNum(cs, v)
	cs.Enforce(func(a, b, c *r1cs.LC) {
		a.Add(n.Var)
		b.Add(o.Var)
		c.Add(p.Var)
	})
	return p
}

// Square allocates n² with the constraint n·n = square.
func (n AllocatedNum) Square(cs *r1cs.System) AllocatedNum {
	var v fr.Element
	v.Square(&n.Value)
	s := AllocNum(cs, v)
	cs.Enforce(func(a, b, c *r1cs.LC) {
		a.Add(n.Var)
		b.Add(n.Var)
		c.Add(s.Var)
	})
	return s
}

// AssertNonzero allocates the inverse of n and enforces n·inv = ONE. Where
// bellpepper fails synthesis for a zero value, this allocates 0 (the value of
// Count and Record mode), which Check mode reports as unsatisfied.
func (n AllocatedNum) AssertNonzero(cs *r1cs.System) {
	var inv fr.Element
	inv.Inverse(&n.Value) // 0 for 0
	iv := cs.Alloc(inv)
	cs.Enforce(func(a, b, c *r1cs.LC) {
		a.Add(n.Var)
		b.Add(iv)
		c.Add(r1cs.One)
	})
}

// ConditionallyReverse returns (b, a) if cond, else (a, b): aux c, then
// (a − b)·cond = a − c; aux d, then (b − a)·cond = b − d.
func ConditionallyReverse(cs *r1cs.System, x, y AllocatedNum, cond Boolean) (AllocatedNum, AllocatedNum) {
	cv, dv := x.Value, y.Value
	if cond.value {
		cv, dv = y.Value, x.Value
	}
	c := AllocNum(cs, cv)
	cs.Enforce(func(la, lb, lc *r1cs.LC) {
		la.Add(x.Var)
		la.Sub(y.Var)
		cond.addTo(lb)
		lc.Add(x.Var)
		lc.Sub(c.Var)
	})
	d := AllocNum(cs, dv)
	cs.Enforce(func(la, lb, lc *r1cs.LC) {
		la.Add(y.Var)
		la.Sub(x.Var)
		cond.addTo(lb)
		lc.Add(y.Var)
		lc.Sub(d.Var)
	})
	return c, d
}

// Num is a linear combination with its value (bellpepper-core num.rs Num).
// The zero Num is Num::zero().
type Num struct {
	Value fr.Element
	LC    r1cs.LC
}

// NumOf is Num::from(AllocatedNum).
func NumOf(n AllocatedNum) Num {
	return Num{Value: n.Value, LC: r1cs.LC{{Var: n.Var, Coeff: frOne}}}
}

// AddBoolWithCoeff adds coeff·bit (Num::add_bool_with_coeff).
func (n *Num) AddBoolWithCoeff(bit Boolean, coeff *fr.Element) {
	if bit.value {
		n.Value.Add(&n.Value, coeff)
	}
	bit.AppendLC(&n.LC, coeff)
}

// Add adds o (Num::add).
func (n *Num) Add(o *Num) {
	n.Value.Add(&n.Value, &o.Value)
	n.LC.AddLC(o.LC)
}

// Scale multiplies the value and every coefficient by s (Num::scale).
func (n *Num) Scale(s *fr.Element) {
	n.Value.Mul(&n.Value, s)
	for i := range n.LC {
		n.LC[i].Coeff.Mul(&n.LC[i].Coeff, s)
	}
}

// AppendLC appends coeff·n to lc (Num::lc(coeff)).
func (n *Num) AppendLC(lc *r1cs.LC, coeff *fr.Element) { lc.AddScaledLC(coeff, n.LC) }

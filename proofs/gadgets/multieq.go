package gadgets

import "github.com/filc2/filc2/proofs/r1cs"

// MultiEq packs several equalities lhs_k = rhs_k of known bit widths into one
// constraint Σ 2^{s_k}·lhs_k · ONE = Σ 2^{s_k}·rhs_k (bellperson multieq.rs),
// where s_k is the number of bits used before equality k. A constraint is
// flushed before an equality that would bring the bits used to Capacity (254)
// or more, and once more by Close, which stands for the Rust Drop: call it
// exactly where the Rust value goes out of scope.
//
// In Witness mode no linear combination is built; only the bit budget is kept
// so that the constraints are counted at the same points.
type MultiEq struct {
	cs       *r1cs.System
	bitsUsed int
	ops      int
	lhs, rhs r1cs.LC
}

// NewMultiEq returns an empty MultiEq over cs.
func NewMultiEq(cs *r1cs.System) *MultiEq { return &MultiEq{cs: cs} }

// Reset makes m an empty MultiEq over cs, keeping its buffers.
func (m *MultiEq) Reset(cs *r1cs.System) {
	m.cs, m.bitsUsed, m.ops = cs, 0, 0
	m.lhs, m.rhs = m.lhs[:0], m.rhs[:0]
}

// System is the constraint system m enforces into.
func (m *MultiEq) System() *r1cs.System { return m.cs }

// BitsUsed is the number of bits accumulated since the last flush.
func (m *MultiEq) BitsUsed() int { return m.bitsUsed }

// Flushes is the number of constraints enforced so far (the Rust ops counter).
func (m *MultiEq) Flushes() int { return m.ops }

// accumulate enforces lhs·ONE = rhs and empties the accumulator.
func (m *MultiEq) accumulate() {
	lhs, rhs := m.lhs, m.rhs
	m.cs.Enforce(func(a, b, c *r1cs.LC) {
		a.AddLC(lhs)
		b.Add(r1cs.One)
		c.AddLC(rhs)
	})
	m.lhs, m.rhs = m.lhs[:0], m.rhs[:0]
	m.bitsUsed = 0
	m.ops++
}

// reserve flushes if numBits more bits would reach Capacity and returns the
// shift s (bits used) at which the next equality is packed.
func (m *MultiEq) reserve(numBits int) int {
	if Capacity <= m.bitsUsed+numBits {
		m.accumulate()
	}
	if Capacity <= m.bitsUsed+numBits {
		panic("gadgets: MultiEq equality wider than the field capacity")
	}
	return m.bitsUsed
}

// EnforceEqual adds the equality lhs = rhs whose sides are below 2^numBits
// (MultiEq::enforce_equal).
func (m *MultiEq) EnforceEqual(numBits int, lhs, rhs r1cs.LC) {
	s := m.reserve(numBits)
	if m.cs.Constraining() {
		m.lhs.AddScaledLC(&pow2[s], lhs)
		m.rhs.AddScaledLC(&pow2[s], rhs)
	}
	m.bitsUsed += numBits
}

// Close flushes what is left (the Rust Drop: a constraint if any bits are used).
func (m *MultiEq) Close() {
	if m.bitsUsed > 0 {
		m.accumulate()
	}
}

// appendBoolPow2 appends 2^k·b to lc.
func appendBoolPow2(lc *r1cs.LC, b Boolean, k int) {
	switch b.kind {
	case KindConstant:
		if b.value {
			lc.AddConst(&pow2[k])
		}
	case KindIs:
		lc.AddTerm(&pow2[k], b.v)
	case KindNot:
		lc.AddConst(&pow2[k])
		lc.AddTerm(&negPow2[k], b.v)
	}
}

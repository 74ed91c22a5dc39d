package gadgets

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// Equal is constraint::equal: a·ONE = b.
func Equal(cs *r1cs.System, a, b AllocatedNum) {
	cs.Enforce(func(la, lb, lc *r1cs.LC) {
		la.Add(a.Var)
		lb.Add(r1cs.One)
		lc.Add(b.Var)
	})
}

// Sum is constraint::sum: (a + b)·ONE = sum.
func Sum(cs *r1cs.System, a, b, sum AllocatedNum) {
	cs.Enforce(func(la, lb, lc *r1cs.LC) {
		la.Add(a.Var)
		la.Add(b.Var)
		lb.Add(r1cs.One)
		lc.Add(sum.Var)
	})
}

// Difference is constraint::difference: (difference + b)·ONE = a.
func Difference(cs *r1cs.System, a, b, difference AllocatedNum) {
	cs.Enforce(func(la, lb, lc *r1cs.LC) {
		la.Add(difference.Var)
		la.Add(b.Var)
		lb.Add(r1cs.One)
		lc.Add(a.Var)
	})
}

// Add is constraint::add: aux res = a + b, then Sum(a, b, res).
func Add(cs *r1cs.System, a, b AllocatedNum) AllocatedNum {
	var v fr.Element
	v.Add(&a.Value, &b.Value)
	res := AllocNum(cs, v)
	Sum(cs, a, b, res)
	return res
}

// Sub is constraint::sub: aux res = a − b, then Difference(a, b, res).
func Sub(cs *r1cs.System, a, b AllocatedNum) AllocatedNum {
	var v fr.Element
	v.Sub(&a.Value, &b.Value)
	res := AllocNum(cs, v)
	Difference(cs, a, b, res)
	return res
}

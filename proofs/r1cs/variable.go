package r1cs

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Variable names one variable of a System: an input (ONE is input 0) or an aux.
// The encoding sorts inputs before aux and each kind by index, the canonical order.
type Variable uint32

const auxFlag = 1 << 31

// One is the constant input variable ONE (input 0).
const One Variable = 0

// InputVar returns the variable of input i.
func InputVar(i int) Variable { return Variable(i) }

// AuxVar returns the variable of aux i.
func AuxVar(i int) Variable { return Variable(i) | auxFlag }

// IsAux reports whether v is an aux variable.
func (v Variable) IsAux() bool { return v&auxFlag != 0 }

// Index is v's index among the variables of its kind.
func (v Variable) Index() int { return int(v &^ auxFlag) }

func (v Variable) String() string {
	if v.IsAux() {
		return fmt.Sprintf("aux%d", v.Index())
	}
	return fmt.Sprintf("input%d", v.Index())
}

// Term is one coefficient·variable of a linear combination.
type Term struct {
	Var   Variable
	Coeff fr.Element
}

// LC is a linear combination. Terms may repeat a variable; the System merges them
// (adds their coefficients) and drops zero coefficients when it takes the LC.
type LC []Term

var (
	frOne    = fr.One()
	frMinus1 = func() fr.Element { var e fr.Element; e.Neg(&frOne); return e }()
)

// Add appends +1·v.
func (lc *LC) Add(v Variable) { *lc = append(*lc, Term{v, frOne}) }

// Sub appends −1·v.
func (lc *LC) Sub(v Variable) { *lc = append(*lc, Term{v, frMinus1}) }

// AddTerm appends c·v.
func (lc *LC) AddTerm(c *fr.Element, v Variable) { *lc = append(*lc, Term{v, *c}) }

// AddConst appends c·ONE.
func (lc *LC) AddConst(c *fr.Element) { *lc = append(*lc, Term{One, *c}) }

// AddLC appends every term of o.
func (lc *LC) AddLC(o LC) { *lc = append(*lc, o...) }

// SubLC appends every term of o, negated.
func (lc *LC) SubLC(o LC) {
	for i := range o {
		t := Term{Var: o[i].Var}
		t.Coeff.Neg(&o[i].Coeff)
		*lc = append(*lc, t)
	}
}

// AddScaledLC appends c·o.
func (lc *LC) AddScaledLC(c *fr.Element, o LC) {
	for i := range o {
		t := Term{Var: o[i].Var}
		t.Coeff.Mul(&o[i].Coeff, c)
		*lc = append(*lc, t)
	}
}

// Eval returns ⟨lc, w⟩ for the given input and aux values.
func (lc LC) Eval(inputs, aux []fr.Element) fr.Element {
	var acc, t fr.Element
	for i := range lc {
		x := value(lc[i].Var, inputs, aux)
		t.Mul(&lc[i].Coeff, x)
		acc.Add(&acc, &t)
	}
	return acc
}

func value(v Variable, inputs, aux []fr.Element) *fr.Element {
	if v.IsAux() {
		return &aux[v.Index()]
	}
	return &inputs[v.Index()]
}

// normalize merges equal variables (adding coefficients), drops zero
// coefficients and sorts the terms in canonical order, in place.
func normalize(lc LC) LC {
	if len(lc) == 0 {
		return lc
	}
	sorted := true
	for i := 1; i < len(lc); i++ {
		if lc[i].Var <= lc[i-1].Var {
			sorted = false
			break
		}
	}
	if !sorted {
		sortTerms(lc)
	}
	out := lc[:0]
	for i := 0; i < len(lc); {
		t := lc[i]
		j := i + 1
		for ; j < len(lc) && lc[j].Var == t.Var; j++ {
			t.Coeff.Add(&t.Coeff, &lc[j].Coeff)
		}
		if !t.Coeff.IsZero() {
			out = append(out, t)
		}
		i = j
	}
	return out
}

// sortTerms sorts by variable, stably (insertion sort for the short LCs that
// dominate, a merge via slices otherwise).
func sortTerms(lc LC) {
	if len(lc) <= 16 {
		for i := 1; i < len(lc); i++ {
			t := lc[i]
			j := i
			for ; j > 0 && lc[j-1].Var > t.Var; j-- {
				lc[j] = lc[j-1]
			}
			lc[j] = t
		}
		return
	}
	sortTermsStable(lc)
}

func sortTermsStable(lc LC) {
	slices.SortStableFunc(lc, func(a, b Term) int { return cmp.Compare(a.Var, b.Var) })
}

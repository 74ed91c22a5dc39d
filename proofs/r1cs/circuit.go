package r1cs

import (
	"fmt"
	"math"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/par"
)

// Matrix is one of A, B, C in compressed sparse rows. Column j < NumInputs is
// input j, otherwise aux j−NumInputs; Val holds indices into Circuit.Coeffs.
type Matrix struct {
	RowPtr []uint32 // len = rows+1
	Col    []uint32
	Val    []uint32
}

// NNZ is the number of non-zero entries.
func (m *Matrix) NNZ() int { return len(m.Col) }

// Row returns the column and coefficient-index slices of row i.
func (m *Matrix) Row(i int) (cols, vals []uint32) {
	lo, hi := m.RowPtr[i], m.RowPtr[i+1]
	return m.Col[lo:hi], m.Val[lo:hi]
}

// Circuit is a recorded R1CS: the matrices, their coefficient table and the
// density bitmaps bellperson's prover derives (the content of a PCE file).
type Circuit struct {
	NumInputs      int
	NumAux         int
	NumConstraints int
	A, B, C        Matrix
	// Coeffs is the table of distinct coefficients; Coeffs[0] = 1, Coeffs[1] = −1.
	Coeffs []fr.Element

	AAux   Bitset // aux variables with a non-zero coefficient in some A row
	BInput Bitset // inputs with a non-zero coefficient in some B row
	BAux   Bitset // aux variables with a non-zero coefficient in some B row
}

// Header returns the circuit's shape.
func (c *Circuit) Header() Header {
	return Header{NumInputs: c.NumInputs, NumAux: c.NumAux, NumConstraints: c.NumConstraints}
}

// Stats returns the circuit's counts.
func (c *Circuit) Stats() Stats {
	return Stats{
		Constraints: c.NumConstraints, Inputs: c.NumInputs, Aux: c.NumAux,
		AAuxDensity: c.AAux.Count(), BInputDensity: c.BInput.Count(), BAuxDensity: c.BAux.Count(),
	}
}

// Matrices returns A, B and C in that order.
func (c *Circuit) Matrices() [3]*Matrix { return [3]*Matrix{&c.A, &c.B, &c.C} }

// recorder builds the three CSR matrices while the circuit is synthesised. Aux
// columns carry auxFlag until finish, when the final input count is known.
type recorder struct {
	m      [3]Matrix
	coeffs []fr.Element
	index  map[fr.Element]uint32
}

func newRecorder() *recorder {
	r := &recorder{index: make(map[fr.Element]uint32)}
	for _, c := range []fr.Element{frOne, frMinus1} {
		r.index[c] = uint32(len(r.coeffs))
		r.coeffs = append(r.coeffs, c)
	}
	for i := range r.m {
		r.m[i].RowPtr = []uint32{0}
	}
	return r
}

func (r *recorder) grow(constraints int) {
	for i := range r.m {
		r.m[i].RowPtr = append(make([]uint32, 0, constraints+1), r.m[i].RowPtr...)
	}
}

func (r *recorder) add(a, b, c LC) {
	for k, lc := range [3]LC{a, b, c} {
		m := &r.m[k]
		for i := range lc {
			id, ok := r.index[lc[i].Coeff]
			if !ok {
				id = uint32(len(r.coeffs))
				r.index[lc[i].Coeff] = id
				r.coeffs = append(r.coeffs, lc[i].Coeff)
			}
			m.Col = append(m.Col, uint32(lc[i].Var))
			m.Val = append(m.Val, id)
		}
		m.RowPtr = append(m.RowPtr, uint32(len(m.Col)))
	}
}

// reserve makes room in r's matrices for the rows of the Record-mode children
// about to be joined.
func (r *recorder) reserve(children []*System) {
	var rows int
	var nnz [3]int
	for _, ch := range children {
		if ch == nil || ch.rec == nil {
			continue
		}
		rows += len(ch.rec.m[0].RowPtr) - 1
		for k := range nnz {
			nnz[k] += len(ch.rec.m[k].Col)
		}
	}
	for k := range r.m {
		m := &r.m[k]
		m.RowPtr = slices.Grow(m.RowPtr, rows)
		m.Col = slices.Grow(m.Col, nnz[k])
		m.Val = slices.Grow(m.Val, nnz[k])
	}
}

// append adds o's rows after r's. o's coefficients join r's table in the order
// o first met them, which is the order a sequential recording meets them in.
func (r *recorder) append(o *recorder) {
	remap := make([]uint32, len(o.coeffs))
	for i, c := range o.coeffs {
		id, ok := r.index[c]
		if !ok {
			id = uint32(len(r.coeffs))
			r.index[c] = id
			r.coeffs = append(r.coeffs, c)
		}
		remap[i] = id
	}
	for k := range r.m {
		m, om := &r.m[k], &o.m[k]
		base := uint32(len(m.Col))
		m.Col = append(m.Col, om.Col...)
		start := len(m.Val)
		m.Val = append(m.Val, om.Val...)
		for i := start; i < len(m.Val); i++ {
			m.Val[i] = remap[m.Val[i]]
		}
		for _, p := range om.RowPtr[1:] {
			m.RowPtr = append(m.RowPtr, base+p)
		}
	}
}

func (r *recorder) finish(numInputs, numAux int) error {
	if uint64(numInputs)+uint64(numAux) >= auxFlag {
		return fmt.Errorf("r1cs: %d inputs + %d aux do not fit 31-bit columns", numInputs, numAux)
	}
	for k := range r.m {
		m := &r.m[k]
		if uint64(len(m.Col)) > math.MaxUint32 {
			return fmt.Errorf("r1cs: matrix %c has %d non-zeros, more than 32-bit offsets hold", "ABC"[k], len(m.Col))
		}
		for i, col := range m.Col {
			if v := Variable(col); v.IsAux() {
				m.Col[i] = uint32(numInputs + v.Index())
			}
		}
	}
	r.index = nil
	return nil
}

// Eval computes a = A·w, b = B·w and c = C·w for the assignment (inputs with ONE
// first, then aux), one value per constraint, into the given slices (each of
// length NumConstraints). Rows are split over nbTasks goroutines (≤ 0: all cores).
func (c *Circuit) Eval(inputs, aux []fr.Element, a, b, cc []fr.Element, nbTasks int) error {
	if len(inputs) != c.NumInputs || len(aux) != c.NumAux {
		return fmt.Errorf("r1cs: assignment has %d inputs and %d aux, circuit wants %d and %d",
			len(inputs), len(aux), c.NumInputs, c.NumAux)
	}
	for _, out := range [][]fr.Element{a, b, cc} {
		if len(out) != c.NumConstraints {
			return fmt.Errorf("r1cs: output of length %d, circuit has %d constraints", len(out), c.NumConstraints)
		}
	}
	for k, m := range c.Matrices() {
		out := [][]fr.Element{a, b, cc}[k]
		par.Range(c.NumConstraints, nbTasks, func(lo, hi int) {
			c.spmv(m, inputs, aux, out, lo, hi)
		})
	}
	return nil
}

func (c *Circuit) spmv(m *Matrix, inputs, aux, out []fr.Element, lo, hi int) {
	ni := uint32(c.NumInputs)
	var t fr.Element
	for row := lo; row < hi; row++ {
		var acc fr.Element
		for j := m.RowPtr[row]; j < m.RowPtr[row+1]; j++ {
			col := m.Col[j]
			var x *fr.Element
			if col < ni {
				x = &inputs[col]
			} else {
				x = &aux[col-ni]
			}
			switch m.Val[j] {
			case 0:
				acc.Add(&acc, x)
			case 1:
				acc.Sub(&acc, x)
			default:
				t.Mul(x, &c.Coeffs[m.Val[j]])
				acc.Add(&acc, &t)
			}
		}
		out[row] = acc
	}
}

// IsSatisfied evaluates every constraint and returns the index of the first
// unsatisfied one, or −1.
func (c *Circuit) IsSatisfied(inputs, aux []fr.Element) (int, error) {
	n := c.NumConstraints
	a, b, cc := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
	if err := c.Eval(inputs, aux, a, b, cc, 0); err != nil {
		return 0, err
	}
	for i := range a {
		var p fr.Element
		p.Mul(&a[i], &b[i])
		if !p.Equal(&cc[i]) {
			return i, nil
		}
	}
	return -1, nil
}

package poseidon

import (
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// matrix is a square matrix over Fr, row-major. It serves the one-time
// precomputation of the constants only; hashing reads flat tables.
type matrix struct {
	n int
	a []fr.Element
}

func newMatrix(n int) matrix { return matrix{n: n, a: make([]fr.Element, n*n)} }

func identity(n int) matrix {
	m := newMatrix(n)
	for i := range n {
		m.at(i, i).SetOne()
	}
	return m
}

// at returns a pointer to entry (i, j).
func (m matrix) at(i, j int) *fr.Element { return &m.a[i*m.n+j] }

// row returns row i (aliasing m).
func (m matrix) row(i int) []fr.Element { return m.a[i*m.n : (i+1)*m.n] }

// mul returns the matrix product m·o.
func (m matrix) mul(o matrix) matrix {
	r := newMatrix(m.n)
	var t fr.Element
	for i := range m.n {
		for k := range m.n {
			a := m.at(i, k)
			for j := range m.n {
				t.Mul(a, o.at(k, j))
				r.at(i, j).Add(r.at(i, j), &t)
			}
		}
	}
	return r
}

// transpose returns mᵀ.
func (m matrix) transpose() matrix {
	r := newMatrix(m.n)
	for i := range m.n {
		for j := range m.n {
			*r.at(j, i) = *m.at(i, j)
		}
	}
	return r
}

// minor00 returns m without its row 0 and column 0.
func (m matrix) minor00() matrix {
	r := newMatrix(m.n - 1)
	for i := 1; i < m.n; i++ {
		copy(r.row(i-1), m.row(i)[1:])
	}
	return r
}

// inverse returns m⁻¹ by Gauss-Jordan elimination.
func (m matrix) inverse() (matrix, error) {
	n := m.n
	a := matrix{n: n, a: append([]fr.Element(nil), m.a...)}
	inv := identity(n)
	var f, t fr.Element
	for c := range n {
		p := c
		for p < n && a.at(p, c).IsZero() {
			p++
		}
		if p == n {
			return matrix{}, errors.New("poseidon: singular matrix")
		}
		if p != c {
			swapRows(a, p, c)
			swapRows(inv, p, c)
		}
		f.Inverse(a.at(c, c))
		scaleRow(a, c, &f)
		scaleRow(inv, c, &f)
		for r := range n {
			if r == c || a.at(r, c).IsZero() {
				continue
			}
			f = *a.at(r, c)
			for j := range n {
				t.Mul(&f, a.at(c, j))
				a.at(r, j).Sub(a.at(r, j), &t)
				t.Mul(&f, inv.at(c, j))
				inv.at(r, j).Sub(inv.at(r, j), &t)
			}
		}
	}
	return inv, nil
}

func swapRows(m matrix, i, j int) {
	ri, rj := m.row(i), m.row(j)
	for k := range ri {
		ri[k], rj[k] = rj[k], ri[k]
	}
}

func scaleRow(m matrix, i int, f *fr.Element) {
	r := m.row(i)
	for k := range r {
		r[k].Mul(&r[k], f)
	}
}

// vecMul returns the row vector v times m: out[j] = Σ_i m[i][j]·v[i]. This is
// neptune's apply_matrix, the product every Poseidon layer uses.
func vecMul(v []fr.Element, m matrix) []fr.Element {
	out := make([]fr.Element, m.n)
	var t fr.Element
	for i := range m.n {
		for j := range m.n {
			t.Mul(m.at(i, j), &v[i])
			out[j].Add(&out[j], &t)
		}
	}
	return out
}

func (m matrix) equal(o matrix) bool {
	if m.n != o.n {
		return false
	}
	for i := range m.a {
		if !m.a[i].Equal(&o.a[i]) {
			return false
		}
	}
	return true
}

package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// cauchyMDS returns neptune's MDS matrix of width t: the Cauchy matrix
// M[i][j] = 1/(x_i + y_j) with x_i = i and y_j = t + j. It is symmetric.
func cauchyMDS(t int) matrix {
	m := newMatrix(t)
	for i := range t {
		for j := range t {
			m.at(i, j).SetUint64(uint64(i + t + j))
		}
	}
	inv := fr.BatchInvert(m.a)
	copy(m.a, inv)
	return m
}

// sparseMatrix is one partial round's factor M″ of the MDS matrix: its first
// column (wHat, t entries, wHat[0] = M″[0][0]) and the rest of its first row
// (vRest, t−1 entries); the minor at (0, 0) is the identity.
type sparseMatrix struct {
	wHat  []fr.Element
	vRest []fr.Element
}

// factorSparse factors the partial rounds' MDS products as neptune's
// factor_to_sparse_matrixes does: starting from cur = M, RP times split cur into
// M′·M″ (M′ = [e₀; rows i ≥ 1 of cur with column 0 zeroed], M″ sparse with
// ŵ = w·M̂⁻¹, w = cur[1..][0], v = cur[0][1..], M̂ = minor(cur, 0, 0)) and carry
// cur = M·M′. It returns the final cur (the pre-sparse matrix, used at round
// RF/2 − 1) and the M″ in the order the partial rounds use them.
func factorSparse(m matrix, rp int) (matrix, []sparseMatrix, error) {
	t := m.n
	cur := m
	sparse := make([]sparseMatrix, rp)
	for k := range rp {
		hatInv, err := cur.minor00().inverse()
		if err != nil {
			return matrix{}, nil, fmt.Errorf("poseidon: sparse factor %d: %w", k, err)
		}
		w := make([]fr.Element, t-1)
		for i := 1; i < t; i++ {
			w[i-1] = *cur.at(i, 0)
		}
		wHat := vecMul(w, hatInv)
		s := sparseMatrix{wHat: make([]fr.Element, t), vRest: make([]fr.Element, t-1)}
		s.wHat[0] = *cur.at(0, 0)
		copy(s.wHat[1:], wHat)
		copy(s.vRest, cur.row(0)[1:])
		sparse[rp-1-k] = s // built from the last partial round backwards

		prime := newMatrix(t)
		prime.at(0, 0).SetOne()
		for i := 1; i < t; i++ {
			copy(prime.row(i)[1:], cur.row(i)[1:])
		}
		cur = m.mul(prime)
	}
	return cur, sparse, nil
}

// dense returns the sparse factor as a full t×t matrix.
func (s sparseMatrix) dense() matrix {
	t := len(s.wHat)
	m := identity(t)
	for i := range t {
		*m.at(i, 0) = s.wHat[i]
	}
	copy(m.row(0)[1:], s.vRest)
	return m
}

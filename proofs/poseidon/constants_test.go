package poseidon

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// TestSupraSealTables compares our compressed constants, M, pre_sparse and
// sparse matrices with supraseal's precomputed files element by element: each
// element is 4 little-endian u64 words in Montgomery form with R = 2^256,
// exactly fr.Element's internal representation.
func TestSupraSealTables(t *testing.T) {
	for _, a := range []int{2, 8, 11} {
		c := mustFor(t, a)
		tw, rp := c.Width(), c.PartialRounds()
		raw := readShared(t, fmt.Sprintf("vectors/supra_seal_poseidon_constants_montgomery/constants_%d", a))
		n := (FullRounds*tw + rp) + 2*tw*tw + rp*(2*tw-1)
		if len(raw) != n*32 {
			t.Fatalf("arity %d: file has %d bytes, layout wants %d elements = %d bytes", a, len(raw), n, n*32)
		}
		ours := c.SupraSealTables()
		if len(ours) != n {
			t.Fatalf("arity %d: SupraSealTables has %d elements, want %d", a, len(ours), n)
		}
		section := func(i int) string {
			bounds := []struct {
				end  int
				name string
			}{
				{FullRounds*tw + rp, "compressed constants"},
				{FullRounds*tw + rp + tw*tw, "M"},
				{FullRounds*tw + rp + 2*tw*tw, "pre_sparse"},
				{n, "sparse matrices"},
			}
			for _, b := range bounds {
				if i < b.end {
					return b.name
				}
			}
			return "?"
		}
		bad := 0
		for i := range n {
			var e fr.Element
			for w := range 4 {
				e[w] = binary.LittleEndian.Uint64(raw[32*i+8*w:])
			}
			if e != ours[i] {
				if bad++; bad <= 5 {
					t.Errorf("arity %d: element %d (%s) differs", a, i, section(i))
				}
			}
		}
		if bad > 0 {
			t.Errorf("arity %d: %d of %d elements differ", a, bad, n)
		}
	}
}

// TestRoundNumbers checks RP per arity against poseidon_sdr.json's table and
// the lengths of the constant tables.
func TestRoundNumbers(t *testing.T) {
	want := loadPoseidonVectors(t).Params.RPByArity
	if len(want) != len(Arities()) {
		t.Fatalf("vector RP table has %d arities, package %d", len(want), len(Arities()))
	}
	for k, rp := range want {
		a, err := strconv.Atoi(k)
		if err != nil {
			t.Fatal(err)
		}
		c := mustFor(t, a)
		if c.PartialRounds() != rp || c.Width() != a+1 || c.Arity() != a {
			t.Errorf("arity %d: RP %d width %d, want RP %d", a, c.PartialRounds(), c.Width(), rp)
		}
		tw := c.Width()
		if got := len(c.RoundConstants()); got != (FullRounds+rp)*tw {
			t.Errorf("arity %d: %d round constants", a, got)
		}
		if got := len(c.CompressedRoundConstants()); got != FullRounds*tw+rp {
			t.Errorf("arity %d: %d compressed constants", a, got)
		}
	}
}

func TestConstantsFor(t *testing.T) {
	for _, a := range []int{0, 1, 3, 37} {
		if _, err := ConstantsFor(a); err == nil {
			t.Errorf("arity %d accepted", a)
		}
	}
	if mustFor(t, 8) != mustFor(t, 8) {
		t.Error("ConstantsFor builds twice")
	}
	c := mustFor(t, 2)
	rc := c.RoundConstants()
	rc[0].SetZero()
	if again := c.RoundConstants(); again[0].IsZero() {
		t.Error("RoundConstants aliases the table")
	}
}

// TestMDS checks the Cauchy construction, the inverse and the symmetry that the
// state·M product relies on.
func TestMDS(t *testing.T) {
	for _, a := range Arities() {
		c := mustFor(t, a)
		tw := c.Width()
		for i := range tw {
			for j := range tw {
				var x, d fr.Element
				d.SetUint64(uint64(i + j + tw))
				x.Mul(c.mds.at(i, j), &d)
				if !x.IsOne() {
					t.Fatalf("arity %d: M[%d][%d]·(i+j+t) ≠ 1", a, i, j)
				}
			}
		}
		if !c.mds.equal(c.mds.transpose()) {
			t.Errorf("arity %d: M not symmetric", a)
		}
		if !c.mds.mul(c.mdsInv).equal(identity(tw)) {
			t.Errorf("arity %d: M·M⁻¹ ≠ I", a)
		}
	}
}

// TestSparseFactorisation checks that pre_sparse times the partial rounds'
// sparse factors is M^(RP+1), the linear part of rounds h−1 … h+RP−1, and that
// each factor has neptune's shape (w_hat[0] = M00).
func TestSparseFactorisation(t *testing.T) {
	for _, a := range []int{2, 4, 8, 11} {
		c := mustFor(t, a)
		want := c.mds
		for range c.PartialRounds() {
			want = want.mul(c.mds)
		}
		got := c.preSparse
		for _, s := range c.sparse {
			if !s.wHat[0].Equal(c.mds.at(0, 0)) {
				t.Errorf("arity %d: w_hat[0] ≠ M00", a)
			}
			got = got.mul(s.dense())
		}
		if !got.equal(want) {
			t.Errorf("arity %d: pre_sparse·Π sparse ≠ M^(RP+1)", a)
		}
		if c.preSparse.equal(c.preSparse.transpose()) {
			t.Errorf("arity %d: pre_sparse unexpectedly symmetric", a)
		}
	}
}

// TestCompressedFirstRow checks that the first t compressed constants are the
// first row of Grain constants, as the layout requires.
func TestCompressedFirstRow(t *testing.T) {
	for _, a := range Arities() {
		c := mustFor(t, a)
		rc, crc := c.RoundConstants(), c.CompressedRoundConstants()
		for i := range c.Width() {
			if !rc[i].Equal(&crc[i]) {
				t.Fatalf("arity %d: crc[%d] ≠ rc[%d]", a, i, i)
			}
		}
	}
}

func BenchmarkConstants(b *testing.B) {
	for _, a := range []int{2, 8, 11} {
		b.Run(fmt.Sprintf("arity=%d", a), func(b *testing.B) {
			for b.Loop() {
				if _, err := newConstants(a, mustFor(b, a).PartialRounds()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

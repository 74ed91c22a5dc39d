package gadgets

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// insertion.rs test_insert: every size 2..16 and index; the inserted element
// lands at the index, the others keep their order; constraints after the
// index bits: 2, 8, 22 and size·(size−1).
func TestInsert(t *testing.T) {
	rng := newRand(t)
	wantCost := map[int]int{2: 2, 4: 8, 8: 22, 16: 240}
	for logSize := 1; logSize <= 4; logSize++ {
		size := 1 << logSize
		for index := range size {
			el := make([]fr.Element, size-1)
			for i := range el {
				el[i] = randFr(rng)
			}
			x := randFr(rng)
			var out []AllocatedNum
			cs := r1cs.New(r1cs.Check)
			_, _, out = buildInsertTest(cs, el, x, index)
			// The test's own allocations: size−1 + 1 numbers, logSize bits.
			if got := cs.NumConstraints() - logSize; got != wantCost[size] {
				t.Errorf("size %d: %d constraints, want %d", size, got, wantCost[size])
			}
			mustFinish(t, cs)
			for i, o := range out {
				want := x
				switch {
				case i < index:
					want = el[i]
				case i > index:
					want = el[i-1]
				}
				if !o.Value.Equal(&want) {
					t.Fatalf("size %d index %d: position %d wrong", size, index, i)
				}
			}
		}
	}
	// Insert8 with a negated bit is refused, as in Rust.
	defer func() {
		if recover() == nil {
			t.Error("Insert8 accepted a negated bit")
		}
	}()
	cs := r1cs.New(r1cs.Count)
	els := make([]AllocatedNum, 7)
	Insert(cs, els[0], []Boolean{Is(AllocBit(cs, true)).Not(), Is(AllocBit(cs, true)), Is(AllocBit(cs, true))}, els)
}

// insertion.rs test_select: size−1 picks.
func TestSelect(t *testing.T) {
	rng := newRand(t)
	for logSize := 1; logSize <= 4; logSize++ {
		size := 1 << logSize
		for index := range size {
			cs := r1cs.New(r1cs.Check)
			from := make([]AllocatedNum, size)
			for i := range from {
				from[i] = AllocNum(cs, randFr(rng))
			}
			var bits []Boolean
			for i := range logSize {
				bits = append(bits, Is(AllocBit(cs, index>>uint(i)&1 == 1)))
			}
			c0 := cs.NumConstraints()
			got := Select(cs, from, bits)
			if n := cs.NumConstraints() - c0; n != size-1 {
				t.Errorf("size %d: %d picks", size, n)
			}
			if !got.Value.Equal(&from[index].Value) {
				t.Fatalf("size %d: selected the wrong element for %d", size, index)
			}
			mustFinish(t, cs)
		}
	}
}

func TestPick(t *testing.T) {
	got := rows(t, 1, func(cs *r1cs.System) {
		a, b := AllocNum(cs, frOne), AllocNum(cs, frZero)
		Pick(cs, Is(AllocBit(cs, true)), a, b)
	})
	// aux a0 = a, a1 = b, a2 = cond, a3 = c: (b − a)·cond = b − c.
	wantRows(t, "pick", got, "-1*a0 1*a1 | 1*a2 | 1*a1 -1*a3")
	checkUnsatisfied(t, func(cs *r1cs.System) {
		a, b := AllocNum(cs, frOne), AllocNum(cs, frZero)
		cond := Is(AllocBit(cs, true))
		cond.value = false // forged: c takes b's value
		Pick(cs, cond, a, b)
	})
	// Insert8's exact order: nor, and, then the picks (the digest test covers
	// the rest).
	got = rows(t, 3, func(cs *r1cs.System) {
		el := make([]fr.Element, 7)
		buildInsertTest(cs, el, frOne, 5)
	})
	// aux: a0..a6 the elements, a7 the element inserted, a8..a10 the index
	// bits, a11 = b0 nor b1, a12 = b0 and b1, a13 = p0_xx0 = nor ? a : b.
	if len(got) != 22 {
		t.Fatalf("insert_8: %d constraints", len(got))
	}
	wantRows(t, "insert_8 head", got[:3],
		"1*ONE -1*a8 | 1*ONE -1*a9 | 1*a11", "1*a8 | 1*a9 | 1*a12", "1*a0 -1*a7 | 1*a11 | 1*a0 -1*a13")
}

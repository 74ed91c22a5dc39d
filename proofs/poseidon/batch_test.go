package poseidon

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/utils/cpu"
)

// Batch.Hash equals Hash of each input, for every arity, in the vector form
// and the one-at-a-time form, for batch sizes around the vector kernels'
// block of 8 and the width at which gnark-crypto's vector additions change
// kernel; inputs include 0, 1 and p − 1.
func TestBatchEqualsHash(t *testing.T) {
	var pm1 fr.Element
	pm1.SetOne()
	pm1.Neg(&pm1)
	forms := []bool{false}
	if cpu.SupportAVX512IFMA {
		forms = append(forms, true)
	} else {
		t.Log("this CPU has no AVX-512 IFMA: only the one-at-a-time form runs")
	}
	for _, a := range Arities() {
		c := mustFor(t, a)
		for _, n := range []int{1, 7, 8, 9, 17, 130} {
			for _, vector := range forms {
				b := newBatch(c, n, vector)
				if b.Len() != n {
					t.Fatalf("Len %d, want %d", b.Len(), n)
				}
				for i := range n {
					in := b.Input(i)
					copy(in, randomElements(t, a))
					switch i % 4 {
					case 1:
						in[0].SetZero()
					case 2:
						in[a-1].SetOne()
					case 3:
						in[i%a] = pm1
					}
				}
				out := make([]fr.Element, n)
				for _, m := range []int{n, n / 2, n} { // a Batch is reusable, for its first m inputs too
					clear(out)
					b.Hash(out[:m])
					for i := range n {
						if i >= m {
							if !out[i].IsZero() {
								t.Fatalf("arity %d, n %d, vector %v: Hash of %d wrote output %d", a, n, vector, m, i)
							}
							continue
						}
						if want := Hash(c, b.Input(i)); !out[i].Equal(&want) {
							t.Fatalf("arity %d, n %d, vector %v: hash %d differs", a, n, vector, i)
						}
					}
				}
			}
		}
	}
}

func TestBatchPanicsOnWrongLength(t *testing.T) {
	b := NewBatch(mustFor(t, 8), 3)
	defer func() {
		if recover() == nil {
			t.Error("Hash into 4 outputs of a batch of 3 did not panic")
		}
	}()
	b.Hash(make([]fr.Element, 4))
}

// BenchmarkBatch reports ns per hash (compare BenchmarkHash).
func BenchmarkBatch(b *testing.B) {
	for _, a := range []int{2, 8, 11} {
		for _, n := range []int{16, 128} {
			c := mustFor(b, a)
			bt := NewBatch(c, n)
			for i := range n {
				copy(bt.Input(i), randomElements(b, a))
			}
			out := make([]fr.Element, n)
			b.Run(fmt.Sprintf("arity=%d/n=%d", a, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					bt.Hash(out)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/hash")
			})
		}
	}
}

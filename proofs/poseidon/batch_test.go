package poseidon

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/utils/cpu"

	"github.com/filc2/filc2/proofs/r1cs"
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
				for _, m := range []int{n, n / 2, 0, n} { // a Batch is reusable, for its first m inputs too
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

// The traces (Constants.Trace, Batch.HashTrace in both forms) are the aux
// values HashCircuit allocates in Witness mode, and ReplayCircuit of a trace
// leaves the System as HashCircuit does: the same aux, constraint count and
// output. Record mode refuses a replay.
func TestTraceEqualsGadget(t *testing.T) {
	forms := []bool{false}
	if cpu.SupportAVX512IFMA {
		forms = append(forms, true)
	}
	for _, a := range Arities() {
		c := mustFor(t, a)
		g := c.GadgetConstraints()
		const n = 11
		for _, vector := range forms {
			b := newBatch(c, n, vector)
			for i := range n {
				copy(b.Input(i), randomElements(t, a))
			}
			out, trace := make([]fr.Element, n), make([]fr.Element, n*g)
			traces := make([][]fr.Element, n)
			for i := range traces {
				traces[i] = trace[i*g : (i+1)*g]
			}
			b.HashTrace(out, traces)
			for i := range n {
				ws := r1cs.New(r1cs.Witness)
				h, err := HashCircuit(ws, c, allocInputs(ws, b.Input(i)))
				if err != nil {
					t.Fatal(err)
				}
				_, aux := ws.Assignment()
				aux = aux[a:] // after the inputs
				one := make([]fr.Element, g)
				if got := c.Trace(one, b.Input(i)); !got.Equal(&h.Val) || !out[i].Equal(&h.Val) {
					t.Fatalf("arity %d, vector %v, hash %d: Trace or HashTrace returns another hash", a, vector, i)
				}
				tr := trace[i*g : (i+1)*g]
				if len(aux) != g {
					t.Fatalf("arity %d: HashCircuit allocated %d aux, GadgetConstraints %d", a, len(aux), g)
				}
				for k := range g {
					if !aux[k].Equal(&tr[k]) || !one[k].Equal(&tr[k]) {
						t.Fatalf("arity %d, vector %v, hash %d: traced value %d differs", a, vector, i, k)
					}
				}
				rs := r1cs.New(r1cs.Witness)
				allocInputs(rs, b.Input(i))
				r, err := ReplayCircuit(rs, c, tr)
				if err != nil {
					t.Fatal(err)
				}
				_, raux := rs.Assignment()
				if r.Var != h.Var || !r.Val.Equal(&h.Val) || rs.NumConstraints() != ws.NumConstraints() || len(raux) != len(aux)+a {
					t.Fatalf("arity %d: the replay differs: %v %v, %d constraints, %d aux", a, r.Var, h.Var, rs.NumConstraints(), len(raux))
				}
			}
		}
		if _, err := ReplayCircuit(r1cs.New(r1cs.Record), c, make([]fr.Element, g)); err == nil {
			t.Errorf("arity %d: a replay in Record mode", a)
		}
		if _, err := ReplayCircuit(r1cs.New(r1cs.Witness), c, make([]fr.Element, g-1)); err == nil {
			t.Errorf("arity %d: a short trace replayed", a)
		}
	}
}

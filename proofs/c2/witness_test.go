package c2_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	. "github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/r1cs"
)

// randomInput fills a blank partition of shape s with pseudo-random values
// (field elements below 2^254, random path positions): the synthesis work of a
// real partition without sealing one.
func randomInput(s porep.CircuitShape, seed uint64) *porep.PartitionInput {
	rng := rand.New(rand.NewPCG(seed, 0x77697473))
	el := func() fr.Element {
		var b [32]byte
		for i := 0; i < 32; i += 8 {
			v := rng.Uint64()
			for j := range 8 {
				b[i+j] = byte(v >> (8 * j))
			}
		}
		b[0] &= 0x3f // big-endian: below 2^254
		var e fr.Element
		e.SetBytes(b[:])
		return e
	}
	path := func(p []porep.PathLevel) {
		for i := range p {
			p[i].Index = rng.IntN(len(p[i].Siblings) + 1)
			for j := range p[i].Siblings {
				p[i].Siblings[j] = el()
			}
		}
	}
	col := func(c *porep.Column) {
		for i := range c.Rows {
			c.Rows[i] = el()
		}
		path(c.Path)
	}
	in := s.Blank()
	in.ReplicaID, in.CommD, in.CommR, in.CommRLast, in.CommC = el(), el(), el(), el(), el()
	for i := range in.Proofs {
		c := &in.Proofs[i]
		c.Challenge = rng.Uint64N(1 << 30)
		c.DataLeaf = el()
		path(c.CommDPath)
		path(c.CommRLastPath)
		path(c.CommCPath)
		for j := range c.DRGParents {
			col(&c.DRGParents[j])
		}
		for j := range c.ExpParents {
			col(&c.ExpParents[j])
		}
	}
	return in
}

func benchSelected(name string) bool {
	f := flag.Lookup("test.bench")
	return f != nil && strings.Contains(f.Value.String(), name)
}

// countedCircuit stands in for p's recorded circuit where Witness needs only
// its counts.
func countedCircuit(t testing.TB, shape porep.CircuitShape) *r1cs.Circuit {
	t.Helper()
	cs := r1cs.New(r1cs.Count)
	if err := porep.Synthesize(cs, shape, shape.Blank()); err != nil {
		t.Fatal(err)
	}
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
	st := cs.Stats()
	return &r1cs.Circuit{NumInputs: st.Inputs, NumAux: st.Aux, NumConstraints: st.Constraints}
}

func sameWitness(t *testing.T, what string, a, b *groth16.Assignment) {
	t.Helper()
	if len(a.Inputs) != len(b.Inputs) || len(a.Aux) != len(b.Aux) {
		t.Fatalf("%s: %d inputs, %d aux; want %d, %d", what, len(b.Inputs), len(b.Aux), len(a.Inputs), len(a.Aux))
	}
	for i := range a.Inputs {
		if !a.Inputs[i].Equal(&b.Inputs[i]) {
			t.Fatalf("%s: input %d differs", what, i)
		}
	}
	for i := range a.Aux {
		if !a.Aux[i].Equal(&b.Aux[i]) {
			t.Fatalf("%s: aux %d differs", what, i)
		}
	}
}

// A sealed 2KiB partition: the parallel witness (with and without the
// circuit's counts, into fresh or recycled storage) is the sequential one,
// and counts that are not the circuit's are refused.
func TestWitnessParallel(t *testing.T) {
	p, err := abi.ParseName("StackedDrg2KiBV1_1")
	if err != nil {
		t.Fatal(err)
	}
	shape := porep.ShapeOf(p)
	in, err := porep.PartitionInputFromC1(sealC1(t, p, 1, 9), 0)
	if err != nil {
		t.Fatal(err)
	}
	c := countedCircuit(t, shape)
	seq, err := Witness(shape, in, c, WithParallelism(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 2, 3} {
		w, err := Witness(shape, in, c, WithParallelism(n))
		if err != nil {
			t.Fatal(err)
		}
		sameWitness(t, fmt.Sprintf("parallelism %d", n), seq, w)
		w, err = Witness(shape, in, nil, WithParallelism(n))
		if err != nil {
			t.Fatal(err)
		}
		sameWitness(t, fmt.Sprintf("parallelism %d, no circuit", n), seq, w)
	}

	old, err := Witness(shape, randomInput(shape, 2), c)
	if err != nil {
		t.Fatal(err)
	}
	first := &old.Aux[0]
	w, err := Witness(shape, in, c, WithReuse(old))
	if err != nil {
		t.Fatal(err)
	}
	sameWitness(t, "recycled storage", seq, w)
	if &w.Aux[0] != first {
		t.Error("WithReuse did not reuse the aux storage")
	}

	for _, bad := range []r1cs.Circuit{
		{NumInputs: c.NumInputs, NumAux: c.NumAux + 2, NumConstraints: c.NumConstraints},
		{NumInputs: c.NumInputs, NumAux: c.NumAux, NumConstraints: c.NumConstraints + 2},
	} {
		for _, n := range []int{1, 2} {
			if _, err := Witness(shape, in, &bad, WithParallelism(n)); err == nil {
				t.Errorf("parallelism %d: counts %+v accepted", n, bad)
			}
		}
	}
}

// BenchmarkWitness is c2.Witness for one partition, sequential (seq) and on
// every core (par), into newly allocated storage and into recycled storage
// (reuse, as a prover that recycles its assignments does), after one warm-up
// witness. 2KiB and 8MiB partitions are sealed here; the 32GiB one is a random
// input of the real shape, synthesised only when -bench names 32GiB (about
// 4 GiB per witness).
func BenchmarkWitness(b *testing.B) {
	cases := []struct {
		name, proof string
		sealed      bool
	}{
		{"2KiB", "StackedDrg2KiBV1_1", true},
		{"8MiB", "StackedDrg8MiBV1_1", true},
		{"32GiB", "StackedDrg32GiBV1_1", false},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			if tc.name == "32GiB" && !benchSelected("32GiB") {
				b.Skip("select with -bench Witness/32GiB")
			}
			p, err := abi.ParseName(tc.proof)
			if err != nil {
				b.Fatal(err)
			}
			shape := porep.ShapeOf(p)
			var (
				in *porep.PartitionInput
				c  *r1cs.Circuit
			)
			if tc.sealed {
				if in, err = porep.PartitionInputFromC1(sealC1(b, p, 1, 9), 0); err != nil {
					b.Fatal(err)
				}
				c = countedCircuit(b, shape)
			} else {
				in = randomInput(shape, 1)
				// The spec's counts (§2.4); Witness checks them. Counting
				// the circuit here would take half a minute.
				c = &r1cs.Circuit{NumInputs: 328, NumAux: 130169893, NumConstraints: 130278869}
			}
			for _, mode := range []struct {
				name        string
				parallelism int
				reuse       bool
			}{{"seq", 1, false}, {"par", 0, false}, {"seq-reuse", 1, true}, {"par-reuse", 0, true}} {
				b.Run(mode.name, func(b *testing.B) {
					// A warm-up witness first, as in a prover that has run
					// before: its storage is recycled (reuse) or garbage
					// that the next allocation may get back, zeroed.
					w, err := Witness(shape, in, c)
					if err != nil {
						b.Fatal(err)
					}
					opts := []WitnessOption{WithParallelism(mode.parallelism)}
					if mode.reuse {
						opts = append(opts, WithReuse(w))
					}
					w = nil
					runtime.GC()
					b.ReportAllocs()
					for b.Loop() {
						if _, err := Witness(shape, in, c, opts...); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

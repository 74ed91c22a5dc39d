package porep

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/r1cs"
)

// witnessOf synthesises in in Witness mode with opts and returns the finished
// assignment.
func witnessOf(t *testing.T, s CircuitShape, in *PartitionInput, opts ...SynthOption) (inputs, aux []fr.Element) {
	t.Helper()
	cs := r1cs.New(r1cs.Witness)
	if err := Synthesize(cs, s, in, opts...); err != nil {
		t.Fatal(err)
	}
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
	return cs.Assignment()
}

// sameAssignment reports the first element where two assignments differ.
func sameAssignment(t *testing.T, what string, inA, auxA, inB, auxB []fr.Element) {
	t.Helper()
	if len(inA) != len(inB) || len(auxA) != len(auxB) {
		t.Fatalf("%s: %d inputs, %d aux; sequential %d, %d", what, len(inB), len(auxB), len(inA), len(auxA))
	}
	for i := range inA {
		if !inA[i].Equal(&inB[i]) {
			t.Fatalf("%s: input %d differs", what, i)
		}
	}
	for i := range auxA {
		if !auxA[i].Equal(&auxB[i]) {
			t.Fatalf("%s: aux %d of %d differs", what, i, len(auxA))
		}
	}
}

// totalsOf counts the circuit of s.
func totalsOf(t *testing.T, s CircuitShape) r1cs.Header {
	t.Helper()
	cs := r1cs.New(r1cs.Count)
	if err := Synthesize(cs, s, s.Blank()); err != nil {
		t.Fatal(err)
	}
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
	st := cs.Stats()
	return r1cs.Header{NumInputs: st.Inputs, NumAux: st.Aux, NumConstraints: st.Constraints}
}

// checkParallelEqualsSequential compares the parallel witness of in, with the
// layout measured and with it derived from the totals, at several worker
// counts, to the sequential one element for element, and returns the latter.
func checkParallelEqualsSequential(t *testing.T, s CircuitShape, in *PartitionInput) (inputs, aux []fr.Element) {
	t.Helper()
	inputs, aux = witnessOf(t, s, in, WithParallelism(1))
	totals := totalsOf(t, s)
	if len(inputs) != totals.NumInputs || len(aux) != totals.NumAux {
		t.Fatalf("sequential witness has %d inputs, %d aux; the circuit %+v", len(inputs), len(aux), totals)
	}
	for _, workers := range slices.Compact([]int{2, 3, len(in.Proofs) + 1}) {
		var calls []int
		progress := WithProgress(func(done, total int) {
			if total != len(in.Proofs) {
				t.Errorf("progress total %d", total)
			}
			calls = append(calls, done)
		})
		pi, pa := witnessOf(t, s, in, WithParallelism(workers), progress)
		sameAssignment(t, "parallel, measured layout", inputs, aux, pi, pa)
		for i, d := range calls {
			if d != i+1 {
				t.Fatalf("progress calls %v", calls)
			}
		}
		if len(calls) != len(in.Proofs) {
			t.Fatalf("progress calls %v for %d challenges", calls, len(in.Proofs))
		}
		pi, pa = witnessOf(t, s, in, WithParallelism(workers), WithTotals(totals))
		sameAssignment(t, "parallel, layout from the totals", inputs, aux, pi, pa)
		pi, pa = witnessOf(t, s, in, WithParallelism(workers), WithTotals(totals), WithGate(par.NewGate(2)))
		sameAssignment(t, "parallel through a gate of 2", inputs, aux, pi, pa)
	}
	return inputs, aux
}

// satisfies records s's circuit and evaluates every constraint on the assignment.
func satisfies(t *testing.T, s CircuitShape, inputs, aux []fr.Element) {
	t.Helper()
	rs := r1cs.New(r1cs.Record)
	if err := Synthesize(rs, s, s.Blank()); err != nil {
		t.Fatal(err)
	}
	if err := rs.Finish(); err != nil {
		t.Fatal(err)
	}
	c, err := rs.Circuit()
	if err != nil {
		t.Fatal(err)
	}
	bad, err := c.IsSatisfied(inputs, aux)
	if err != nil {
		t.Fatal(err)
	}
	if bad >= 0 {
		t.Fatalf("the parallel witness does not satisfy constraint %d", bad)
	}
}

// Real sealed 2KiB partitions (interactive V1_1 and SyntheticPoRep) and an 8MiB
// one: the parallel witness is the sequential one, element for element, and it
// satisfies the recorded circuit (and Check mode passes on the same input).
func TestParallelWitnessSealed(t *testing.T) {
	names := []string{"StackedDrg2KiBV1_1", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep", "StackedDrg8MiBV1_1"}
	if testing.Short() {
		names = names[:2]
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			sec := sealFor(t, name, nil)
			out, err := sec.Commit1(testSeed(7))
			if err != nil {
				t.Fatal(err)
			}
			in, err := PartitionInputFromC1(out, 0)
			if err != nil {
				t.Fatal(err)
			}
			s := ShapeOf(sec.Proof)
			inputs, aux := checkParallelEqualsSequential(t, s, in)
			satisfies(t, s, inputs, aux)
			cs := r1cs.New(r1cs.Check)
			if err := Synthesize(cs, s, in); err != nil {
				t.Fatal(err)
			}
			if err := cs.Finish(); err != nil {
				t.Fatalf("check mode: %v", err)
			}
			ci, ca := cs.Assignment()
			sameAssignment(t, "check mode", inputs, aux, ci, ca)
		})
	}
}

// randomPartition fills a blank partition of s with random values: not a
// satisfying input, but the same synthesis work.
func randomPartition(s CircuitShape, seed uint64) *PartitionInput {
	rng := rand.New(rand.NewPCG(seed, 1))
	el := func() fr.Element {
		var e fr.Element
		e.SetUint64(rng.Uint64())
		var f fr.Element
		f.SetUint64(rng.Uint64())
		e.Mul(&e, &f)
		return *e.Mul(&e, &e)
	}
	path := func(p []PathLevel) {
		for i := range p {
			p[i].Index = rng.IntN(len(p[i].Siblings) + 1)
			for j := range p[i].Siblings {
				p[i].Siblings[j] = el()
			}
		}
	}
	in := s.Blank()
	in.ReplicaID, in.CommD, in.CommR, in.CommRLast, in.CommC = el(), el(), el(), el(), el()
	for i := range in.Proofs {
		c := &in.Proofs[i]
		c.Challenge, c.DataLeaf = rng.Uint64(), el()
		path(c.CommDPath)
		path(c.CommRLastPath)
		path(c.CommCPath)
		for _, col := range append(c.DRGParents[:], c.ExpParents[:]...) {
			for r := range col.Rows {
				col.Rows[r] = el()
			}
			path(col.Path)
		}
	}
	return in
}

// More challenges than workers, uneven shares, a sub/top tree: the parallel
// witness of a random input is still the sequential one.
func TestParallelWitnessManyChallenges(t *testing.T) {
	s := CircuitShape{Layers: 2, Challenges: 5, TreeDLevels: 3, TreeArities: []int{8, 4, 2}}
	checkParallelEqualsSequential(t, s, randomPartition(s, 3))
}

// Synthesize runs its challenges inside the gate, sequential or parallel: with
// the gate's one slot taken it synthesises nothing until the slot comes back,
// then finishes with the ungated witness.
func TestSynthesizeWaitsForGate(t *testing.T) {
	s := CircuitShape{Layers: 2, Challenges: 3, TreeDLevels: 3, TreeArities: []int{8, 4, 2}}
	in := randomPartition(s, 5)
	witnessOf(t, s, in, WithParallelism(1)) // the first synthesis also builds the hashes' constants
	t0 := time.Now()
	wantIn, wantAux := witnessOf(t, s, in, WithParallelism(1))
	// Held for three times what a whole ungated synthesis took: a synthesis
	// that ignored the gate would be done by then.
	hold := max(3*time.Since(t0), 300*time.Millisecond)
	for _, workers := range []int{1, 3} {
		g := par.NewGate(1)
		g.Enter()
		type result struct {
			inputs, aux []fr.Element
			err         error
		}
		done := make(chan result, 1)
		go func() {
			cs := r1cs.New(r1cs.Witness)
			err := Synthesize(cs, s, in, WithParallelism(workers), WithGate(g))
			if err == nil {
				err = cs.Finish()
			}
			i, a := cs.Assignment()
			done <- result{i, a, err}
		}()
		select {
		case r := <-done:
			t.Fatalf("workers %d: synthesis finished (err %v) while the gate's only slot was taken", workers, r.err)
		case <-time.After(hold):
		}
		g.Leave()
		select {
		case r := <-done:
			if r.err != nil {
				t.Fatal(r.err)
			}
			sameAssignment(t, "gated", wantIn, wantAux, r.inputs, r.aux)
		case <-time.After(2 * time.Minute):
			t.Fatalf("workers %d: synthesis did not finish once the gate was free", workers)
		}
	}
}

// A challenge whose synthesis fails is reported by its index, and totals that
// do not fit the shape are refused.
func TestParallelWitnessErrors(t *testing.T) {
	s := CircuitShape{Layers: 2, Challenges: 3, TreeDLevels: 2, TreeArities: []int{3}} // arity 3: no Poseidon tree
	in := randomPartition(s, 4)
	totals := r1cs.Header{NumInputs: 1 + 3 + 3*18, NumAux: 10000, NumConstraints: 20000}
	cs := r1cs.New(r1cs.Witness)
	err := Synthesize(cs, s, in, WithParallelism(2), WithTotals(totals))
	if err == nil || !strings.Contains(err.Error(), "challenge 0:") || !strings.Contains(err.Error(), "arity 3") {
		t.Fatalf("failing challenge: %v", err)
	}
	if err := Synthesize(r1cs.New(r1cs.Witness), s, in, WithParallelism(2)); err == nil {
		t.Fatal("failing challenge, measured layout: no error")
	}

	good := CircuitShape{Layers: 2, Challenges: 3, TreeDLevels: 2, TreeArities: []int{2, 2}}
	h := totalsOf(t, good)
	h.NumAux++ // not a multiple of the challenges any more
	err = Synthesize(r1cs.New(r1cs.Witness), good, randomPartition(good, 5), WithParallelism(2), WithTotals(h))
	if err == nil || !strings.Contains(err.Error(), "do not fit") {
		t.Fatalf("totals off by one aux: %v", err)
	}
	h.NumAux += 2 // a multiple again, but not this circuit's: Join finds the children short
	err = Synthesize(r1cs.New(r1cs.Witness), good, randomPartition(good, 5), WithParallelism(2), WithTotals(h))
	if err == nil || !strings.Contains(err.Error(), "forked child") {
		t.Fatalf("totals off by one aux per challenge: %v", err)
	}
}

// Several partitions synthesised at once, each in parallel (run with -race).
func TestParallelWitnessConcurrentPartitions(t *testing.T) {
	s := CircuitShape{Layers: 2, Challenges: 4, TreeDLevels: 2, TreeArities: []int{8}}
	in := randomPartition(s, 6)
	wi, wa := witnessOf(t, s, in, WithParallelism(1))
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := r1cs.New(r1cs.Witness)
			if err := Synthesize(cs, s, in, WithParallelism(3)); err != nil {
				t.Error(err)
				return
			}
			if err := cs.Finish(); err != nil {
				t.Error(err)
				return
			}
			pi, pa := cs.Assignment()
			if len(pa) != len(wa) || len(pi) != len(wi) {
				t.Errorf("%d aux, want %d", len(pa), len(wa))
				return
			}
			for i := range wa {
				if !wa[i].Equal(&pa[i]) {
					t.Errorf("aux %d differs", i)
					return
				}
			}
		}()
	}
	wg.Wait()
}

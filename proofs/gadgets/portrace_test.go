package gadgets

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/r1cs"
)

// PoRPoseidonTraced from PoRTracer.Trace's traces gives, path by path, the
// very System PoRPoseidon gives in Witness mode (aux values, inputs and
// constraint count), over paths of every tree shape traced together, more
// than one batch of them; a trace of another path, or of too few levels, is
// refused, and so is a replay outside Witness mode.
func TestPoRPoseidonTraced(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var leaves []fr.Element
	var paths [][]AuthLevel
	var roots []fr.Element
	for _, s := range []merkle.Shape{{Base: 8}, {Base: 8, Sub: 8}, {Base: 8, Sub: 8, Top: 2}, {Base: 2}} {
		n := s.BaseTrees() * 64
		fl, tr := randomPoseidonTree(t, r, s, n)
		for range 50 {
			i := r.IntN(n)
			p, _ := tr.Path(i)
			leaves, paths, roots = append(leaves, fl[i]), append(paths, authPath(t, p)), append(roots, tr.Root())
		}
	}
	var tracer PoRTracer
	traces, err := tracer.Trace(leaves, paths)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) <= traceBatch {
		t.Fatalf("%d paths: want more than one batch", len(paths))
	}
	run := func(i int, tr PathTrace) (*r1cs.System, error) {
		cs := r1cs.New(r1cs.Witness)
		l, rt := AllocNum(cs, leaves[i]), AllocNum(cs, roots[i])
		if tr == nil {
			return cs, PoRPoseidon(cs, l, rt, paths[i])
		}
		return cs, PoRPoseidonTraced(cs, l, rt, paths[i], tr)
	}
	for i := range paths {
		want, err1 := run(i, nil)
		got, err2 := run(i, traces[i])
		if err1 != nil || err2 != nil {
			t.Fatalf("path %d: %v %v", i, err1, err2)
		}
		wi, wa := want.Assignment()
		gi, ga := got.Assignment()
		if want.NumConstraints() != got.NumConstraints() || len(wi) != len(gi) || len(wa) != len(ga) {
			t.Fatalf("path %d: %d/%d constraints, %d/%d inputs, %d/%d aux", i, want.NumConstraints(), got.NumConstraints(), len(wi), len(gi), len(wa), len(ga))
		}
		for k := range wa {
			if !wa[k].Equal(&ga[k]) {
				t.Fatalf("path %d: aux %d differs", i, k)
			}
		}
		for k := range wi {
			if !wi[k].Equal(&gi[k]) {
				t.Fatalf("path %d: input %d differs", i, k)
			}
		}
	}
	if _, err := run(0, traces[1]); err == nil || !strings.Contains(err.Error(), "another child") && !strings.Contains(err.Error(), "levels") {
		t.Errorf("another path's trace: %v", err)
	}
	if _, err := run(0, traces[0][1:]); err == nil || !strings.Contains(err.Error(), "levels") {
		t.Errorf("a short trace: %v", err)
	}
	cs := r1cs.New(r1cs.Check)
	if err := PoRPoseidonTraced(cs, AllocNum(cs, leaves[0]), AllocNum(cs, roots[0]), paths[0], traces[0]); err == nil {
		t.Error("a traced PoR in Check mode")
	}
	var fresh PoRTracer
	if _, err := fresh.Trace(leaves[:3], paths[:3:3]); err != nil {
		t.Fatal(err)
	}
	bad := [][]AuthLevel{{{Siblings: make([]fr.Element, 2)}}}
	if _, err := fresh.Trace(leaves[:1], bad); err == nil {
		t.Error("an arity-3 level traced")
	}
}

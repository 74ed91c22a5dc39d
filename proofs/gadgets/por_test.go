package gadgets

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/r1cs"
)

func authPath(t *testing.T, p merkle.Path) []AuthLevel {
	t.Helper()
	out := make([]AuthLevel, len(p))
	for i, l := range p {
		out[i].Index = l.Index
		for _, s := range l.Siblings {
			e, err := fr.LittleEndian.Element(&s)
			if err != nil {
				t.Fatal(err)
			}
			out[i].Siblings = append(out[i].Siblings, e)
		}
	}
	return out
}

func nodeElem(t *testing.T, n merkle.Node) fr.Element {
	t.Helper()
	e, err := fr.LittleEndian.Element(&n)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// checkPoR runs a PoR gadget in Check mode and returns Finish's error; the
// single public input must be the leaf index.
func checkPoR(t *testing.T, poseidonTree bool, leaf, root fr.Element, path []AuthLevel, index uint64) error {
	t.Helper()
	cs := r1cs.New(r1cs.Check)
	l, r := AllocNum(cs, leaf), AllocNum(cs, root)
	var err error
	if poseidonTree {
		err = PoRPoseidon(cs, l, r, path)
	} else {
		err = PoRSHA256(cs, l, r, path)
	}
	if err != nil {
		t.Fatal(err)
	}
	ferr := cs.Finish()
	inputs, _ := cs.Assignment()
	if len(inputs) != 2 || inputs[1].Uint64() != index {
		t.Fatalf("inputs %v, want ONE and the leaf index %d", inputs, index)
	}
	return ferr
}

// PoR over real trees: every path of a random tree D and of Poseidon trees
// with sub and top levels satisfies the gadget, and a wrong sibling or root does not.
func TestPoRSatisfiedOnRealPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(uint64(rand.Int64()), 1))
	leaves := make([]merkle.Node, 16)
	for i := range leaves {
		for j := range 31 {
			leaves[i][j] = byte(r.Uint32())
		}
	}
	td, err := merkle.BuildSHA256(leaves)
	if err != nil {
		t.Fatal(err)
	}
	root := nodeElem(t, td.Root())
	for _, i := range []int{0, 5, 15} {
		p, _ := td.Path(i)
		ap := authPath(t, p)
		if err := checkPoR(t, false, nodeElem(t, leaves[i]), root, ap, uint64(i)); err != nil {
			t.Fatalf("tree D leaf %d: %v", i, err)
		}
		ap[2].Siblings[0].SetUint64(7)
		var ue *r1cs.UnsatisfiedError
		if err := checkPoR(t, false, nodeElem(t, leaves[i]), root, ap, uint64(i)); !errors.As(err, &ue) {
			t.Fatalf("tree D leaf %d with a wrong sibling: %v", i, err)
		}
	}
	for _, s := range []merkle.Shape{{Base: 8}, {Base: 8, Sub: 8}, {Base: 8, Sub: 8, Top: 2}} {
		n := s.BaseTrees() * 8
		fl, tr := randomPoseidonTree(t, r, s, n)
		for _, i := range []int{0, n - 1, n / 3} {
			p, _ := tr.Path(i)
			ap := authPath(t, p)
			if err := checkPoR(t, true, fl[i], tr.Root(), ap, uint64(i)); err != nil {
				t.Fatalf("%v leaf %d: %v", s, i, err)
			}
			var wrong fr.Element
			wrong.SetUint64(3)
			if err := checkPoR(t, true, fl[i], wrong, ap, uint64(i)); err == nil {
				t.Fatalf("%v leaf %d: wrong root accepted", s, i)
			}
		}
	}
}

// randomPoseidonTree builds a Poseidon tree of shape s over n random leaves.
func randomPoseidonTree(t *testing.T, r *rand.Rand, s merkle.Shape, n int) ([]fr.Element, *merkle.PoseidonTree) {
	t.Helper()
	fl := make([]fr.Element, n)
	for i := range fl {
		fl[i].SetUint64(r.Uint64())
	}
	tr, err := merkle.BuildPoseidon(fl, s)
	if err != nil {
		t.Fatal(err)
	}
	return fl, tr
}

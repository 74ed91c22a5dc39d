package merkle

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// spell writes runs out as their leaves.
func spell(runs []Run) []fr.Element {
	var out []fr.Element
	for _, r := range runs {
		for range r.Count {
			out = append(out, r.Block...)
		}
	}
	return out
}

// A periodic tree is the full tree of its spelled-out leaves: same root, same
// leaves, same paths, whatever the runs' alignment with the arities (blocks
// longer, shorter and not dividing the arity; counts that fill groups and
// counts that do not).
func TestPeriodicPoseidonEqualsFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := []struct {
		shape Shape
		runs  [][2]uint64 // block length, count
	}{
		{Shape{Base: 8}, [][2]uint64{{64, 8}}},
		{Shape{Base: 8}, [][2]uint64{{8, 32}, {16, 16}}},
		{Shape{Base: 8, Sub: 8}, [][2]uint64{{64, 2}, {1, 64}, {2, 32}, {64, 4}}},
		{Shape{Base: 8, Sub: 8, Top: 2}, [][2]uint64{{4, 3}, {4, 5}, {8, 124}}}, // spelled out, then aligned
		{Shape{Base: 8, Sub: 2}, [][2]uint64{{1, 1}, {7, 1}, {64, 1}, {8, 7}}},  // blocks that do not divide 8
		{Shape{Base: 2}, [][2]uint64{{4, 4}, {1, 16}}},
	}
	for _, c := range cases {
		var runs []Run
		for _, r := range c.runs {
			runs = append(runs, Run{Block: randomElements(rng, int(r[0])), Count: r[1]})
		}
		leaves := spell(runs)
		full, err := BuildPoseidon(leaves, c.shape)
		if err != nil {
			t.Fatalf("%v: %v", c.shape, err)
		}
		pt, err := BuildPeriodicPoseidon(c.shape, runs)
		if err != nil {
			t.Fatalf("%v %v: %v", c.shape, c.runs, err)
		}
		if pt.Root() != full.Root() || pt.Leaves() != uint64(len(leaves)) {
			t.Fatalf("%v %v: root or size differs from the full tree's", c.shape, c.runs)
		}
		for i := range leaves {
			if pt.Leaf(uint64(i)) != leaves[i] {
				t.Fatalf("%v: leaf %d differs", c.shape, i)
			}
			want, _ := full.Path(i)
			got, err := pt.Path(uint64(i))
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%v: path of leaf %d differs (%v)", c.shape, i, err)
			}
		}
		// One leaf changed in one run changes the root.
		runs[0].Block[0].SetUint64(12345)
		pt2, err := BuildPeriodicPoseidon(c.shape, runs)
		if err != nil || pt2.Root() == pt.Root() {
			t.Fatalf("%v: a changed leaf keeps the root (%v)", c.shape, err)
		}
	}
}

func TestPeriodicPoseidonErrors(t *testing.T) {
	b := randomElements(rand.New(rand.NewPCG(5, 6)), 8)
	for _, runs := range [][]Run{
		nil,
		{{Block: b, Count: 0}},
		{{Block: b[:3], Count: 5}}, // 15 leaves fill no tree
		{{Block: b, Count: 3}},     // 24 leaves: not a power of 8
	} {
		if _, err := BuildPeriodicPoseidon(Shape{Base: 8}, runs); err == nil {
			t.Fatalf("runs %v built a tree", runs)
		}
	}
	pt, err := BuildPeriodicPoseidon(Shape{Base: 8}, []Run{{Block: b, Count: 8}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pt.Path(64); err == nil {
		t.Fatal("a path past the last leaf")
	}
}

// Node of a periodic tree D is the full tree's node at every level.
func TestPeriodicSHA256Node(t *testing.T) {
	block := make([]Node, 8)
	for i := range block {
		block[i][0], block[i][5] = byte(i+1), 7
	}
	pt, err := BuildPeriodicSHA256(block, 64)
	if err != nil {
		t.Fatal(err)
	}
	var leaves []Node
	for range 8 {
		leaves = append(leaves, block...)
	}
	full, err := BuildSHA256(leaves)
	if err != nil {
		t.Fatal(err)
	}
	for h, lv := range full.levels {
		for i, want := range lv {
			got, err := pt.Node(h, uint64(i))
			if err != nil || got != want {
				t.Fatalf("node %d of level %d: %v", i, h, err)
			}
		}
	}
	if _, err := pt.Node(7, 0); err == nil {
		t.Fatal("a level above the root")
	}
	if _, err := pt.Node(1, 32); err == nil {
		t.Fatal("a node past the level's end")
	}
}

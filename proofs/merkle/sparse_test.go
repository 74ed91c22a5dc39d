package merkle

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

func randomElements(rng *rand.Rand, n int) []fr.Element {
	out := make([]fr.Element, n)
	for i := range out {
		out[i].SetUint64(rng.Uint64())
		out[i].Square(&out[i])
	}
	return out
}

// fullLevels hashes every level of a tree by global index: level h+1 node p
// over level h nodes [p·a, p·a+a). BuildPoseidon's base/sub/top structure must
// be this (checked by comparing roots).
func fullLevels(leaves []fr.Element, arities []int) [][]fr.Element {
	lv := [][]fr.Element{leaves}
	for _, a := range arities {
		cur := lv[len(lv)-1]
		next := make([]fr.Element, len(cur)/a)
		for p := range next {
			next[p] = hashChildren(a, cur[p*a:(p+1)*a])
		}
		lv = append(lv, next)
	}
	return lv
}

// A sparse tree whose fill is a full tree's nodes is that tree: same root, same
// paths for its known leaves; and its root and paths change with any known leaf.
func TestSparsePoseidonEqualsFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []Shape{{Base: 8}, {Base: 8, Sub: 8}, {Base: 8, Sub: 8, Top: 2}, {Base: 2}, {Base: 8, Sub: 2}} {
		n := uint64(64 * s.BaseTrees())
		if s.Base == 2 {
			n = 32
		}
		leaves := randomElements(rng, int(n))
		full, err := BuildPoseidon(leaves, s)
		if err != nil {
			t.Fatal(err)
		}
		arities, err := s.Arities(n)
		if err != nil {
			t.Fatal(err)
		}
		if len(arities) != s.Levels(int(n)) {
			t.Fatalf("%v: %d arities, Levels says %d", s, len(arities), s.Levels(int(n)))
		}
		lv := fullLevels(leaves, arities)
		if lv[len(lv)-1][0] != full.Root() {
			t.Fatalf("%v: the global-index levels do not give BuildPoseidon's root", s)
		}
		known := map[uint64]fr.Element{}
		for range 5 {
			i := rng.Uint64N(n)
			known[i] = leaves[i]
		}
		fill := func(h int, i uint64) fr.Element { return lv[h][i] }
		sp, err := BuildSparsePoseidon(s, n, known, fill)
		if err != nil {
			t.Fatal(err)
		}
		if sp.Root() != full.Root() {
			t.Fatalf("%v: sparse root differs from the full tree's", s)
		}
		for i := range known {
			got, err := sp.Path(i)
			if err != nil {
				t.Fatal(err)
			}
			want, err := full.Path(int(i))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%v: path of leaf %d differs", s, i)
			}
			leaf, root := sp.Leaf(i), sp.Root()
			if r, err := PoseidonRoot(nodeOf(&leaf), got); err != nil || r != nodeOf(&root) {
				t.Fatalf("%v: path of leaf %d does not recompute the root (%v)", s, i, err)
			}
		}
		if _, err := sp.Path(uint64(n)); err == nil {
			t.Fatal("a path of an unknown leaf")
		}
		// A changed known leaf changes the root.
		for i := range known {
			var v, one fr.Element
			one.SetOne()
			v = known[i]
			known[i] = *v.Add(&v, &one)
			break
		}
		sp2, err := BuildSparsePoseidon(s, n, known, fill)
		if err != nil {
			t.Fatal(err)
		}
		if sp2.Root() == full.Root() {
			t.Fatalf("%v: a changed leaf kept the root", s)
		}
	}
}

func TestSparsePoseidonErrors(t *testing.T) {
	fill := func(int, uint64) fr.Element { return fr.Element{} }
	one := map[uint64]fr.Element{0: {}}
	for _, c := range []struct {
		s     Shape
		n     uint64
		known map[uint64]fr.Element
	}{
		{Shape{Base: 8}, 63, one},
		{Shape{Base: 3}, 9, one},
		{Shape{Base: 8, Top: 2}, 128, one},
		{Shape{Base: 8, Sub: 4}, 256, one},
		{Shape{Base: 8}, 64, nil},
		{Shape{Base: 8}, 64, map[uint64]fr.Element{64: {}}},
	} {
		if _, err := BuildSparsePoseidon(c.s, c.n, c.known, fill); err == nil {
			t.Errorf("%v over %d leaves, %d known: no error", c.s, c.n, len(c.known))
		}
	}
}

// The periodic tree is BuildSHA256 over the repeated block.
func TestPeriodicSHA256(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	block := make([]Node, 8)
	for i := range block {
		for j := range block[i] {
			block[i][j] = byte(rng.Uint32())
		}
		block[i][31] &= 0x3f
	}
	for _, n := range []uint64{8, 16, 256} {
		leaves := make([]Node, n)
		for i := range leaves {
			leaves[i] = block[i%len(block)]
		}
		full, err := BuildSHA256(leaves)
		if err != nil {
			t.Fatal(err)
		}
		pt, err := BuildPeriodicSHA256(block, n)
		if err != nil {
			t.Fatal(err)
		}
		if pt.Root() != full.Root() {
			t.Fatalf("%d leaves: root differs", n)
		}
		for _, i := range []uint64{0, 1, 7, n - 1, n / 2} {
			got, err := pt.Path(i)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := full.Path(int(i))
			if !reflect.DeepEqual(got, want) || pt.Leaf(i) != leaves[i] {
				t.Fatalf("%d leaves: leaf %d or its path differs", n, i)
			}
		}
		if _, err := pt.Path(n); err == nil {
			t.Fatal("a path past the last leaf")
		}
	}
	for _, c := range [][2]uint64{{8, 12}, {3, 16}, {16, 8}, {0, 8}} {
		if _, err := BuildPeriodicSHA256(make([]Node, c[0]), c[1]); err == nil {
			t.Errorf("block %d over %d leaves: no error", c[0], c[1])
		}
	}
}

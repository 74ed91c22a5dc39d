package merkle

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// PoseidonRoots equals PoseidonRoot path by path, over more paths than one
// chunk, of every tree shape mixed (arity-2 and arity-8 levels, different
// lengths), corrupted paths included; a path PoseidonRoot refuses gets a
// zero root and the first of them is named, while the others are hashed.
func TestPoseidonRootsEqualsPoseidonRoot(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var leaves []Node
	var paths []Path
	for _, s := range []Shape{{8, 0, 0}, {8, 8, 0}, {8, 8, 2}, {2, 0, 0}} {
		n := s.BaseTrees() * 64
		el := make([]fr.Element, n)
		for i := range el {
			el[i].SetUint64(r.Uint64())
		}
		tr, err := BuildPoseidon(el, s)
		if err != nil {
			t.Fatal(err)
		}
		for range 150 {
			i := r.IntN(n)
			p, err := tr.Path(i)
			if err != nil {
				t.Fatal(err)
			}
			if r.IntN(5) == 0 { // a wrong sibling: another root, still hashed
				p[r.IntN(len(p))].Siblings[0][0] ^= 1
			}
			leaves, paths = append(leaves, nodeOf(&el[i])), append(paths, p)
		}
	}
	r.Shuffle(len(paths), func(i, j int) {
		paths[i], paths[j] = paths[j], paths[i]
		leaves[i], leaves[j] = leaves[j], leaves[i]
	})
	if len(paths) <= rootsChunk {
		t.Fatalf("%d paths: want more than one chunk", len(paths))
	}
	check := func(roots []Node, bad map[int]bool) {
		t.Helper()
		for i := range paths {
			want, err := PoseidonRoot(leaves[i], paths[i])
			if (err != nil) != bad[i] {
				t.Fatalf("path %d: PoseidonRoot %v, marked bad %v", i, err, bad[i])
			}
			if roots[i] != want {
				t.Fatalf("path %d: PoseidonRoots %x, PoseidonRoot %x", i, roots[i], want)
			}
		}
	}
	roots, err := PoseidonRoots(leaves, paths)
	if err != nil {
		t.Fatal(err)
	}
	check(roots, nil)

	// Refused paths, the first in the second chunk: a non-canonical sibling,
	// then a bad index and a non-canonical leaf after it.
	first := rootsChunk + 5
	paths[first][0].Siblings[0] = [32]byte{31: 0xff}
	paths[first+7][1].Index = 9
	leaves[first+9] = [32]byte{31: 0xff}
	roots, err = PoseidonRoots(leaves, paths)
	var pe *PathError
	if !errors.As(err, &pe) || pe.Path != first || !strings.Contains(err.Error(), "level 0 sibling 0") {
		t.Fatalf("refused paths: %v", err)
	}
	check(roots, map[int]bool{first: true, first + 7: true, first + 9: true})

	if _, err := PoseidonRoots(leaves[1:], paths); err == nil {
		t.Fatal("more paths than leaves accepted")
	}
	if roots, err := PoseidonRoots(nil, nil); err != nil || len(roots) != 0 {
		t.Fatalf("no paths: %v %v", roots, err)
	}
}

package merkle

import (
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
	var ops []Opening
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
			ops = append(ops, Opening{nodeOf(&el[i]), p})
		}
	}
	r.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	if len(ops) <= rootsChunk {
		t.Fatalf("%d paths: want more than one chunk", len(ops))
	}
	check := func(roots []Node, errs []error) {
		t.Helper()
		for i, o := range ops {
			want, err := PoseidonRoot(o.Leaf, o.Path)
			var got error
			if errs != nil {
				got = errs[i]
			}
			if (err == nil) != (got == nil) || err != nil && err.Error() != got.Error() {
				t.Fatalf("path %d: PoseidonRoot says %v, PoseidonRoots %v", i, err, got)
			}
			if roots[i] != want {
				t.Fatalf("path %d: PoseidonRoots %x, PoseidonRoot %x", i, roots[i], want)
			}
		}
	}
	roots, errs := PoseidonRoots(ops)
	if errs != nil {
		t.Fatal(errs)
	}
	check(roots, errs)

	// Refused paths in two chunks: a non-canonical sibling, a bad index and a
	// non-canonical leaf.
	ops[5].Path[0].Siblings[0] = [32]byte{31: 0xff}
	ops[rootsChunk+7].Path[1].Index = 9
	ops[rootsChunk+9].Leaf = [32]byte{31: 0xff}
	roots, errs = PoseidonRoots(ops)
	if errs == nil || errs[5] == nil || !strings.Contains(errs[5].Error(), "level 0 sibling 0") {
		t.Fatalf("refused paths: %v", errs)
	}
	check(roots, errs)
	if roots, errs := PoseidonRoots(nil); errs != nil || len(roots) != 0 {
		t.Fatalf("no paths: %v %v", roots, errs)
	}
}

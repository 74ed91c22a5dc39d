package merkle

import (
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/testvec"
)

func nodes(t *testing.T, b []byte) []Node {
	t.Helper()
	if len(b)%32 != 0 {
		t.Fatalf("%d bytes", len(b))
	}
	out := make([]Node, len(b)/32)
	for i := range out {
		copy(out[i][:], b[32*i:])
	}
	return out
}

func hexNode(t *testing.T, s string) Node {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("bad hex %q", s)
	}
	return Node(b)
}

// The venus genesis sectors: tree D over the unsealed data is comm_d, tree
// R-last over the sealed replica is p_aux's comm_r_last.
func TestVenusRoots(t *testing.T) {
	commD := []string{
		"2d8cd21509618ffea50330291ea4a23523e1e3a5f74ceed0dd66bd327bf51a21",
		"cba50b4a44d909277ea22e76654dfa89a4ef9664d02192fc7321bbb9580b093e",
	}
	for s, name := range []string{"s-t0106-0", "s-t0106-1"} {
		unsealed := nodes(t, testvec.Read(t, "venus-preseal-2KiB", "unsealed", name))
		td, err := BuildSHA256(unsealed)
		if err != nil {
			t.Fatal(err)
		}
		if td.Root() != hexNode(t, commD[s]) {
			t.Errorf("%s: comm_d %x", name, td.Root())
		}
		sealed := nodes(t, testvec.Read(t, "venus-preseal-2KiB", "sealed", name))
		leaves := make([]fr.Element, len(sealed))
		for i := range sealed {
			e, err := fr.LittleEndian.Element(&sealed[i])
			if err != nil {
				t.Fatal(err)
			}
			leaves[i] = e
		}
		tr, err := BuildPoseidon(leaves, Shape{Base: 8})
		if err != nil {
			t.Fatal(err)
		}
		paux := testvec.Read(t, "venus-preseal-2KiB", "p_aux", name)
		root := tr.Root()
		if nodeOf(&root) != Node(paux[32:64]) {
			t.Errorf("%s: comm_r_last %x, want %x", name, nodeOf(&root), paux[32:64])
		}
		// Every path of both trees leads back to the root and names its leaf.
		for i := range leaves {
			p, _ := tr.Path(i)
			got, err := PoseidonRoot(sealed[i], p)
			if err != nil || got != nodeOf(&root) || p.LeafIndex() != uint64(i) || len(p) != 2 {
				t.Fatalf("R path %d: %v", i, err)
			}
			pd, _ := td.Path(i)
			gd, err := SHA256Root(unsealed[i], pd)
			if err != nil || gd != td.Root() || pd.LeafIndex() != uint64(i) || len(pd) != 6 {
				t.Fatalf("D path %d: %v", i, err)
			}
		}
	}
}

// Sub and top shapes: paths run base, sub, top and reproduce the root; the root
// is the sub/top hash of the base roots in order.
func TestPoseidonShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range []Shape{{8, 0, 0}, {8, 8, 0}, {8, 8, 2}, {2, 0, 0}} {
		n := s.BaseTrees() * 64
		leaves := make([]fr.Element, n)
		for i := range leaves {
			leaves[i].SetUint64(r.Uint64())
		}
		tr, err := BuildPoseidon(leaves, s)
		if err != nil {
			t.Fatal(err)
		}
		root := tr.Root()
		want := s.Levels(n)
		for _, i := range []int{0, 1, 63, 64, n / 2, n - 1} {
			if i >= n {
				continue
			}
			p, err := tr.Path(i)
			if err != nil {
				t.Fatal(err)
			}
			if len(p) != want || p.LeafIndex() != uint64(i) {
				t.Fatalf("%v leaf %d: %d levels (want %d), index %d", s, i, len(p), want, p.LeafIndex())
			}
			got, err := PoseidonRoot(nodeOf(&leaves[i]), p)
			if err != nil || got != nodeOf(&root) {
				t.Fatalf("%v leaf %d: root mismatch %v", s, i, err)
			}
			// A changed sibling changes the root.
			p[len(p)-1].Siblings[0][0] ^= 1
			if got, err := PoseidonRoot(nodeOf(&leaves[i]), p); err == nil && got == nodeOf(&root) {
				t.Fatalf("%v leaf %d: corrupted path verified", s, i)
			}
		}
	}
	if _, err := BuildPoseidon(make([]fr.Element, 65), Shape{Base: 8}); err == nil {
		t.Fatal("65 leaves accepted")
	}
}

// filecoin-hashers' test: the binary Poseidon root of [1, 0, 0, 1].
func TestFilecoinHashersFourLeafRoot(t *testing.T) {
	leaves := []fr.Element{fr.NewElement(1), {}, {}, fr.NewElement(1)}
	tr, err := BuildPoseidon(leaves, Shape{Base: 2})
	if err != nil {
		t.Fatal(err)
	}
	root := tr.Root()
	var want fr.Element
	want.SetString("0x1effebb7b26ad9eb30eb6385ae6b74ae77cc72b8cb2b5ad2efbb8be3e291e671")
	if !root.Equal(&want) {
		t.Fatalf("root %s", root.Text(16))
	}
}

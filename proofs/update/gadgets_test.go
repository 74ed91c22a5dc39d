package update

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/gadgets"
	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/r1cs"
)

// nodeFr reads a tree D node as the Fr it is in-circuit.
func nodeFr(t *testing.T, n merkle.Node) fr.Element {
	t.Helper()
	var e fr.Element
	if err := e.SetBytesCanonical(reverse(n[:])); err != nil {
		t.Fatal(err)
	}
	return e
}

func reverse(b []byte) []byte {
	out := make([]byte, len(b))
	for i := range b {
		out[len(b)-1-i] = b[i]
	}
	return out
}

// finish ends cs and fails the test on an unsatisfied constraint.
func finish(t *testing.T, cs *r1cs.System) {
	t.Helper()
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
}

// apexSetup builds a tree D over 2^partBits·leaves random nodes and returns,
// for partition k, its apex leaves (the leaves of its subtree), the
// partition path (the siblings above the subtree's root) and comm_d.
func apexSetup(t *testing.T, leaves, partBits, k int) (apex []fr.Element, path []fr.Element, commD fr.Element) {
	t.Helper()
	rng := newXorShift(testSeed)
	nodes := make([]merkle.Node, leaves<<partBits)
	for i := range nodes {
		e := rng.randomFr()
		b := e.Bytes()
		copy(nodes[i][:], reverse(b[:]))
		nodes[i][31] &= 0x3f
	}
	tree, err := merkle.BuildSHA256(nodes)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes[k*leaves : (k+1)*leaves] {
		apex = append(apex, nodeFr(t, n))
	}
	full, err := tree.Path(k * leaves)
	if err != nil {
		t.Fatal(err)
	}
	for _, lv := range full[len(full)-partBits:] {
		path = append(path, nodeFr(t, lv.Siblings[0]))
	}
	return apex, path, nodeFr(t, tree.Root())
}

// synthApex runs apexPoR on fresh allocations in cs and returns the
// constraints it added.
func synthApex(t *testing.T, cs *r1cs.System, apex, path []fr.Element, commD fr.Element, k int) int {
	t.Helper()
	d := gadgets.AllocNum(cs, commD)
	var bits []gadgets.Boolean
	for i := range path {
		bits = append(bits, gadgets.Is(gadgets.AllocBit(cs, k>>i&1 == 1)))
	}
	leaves := make([]gadgets.AllocatedNum, len(apex))
	for i, v := range apex {
		leaves[i] = gadgets.AllocNum(cs, v)
	}
	sibs := make([][]gadgets.AllocatedNum, len(path))
	for i, v := range path {
		sibs[i] = []gadgets.AllocatedNum{gadgets.AllocNum(cs, v)}
	}
	before := cs.NumConstraints()
	if err := apexPoR(cs, leaves, bits, sibs, d); err != nil {
		t.Fatal(err)
	}
	return cs.NumConstraints() - before
}

// apex_por: 317,654 constraints for 8 leaves and no partition bit,
// 5,808,515 for 128 leaves and one (storage-proofs-update's gadget test,
// spec §1.3); satisfied for the right partition path, not for another
// partition's apex leaves.
func TestApexPoR(t *testing.T) {
	for _, c := range []struct{ leaves, partBits, want int }{{8, 0, 317_654}, {128, 1, 5_808_515}} {
		apex, path, commD := apexSetup(t, c.leaves, c.partBits, 0)
		if got := synthApex(t, r1cs.New(r1cs.Count), apex, path, commD, 0); got != c.want {
			t.Errorf("%d leaves, %d partition bits: %d constraints, want %d", c.leaves, c.partBits, got, c.want)
		}
	}
	for k := range 4 {
		apex, path, commD := apexSetup(t, 8, 2, k)
		cs := r1cs.New(r1cs.Check)
		synthApex(t, cs, apex, path, commD, k)
		finish(t, cs)
		cs = r1cs.New(r1cs.Check)
		synthApex(t, cs, apex, path, commD, k^1) // another partition's position
		if cs.Finish() == nil {
			t.Errorf("partition %d: the apex tree verifies at partition %d", k, k^1)
		}
	}
}

// gen_challenge_bits: 568 constraints per digest (the reference's gadget
// test: 568 up to 8MiB, 4,544 at 512MiB, 5,680 at 32 and 64GiB), and the
// bits are the native challenges' random bits.
func TestGenChallengeBits(t *testing.T) {
	rng := newXorShift(testSeed)
	want := map[string]int{"StackedDrg2KiBV1": 568, "StackedDrg8MiBV1": 568, "StackedDrg512MiBV1": 4544,
		"StackedDrg32GiBV1": 5680, "StackedDrg64GiBV1": 5680}
	for _, p := range abi.AllUpdate() {
		commRNew := rng.randomFr()
		for _, k := range []int{0, p.Partitions - 1} {
			native, err := Challenges(p, commRNew, k)
			if err != nil {
				t.Fatal(err)
			}
			cs := r1cs.New(r1cs.Check)
			var kv fr.Element
			kv.SetUint64(uint64(k))
			cr, part := gadgets.AllocNum(cs, commRNew), gadgets.AllocNum(cs, kv)
			before := cs.NumConstraints()
			bits, err := genChallengeBits(cs, cr, part, p.Challenges, p.ChallengeBits())
			if err != nil {
				t.Fatal(err)
			}
			if n := cs.NumConstraints() - before; n != want[p.Name] {
				t.Errorf("%s k=%d: %d constraints, want %d", p.Name, k, n, want[p.Name])
			}
			finish(t, cs)
			if len(bits) != p.Challenges {
				t.Fatalf("%s: %d challenges' bits", p.Name, len(bits))
			}
			for i, cb := range bits {
				var c uint64
				for j, b := range cb {
					if b.Value {
						c |= 1 << j
					}
				}
				if c|uint64(k)<<p.ChallengeBits() != native[i] {
					t.Fatalf("%s k=%d challenge %d: bits give %d, native %d", p.Name, k, i, c, native[i])
				}
			}
		}
	}
}

// get_challenge_high_bits: 13 constraints for six h, the selected h's high
// bits of c; label_r_new: 2 constraints, old + d·rho.
func TestHighBitsAndLabel(t *testing.T) {
	for _, p := range abi.AllUpdate() {
		for _, c := range []uint64{0, 1, p.Nodes - 1, p.Nodes / 3} {
			for sel := range 6 {
				cs := r1cs.New(r1cs.Check)
				var cBits, hSel []gadgets.AllocatedBit
				for j := range p.NodeBits() {
					cBits = append(cBits, gadgets.AllocBit(cs, c>>j&1 == 1))
				}
				for j := range 6 {
					hSel = append(hSel, gadgets.AllocBit(cs, j == sel))
				}
				before := cs.NumConstraints()
				got := challengeHighBits(cs, cBits, hSel, p.HS[:])
				if n := cs.NumConstraints() - before; n != 13 {
					t.Fatalf("%s: %d constraints, want 13", p.Name, n)
				}
				finish(t, cs)
				var want fr.Element
				want.SetUint64(HighBits(p, c, p.HS[sel]))
				if !got.Value.Equal(&want) {
					t.Fatalf("%s c=%d h=%d: %s, want %s", p.Name, c, p.HS[sel], got.Value.String(), want.String())
				}
			}
		}
	}
	rng := newXorShift(testSeed)
	old, d, rho := rng.randomFr(), rng.randomFr(), rng.randomFr()
	cs := r1cs.New(r1cs.Check)
	n := labelRNew(cs, gadgets.AllocNum(cs, old), gadgets.AllocNum(cs, d), gadgets.AllocNum(cs, rho))
	var want fr.Element
	want.Mul(&d, &rho).Add(&want, &old)
	if cs.NumConstraints() != 2 || !n.Value.Equal(&want) {
		t.Errorf("label_r_new: %d constraints, %s, want 2 and %s", cs.NumConstraints(), n.Value.String(), want.String())
	}
	finish(t, cs)
}

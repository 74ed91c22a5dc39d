package c1

import (
	"reflect"
	"strings"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
)

// TestTreeShapes pins the spec's §1.2 table: R/C path levels, variants and
// tree-D levels per sector size.
func TestTreeShapes(t *testing.T) {
	want := map[uint64]struct {
		variant   string
		levels    []int
		treeD     int
		baseTrees string
	}{
		2 << 10:   {"Single", []int{8, 8}, 6, "1 base trees of 64 leaves"},
		8 << 20:   {"Single", []int{8, 8, 8, 8, 8, 8}, 18, "1 base trees of 262144 leaves"},
		512 << 20: {"Single", []int{8, 8, 8, 8, 8, 8, 8, 8}, 24, "1 base trees"},
		32 << 30:  {"Sub", []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 8}, 30, "8 base trees of 134217728 leaves"},
		64 << 30:  {"Top", []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 2}, 31, "16 base trees of 134217728 leaves"},
	}
	for _, p := range abi.All() {
		w := want[uint64(p.SectorSize)]
		s, err := treeRShape(p)
		if err != nil {
			t.Fatal(err)
		}
		if s.variant != w.variant || !reflect.DeepEqual(s.levels, w.levels) || s.base != 9 && p.SectorSize >= 32<<30 || !strings.Contains(s.desc, w.baseTrees) {
			t.Errorf("%s: tree R shape %+v, want %s %v (%s)", p, s, w.variant, w.levels, w.baseTrees)
		}
		if d := treeDShape(p); d.variant != "Single" || len(d.levels) != w.treeD || d.levels[0] != 2 {
			t.Errorf("%s: tree D shape %+v, want %d binary levels", p, d, w.treeD)
		}
	}
}

// pathOf returns an InclusionPath with the given indices, each level with
// arity−1 distinct siblings (marked by level and position).
func pathOf(level0 int, arity int, idx ...uint64) InclusionPath {
	var ip InclusionPath
	for l, i := range idx {
		e := PathElement{Index: i}
		for s := range arity - 1 {
			e.Hashes = append(e.Hashes, Domain{byte(level0 + l), byte(s)})
		}
		ip.Path = append(ip.Path, e)
	}
	return ip
}

// TestMerkleAccessors checks the path accessors on a Top proof: level order
// base, sub, top; mixed-radix index as rust-fil-proofs' TopProof::path_index.
func TestMerkleAccessors(t *testing.T) {
	m := MerkleProof{Data: ProofData{Top: &TopProof{
		BaseProof: pathOf(0, 8, 3, 5),
		SubProof:  pathOf(2, 8, 6),
		TopProof:  pathOf(3, 2, 1),
		Root:      Domain{9}, Leaf: Domain{7},
	}}}
	// Rust: base_proof.path_index() = 3 + 5·8 = 43; base leaves 8² = 64;
	// sub leaves 64·8 = 512; 6·64 + 1·512 + 43 = 939.
	if got := m.PathIndex(); got != 939 {
		t.Errorf("PathIndex = %d, want 939", got)
	}
	if got := m.Data.Top.BaseProof.PathIndex(); got != 43 {
		t.Errorf("base PathIndex = %d, want 43", got)
	}
	if m.Variant() != "Top" || m.Root() != (Domain{9}) || m.Leaf() != (Domain{7}) || m.Len() != 4 {
		t.Errorf("Variant %q Root %s Leaf %s Len %d", m.Variant(), m.Root(), m.Leaf(), m.Len())
	}
	if got := m.Indices(); !reflect.DeepEqual(got, []uint64{3, 5, 6, 1}) {
		t.Errorf("Indices = %v", got)
	}
	sib := m.Siblings()
	if len(sib) != 4 || len(sib[0]) != 7 || len(sib[2]) != 7 || len(sib[3]) != 1 {
		t.Fatalf("Siblings has shape %d levels", len(sib))
	}
	for l := range 4 {
		if sib[l][0][0] != byte(l) || m.Level(l).Hashes[0][0] != byte(l) || &m.Level(l).Hashes[0] != &sib[l][0] {
			t.Errorf("level %d: Siblings and Level disagree or are out of order", l)
		}
	}
	if m.Level(4) != nil || m.Level(-1) != nil {
		t.Error("Level out of range is not nil")
	}
	var none MerkleProof
	if none.Variant() != "" || none.Root() != (Domain{}) || none.Len() != 0 || none.PathIndex() != 0 || len(none.Siblings()) != 0 {
		t.Error("accessors of an empty MerkleProof")
	}
	two := MerkleProof{Data: ProofData{Single: &SingleProof{}, Sub: &SubProof{}}}
	if two.Variant() != "" {
		t.Error("Variant of a proof with two variants set")
	}
	// The tree-D indices are the challenge's bits, least significant first.
	d := MerkleProof{Data: ProofData{Single: &SingleProof{Path: pathOf(0, 2, 1, 0, 1, 1, 0, 0)}}}
	if got := d.PathIndex(); got != 0b001101 {
		t.Errorf("tree D PathIndex = %b, want 1101", got)
	}
}

// TestProofAccessors checks the per-challenge and per-partition accessors on
// a generated file against the generator's own values.
func TestProofAccessors(t *testing.T) {
	g := newGen(t, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 21)
	c := g.commit1Out(g.p.Partitions, g.p.ChallengesPerPartition)
	if p, err := c.ProofType(); err != nil || p.Name != c.RegisteredProof {
		t.Fatalf("ProofType = %v, %v", p, err)
	}
	for k := range c.VanillaProofs.Partitions {
		rl, cc, err := c.PartitionRoots(k)
		if err != nil || rl != g.commRLast || cc != g.commC {
			t.Fatalf("PartitionRoots(%d) = %s, %s, %v", k, rl, cc, err)
		}
		for j := range c.VanillaProofs.Partitions[k] {
			p := proof(c, k, j)
			ch := p.Challenge()
			if ch != p.LabelingProofs[0].Node || p.CommDProofs.PathIndex() != ch || p.CommRLastProof.PathIndex() != ch ||
				p.ReplicaColumnProofs.CX.InclusionProof.PathIndex() != ch {
				t.Fatalf("[%d][%d]: challenge %d does not match the paths", k, j, ch)
			}
			if p.DataLeaf() != p.CommDProofs.Data.Single.Leaf || p.CommRLast() != g.commRLast || p.CommC() != g.commC {
				t.Fatalf("[%d][%d]: DataLeaf, CommRLast or CommC wrong", k, j)
			}
			r := &p.ReplicaColumnProofs
			for i := range ColumnParents {
				want := &r.DrgParents[min(i, 5)]
				if i >= abi.BaseDegree {
					want = &r.ExpParents[i-abi.BaseDegree]
				}
				if r.Parent(i) != want {
					t.Fatalf("Parent(%d) is not the circuit's parent %d", i, i)
				}
			}
			if r.Parent(-1) != nil || r.Parent(ColumnParents) != nil {
				t.Fatal("Parent out of range is not nil")
			}
		}
	}
	if _, _, err := c.PartitionRoots(13); err == nil {
		t.Error("PartitionRoots(13) of 13 partitions succeeded")
	}
	proof(c, 2, 1).ReplicaColumnProofs.CX.InclusionProof.Data.Single.Root[0] ^= 1
	if _, _, err := c.PartitionRoots(2); err == nil || !strings.Contains(err.Error(), "[2][1].replica_column_proofs.c_x.inclusion_proof: inconsistent comm_cs") {
		t.Errorf("PartitionRoots with an inconsistent comm_c: %v", err)
	}
	proof(c, 5, 1).CommRLastProof.Data.Single.Root[0] ^= 1
	if _, _, err := c.PartitionRoots(5); err == nil || !strings.Contains(err.Error(), "inconsistent comm_r_lasts") {
		t.Errorf("PartitionRoots with an inconsistent comm_r_last: %v", err)
	}
	var empty Proof
	if empty.Challenge() != 0 {
		t.Error("Challenge of an empty proof")
	}
	c.RegisteredProof = "15"
	if _, err := c.ProofType(); err == nil {
		t.Error("ProofType accepts a number")
	}
}

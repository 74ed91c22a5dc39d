package abi

import (
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
)

// want is the proof-type table as the spec states it (§1.2, §3.2, §3.3, §4.1).
var want = []struct {
	proof                         abi.RegisteredSealProof
	name                          string
	size                          abi.SectorSize
	version                       string
	kind                          ChallengeKind
	nodes                         uint64
	layers, partitions, challenge int
	tree                          TreeShape
	dLevels, rLevels, proofLen    int
}{
	{abi.RegisteredSealProof_StackedDrg2KiBV1, "StackedDrg2KiBV1", 2 << 10, "1.0.0", Interactive, 1 << 6, 2, 1, 2, TreeShape{8, 0, 0}, 6, 2, 192},
	{abi.RegisteredSealProof_StackedDrg8MiBV1, "StackedDrg8MiBV1", 8 << 20, "1.0.0", Interactive, 1 << 18, 2, 1, 2, TreeShape{8, 0, 0}, 18, 6, 192},
	{abi.RegisteredSealProof_StackedDrg512MiBV1, "StackedDrg512MiBV1", 512 << 20, "1.0.0", Interactive, 1 << 24, 2, 1, 2, TreeShape{8, 0, 0}, 24, 8, 192},
	{abi.RegisteredSealProof_StackedDrg32GiBV1, "StackedDrg32GiBV1", 32 << 30, "1.0.0", Interactive, 1 << 30, 11, 10, 18, TreeShape{8, 8, 0}, 30, 10, 1920},
	{abi.RegisteredSealProof_StackedDrg64GiBV1, "StackedDrg64GiBV1", 64 << 30, "1.0.0", Interactive, 1 << 31, 11, 10, 18, TreeShape{8, 8, 2}, 31, 11, 1920},

	{abi.RegisteredSealProof_StackedDrg2KiBV1_1, "StackedDrg2KiBV1_1", 2 << 10, "1.1.0", Interactive, 1 << 6, 2, 1, 2, TreeShape{8, 0, 0}, 6, 2, 192},
	{abi.RegisteredSealProof_StackedDrg8MiBV1_1, "StackedDrg8MiBV1_1", 8 << 20, "1.1.0", Interactive, 1 << 18, 2, 1, 2, TreeShape{8, 0, 0}, 18, 6, 192},
	{abi.RegisteredSealProof_StackedDrg512MiBV1_1, "StackedDrg512MiBV1_1", 512 << 20, "1.1.0", Interactive, 1 << 24, 2, 1, 2, TreeShape{8, 0, 0}, 24, 8, 192},
	{abi.RegisteredSealProof_StackedDrg32GiBV1_1, "StackedDrg32GiBV1_1", 32 << 30, "1.1.0", Interactive, 1 << 30, 11, 10, 18, TreeShape{8, 8, 0}, 30, 10, 1920},
	{abi.RegisteredSealProof_StackedDrg64GiBV1_1, "StackedDrg64GiBV1_1", 64 << 30, "1.1.0", Interactive, 1 << 31, 11, 10, 18, TreeShape{8, 8, 2}, 31, 11, 1920},

	{abi.RegisteredSealProof_StackedDrg2KiBV1_1_Feat_SyntheticPoRep, "StackedDrg2KiBV1_1_Feat_SyntheticPoRep", 2 << 10, "1.2.0", Synthetic, 1 << 6, 2, 1, 2, TreeShape{8, 0, 0}, 6, 2, 192},
	{abi.RegisteredSealProof_StackedDrg8MiBV1_1_Feat_SyntheticPoRep, "StackedDrg8MiBV1_1_Feat_SyntheticPoRep", 8 << 20, "1.2.0", Synthetic, 1 << 18, 2, 1, 2, TreeShape{8, 0, 0}, 18, 6, 192},
	{abi.RegisteredSealProof_StackedDrg512MiBV1_1_Feat_SyntheticPoRep, "StackedDrg512MiBV1_1_Feat_SyntheticPoRep", 512 << 20, "1.2.0", Synthetic, 1 << 24, 2, 1, 2, TreeShape{8, 0, 0}, 24, 8, 192},
	{abi.RegisteredSealProof_StackedDrg32GiBV1_1_Feat_SyntheticPoRep, "StackedDrg32GiBV1_1_Feat_SyntheticPoRep", 32 << 30, "1.2.0", Synthetic, 1 << 30, 11, 10, 18, TreeShape{8, 8, 0}, 30, 10, 1920},
	{abi.RegisteredSealProof_StackedDrg64GiBV1_1_Feat_SyntheticPoRep, "StackedDrg64GiBV1_1_Feat_SyntheticPoRep", 64 << 30, "1.2.0", Synthetic, 1 << 31, 11, 10, 18, TreeShape{8, 8, 2}, 31, 11, 1920},

	{abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 2 << 10, "1.2.0", NonInteractive, 1 << 6, 2, 13, 2, TreeShape{8, 0, 0}, 6, 2, 13 * 192},
	{abi.RegisteredSealProof_StackedDrg8MiBV1_2_Feat_NiPoRep, "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep", 8 << 20, "1.2.0", NonInteractive, 1 << 18, 2, 13, 2, TreeShape{8, 0, 0}, 18, 6, 13 * 192},
	{abi.RegisteredSealProof_StackedDrg512MiBV1_2_Feat_NiPoRep, "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep", 512 << 20, "1.2.0", NonInteractive, 1 << 24, 2, 13, 2, TreeShape{8, 0, 0}, 24, 8, 13 * 192},
	{abi.RegisteredSealProof_StackedDrg32GiBV1_2_Feat_NiPoRep, "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", 32 << 30, "1.2.0", NonInteractive, 1 << 30, 11, 126, 18, TreeShape{8, 8, 0}, 30, 10, 126 * 192},
	{abi.RegisteredSealProof_StackedDrg64GiBV1_2_Feat_NiPoRep, "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep", 64 << 30, "1.2.0", NonInteractive, 1 << 31, 11, 126, 18, TreeShape{8, 8, 2}, 31, 11, 126 * 192},
}

func TestTable(t *testing.T) {
	all := All()
	if len(all) != len(want) {
		t.Fatalf("All() has %d entries, want %d", len(all), len(want))
	}
	for i, w := range want {
		p := all[i]
		if p.Proof != w.proof {
			t.Fatalf("All()[%d].Proof = %d, want %d", i, p.Proof, w.proof)
		}
		got := []any{p.Name, p.SectorSize, p.APIVersion.String(), p.ChallengeKind, p.Nodes, p.Layers, p.Partitions,
			p.ChallengesPerPartition, p.Tree, p.TreeDLevels(), p.TreeRLevels(), p.ProofLen()}
		exp := []any{w.name, w.size, w.version, w.kind, w.nodes, w.layers, w.partitions,
			w.challenge, w.tree, w.dLevels, w.rLevels, w.proofLen}
		fields := []string{"Name", "SectorSize", "APIVersion", "ChallengeKind", "Nodes", "Layers", "Partitions",
			"ChallengesPerPartition", "Tree", "TreeDLevels", "TreeRLevels", "ProofLen"}
		for j := range got {
			if got[j] != exp[j] {
				t.Errorf("%s: %s = %v, want %v", w.name, fields[j], got[j], exp[j])
			}
		}
		if p.String() != w.name {
			t.Errorf("%s: String() = %q", w.name, p.String())
		}
		if l, err := Lookup(w.proof); err != nil || l != p {
			t.Errorf("Lookup(%d) = %v, %v; want %v", w.proof, l.Name, err, p.Name)
		}
	}
}

// TestGoStateTypes cross-checks the table against go-state-types' own data.
func TestGoStateTypes(t *testing.T) {
	for _, p := range All() {
		ss, err := p.Proof.SectorSize()
		if err != nil || ss != p.SectorSize {
			t.Errorf("%s: go-state-types SectorSize = %d, %v; want %d", p, ss, err, p.SectorSize)
		}
		if abi.Synthetic[p.Proof] != (p.ChallengeKind == Synthetic) || abi.NonInteractive[p.Proof] != (p.ChallengeKind == NonInteractive) {
			t.Errorf("%s: kind %v disagrees with go-state-types feature maps", p, p.ChallengeKind)
		}
		// go-state-types v0.17.0 has no porep ids for the NI types (15–19):
		// its PoRepID fails there, while the proofs API uses the ids 15–19.
		if id, err := p.Proof.PoRepID(); err == nil && id != p.PoRepID() {
			t.Errorf("%s: go-state-types PoRepID = %x, want %x", p, id, p.PoRepID())
		} else if err != nil && p.ChallengeKind != NonInteractive {
			t.Errorf("%s: go-state-types PoRepID: %v", p, err)
		}
		if p.ChallengeKind == NonInteractive {
			continue // on-chain NI proofs are SnarkPack aggregates
		}
		if ps, err := p.Proof.ProofSize(); err != nil || ps != uint64(p.ProofLen()) {
			t.Errorf("%s: go-state-types ProofSize = %d, %v; want %d", p, ps, err, p.ProofLen())
		}
	}
}

func TestAllIsACopy(t *testing.T) {
	a := All()
	a[8].Partitions = 99
	if p, _ := Lookup(abi.RegisteredSealProof_StackedDrg32GiBV1_1); p.Partitions != 10 {
		t.Fatalf("mutating All() changed the table: Partitions = %d", p.Partitions)
	}
}

func TestLookupUnknown(t *testing.T) {
	for _, p := range []abi.RegisteredSealProof{-1, 20, 1 << 40} {
		if _, err := Lookup(p); err == nil {
			t.Errorf("Lookup(%d) succeeded", p)
		}
	}
}

func TestPoRepID(t *testing.T) {
	for _, tc := range []struct {
		proof abi.RegisteredSealProof
		first byte
	}{{0, 0x00}, {3, 0x03}, {8, 0x08}, {13, 0x0d}, {18, 0x12}, {19, 0x13}} {
		p, err := Lookup(tc.proof)
		if err != nil {
			t.Fatal(err)
		}
		var w [32]byte
		w[0] = tc.first
		if got := p.PoRepID(); got != w {
			t.Errorf("%s: PoRepID = %x, want %x", p, got, w)
		}
	}
	got := MakePoRepID(0x0102, 0x0304)
	w := [32]byte{0x02, 0x01, 0, 0, 0, 0, 0, 0, 0x04, 0x03}
	if got != w {
		t.Errorf("MakePoRepID(0x0102, 0x0304) = %x, want %x", got, w)
	}
}

func TestStrings(t *testing.T) {
	for _, tc := range []struct {
		s    interface{ String() string }
		want string
	}{
		{APIVersion1_0_0, "1.0.0"}, {APIVersion1_1_0, "1.1.0"}, {APIVersion1_2_0, "1.2.0"}, {APIVersion(0), "APIVersion(0)"},
		{Interactive, "Interactive"}, {Synthetic, "Synthetic"}, {NonInteractive, "NonInteractive"}, {ChallengeKind(9), "ChallengeKind(9)"},
		{TreeShape{8, 8, 2}, "merkletree-poseidon_hasher-8-8-2"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestBySectorSize(t *testing.T) {
	for _, tc := range []struct {
		size uint64
		kind ChallengeKind
		want abi.RegisteredSealProof
	}{
		{2 << 10, Interactive, abi.RegisteredSealProof_StackedDrg2KiBV1_1},
		{8 << 20, Interactive, abi.RegisteredSealProof_StackedDrg8MiBV1_1},
		{512 << 20, Interactive, abi.RegisteredSealProof_StackedDrg512MiBV1_1},
		{32 << 30, Interactive, abi.RegisteredSealProof_StackedDrg32GiBV1_1},
		{64 << 30, Interactive, abi.RegisteredSealProof_StackedDrg64GiBV1_1},
		{32 << 30, Synthetic, abi.RegisteredSealProof_StackedDrg32GiBV1_1_Feat_SyntheticPoRep},
		{64 << 30, NonInteractive, abi.RegisteredSealProof_StackedDrg64GiBV1_2_Feat_NiPoRep},
	} {
		p, err := BySectorSize(tc.size, tc.kind)
		if err != nil || p.Proof != tc.want {
			t.Errorf("BySectorSize(%d, %v) = %d, %v; want %d", tc.size, tc.kind, p.Proof, err, tc.want)
		}
	}
	for _, tc := range []struct {
		size uint64
		kind ChallengeKind
	}{{0, Interactive}, {4 << 10, Interactive}, {1 << 30, Interactive}, {32 << 30, 0}, {32 << 30, 4}} {
		if _, err := BySectorSize(tc.size, tc.kind); err == nil {
			t.Errorf("BySectorSize(%d, %v) succeeded", tc.size, tc.kind)
		}
	}
}

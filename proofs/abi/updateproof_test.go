package abi

import (
	"strings"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
)

// The update proof table against snap-post-spec §1.1's per-size table and
// §4's file names, and go-state-types' seal → update mapping.
func TestUpdateTable(t *testing.T) {
	want := []struct {
		name                                        string
		tree                                        TreeShape
		partitions, challenges, h, hSelect, kh0     int
		apex, randomBits, perDigest, digests, dLeaf int
		file                                        string
	}{
		{"StackedDrg2KiBV1", TreeShape{8, 0, 0}, 1, 10, 1, 1, 1, 8, 6, 42, 1, 3, "fb9e095bebdd7751"},
		{"StackedDrg8MiBV1", TreeShape{8, 0, 0}, 4, 10, 10, 8, 32, 128, 16, 15, 1, 9, "92180959e1918d26"},
		{"StackedDrg512MiBV1", TreeShape{8, 0, 0}, 16, 86, 10, 8, 128, 128, 20, 12, 8, 13, "61fa69f38b9cc771"},
		{"StackedDrg32GiBV1", TreeShape{8, 8, 0}, 16, 86, 10, 8, 128, 128, 26, 9, 10, 19, "3b7f44a9362e3985"},
		{"StackedDrg64GiBV1", TreeShape{8, 8, 2}, 16, 86, 10, 8, 128, 128, 27, 9, 10, 20, "102e1444a7e9a97e"},
	}
	all := AllUpdate()
	if len(all) != len(want) {
		t.Fatalf("%d update proofs", len(all))
	}
	for i, w := range want {
		p := all[i]
		if p.Proof != abi.RegisteredUpdateProof(i) || p.Name != w.name || p.Tree != w.tree {
			t.Errorf("%d: %v %s %v, want %s %v", i, p.Proof, p.Name, p.Tree, w.name, w.tree)
		}
		got := []int{p.Partitions, p.Challenges, p.H, int(p.HSelect()), int(p.KAndHSelect(0)), p.ApexLeaves,
			p.ChallengeBits(), p.ChallengesPerDigest(), p.DigestsPerPartition(), p.TreeDLeafLevels()}
		exp := []int{w.partitions, w.challenges, w.h, w.hSelect, w.kh0, w.apex, w.randomBits, w.perDigest, w.digests, w.dLeaf}
		for j := range got {
			if got[j] != exp[j] {
				t.Errorf("%s: partitions, challenges, h, h_select, k_and_h_select(0), apex leaves, random bits, "+
					"challenges/digest, digests, TreeD leaf levels = %v, want %v", p.Name, got, exp)
				break
			}
		}
		if !strings.HasPrefix(p.ParamsFile().Name, "v28-empty-sector-update-"+w.tree.String()+"-"+w.file) ||
			!strings.HasSuffix(p.VKFile().Name, ".vk") {
			t.Errorf("%s: files %s, %s", p.Name, p.ParamsFile().Name, p.VKFile().Name)
		}
		for _, s := range []string{w.name, string(rune('0' + i))} {
			if q, err := ParseUpdateName(s); err != nil || q.Proof != p.Proof {
				t.Errorf("ParseUpdateName(%q) = %v, %v", s, q.Proof, err)
			}
		}
		if q, err := LookupUpdate(p.Proof); err != nil || q.Name != p.Name {
			t.Errorf("LookupUpdate(%d) = %v, %v", i, q.Name, err)
		}
	}
	if p := all[4]; p.KAndHSelect(15) != 15|8<<4 {
		t.Errorf("64GiB k_and_h_select(15) = %d", p.KAndHSelect(15))
	}
	for _, s := range []string{"StackedDrg32GiBV1_1", "5", "", "-1"} {
		if _, err := ParseUpdateName(s); err == nil {
			t.Errorf("ParseUpdateName(%q) accepted", s)
		}
	}
	if _, err := LookupUpdate(5); err == nil {
		t.Error("LookupUpdate(5) accepted")
	}
	// Every seal proof maps to the update proof go-state-types names for it.
	for sp, info := range abi.SealProofInfos {
		u, err := UpdateForSeal(sp)
		if err != nil || u.Proof != info.UpdateProof {
			t.Errorf("UpdateForSeal(%d) = %v, %v; go-state-types says %d", sp, u.Proof, err, info.UpdateProof)
		}
	}
}

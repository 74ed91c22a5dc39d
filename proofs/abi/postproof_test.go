package abi

import (
	"strings"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
)

func TestPoStTable(t *testing.T) {
	// The go-state-types constants, by name (sector.go).
	want := map[string]abi.RegisteredPoStProof{
		"StackedDrgWinning2KiBV1": abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, "StackedDrgWinning32GiBV1": abi.RegisteredPoStProof_StackedDrgWinning32GiBV1,
		"StackedDrgWinning64GiBV1": abi.RegisteredPoStProof_StackedDrgWinning64GiBV1, "StackedDrgWindow2KiBV1": abi.RegisteredPoStProof_StackedDrgWindow2KiBV1,
		"StackedDrgWindow32GiBV1": abi.RegisteredPoStProof_StackedDrgWindow32GiBV1, "StackedDrgWindow512MiBV1_1": abi.RegisteredPoStProof_StackedDrgWindow512MiBV1_1,
		"StackedDrgWindow32GiBV1_1": abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1, "StackedDrgWindow64GiBV1_1": abi.RegisteredPoStProof_StackedDrgWindow64GiBV1_1,
	}
	for name, v := range want {
		p, err := ParsePoStName(name)
		if err != nil || p.Proof != v {
			t.Errorf("%s: %v %v, want %d", name, p.Proof, err, v)
		}
		ss, err := v.SectorSize()
		if err != nil || ss != p.SectorSize {
			t.Errorf("%s: sector size %d, go-state-types %d (%v)", name, p.SectorSize, ss, err)
		}
	}
	// Spec §4: hash prefixes of the parameter files, and the counts.
	files := map[string]string{
		"StackedDrgWindow2KiBV1_1": "8-0-0-0170db1f394b35d9", "StackedDrgWindow8MiBV1": "8-0-0-5294475db5237a2e",
		"StackedDrgWindow512MiBV1_1": "8-0-0-0cfb4f178bbb71cf", "StackedDrgWindow32GiBV1_1": "8-8-0-0377ded656c6f524",
		"StackedDrgWindow64GiBV1": "8-8-2-2627e4006b67f99c", "StackedDrgWinning2KiBV1": "8-0-0-3ea05428c9d11689",
		"StackedDrgWinning8MiBV1": "8-0-0-50c7368dea9593ed", "StackedDrgWinning512MiBV1": "8-0-0-7d739b8cf60f1b07",
		"StackedDrgWinning32GiBV1": "8-8-0-559e581f022bb4e4", "StackedDrgWinning64GiBV1": "8-8-2-b62098629d07946e",
	}
	for name, prefix := range files {
		p, _ := ParsePoStName(name)
		if f := p.ParamsFile().Name; !strings.HasPrefix(f, "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-"+prefix) {
			t.Errorf("%s: params %s, want hash prefix %s", name, f, prefix)
		}
		if !strings.HasSuffix(p.VKFile().Name, ".vk") || p.VKFile().CID == "" {
			t.Errorf("%s: vk %+v", name, p.VKFile())
		}
	}
	for _, p := range AllPoSt() {
		switch {
		case p.Kind == Winning && (p.SectorCount != 66 || p.ChallengeCount != 1 || p.VanillaChallenges != 66 || p.APIVersion != APIVersion1_0_0):
			t.Errorf("%s: %+v", p.Name, p)
		case p.Kind == Window && p.ChallengeCount != 10:
			t.Errorf("%s: %d challenges", p.Name, p.ChallengeCount)
		case p.Kind == Window && strings.HasSuffix(p.Name, "V1_1") != (p.APIVersion == APIVersion1_2_0):
			t.Errorf("%s: API version %v", p.Name, p.APIVersion)
		}
	}
	p, _ := ParsePoStName("13")
	if p.Name != "StackedDrgWindow32GiBV1_1" || p.SectorCount != 2349 || p.TreeRLevels() != 10 || p.Partitions(2350) != 2 || p.Partitions(1) != 1 {
		t.Errorf("13: %+v levels %d", p, p.TreeRLevels())
	}
	if p, _ := ParsePoStName("StackedDrgWindow64GiBV1_1"); p.SectorCount != 2300 || p.TreeRLevels() != 11 {
		t.Errorf("64GiB: %+v", p)
	}
	for _, bad := range []string{"", "15", "-1", "StackedDrgWindow32GiBV1_2", "stackeddrgwindow32gibv1_1"} {
		if _, err := ParsePoStName(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if _, err := LookupPoSt(15); err == nil {
		t.Error("LookupPoSt(15) succeeded")
	}
}

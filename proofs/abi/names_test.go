package abi

import (
	"strconv"
	"strings"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
)

func TestParseNameRoundTrip(t *testing.T) {
	for _, p := range All() {
		for _, s := range []string{p.Name, p.String(), strconv.Itoa(int(p.Proof))} {
			got, err := ParseName(s)
			if err != nil || got != p {
				t.Errorf("ParseName(%q) = %v, %v; want %v", s, got.Name, err, p.Name)
			}
		}
	}
}

// TestParseNameVanillaKey checks that a vanilla_proofs key is not read as a
// sector size: "StackedDrg32GiBV1" is the V1 proof type, id 3, nothing else.
func TestParseNameVanillaKey(t *testing.T) {
	p, err := ParseName("StackedDrg32GiBV1")
	if err != nil || p.Proof != abi.RegisteredSealProof_StackedDrg32GiBV1 || p.APIVersion != APIVersion1_0_0 {
		t.Errorf(`ParseName("StackedDrg32GiBV1") = %d (%v), %v; want 3 (1.0.0)`, p.Proof, p.APIVersion, err)
	}
}

func TestParseNameUnknown(t *testing.T) {
	for _, s := range []string{
		"", "20", "-1", "+8", " 8", "8 ", "0x8", "1e1", "99999999999999999999",
		"stackeddrg32gibv1_1", "StackedDrg32GiB", "StackedDrg4KiBV1_1", "StackedDrg32GiBV1_2",
		"StackedDrg32GiBV1_2_Feat_NiPoRep", // the go-state-types spelling, not a C1 name
		"RegisteredSealProof_StackedDrg32GiBV1_1",
	} {
		_, err := ParseName(s)
		if err == nil {
			t.Errorf("ParseName(%q) succeeded", s)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, strconv.Quote(s)) || !strings.Contains(msg, "0-19") || !strings.Contains(msg, "V1_1_Feat_SyntheticPoRep") {
			t.Errorf("ParseName(%q): error %q does not say what is accepted", s, msg)
		}
	}
}

func TestVanillaKey(t *testing.T) {
	keys := map[uint64]string{
		2 << 10:   "StackedDrg2KiBV1",
		8 << 20:   "StackedDrg8MiBV1",
		512 << 20: "StackedDrg512MiBV1",
		32 << 30:  "StackedDrg32GiBV1",
		64 << 30:  "StackedDrg64GiBV1",
	}
	for _, p := range All() {
		if got, want := p.VanillaKey(), keys[uint64(p.SectorSize)]; got != want {
			t.Errorf("%s: VanillaKey = %q, want %q", p, got, want)
		}
	}
	for size, want := range keys {
		if got, err := VanillaKeyFor(size); err != nil || got != want {
			t.Errorf("VanillaKeyFor(%d) = %q, %v; want %q", size, got, err, want)
		}
	}
	for _, size := range []uint64{0, 1 << 30, 16 << 20} {
		if _, err := VanillaKeyFor(size); err == nil {
			t.Errorf("VanillaKeyFor(%d) succeeded", size)
		}
	}
}

func TestSizeLabel(t *testing.T) {
	for n, want := range map[uint64]string{2 << 10: "2KiB", 8 << 20: "8MiB", 512 << 20: "512MiB", 32 << 30: "32GiB", 64 << 30: "64GiB", 1 << 30: "1GiB", 100: "100B", 1536: "1536B"} {
		if got := sizeLabel(n); got != want {
			t.Errorf("sizeLabel(%d) = %q, want %q", n, got, want)
		}
	}
}

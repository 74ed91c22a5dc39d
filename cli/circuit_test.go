package cli

import (
	"encoding/json"
	"testing"

	"github.com/filc2/filc2/internal/testvec"
)

// circuit info synthesises the real circuit; its counts equal spec §2.4 (the
// published and porep_counts.py numbers) for every sector size.
func TestCircuitInfoCounts(t *testing.T) {
	for _, tc := range []struct {
		proof                   string
		constraints, inputs     int
		aux, aDensity, bDensity int
		log2                    int
	}{
		{"StackedDrg2KiBV1_1", 2687961, 40, 2685673, 2674908, 685521, 22},
		{"StackedDrg8MiBV1_1", 3844969, 40, 3842449, -1, -1, 22},
		{"StackedDrg512MiBV1_1", 4423473, 40, 4420837, -1, -1, 23},
		{"StackedDrg32GiBV1_1", 130278869, 328, 130169893, 129753292, 33112281, 27},
		{"StackedDrg64GiBV1_1", 131186177, 328, 131076643, -1, -1, 27},
	} {
		out, err := run(t, "circuit", "info", "--registered-proof", tc.proof)
		if err != nil {
			t.Fatalf("%s: %v", tc.proof, err)
		}
		var got circuitInfoJSON
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v in %q", tc.proof, err, out)
		}
		if got.Constraints != tc.constraints || got.Inputs != tc.inputs || got.Aux != tc.aux || got.DomainLog2 != tc.log2 ||
			got.BInputDensity != 1 || (tc.aDensity >= 0 && (got.AAuxDensity != tc.aDensity || got.BAuxDensity != tc.bDensity)) {
			t.Errorf("%s: %+v", tc.proof, got)
		}
	}
}

func TestCircuitInfoDigest2KiB(t *testing.T) {
	var ref struct {
		Circuits map[string]struct {
			Digest string `json:"digest"`
		} `json:"circuits"`
	}
	if err := json.Unmarshal(testvec.Read(t, "r1cs", "digests.json"), &ref); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "circuit", "info", "-p", "5", "--digest") // 5 = StackedDrg2KiBV1_1
	if err != nil {
		t.Fatal(err)
	}
	var got circuitInfoJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if want := ref.Circuits["porep_2KiB_StackedDrg2KiBV1_1"].Digest; got.Digest != want {
		t.Fatalf("r1cs_sha256 %s, want %s", got.Digest, want)
	}
	if _, err := run(t, "circuit", "info", "-p", "StackedDrg2KiB"); err == nil {
		t.Fatal("unknown proof name accepted")
	}
}

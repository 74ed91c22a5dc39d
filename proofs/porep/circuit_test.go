package porep

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"

	"github.com/filc2/filc2/internal/testvec"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/r1cs"
)

type refCircuit struct {
	NumInputs          int      `json:"num_inputs"`
	NumAux             int      `json:"num_aux"`
	CircuitConstraints int      `json:"circuit_constraints"`
	NumConstraints     int      `json:"num_constraints"`
	AAuxDensity        int      `json:"a_aux_density"`
	BInputDensity      int      `json:"b_input_density"`
	BAuxDensity        int      `json:"b_aux_density"`
	Digest             string   `json:"digest"`
	ChunkSize          int      `json:"chunk_size"`
	ChunkDigests       []string `json:"chunk_digests"`
	Config             struct {
		Layers     int   `json:"layers"`
		Challenges int   `json:"challenges"`
		DLevels    int   `json:"d_levels"`
		RCArities  []int `json:"rc_arities"`
	} `json:"config"`
}

func refCircuits(t *testing.T) map[string]refCircuit {
	t.Helper()
	var f struct {
		Circuits map[string]refCircuit `json:"circuits"`
	}
	if err := json.Unmarshal(testvec.Read(t, "r1cs", "digests.json"), &f); err != nil {
		t.Fatal(err)
	}
	return f.Circuits
}

// countAndDigest synthesises the blank circuit twice: once to count, once to
// stream the canonical digest under the counted header.
func countAndDigest(t *testing.T, s CircuitShape, chunk int) (r1cs.Stats, r1cs.Digest) {
	t.Helper()
	cs := r1cs.New(r1cs.Count)
	if err := Synthesize(cs, s, s.Blank()); err != nil {
		t.Fatal(err)
	}
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
	st := cs.Stats()
	ds := r1cs.New(r1cs.Count, r1cs.WithDigest(r1cs.Header{NumInputs: st.Inputs, NumAux: st.Aux, NumConstraints: st.Constraints}, chunk))
	if err := Synthesize(ds, s, s.Blank()); err != nil {
		t.Fatal(err)
	}
	if err := ds.Finish(); err != nil {
		t.Fatal(err)
	}
	d, err := ds.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return st, d
}

func compareToReference(t *testing.T, name string, ref refCircuit, st r1cs.Stats, d r1cs.Digest) {
	t.Helper()
	got := [...]int{st.Inputs, st.Aux, st.Constraints, st.Constraints - st.Inputs, st.AAuxDensity, st.BInputDensity, st.BAuxDensity}
	want := [...]int{ref.NumInputs, ref.NumAux, ref.NumConstraints, ref.CircuitConstraints, ref.AAuxDensity, ref.BInputDensity, ref.BAuxDensity}
	if got != want {
		t.Errorf("%s: inputs, aux, constraints, circuit constraints, densities = %v, want %v", name, got, want)
	}
	if d.Hex() != ref.Digest {
		for i, c := range d.Chunks {
			if i >= len(ref.ChunkDigests) || hex.EncodeToString(c[:]) != ref.ChunkDigests[i] {
				t.Errorf("%s: digest %s differs; first differing chunk %d (constraints from %d)", name, d.Hex(), i, i*ref.ChunkSize)
				return
			}
		}
		t.Errorf("%s: digest %s differs (chunks equal: the header differs)", name, d.Hex())
	}
}

// The four storage-proofs-porep/tests/stacked_circuit.rs shapes: counts and
// canonical digests equal the reference's.
func TestStackedCircuitTestShapes(t *testing.T) {
	refs := refCircuits(t)
	for _, name := range []string{"stacked_circuit_test_U2", "stacked_circuit_test_U8", "stacked_circuit_test_U8_U4", "stacked_circuit_test_U8_U4_U2"} {
		ref, ok := refs[name]
		if !ok {
			t.Fatalf("%s missing from digests.json", name)
		}
		s := CircuitShape{Layers: ref.Config.Layers, Challenges: ref.Config.Challenges, TreeDLevels: ref.Config.DLevels, TreeArities: ref.Config.RCArities}
		st, d := countAndDigest(t, s, ref.ChunkSize)
		compareToReference(t, name, ref, st, d)
	}
}

// The production 2KiB circuit (StackedDrg2KiBV1_1), from the proof-type table.
func TestPoRep2KiBCircuitDigest(t *testing.T) {
	ref := refCircuits(t)["porep_2KiB_StackedDrg2KiBV1_1"]
	p, err := abi.ParseName("StackedDrg2KiBV1_1")
	if err != nil {
		t.Fatal(err)
	}
	s := ShapeOf(p)
	if s.Layers != ref.Config.Layers || s.Challenges != ref.Config.Challenges || s.TreeDLevels != ref.Config.DLevels || len(s.TreeArities) != len(ref.Config.RCArities) {
		t.Fatalf("shape %+v, reference config %+v", s, ref.Config)
	}
	t0 := time.Now()
	st, d := countAndDigest(t, s, ref.ChunkSize)
	t.Logf("2KiB count + digest: %v", time.Since(t0))
	compareToReference(t, "2KiB", ref, st, d)
}

// recordPCE records s's blank circuit with opts and returns its PCE bytes and
// its canonical digest.
func recordPCE(t *testing.T, s CircuitShape, chunk int, opts ...SynthOption) ([]byte, r1cs.Digest) {
	t.Helper()
	cs := r1cs.New(r1cs.Record)
	if err := Synthesize(cs, s, s.Blank(), opts...); err != nil {
		t.Fatal(err)
	}
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
	c, err := cs.Circuit()
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b, c.Digest(chunk)
}

// The circuit the provers use is recorded with the challenges in parallel: the
// PCE is the sequential recording byte for byte, and its digest is the
// reference's, for the production 2KiB circuit and a stacked_circuit shape.
func TestParallelRecording(t *testing.T) {
	refs := refCircuits(t)
	p, _ := abi.ParseName("StackedDrg2KiBV1_1")
	u8 := refs["stacked_circuit_test_U8_U4"]
	for name, s := range map[string]CircuitShape{
		"porep_2KiB_StackedDrg2KiBV1_1": ShapeOf(p),
		"stacked_circuit_test_U8_U4": {Layers: u8.Config.Layers, Challenges: u8.Config.Challenges,
			TreeDLevels: u8.Config.DLevels, TreeArities: u8.Config.RCArities},
	} {
		ref := refs[name]
		seq, _ := recordPCE(t, s, ref.ChunkSize, WithParallelism(1))
		for _, workers := range []int{2, 0} {
			got, d := recordPCE(t, s, ref.ChunkSize, WithParallelism(workers))
			if !bytes.Equal(got, seq) {
				t.Fatalf("%s: recorded with %d workers, the PCE differs from the sequential one", name, workers)
			}
			if d.Hex() != ref.Digest {
				t.Fatalf("%s: the recorded circuit's digest %s, the reference's %s", name, d.Hex(), ref.Digest)
			}
		}
	}
}

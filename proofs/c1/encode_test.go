package c1

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestEncodeMatchesMirror compares Encode with encoding/json writing the
// tag-mirrored Rust structs, for every tree shape (Single, Sub, Top).
func TestEncodeMatchesMirror(t *testing.T) {
	for _, c := range []*Commit1Out{
		valid(t, "StackedDrg2KiBV1_1", 1),
		valid(t, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 2),
		newGen(t, "StackedDrg32GiBV1_1", 3).commit1Out(2, 2),
		newGen(t, "StackedDrg64GiBV1_1", 4).commit1Out(1, 2),
	} {
		got := mustEncode(t, c)
		want, err := json.Marshal(toMirror(c))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: Encode differs from encoding/json at byte %d:\n got …%s\nwant …%s", c.RegisteredProof, i, clip(got, i), clip(want, i))
		}
	}
}

func clip(b []byte, i int) []byte {
	lo, hi := max(0, i-40), min(len(b), i+40)
	return b[lo:hi]
}

// TestEncodeGolden pins the serde_json text of a tiny hand-built value:
// field order, "_h":null, externally tagged enums, no whitespace.
func TestEncodeGolden(t *testing.T) {
	d := func(b byte) Domain { var x Domain; x[0], x[31] = b, 1; return x }
	dj := func(b byte) string { return "[" + strconv.Itoa(int(b)) + strings.Repeat(",0", 30) + ",1]" }
	single := MerkleProof{Data: ProofData{Single: &SingleProof{Root: d(1), Leaf: d(2), Path: InclusionPath{Path: []PathElement{{Hashes: []Domain{d(3)}, Index: 1}}}}}}
	sub := MerkleProof{Data: ProofData{Sub: &SubProof{
		BaseProof: InclusionPath{Path: []PathElement{{Hashes: []Domain{d(4)}, Index: 0}}},
		SubProof:  InclusionPath{Path: []PathElement{{Hashes: []Domain{d(5), d(6)}, Index: 2}}},
		Root:      d(7), Leaf: d(8)}}}
	top := MerkleProof{Data: ProofData{Top: &TopProof{
		BaseProof: InclusionPath{}, SubProof: InclusionPath{Path: []PathElement{}},
		TopProof: InclusionPath{Path: []PathElement{{Hashes: nil, Index: 0}}}, Root: d(9), Leaf: d(10)}}}
	c := &Commit1Out{
		RegisteredProof: "StackedDrg2KiBV1_1",
		VanillaProofs: VanillaProofs{Key: "StackedDrg2KiBV1", Partitions: [][]Proof{{{
			CommDProofs:    single,
			CommRLastProof: sub,
			ReplicaColumnProofs: ReplicaColumnProof{
				CX:         ColumnProof{Column: Column{Index: 17, Rows: []Domain{d(11)}}, InclusionProof: top},
				DrgParents: []ColumnProof{{Column: Column{Index: 4294967295}, InclusionProof: single}},
			},
			LabelingProofs: []LabelingProof{{Parents: []Domain{d(12)}, LayerIndex: 1, Node: 17}},
			EncodingProof:  EncodingProof{Parents: []Domain{d(13)}, LayerIndex: 2, Node: 18446744073709551615},
		}}}},
		CommR: d(14), CommD: d(15), ReplicaID: d(16), Seed: d(17), Ticket: d(18),
	}
	singleJ := `{"data":{"Single":{"root":` + dj(1) + `,"leaf":` + dj(2) + `,"path":{"path":[{"hashes":[` + dj(3) + `],"index":1}]}}}}`
	want := `{"registered_proof":"StackedDrg2KiBV1_1","vanilla_proofs":{"StackedDrg2KiBV1":[[{` +
		`"comm_d_proofs":` + singleJ + `,` +
		`"comm_r_last_proof":{"data":{"Sub":{"base_proof":{"path":[{"hashes":[` + dj(4) + `],"index":0}]},"sub_proof":{"path":[{"hashes":[` + dj(5) + `,` + dj(6) + `],"index":2}]},"root":` + dj(7) + `,"leaf":` + dj(8) + `}}},` +
		`"replica_column_proofs":{"c_x":{"column":{"index":17,"rows":[` + dj(11) + `],"_h":null},"inclusion_proof":{"data":{"Top":{"base_proof":{"path":[]},"sub_proof":{"path":[]},"top_proof":{"path":[{"hashes":[],"index":0}]},"root":` + dj(9) + `,"leaf":` + dj(10) + `}}}},` +
		`"drg_parents":[{"column":{"index":4294967295,"rows":[],"_h":null},"inclusion_proof":` + singleJ + `}],"exp_parents":[]},` +
		`"labeling_proofs":[{"parents":[` + dj(12) + `],"layer_index":1,"node":17}],` +
		`"encoding_proof":{"parents":[` + dj(13) + `],"layer_index":2,"node":18446744073709551615}` +
		`}]]},"comm_r":` + dj(14) + `,"comm_d":` + dj(15) + `,"replica_id":` + dj(16) + `,"seed":` + dj(17) + `,"ticket":` + dj(18) + `}`
	got := mustEncode(t, c)
	if string(got) != want {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("Encode differs at byte %d:\n got …%s\nwant …%s", i, clip(got, i), clip([]byte(want), i))
	}
	if !json.Valid(got) {
		t.Fatal("Encode wrote invalid JSON")
	}
}

// TestEncodeString checks serde_json's string escapes.
func TestEncodeString(t *testing.T) {
	for in, want := range map[string]string{
		"StackedDrg2KiBV1_1": `"StackedDrg2KiBV1_1"`,
		`a"b\c`:              `"a\"b\\c"`,
		"\b\f\n\r\t":         `"\b\f\n\r\t"`,
		"\x00\x1f\x7f":       `"\u0000\u001f` + "\x7f" + `"`,
		"é<>&":               `"é<>&"`,
	} {
		var e encoder
		e.str(in)
		if string(e.buf) != want {
			t.Errorf("str(%q) = %s, want %s", in, e.buf, want)
		}
		var back string
		if err := json.Unmarshal(e.buf, &back); err != nil || back != in {
			t.Errorf("str(%q) = %s does not read back: %q, %v", in, e.buf, back, err)
		}
	}
}

// TestEncodeBadProofData checks that a Merkle proof without exactly one
// variant is an error naming its path.
func TestEncodeBadProofData(t *testing.T) {
	for _, c := range []struct {
		mutate func(*Proof)
		path   string
		msg    string
	}{
		{func(p *Proof) { p.CommRLastProof.Data = ProofData{} }, "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_r_last_proof.data", "0 ProofData variants"},
		{func(p *Proof) { p.ReplicaColumnProofs.ExpParents[3].InclusionProof.Data.Sub = &SubProof{} },
			"vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.exp_parents[3].inclusion_proof.data", "2 ProofData variants"},
	} {
		v := valid(t, "StackedDrg2KiBV1_1", 9)
		c.mutate(&v.VanillaProofs.Partitions[0][1])
		_, err := Encode(v)
		ve, ok := err.(*ValidationError)
		if !ok || ve.Path != c.path || !strings.Contains(ve.Msg, c.msg) {
			t.Errorf("Encode = %v, want a *ValidationError at %s with %q", err, c.path, c.msg)
		}
	}
}

// TestEncodeWrapper compares EncodeWrapper with encoding/json writing
// lotus-bench's Commit2In.
func TestEncodeWrapper(t *testing.T) {
	type Commit2In struct { // cmd/lotus-bench/main.go
		SectorNum  int64
		Phase1Out  []byte
		SectorSize uint64
	}
	for _, c := range []Commit2In{
		{7, []byte(`{"registered_proof":"x"}`), 2048},
		{-1, []byte{0xff, 0xfe, 0x00}, 34359738368},
		{0, []byte{}, 0},
		{1 << 62, nil, 1<<64 - 1},
	} {
		want, _ := json.Marshal(c)
		if got := EncodeWrapper(c.SectorNum, c.SectorSize, c.Phase1Out); string(got) != string(want) {
			t.Errorf("EncodeWrapper = %s, want %s", got, want)
		}
	}
}

package c1

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
)

// roundTrip checks Decode(Encode(c)) == c and Encode(Decode(b)) == b.
func roundTrip(t *testing.T, c *Commit1Out) []byte {
	t.Helper()
	b := mustEncode(t, c)
	got, err := Decode(b)
	if err != nil {
		t.Fatalf("%s: Decode: %v", c.RegisteredProof, err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("%s: Decode(Encode(c)) differs from c", c.RegisteredProof)
	}
	if again := mustEncode(t, got); !bytes.Equal(again, b) {
		t.Fatalf("%s: Encode(Decode(b)) differs from b", c.RegisteredProof)
	}
	return b
}

// TestRoundTrip covers every proof type small enough to build quickly, and
// the 32GiB and 64GiB interactive types unless -short.
func TestRoundTrip(t *testing.T) {
	for _, p := range abi.All() {
		big := p.SectorSize >= 32<<30
		if big && (testing.Short() || p.ChallengeKind == abi.NonInteractive) {
			continue // NI-PoRep 32/64GiB: 126 partitions, about 490 MB
		}
		t.Run(p.Name, func(t *testing.T) {
			roundTrip(t, valid(t, p.Name, uint64(p.Proof)))
		})
	}
}

// TestDecodeNonCanonical checks that whitespace and any key order decode to
// the same value: encoding/json re-encodes a generic value with sorted keys.
func TestDecodeNonCanonical(t *testing.T) {
	for _, c := range []*Commit1Out{valid(t, "StackedDrg2KiBV1_1", 1), valid(t, "StackedDrg2KiBV1", 2)} {
		b := mustEncode(t, c)
		var generic any
		if err := json.Unmarshal(b, &generic); err != nil {
			t.Fatal(err)
		}
		sorted, _ := json.Marshal(generic)
		if bytes.Equal(sorted, b) {
			t.Fatal("sorting the keys did not change the order")
		}
		var indented bytes.Buffer
		json.Indent(&indented, sorted, "\t", "  ")
		for _, in := range [][]byte{sorted, indented.Bytes(), append(append([]byte("\n "), b...), "\r\n\t "...)} {
			got, err := Decode(in)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, c) {
				t.Fatal("non-canonical input decoded to another value")
			}
			if again := mustEncode(t, got); !bytes.Equal(again, b) {
				t.Fatal("Encode of non-canonical input is not canonical")
			}
		}
	}
}

// TestDecodeSyntaxErrors checks that malformed or misshapen JSON is a
// *SyntaxError naming the JSON path and offset.
func TestDecodeSyntaxErrors(t *testing.T) {
	b := mustEncode(t, valid(t, "StackedDrg2KiBV1_1", 3))
	s := string(b)
	first := func(old, new string) string { return strings.Replace(s, old, new, 1) }
	proof0 := "vanilla_proofs.StackedDrg2KiBV1[0][0]"
	for _, c := range []struct {
		name, in, path, msg string
	}{
		{"empty", "", "", "want an object"},
		{"array", "[]", "", "want an object"},
		{"truncated", s[:len(s)/2], "", ""},
		{"trailing", s + "{}", "", "trailing data"},
		{"renamed field", first(`"comm_r":`, `"comm_x":`), "", `missing field "comm_r"`},
		{"duplicate field", first(`"seed":`, `"ticket":[`+strings.Repeat("0,", 31)+`0],"seed":`), "", `duplicate field "ticket"`},
		{"missing field", first(`,"encoding_proof":`, `}],"x":[{"encoding_proof":`), proof0, `missing field "encoding_proof"`},
		{"missing _h", first(`,"_h":null`, ``), proof0 + ".replica_column_proofs.c_x.column", `missing field "_h"`},
		{"_h not null", first(`"_h":null`, `"_h":{}`), proof0 + ".replica_column_proofs.c_x.column._h", "want null"},
		{"two variants", first(`{"data":{"Single":`, `{"data":{"Sub":{},"Single":`), proof0 + ".comm_d_proofs.data.Sub", `missing field "base_proof"`},
		{"unknown variant", first(`{"data":{"Single":`, `{"data":{"Double":`), proof0 + ".comm_d_proofs.data", `unknown ProofData variant "Double"`},
		{"empty enum", first(`{"data":{"Single":`, `{"data":{},"x":{"Single":`), proof0 + ".comm_d_proofs.data", "empty object"},
		{"extra variant", first(`"vanilla_proofs":{"StackedDrg2KiBV1":[[`, `"vanilla_proofs":{"StackedDrg2KiBV1":[],"StackedDrg8MiBV1":[[`), "vanilla_proofs", "more than one VanillaSealProof variant"},
		{"string for number", first(`"layer_index":1`, `"layer_index":"1"`), proof0 + ".labeling_proofs[0].layer_index", "want an unsigned integer"},
		{"negative", first(`"layer_index":1`, `"layer_index":-1`), proof0 + ".labeling_proofs[0].layer_index", "want an unsigned integer"},
		{"float", first(`"layer_index":1`, `"layer_index":1.0`), proof0 + ".labeling_proofs[0].layer_index", "want an unsigned integer"},
		{"u32 overflow", first(`"layer_index":1`, `"layer_index":4294967296`), proof0 + ".labeling_proofs[0].layer_index", "above the maximum 4294967295"},
		{"u64 overflow", first(`"index":`, `"index":18446744073709551616`), proof0 + ".comm_d_proofs.data.Single.path.path[0].index", "overflows 64 bits"},
		{"leading zero", first(`"node":`, `"node":0`), proof0 + ".labeling_proofs[0].node", "want an unsigned integer"},
		{"domain 256", first(`"comm_r":[`, `"comm_r":[256,`), "comm_r", "element 0: integer above 255"},
		{"long domain", first(`"hashes":[[`, `"hashes":[[1,`), proof0 + ".comm_d_proofs.data.Single.path.path[0].hashes[0]", "array has more than 32 elements"},
		{"bad domain list", first(`"rows":[[`, `"rows":[1,[`), proof0 + ".replica_column_proofs.c_x.column.rows[0]", "want an array of 32 integers"},
		{"registered_proof number", first(`"registered_proof":"StackedDrg2KiBV1_1"`, `"registered_proof":5`), "registered_proof", "want a string"},
		{"control char", first(`"StackedDrg2KiBV1_1"`, "\"Stacked\x01\""), "registered_proof", "control character"},
		{"missing colon", first(`"seed":`, `"seed"`), "", "want ':' after key"},
		{"missing comma", first(`,"seed":`, ` "seed":`), "", "want ',' or '}'"},
	} {
		_, err := Decode([]byte(c.in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s: Decode = %v, want a *SyntaxError", c.name, err)
			continue
		}
		if (c.path != "" || c.msg != "") && (se.Path != c.path || !strings.Contains(se.Msg, c.msg)) {
			t.Errorf("%s: error %v, want path %q and %q", c.name, err, c.path, c.msg)
		}
		if se.Offset < 0 || se.Offset > int64(len(c.in)) {
			t.Errorf("%s: offset %d outside the input", c.name, se.Offset)
		}
	}
}

// TestDecodeEscapes checks that JSON string escapes in keys and names decode.
func TestDecodeEscapes(t *testing.T) {
	c := valid(t, "StackedDrg2KiBV1_1", 4)
	b := string(mustEncode(t, c))
	b = strings.Replace(b, `"registered_proof":"StackedDrg2KiBV1_1"`, `"registered\u005fproof":"Stacked\u0044rg2KiBV1_1"`, 1)
	b = strings.Replace(b, `"comm_d_proofs"`, `"comm_d_proofs\u0000"`, 1)
	if _, err := Decode([]byte(b)); err == nil || !strings.Contains(err.Error(), `missing field "comm_d_proofs"`) {
		t.Fatalf("Decode = %v, want the key with a NUL skipped as unknown", err)
	}
	b = strings.Replace(b, `"comm_d_proofs\u0000"`, `"comm_d_proofs"`, 1)
	got, err := Decode([]byte(b))
	if err != nil || !reflect.DeepEqual(got, c) {
		t.Fatalf("Decode with escapes: %v", err)
	}
}

// wrapperJSON builds a Commit2In file the way lotus-bench does.
func wrapperJSON(t *testing.T, num int64, size uint64, raw []byte) []byte {
	t.Helper()
	b, err := json.Marshal(struct {
		SectorNum  int64
		Phase1Out  []byte
		SectorSize uint64
	}{num, raw, size})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeWrapper(t *testing.T) {
	c := valid(t, "StackedDrg2KiBV1_1", 5)
	raw := mustEncode(t, c)
	for _, in := range [][]byte{
		wrapperJSON(t, 42, 2048, raw),
		EncodeWrapper(42, 2048, raw),
		// Key order, case and whitespace as encoding/json accepts them.
		[]byte(` { "sectorsize" : 2048 , "PHASE1OUT" : "` + base64.StdEncoding.EncodeToString(raw) + `" , "SectorNum" : 42 } `),
		// An escaped '/' in the base64.
		[]byte(strings.ReplaceAll(string(EncodeWrapper(42, 2048, raw)), "/", `\/`)),
		// Unknown fields are ignored, as encoding/json and serde ignore them.
		[]byte(`{"SectorNum":42,"Miner":{"id":[5,"x"]},"Phase1Out":"` + base64.StdEncoding.EncodeToString(raw) + `","SectorSize":2048}`),
		wrapperJSON(t, 42, 2048, []byte(strings.Replace(string(raw), `"comm_r":`, `"future":{"a":[1,2,{"b":null}],"c":"}"},"comm_r":`, 1))),
	} {
		got, w, err := DecodeWrapped(in)
		if err != nil {
			t.Fatalf("DecodeWrapped: %v", err)
		}
		if !reflect.DeepEqual(got, c) || w == nil || *w != (Wrapper{SectorNum: 42, SectorSize: 2048}) {
			t.Fatalf("DecodeWrapped = %+v, want the C1 and {42 2048}", w)
		}
	}
	if !strings.Contains(string(EncodeWrapper(42, 2048, raw)), "/") {
		t.Log("note: the base64 has no '/', the escape case tested nothing")
	}
	if _, w, err := DecodeWrapped(raw); err != nil || w != nil {
		t.Fatalf("DecodeWrapped(raw) = %v, %v; want no wrapper", w, err)
	}
	if got, err := Decode(EncodeWrapper(1, 2048, raw)); err != nil || !reflect.DeepEqual(got, c) {
		t.Fatalf("Decode(wrapper) = %v", err)
	}
}

func TestDecodeWrapperErrors(t *testing.T) {
	c := valid(t, "StackedDrg2KiBV1_1", 6)
	raw := mustEncode(t, c)
	b64 := base64.StdEncoding.EncodeToString(raw)
	for _, w := range []struct {
		name, in, path, msg string
		syntax              bool
	}{
		{"size mismatch", string(EncodeWrapper(1, 34359738368, raw)), "SectorSize",
			"the C1 file is for StackedDrg2KiBV1_1 (2048 bytes) but the wrapper's SectorSize is 34359738368", false},
		{"unknown size", string(EncodeWrapper(1, 4096, raw)), "SectorSize", "4096 is not a sector size", false},
		{"negative sector", string(EncodeWrapper(-3, 2048, raw)), "SectorNum", "-3 is negative", false},
		{"null Phase1Out", string(EncodeWrapper(1, 2048, nil)), "Phase1Out", "empty", false},
		{"empty Phase1Out", string(EncodeWrapper(1, 2048, []byte{})), "Phase1Out", "empty", false},
		{"bad base64", `{"SectorNum":1,"Phase1Out":"` + b64[:len(b64)-1] + `","SectorSize":2048}`, "Phase1Out", "bad base64", true},
		{"missing size", `{"SectorNum":1,"Phase1Out":"` + b64 + `"}`, "", `missing field "SectorSize"`, true},
		{"duplicate", `{"SectorNum":1,"sectornum":2,"Phase1Out":"` + b64 + `","SectorSize":2048}`, "", `duplicate field "SectorNum"`, true},
		{"int64 overflow", `{"SectorNum":9223372036854775808,"Phase1Out":"` + b64 + `","SectorSize":2048}`, "SectorNum", "above the maximum", true},
		{"inner wrapper", string(EncodeWrapper(1, 2048, EncodeWrapper(1, 2048, raw))), "", `missing field "registered_proof"`, true},
		{"trailing", string(EncodeWrapper(1, 2048, raw)) + "x", "", "trailing data after the Commit2In object", true},
	} {
		_, err := Decode([]byte(w.in))
		var se *SyntaxError
		var ve *ValidationError
		switch {
		case w.syntax && errors.As(err, &se):
			if se.Path != w.path || !strings.Contains(se.Msg, w.msg) {
				t.Errorf("%s: %v, want path %q and %q", w.name, err, w.path, w.msg)
			}
		case !w.syntax && errors.As(err, &ve):
			if ve.Path != w.path || !strings.Contains(ve.Msg, w.msg) {
				t.Errorf("%s: %v, want path %q and %q", w.name, err, w.path, w.msg)
			}
		default:
			t.Errorf("%s: Decode = %v (%T), want a syntax error %v", w.name, err, err, w.syntax)
		}
	}
	// The minimum int64 is a sector number encoding/json reads; it is negative.
	if _, err := Decode([]byte(`{"SectorNum":-9223372036854775808,"Phase1Out":"` + b64 + `","SectorSize":2048}`)); err == nil || !strings.Contains(err.Error(), "-9223372036854775808 is negative") {
		t.Errorf("min int64: %v", err)
	}
}

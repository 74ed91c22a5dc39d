package c1

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzDecode feeds Decode valid 2KiB files, 32GiB- and 64GiB-shaped
// fragments (one challenge: Sub and Top paths), wrappers and damaged copies.
// Decode must never panic and must fail only with typed errors; what it
// accepts must survive Encode and Decode unchanged. Every input the JSON
// layer parses is also validated, encoded and reparsed without validation,
// and its accessors are exercised, so rules and accessors see malformed
// values too.
func FuzzDecode(f *testing.F) {
	small := mustEncode(f, valid(f, "StackedDrg2KiBV1_1", 1))
	v1 := mustEncode(f, valid(f, "StackedDrg2KiBV1", 2))
	sub := mustEncode(f, newGen(f, "StackedDrg32GiBV1_1", 3).commit1Out(1, 1))
	top := mustEncode(f, newGen(f, "StackedDrg64GiBV1_1", 4).commit1Out(1, 1))
	for _, b := range [][]byte{small, v1, sub, top, EncodeWrapper(5, 2048, small), EncodeWrapper(5, 32<<30, sub)} {
		f.Add(b)
	}
	s := string(small)
	for _, m := range []string{
		strings.Replace(s, `"index":1`, `"index":2`, 1),
		strings.Replace(s, `"layer_index":2`, `"layer_index":3`, 1),
		strings.Replace(s, `"_h":null`, `"_h":0`, 1),
		strings.Replace(s, `{"data":{"Single"`, `{"data":{"Sub"`, 1),
		strings.Replace(s, `,0,`, `,256,`, 1),
		strings.Replace(s, `]]},"comm_r"`, `],[]]},"comm_r"`, 1),
		strings.ReplaceAll(s, ",", ", "),
		s[:len(s)-7],
		`{}`, `null`, `[`, `{"SectorNum":1,"Phase1Out":"e30=","SectorSize":2048}`,
		`{"registered_proof":"StackedDrg2KiBV1_1","vanilla_proofs":{"StackedDrg2KiBV1":[[]]}}`,
	} {
		f.Add([]byte(m))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkParsed(t, b)
		c, w, err := DecodeWrapped(b)
		if err != nil {
			var se *SyntaxError
			var ve *ValidationError
			if !errors.As(err, &se) && !errors.As(err, &ve) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		enc, err := Encode(c)
		if err != nil {
			t.Fatalf("Encode of a decoded value: %v", err)
		}
		again, err := Decode(enc)
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("Decode(Encode(c)) = %v, differs", err)
		}
		if w != nil {
			if _, w2, err := DecodeWrapped(EncodeWrapper(w.SectorNum, w.SectorSize, enc)); err != nil || *w2 != *w {
				t.Fatalf("wrapper round trip: %v", err)
			}
		}
		for k := range c.VanillaProofs.Partitions {
			if _, _, err := c.PartitionRoots(k); err != nil {
				t.Fatalf("PartitionRoots(%d) of a valid file: %v", k, err)
			}
		}
	})
}

// checkParsed runs the JSON layer alone on raw C1 input and, if it parses,
// validates the value, exercises its accessors and checks that encoding and
// reparsing gives the same value.
func checkParsed(t *testing.T, b []byte) {
	d := decoder{b: b}
	c := new(Commit1Out)
	if d.commit1Out(c) != nil {
		return
	}
	_ = c.Validate()
	_, _ = c.ProofType()
	for k, part := range c.VanillaProofs.Partitions {
		_, _, _ = c.PartitionRoots(k)
		for j := range part {
			p := &part[j]
			_, _ = p.Challenge(), p.DataLeaf()
			for _, m := range []*MerkleProof{&p.CommDProofs, &p.CommRLastProof, &p.ReplicaColumnProofs.CX.InclusionProof} {
				_, _, _, _ = m.Siblings(), m.Indices(), m.PathIndex(), m.Level(m.Len()-1)
			}
			for i := range ColumnParents + 1 {
				if cp := p.ReplicaColumnProofs.Parent(i); cp != nil {
					_ = cp.InclusionProof.Root()
				}
			}
		}
	}
	enc, err := Encode(c)
	if err != nil {
		t.Fatalf("Encode of a parsed value: %v", err)
	}
	d2 := decoder{b: enc}
	c2 := new(Commit1Out)
	if err := d2.commit1Out(c2); err != nil || !reflect.DeepEqual(c, c2) {
		t.Fatalf("reparsing Encode's output: %v, or the value differs", err)
	}
}

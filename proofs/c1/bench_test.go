package c1

import (
	"encoding/json"
	"testing"
)

// BenchmarkDecode32GiB decodes and validates a 32GiB-shaped C1 file: 10
// partitions × 18 challenges, 11 layers, Sub paths of 9+1 levels with 7
// siblings, tree-D paths of 30 levels.
func BenchmarkDecode32GiB(b *testing.B) {
	_, raw := fixture32()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode32GiBWrapped decodes the same file inside a lotus-bench
// Commit2In wrapper (base64), measured against the wrapper's size.
func BenchmarkDecode32GiBWrapped(b *testing.B) {
	_, raw := fixture32()
	w := EncodeWrapper(7, 32<<30, raw)
	b.SetBytes(int64(len(w)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(w); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate32GiB runs only the validation of a decoded 32GiB file.
func BenchmarkValidate32GiB(b *testing.B) {
	c, raw := fixture32()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if err := c.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncode32GiB encodes a 32GiB-shaped C1 file.
func BenchmarkEncode32GiB(b *testing.B) {
	c, raw := fixture32()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode32GiBStdlib is the baseline: encoding/json into
// tag-mirrored structs whose Domains use the hand-written UnmarshalJSON.
func BenchmarkDecode32GiBStdlib(b *testing.B) {
	_, raw := fixture32()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		var m mirrorCommit1Out
		if err := json.Unmarshal(raw, &m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDomainUnmarshalJSON decodes one Domain through its UnmarshalJSON.
func BenchmarkDomainUnmarshalJSON(b *testing.B) {
	g := newGen(b, "StackedDrg2KiBV1_1", 3)
	d := g.fr()
	raw, _ := d.MarshalJSON()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if err := d.UnmarshalJSON(raw); err != nil {
			b.Fatal(err)
		}
	}
}

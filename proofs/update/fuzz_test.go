package update

import (
	"bytes"
	"errors"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/vanilla"
)

// FuzzDecodePartitionProof: whatever decodes re-encodes to the same bytes, a
// refusal is a *vanilla.DecodeError inside the input, nothing panics, and
// what decodes goes through Check (for the 2KiB and 8MiB types) and
// NewCircuitInput, whose refusals must be errors (Check's a *CheckError).
// The seeds are 2KiB and 8MiB partition proofs and a truncation.
func FuzzDecodePartitionProof(f *testing.F) {
	var pubs []Commitments
	for i, p := range abi.AllUpdate()[:2] {
		r := randomReplica(f, p, byte(10+i))
		pp, err := r.PartitionProof(0)
		if err != nil {
			f.Fatal(err)
		}
		b := pp.Encode()
		f.Add(b)
		f.Add(b[:len(b)/3])
		pubs = append(pubs, r.Commitments)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		pp, err := DecodePartitionProof(b)
		if err != nil {
			var de *vanilla.DecodeError
			if !errors.As(err, &de) || de.Offset < 0 || de.Offset > len(b) || pp != nil {
				t.Fatalf("refused with %T %v, want a *DecodeError within the %d bytes", err, err, len(b))
			}
			return
		}
		if !bytes.Equal(pp.Encode(), b) {
			t.Fatal("re-encoding differs")
		}
		for i, p := range abi.AllUpdate()[:2] {
			if err := pp.Check(p, pubs[i], 0); err != nil {
				var ce *CheckError
				if !errors.As(err, &ce) {
					t.Fatalf("%s: Check refused with %T %v, want a *CheckError", p.Name, err, err)
				}
				continue
			}
			if _, err := NewCircuitInput(p, pubs[i], 0, pp); err != nil {
				t.Fatalf("%s: a checked proof does not convert: %v", p.Name, err)
			}
		}
	})
}

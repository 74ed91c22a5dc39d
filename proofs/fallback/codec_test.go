package fallback

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/filc2/filc2/internal/testvec"
	"github.com/filc2/filc2/proofs/abi"
)

func TestDecodeMalformed(t *testing.T) {
	good := testvec.Read(t, "window-post-vanilla-32GiB", "post.vproof")
	edit := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	// Offsets: sector_id 0, comm_r 8, sectors len 40, inclusion_proofs len 48,
	// proof 0 variant 56, its base_path len 60, level 0 hashes len 68.
	cases := []struct {
		name   string
		b      []byte
		offset int
		want   string
	}{
		{"empty", nil, 0, "sector_id"},
		{"truncated comm_r", good[:20], 8, "comm_r: want 32 bytes"},
		{"non-canonical comm_r", edit(func(b []byte) []byte { b[39] = 0xff; return b }), 8, "not a canonical field element"},
		{"huge sectors", edit(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[40:], 1<<40); return b }), 40, "at most"},
		{"sectors past end", edit(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[40:], 1000); return b }), 40, "need"},
		{"variant", edit(func(b []byte) []byte { b[56] = 3; return b }), 56, "variant 3"},
		{"hashes", edit(func(b []byte) []byte { b[68] = 16; return b }), 68, "at most 15"},
		{"index", edit(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[68+8+7*32:], 8); return b }), 68 + 8 + 7*32, "index 8"},
		{"trailing", append(bytes.Clone(good), 0), len(good), "trailing bytes"},
		{"truncated", good[:len(good)-1], len(good) - 32, "comm_r_last"},
	}
	for _, c := range cases {
		_, err := DecodeSectorVanilla(c.b)
		var de *DecodeError
		if !errors.As(err, &de) || de.Offset != c.offset || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a DecodeError at byte %d with %q", c.name, err, c.offset, c.want)
		}
	}
}

// A Single proof (8-0-0) and a Top proof (8-8-2) re-encode byte for byte.
func TestEncodeVariants(t *testing.T) {
	h := func(n int) []Domain { return make([]Domain, n) }
	for _, m := range []MerkleProof{
		{Variant: Single, Base: []PathElement{{Hashes: h(7), Index: 3}, {Hashes: h(7), Index: 7}}, Leaf: Domain{1}, Root: Domain{2}},
		{Variant: Top, Base: []PathElement{{Hashes: h(7), Index: 1}}, Sub: []PathElement{{Hashes: h(7), Index: 2}}, Top: []PathElement{{Hashes: h(1), Index: 1}}, Leaf: Domain{3}, Root: Domain{4}},
	} {
		v := &SectorVanilla{SectorID: 7, CommR: Domain{9}, Sectors: []SectorProof{{InclusionProofs: []MerkleProof{m, m}, CommC: Domain{5}, CommRLast: Domain{6}}}}
		b := v.Encode()
		w, err := DecodeSectorVanilla(b)
		if err != nil {
			t.Fatalf("%v: %v", m.Variant, err)
		}
		if !bytes.Equal(w.Encode(), b) || w.Sectors[0].InclusionProofs[1].Variant != m.Variant || w.Sectors[0].InclusionProofs[0].Leaf != m.Leaf {
			t.Errorf("%v: round trip differs", m.Variant)
		}
	}
}

// FuzzDecodeSectorVanilla: whatever decodes re-encodes to the same bytes, a
// refusal is a *DecodeError inside the input, and nothing panics. What
// decodes also goes through NewPartition and Check for PoSt types of every
// tree shape (Single, Sub, Top; Window and Winning), whose refusals must be
// errors, the check's a *CheckError. The seeds are the real 32GiB proof and
// sparse sectors' proofs of each shape.
func FuzzDecodeSectorVanilla(f *testing.F) {
	good := testvec.Read(f, "window-post-vanilla-32GiB", "post.vproof")
	f.Add(good)
	f.Add(good[:2484])
	f.Add((&SectorVanilla{Sectors: []SectorProof{{InclusionProofs: []MerkleProof{{Variant: Top, Base: []PathElement{{Hashes: make([]Domain, 1)}}}}}}}).Encode())
	var types []abi.PoStProof
	var r Randomness // the golden proof's, zero
	for _, name := range []string{"StackedDrgWindow32GiBV1", "StackedDrgWindow2KiBV1_1", "StackedDrgWinning2KiBV1", "StackedDrgWindow64GiBV1_1"} {
		p, err := abi.ParsePoStName(name)
		if err != nil {
			f.Fatal(err)
		}
		types = append(types, p)
		v, err := DecodeSectorVanilla(good)
		if p.SectorSize != 32<<30 {
			v = sparseVanilla(f, p, 3, 0, r)
			f.Add(v.Encode())
		}
		if pt, err2 := NewPartition(p, []*SectorVanilla{v}, 0); err != nil || err2 != nil || pt.Check(r) != nil {
			f.Fatalf("%s: the seed does not pass the check (%v, %v)", p.Name, err, err2)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeSectorVanilla(b)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || de.Offset < 0 || de.Offset > len(b) || v != nil {
				t.Fatalf("refused with %T %v, want a *DecodeError within the %d bytes", err, err, len(b))
			}
			return
		}
		if !bytes.Equal(v.Encode(), b) {
			t.Fatal("re-encoding differs")
		}
		for _, p := range types {
			pt, err := NewPartition(p, []*SectorVanilla{v}, 0)
			if err != nil {
				continue
			}
			if err := pt.Check(r); err != nil {
				var ce *CheckError
				if !errors.As(err, &ce) || ce.SectorID != v.SectorID {
					t.Fatalf("%s: check refused with %T %v, want a *CheckError of sector %d", p.Name, err, err, v.SectorID)
				}
			}
		}
	})
}

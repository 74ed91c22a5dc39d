package fallback

import (
	"errors"
	"strings"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
)

func TestNewPartitionShapes(t *testing.T) {
	r := MaskRandomness([32]byte{4, 31: 0xff})
	win, _ := abi.ParsePoStName("StackedDrgWinning2KiBV1")
	wdw, _ := abi.ParsePoStName("StackedDrgWindow2KiBV1_1")
	a, b, c := sparseVanilla(t, wdw, 1, 0, r), sparseVanilla(t, wdw, 2, 1, r), sparseVanilla(t, wdw, 3, 2, r)
	w := sparseVanilla(t, win, 9, 0, r)
	two := &SectorVanilla{SectorID: 4, CommR: a.CommR, Sectors: []SectorProof{a.Sectors[0], a.Sectors[0]}}
	cases := []struct {
		name string
		p    abi.PoStProof
		vs   []*SectorVanilla
		k    int
		want string
	}{
		{"none", wdw, nil, 0, "no vanilla proofs"},
		{"too many", wdw, []*SectorVanilla{a, b, c}, 0, "at most 2 sectors"},
		{"twice", wdw, []*SectorVanilla{a, a}, 0, "both of sector 1"},
		{"two sector proofs", wdw, []*SectorVanilla{two}, 0, "holds 2 sector proofs"},
		{"winning two sectors", win, []*SectorVanilla{w, w}, 0, "proves one sector"},
		{"winning partition", win, []*SectorVanilla{w}, 1, "one partition"},
		{"winning of a window vanilla", win, []*SectorVanilla{a}, 0, "has 10 inclusion proofs, StackedDrgWinning2KiBV1 wants 66"},
		{"negative partition", wdw, []*SectorVanilla{a}, -1, "partition -1"},
	}
	for _, tc := range cases {
		_, err := NewPartition(tc.p, tc.vs, tc.k)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// A Winning vanilla proof is unrolled into 66 blocks, each of whose challenges is checked (not only the first, as the
	// reference's vanilla check does): a bad index in block 65 is named.
	pt, err := NewPartition(win, []*SectorVanilla{w}, 0)
	if err != nil || len(pt.Proofs) != 66 || pt.Real != 66 {
		t.Fatalf("winning: %v %d", err, len(pt.Proofs))
	}
	pt.Proofs[65].InclusionProofs[0].Base[0].Index ^= 1
	if err := pt.Check(r); err == nil || !strings.Contains(err.Error(), "block 65") {
		t.Errorf("winning block 65 tampered: %v", err)
	}
	// The public inputs pad a short Window partition with its last sector.
	in, err := PublicInputs(wdw, r, []PublicSector{{ID: 1, CommR: a.CommR}}, 0)
	if err != nil || len(in) != 22 || !in[0].Equal(&in[11]) || !in[10].Equal(&in[21]) {
		t.Errorf("padding: %v, %d inputs", err, len(in))
	}
	if _, err := PublicInputs(wdw, [32]byte{31: 0xff}, []PublicSector{{ID: 1}}, 0); err == nil || !strings.Contains(err.Error(), "top two bits") {
		t.Errorf("unmasked randomness: %v", err)
	}
}

// Blocks checked as one group (their paths hashed together) keep their own
// errors, and the group reports the right block and inclusion proof for a
// wrong sibling and for one that is not a field element, whichever comes
// first.
func TestCheckGroupNamesTheBlock(t *testing.T) {
	r := MaskRandomness([32]byte{6, 31: 0xff})
	win, _ := abi.ParsePoStName("StackedDrgWinning2KiBV1")
	fresh := func() *Partition {
		pt, err := NewPartition(win, []*SectorVanilla{sparseVanilla(t, win, 9, 0, r)}, 0)
		if err != nil {
			t.Fatal(err)
		}
		// The 66 blocks share their sector proof's slices: give each its own.
		for i := range pt.Proofs {
			m := pt.Proofs[i].InclusionProofs[0]
			m.Base = append([]PathElement(nil), m.Base...)
			for k := range m.Base {
				m.Base[k].Hashes = append([]Domain(nil), m.Base[k].Hashes...)
			}
			pt.Proofs[i].InclusionProofs = []MerkleProof{m}
		}
		return pt
	}
	pt := fresh()
	errs := make([]error, pt.Real)
	pt.checkBlocks(r, 0, pt.Real, errs)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("block %d of an untouched partition: %v", i, err)
		}
	}
	for _, tc := range []struct {
		name      string
		wrong     int // a flipped sibling
		nonField  int // a sibling ≥ p
		wantBlock int
		want      string
	}{
		{"wrong sibling first", 9, 12, 9, "hashes to"},
		{"non-field sibling first", 13, 12, 12, "level 0 sibling 0: invalid fr.Element"},
	} {
		pt := fresh()
		pt.Proofs[tc.wrong].InclusionProofs[0].Base[1].Hashes[0][0] ^= 1
		pt.Proofs[tc.nonField].InclusionProofs[0].Base[0].Hashes[0] = Domain{31: 0xff}
		errs := make([]error, pt.Real)
		pt.checkBlocks(r, 0, pt.Real, errs)
		for i, err := range errs {
			if (err != nil) != (i == tc.wrong || i == tc.nonField) {
				t.Fatalf("%s: block %d: %v", tc.name, i, err)
			}
		}
		err := pt.Check(r)
		var ce *CheckError
		if !errors.As(err, &ce) || ce.Block != tc.wantBlock || ce.Proof != 0 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want block %d: %q", tc.name, err, tc.wantBlock, tc.want)
		}
	}
}

package fallback

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/filecoin-project/go-fil-commcid"
	goabi "github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"

	"github.com/filc2/filc2/internal/testvec"
	"github.com/filc2/filc2/proofs/abi"
)

// The curio golden 32GiB WindowPoSt vanilla proof (vectors README):
// miner 1000, sector 1, PoSt proof 8 (StackedDrgWindow32GiBV1), zero randomness.
func goldenVanilla(t *testing.T) ([]byte, abi.PoStProof, Randomness, PublicSector) {
	t.Helper()
	b := testvec.Read(t, "window-post-vanilla-32GiB", "post.vproof")
	var pub struct {
		Randomness        []byte
		Proofs            []struct{ PoStProof int }
		ChallengedSectors []struct {
			SectorNumber uint64
			SealedCID    map[string]string
		}
	}
	if err := json.Unmarshal(testvec.Read(t, "window-post-vanilla-32GiB", "postpub.json"), &pub); err != nil {
		t.Fatal(err)
	}
	p, err := abi.LookupPoSt(goabi.RegisteredPoStProof(pub.Proofs[0].PoStProof))
	if err != nil {
		t.Fatal(err)
	}
	c, err := cid.Decode(pub.ChallengedSectors[0].SealedCID["/"])
	if err != nil {
		t.Fatal(err)
	}
	commR, err := commcid.CIDToReplicaCommitmentV1(c)
	if err != nil {
		t.Fatal(err)
	}
	var r Randomness
	copy(r[:], pub.Randomness)
	return b, p, r, PublicSector{ID: pub.ChallengedSectors[0].SectorNumber, CommR: Domain(commR)}
}

func TestGoldenVanilla(t *testing.T) {
	b, p, r, pub := goldenVanilla(t)
	if p.Name != "StackedDrgWindow32GiBV1" || len(b) != 24960 {
		t.Fatalf("%s, %d bytes", p.Name, len(b))
	}
	v, err := DecodeSectorVanilla(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(v.Encode(), b) {
		t.Fatal("re-encoding differs")
	}
	if v.SectorID != pub.ID || v.CommR != pub.CommR {
		t.Fatalf("sector %d comm_r %x, postpub.json says %d %x", v.SectorID, v.CommR, pub.ID, pub.CommR)
	}
	m := &v.Sectors[0].InclusionProofs[0]
	if len(v.Sectors) != 1 || len(v.Sectors[0].InclusionProofs) != 10 || m.Variant != Sub || len(m.Base) != 9 || len(m.Sub) != 1 {
		t.Fatalf("layout: %d sectors, %+v", len(v.Sectors), m.Variant)
	}
	// Every leaf index equals the challenge, derived independently here.
	chs := VanillaChallenges(p, r, v.SectorID, 0)
	for j := range v.Sectors[0].InclusionProofs {
		if got := merklePath(&v.Sectors[0].InclusionProofs[j]).LeafIndex(); got != chs[j] {
			t.Errorf("proof %d opens %d, challenge %d", j, got, chs[j])
		}
	}
	pt, err := NewPartition(p, []*SectorVanilla{v}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pt.Proofs) != 2349 || pt.Real != 1 {
		t.Fatalf("%d blocks, %d real", len(pt.Proofs), pt.Real)
	}
	if err := pt.Check(r); err != nil {
		t.Fatal(err)
	}
	// V1_1 of the same size: challenge index n for every sector, the same
	// challenges for the block at sector index 0.
	p11, _ := abi.ParsePoStName("StackedDrgWindow32GiBV1_1")
	if pt11, _ := NewPartition(p11, []*SectorVanilla{v}, 0); pt11.Check(r) != nil {
		t.Error("V1_1 rejects the sector-index-0 proof")
	}
	// In partition 1 a V1 sector has sector index 2349: other challenges.
	if pt1, _ := NewPartition(p, []*SectorVanilla{v}, 1); pt1.Check(r) == nil {
		t.Error("V1 partition 1 accepts partition 0's challenges")
	}
}

// Each tampering is rejected, naming the place.
func TestGoldenVanillaTampered(t *testing.T) {
	b, p, r, _ := goldenVanilla(t)
	cases := []struct {
		name string
		edit func(v *SectorVanilla)
		want string
	}{
		{"sibling", func(v *SectorVanilla) { v.Sectors[0].InclusionProofs[4].Base[3].Hashes[2][0] ^= 1 }, "inclusion proof 4: the path of leaf"},
		{"comm_c", func(v *SectorVanilla) { v.Sectors[0].CommC[5] ^= 1 }, "Poseidon2(comm_c, comm_r_last)"},
		{"index", func(v *SectorVanilla) { v.Sectors[0].InclusionProofs[7].Base[0].Index ^= 1 }, "inclusion proof 7: opens leaf"},
		{"leaf", func(v *SectorVanilla) { v.Sectors[0].InclusionProofs[2].Leaf[1] ^= 1 }, "inclusion proof 2: the path of leaf"},
		{"root", func(v *SectorVanilla) { v.Sectors[0].InclusionProofs[9].Root[1] ^= 1 }, "inclusion proof 9: root"},
		{"levels", func(v *SectorVanilla) { m := &v.Sectors[0].InclusionProofs[1]; m.Base = m.Base[:8] }, "inclusion proof 1: 8 base levels"},
		{"count", func(v *SectorVanilla) { s := &v.Sectors[0]; s.InclusionProofs = s.InclusionProofs[:9] }, "9 inclusion proofs"},
	}
	for _, c := range cases {
		v, err := DecodeSectorVanilla(b)
		if err != nil {
			t.Fatal(err)
		}
		c.edit(v)
		pt, err := NewPartition(p, []*SectorVanilla{v}, 0)
		if err == nil {
			err = pt.Check(r)
		}
		var ce *CheckError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a CheckError with %q", c.name, err, c.want)
		}
	}
	v, _ := DecodeSectorVanilla(b)
	pt, _ := NewPartition(p, []*SectorVanilla{v}, 0)
	r2 := r
	r2[0] = 1
	if err := pt.Check(r2); err == nil || !strings.Contains(err.Error(), "opens leaf") {
		t.Errorf("another randomness: %v", err)
	}
}

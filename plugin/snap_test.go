package plugin_test

import (
	"context"
	"testing"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
	pabi "github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/snap"
)

// snapRequest is the Prover API request of a 2KiB SnapDeals fixture.
func snapRequest(t *testing.T, seed uint64) *plugin.SnapRequest {
	t.Helper()
	req, _, err := snap.RandomRequest(pabi.AllUpdate()[0], seed)
	if err != nil {
		t.Fatal(err)
	}
	sr := &plugin.SnapRequest{ProofType: req.Proof.Proof, CommROld: req.CommROld[:], CommRNew: req.CommRNew[:], CommDNew: req.CommDNew[:]}
	for _, pp := range req.Vanilla {
		sr.VanillaProofs = append(sr.VanillaProofs, pp.Encode())
	}
	return sr
}

// ParseRequest of SnapDeals requests: a good one is a checked snap-deals
// request at normal priority at least; each malformed field is named.
func TestParseSnapRequest(t *testing.T) {
	ctx := context.Background()
	sr := snapRequest(t, 1)
	r, err := plugin.ParseRequest(ctx, plugin.ProveRequest{Sector: plugintest.Sector(3), Snap: sr})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind() != "snap-deals" || r.ProofName() != "StackedDrg2KiBV1" || r.Snap == nil || !r.Snap.Checked || r.ID == "" {
		t.Fatalf("parsed %+v", r)
	}
	again, _ := plugin.ParseRequest(ctx, plugin.ProveRequest{Sector: plugintest.Sector(3), Snap: sr})
	if again.Digest != r.Digest {
		t.Error("the same request digests differently")
	}
	other := snapRequest(t, 2)
	mod := func(f func(s *plugin.SnapRequest)) plugin.ProveRequest {
		c := *sr
		c.VanillaProofs = append([][]byte(nil), sr.VanillaProofs...)
		f(&c)
		return plugin.ProveRequest{Snap: &c}
	}
	for _, tc := range []struct {
		what, field, want string
		req               plugin.ProveRequest
	}{
		{"type", "Snap.ProofType", "unknown RegisteredUpdateProof", mod(func(s *plugin.SnapRequest) { s.ProofType = 9 })},
		{"short comm_r_old", "Snap.CommROld", "want 32", mod(func(s *plugin.SnapRequest) { s.CommROld = s.CommROld[:31] })},
		{"no comm_d_new", "Snap.CommDNew", "want 32", mod(func(s *plugin.SnapRequest) { s.CommDNew = nil })},
		{"two partitions", "Snap.VanillaProofs", "one per partition", mod(func(s *plugin.SnapRequest) { s.VanillaProofs = append(s.VanillaProofs, s.VanillaProofs[0]) })},
		{"truncated", "Snap.VanillaProofs[0]", "byte", mod(func(s *plugin.SnapRequest) { s.VanillaProofs[0] = s.VanillaProofs[0][:100] })},
		{"another update's vanilla", "Snap.VanillaProofs", "partition 0", mod(func(s *plugin.SnapRequest) { s.VanillaProofs = other.VanillaProofs })},
		{"another comm_d_new", "Snap.VanillaProofs", "partition 0", mod(func(s *plugin.SnapRequest) { s.CommDNew = other.CommDNew })},
		{"with a C1", "Commit1Out", "not both", plugin.ProveRequest{Snap: sr, Commit1Out: []byte("{}")}},
		{"with PoSt", "Snap", "one kind", plugin.ProveRequest{Snap: sr, PoSt: &plugin.PoStRequest{}}},
	} {
		_, err := plugin.ParseRequest(ctx, tc.req)
		badInput(t, tc.what, err, tc.field, tc.want)
	}
}

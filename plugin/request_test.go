package plugin_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
	"github.com/filc2/filc2/proofs/c1"
)

// badInput asserts err is a *BadInputError about field whose message
// contains want.
func badInput(t *testing.T, what string, err error, field, want string) {
	t.Helper()
	var bi *plugin.BadInputError
	if !errors.As(err, &bi) || bi.Field != field || !strings.Contains(bi.Msg, want) {
		t.Errorf("%s: got %T %v, want a bad input about %s containing %q", what, err, err, field, want)
	}
}

func TestParseRequest(t *testing.T) {
	ctx := context.Background()
	a, _ := plugintest.Sealed(t)
	r, err := plugin.ParseRequest(ctx, plugin.ProveRequest{Sector: plugintest.Sector(1), Commit1Out: a, Priority: 7})
	if err != nil {
		t.Fatal(err)
	}
	if r.ID == "" || r.Priority != 7 || r.Proof.Name != "StackedDrg2KiBV1_1" || r.C1 == nil {
		t.Fatalf("request %+v", r)
	}
	again, _ := plugin.ParseRequest(ctx, plugin.ProveRequest{ID: "x", Sector: plugintest.Sector(1), Commit1Out: a})
	if again.ID != "x" || again.Digest != r.Digest {
		t.Fatalf("id %q, digests %x %x", again.ID, again.Digest, r.Digest)
	}
	// A wrapped C1 (lotus-bench's Commit2In) is accepted too.
	wrapped := c1.EncodeWrapper(1, 2048, a)
	if _, err := plugin.ParseRequest(ctx, plugin.ProveRequest{Sector: plugintest.Sector(1), Commit1Out: wrapped}); err != nil {
		t.Fatalf("wrapped: %v", err)
	}

	// A C1 whose seed changed: well-formed, but its vanilla proofs open
	// other challenges.
	dec, err := c1.Decode(a)
	if err != nil {
		t.Fatal(err)
	}
	dec.Seed[0] ^= 0xff
	reseeded, err := c1.Encode(dec)
	if err != nil {
		t.Fatal(err)
	}
	v1 := plugintest.Sector(1)
	v1.ProofType = abi.RegisteredSealProof_StackedDrg2KiBV1
	big := plugintest.Sector(1)
	big.ProofType = abi.RegisteredSealProof_StackedDrg8MiBV1_1
	unknown := plugintest.Sector(1)
	unknown.ProofType = 99
	for _, tc := range []struct {
		what         string
		req          plugin.ProveRequest
		field, wants string
	}{
		{"empty", plugin.ProveRequest{Sector: plugintest.Sector(1)}, "Commit1Out", "empty"},
		{"malformed", plugin.ProveRequest{Sector: plugintest.Sector(1), Commit1Out: []byte("{not json")}, "Commit1Out", "c1:"},
		{"not an object", plugin.ProveRequest{Sector: plugintest.Sector(1), Commit1Out: []byte("[1,2,3]")}, "Commit1Out", "want an object"},
		{"truncated", plugin.ProveRequest{Sector: plugintest.Sector(1), Commit1Out: a[:len(a)/2]}, "Commit1Out", "c1:"},
		{"trailing data", plugin.ProveRequest{Sector: plugintest.Sector(1), Commit1Out: append(append([]byte(nil), a...), "{}"...)}, "Commit1Out", "trailing data"},
		{"wrong sector size", plugin.ProveRequest{Sector: big, Commit1Out: a}, "Sector.ProofType", "wrong sector size"},
		{"wrong proof version", plugin.ProveRequest{Sector: v1, Commit1Out: a}, "Sector.ProofType", "StackedDrg2KiBV1_1"},
		{"unknown proof type", plugin.ProveRequest{Sector: unknown, Commit1Out: a}, "Sector.ProofType", "99"},
		{"another sector", plugin.ProveRequest{Sector: plugintest.Sector(2), Commit1Out: a}, "Sector.ID", "replica_id"},
		{"another miner", plugin.ProveRequest{Sector: plugin.SectorRef{ID: abi.SectorID{Miner: 7, Number: 1}, ProofType: plugintest.Proof.Proof}, Commit1Out: a}, "Sector.ID", "miner 7"},
		{"wrapper of another sector", plugin.ProveRequest{Sector: plugintest.Sector(1), Commit1Out: c1.EncodeWrapper(5, 2048, a)}, "Sector.ID.Number", "SectorNum is 5"},
		{"wrapper of another size", plugin.ProveRequest{Sector: plugintest.Sector(1), Commit1Out: c1.EncodeWrapper(1, 8<<20, a)}, "Commit1Out", "SectorSize"},
		{"vanilla proofs", plugin.ProveRequest{Sector: plugintest.Sector(1), Commit1Out: reseeded}, "Commit1Out", "porep:"},
		{"id with space", plugin.ProveRequest{ID: "a b", Sector: plugintest.Sector(1), Commit1Out: a}, "ID", "printable"},
		{"long id", plugin.ProveRequest{ID: plugin.JobID(strings.Repeat("x", 129)), Sector: plugintest.Sector(1), Commit1Out: a}, "ID", "at most 128"},
		{"too large", plugin.ProveRequest{Sector: plugintest.Sector(1), Commit1Out: make([]byte, plugin.MaxC1Size+1)}, "Commit1Out", "over the limit"},
	} {
		_, err := plugin.ParseRequest(ctx, tc.req)
		badInput(t, tc.what, err, tc.field, tc.wants)
		t.Logf("%s: %v", tc.what, err)
	}
}

package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/filc2/filc2/internal/testparams"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/snap"
	"github.com/filc2/filc2/proofs/snark"
	"github.com/filc2/filc2/proofs/update"
)

// A 2KiB SnapDeals job through the engine on the Proofs backend: verified,
// of kind snap-deals at normal priority, its circuit resident; the same id
// for other commitments is a conflict; vanilla proofs of another update are
// a bad request naming the check.
func TestEngineSnap2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 2KiB update setup")
	}
	ctx := context.Background()
	p := abi.AllUpdate()[0]
	dir := testparams.SnapDir(t, p, 6)
	cfg := DefaultConfig()
	cfg.Params.Dir = dir
	cfg.Synthesis.Workers = 1
	cfg.Memory.Budget = 4 * GiB
	e, err := New(cfg, &Proofs{ParamsDir: dir, GPU: CPUWholeProof(0)}, WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	req, _, err := snap.RandomRequest(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	id, err := e.Submit(ctx, Request{ID: "snap-1", Input: &Snap{Request: req}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Await(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != KindSnapDeals || len(res.Proof) != abi.PartitionProofLen*p.Partitions || !res.Partitions[0].Verified {
		t.Fatalf("result %+v", res)
	}
	pvk, err := snark.ReadVerifyingKey(snap.FilesIn(dir, p).VK, snap.NumInputs)
	if err != nil {
		t.Fatal(err)
	}
	if err := snap.Verify(pvk, p, req.Commitments, res.Proof); err != nil {
		t.Fatalf("the engine's proof: %v", err)
	}
	if st, _ := e.Job(id); st.Priority != PriorityNormal || st.Kind != KindSnapDeals {
		t.Errorf("job %+v: want kind snap-deals at normal priority", st)
	}
	other, _, err := snap.RandomRequest(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Submit(ctx, Request{ID: "snap-1", Input: &Snap{Request: other}}); !errors.Is(err, ErrIDConflict) {
		t.Errorf("a reused id for another update: %v", err)
	}
	bad := *req
	bad.Vanilla = other.Vanilla
	var ce *update.CheckError
	if _, err := e.Submit(ctx, Request{Input: &Snap{Request: &bad}}); !errors.Is(err, ErrBadRequest) || !errors.As(err, &ce) {
		t.Errorf("another update's vanilla proofs: %v", err)
	}
	if st := e.Status(); len(st.Circuits) != 1 || st.Circuits[0].Kind != KindSnapDeals {
		t.Errorf("resident circuits %+v", st.Circuits)
	}

}

// The SetupKey backend proves updates (what `bench c2 --update-proof`
// measures on the GPU): a periodic 2KiB fixture, every partition verified
// under the setup's key; another update's vanilla proofs are a bad request.
func TestSetupKeySnap(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 2KiB update setup")
	}
	ctx := context.Background()
	cfg := DefaultConfig()
	cfg.Synthesis.Workers = 1
	cfg.Memory.Budget = 4 * GiB
	e, err := New(cfg, &SetupKey{GPU: CPUWholeProof(0), PCEDir: t.TempDir(), Seed: 4}, WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	p := abi.AllUpdate()[0]
	req, _, err := snap.PeriodicRequest(p, 7)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := snap.PeriodicRequest(p, 8)
	if err != nil {
		t.Fatal(err)
	}
	bad := *req
	bad.Vanilla = other.Vanilla
	if _, err := e.Submit(ctx, Request{Input: &Snap{Request: &bad}}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("another update's vanilla proofs: %v", err)
	}
	id, err := e.Submit(ctx, Request{Input: &Snap{Request: req}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Await(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != KindSnapDeals || len(res.Proof) != abi.PartitionProofLen*p.Partitions {
		t.Fatalf("result %+v", res)
	}
	for k, pt := range res.Partitions {
		if !pt.Verified {
			t.Fatalf("partition %d not verified", k)
		}
	}
	// A PoRep job on the same engine: its circuit loads beside the update's,
	// which stays resident (the budget has room for both).
	sin := porep.SparseInput{Proof: proof2K, ProverID: porep.ProverID(1000), SectorID: 5}
	sin.Seed[0] = 6
	sparse, _, err := porep.SparseC1(ctx, sin)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := e.Submit(ctx, Request{Input: &PoRep{Proof: proof2K, C1: sparse}})
	if err != nil {
		t.Fatal(err)
	}
	if pres, err := e.Await(ctx, pid); err != nil || !pres.Partitions[0].Verified {
		t.Fatalf("the PoRep job beside the update: %+v, %v", pres, err)
	}
	kinds := map[Kind]bool{}
	for _, c := range e.Status().Circuits {
		kinds[c.Kind] = true
	}
	if len(kinds) != 2 || !kinds[KindSnapDeals] || !kinds[KindPoRep] {
		t.Fatalf("resident circuits %+v: want the update's and PoRep's", e.Status().Circuits)
	}
}

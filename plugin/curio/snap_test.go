package curio_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
	cuzkv1 "github.com/filc2/filc2/plugin/proto/cuzk/v1"
	"github.com/filc2/filc2/proofs/update"
)

// curioSnap is what curio's ProveUpdateCuzk sends (sector_size 0 as
// ProofShare sends it when zero is true).
func curioSnap(id string, pub update.Commitments, vanilla [][]byte, zeroSize bool) *cuzkv1.SubmitProofRequest {
	size := uint64(plugintest.Update.SectorSize)
	if zeroSize {
		size = 0
	}
	return &cuzkv1.SubmitProofRequest{RequestId: id, ProofKind: cuzkv1.ProofKind_SNAP_DEALS_UPDATE, SectorSize: size,
		RegisteredProof: uint64(plugintest.Update.Proof), Priority: cuzkv1.Priority_NORMAL, VanillaProofs: vanilla,
		SectorNumber: 9, MinerId: plugintest.Miner, CommROld: pub.CommROld[:], CommRNew: pub.CommRNew[:], CommDNew: pub.CommDNew[:]}
}

// SNAP_DEALS_UPDATE through the cuzk service on the engine: the proof
// verifies (with sector_size given and as ProofShare's 0); the same
// request_id with another update is its own job; vanilla proofs of another
// update, or a wrong sector_size, are INVALID_ARGUMENT; GetStatus lists the
// snap-2k circuit.
func TestCuzkSnap(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 2KiB update test parameters and proves on the CPU")
	}
	dir := plugintest.SnapParams(t)
	cfg := engine.DefaultConfig()
	cfg.Params.Dir = dir
	cfg.Synthesis.Workers = 2
	cfg.Memory.Budget = 4 * engine.GiB
	e, err := engine.New(cfg, &engine.Proofs{ParamsDir: dir, GPU: engine.CPUWholeProof(0)},
		engine.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	svc := plugin.NewEngineService(e, plugin.LocalConfig{ParamsDir: dir})
	t.Cleanup(func() { svc.Close() })
	c := cuzkClient(t, plugin.NewServer(svc, "test"))
	ctx := context.Background()

	pub, vanilla := plugintest.SnapVanilla(t, 1)
	pub2, vanilla2 := plugintest.SnapVanilla(t, 2)
	var jobs []string
	for i, r := range []*cuzkv1.SubmitProofRequest{curioSnap("snap-1000-9", pub, vanilla, false), curioSnap("snap-1000-9", pub2, vanilla2, true)} {
		resp, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: r})
		if err != nil || resp.GetResult().GetStatus() != cuzkv1.AwaitProofResponse_COMPLETED {
			t.Fatalf("update %d: %v %v", i, resp, err)
		}
		want := []update.Commitments{pub, pub2}[i]
		if err := plugintest.VerifySnap(t, want, resp.GetResult().GetProof()); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
		jobs = append(jobs, resp.GetResult().GetJobId())
	}
	if jobs[0] == jobs[1] {
		t.Fatalf("two updates under one request_id merged into job %s", jobs[0])
	}
	bad := curioSnap("snap-bad", pub, vanilla2, false)
	_, err = c.SubmitProof(ctx, bad)
	wantCode(t, "another update's vanilla", err, codes.InvalidArgument, "Snap.VanillaProofs")
	bad = curioSnap("snap-size", pub, vanilla, false)
	bad.SectorSize = 8 << 20
	_, err = c.SubmitProof(ctx, bad)
	wantCode(t, "a wrong sector_size", err, codes.InvalidArgument, "sector_size")

	st, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, s := range st.GetLoadedSrs() {
		ids[s.GetCircuitId()] = true
	}
	if !ids["snap-2k"] || ids["porep-2k"] {
		t.Fatalf("status: circuits %v, want snap-2k (and no porep-2k)", ids)
	}
}

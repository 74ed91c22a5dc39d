package curio_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
	cuzkv1 "github.com/filc2/filc2/plugin/proto/cuzk/v1"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/fallback"
)

// postService is the cuzk service over an engine on the CPU with the 2KiB
// PoSt test parameters.
func postService(t *testing.T) cuzkv1.ProvingEngineClient {
	t.Helper()
	dir := plugintest.PoStParams(t)
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
	return cuzkClient(t, plugin.NewServer(svc, "test"))
}

// postRequest is what curio's WindowPoStCuzk or WinningPoStCuzk sends.
func curioPoSt(kind cuzkv1.ProofKind, p abi.PoStProof, id string, r [32]byte, vanilla [][]byte) *cuzkv1.SubmitProofRequest {
	prio := cuzkv1.Priority_HIGH
	if kind == cuzkv1.ProofKind_WINNING_POST {
		prio = cuzkv1.Priority_CRITICAL
	}
	return &cuzkv1.SubmitProofRequest{RequestId: id, ProofKind: kind, SectorSize: uint64(p.SectorSize),
		RegisteredProof: uint64(p.Proof), Priority: prio, VanillaProofs: vanilla, MinerId: plugintest.Miner,
		Randomness: r[:], PartitionIndex: 0}
}

// WINDOW_POST_PARTITION and WINNING_POST through the cuzk service on the
// engine: the proofs verify; the two chain partitions of one deadline, sent
// with the same request_id as curio does, are two jobs with two proofs; a
// vanilla proof for another randomness is INVALID_ARGUMENT.
func TestCuzkPoSt(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 2KiB PoSt test parameters and proves on the CPU")
	}
	c := postService(t)
	ctx := context.Background()
	r := [32]byte{7, 7, 7, 31: 0xff} // unmasked: curio masks, and so does filc2
	masked := fallback.MaskRandomness(r)

	// Two chain partitions of one deadline: one request_id, other sectors.
	va, pa := plugintest.PoStVanilla(t, plugintest.WindowPoSt, r, 1, 0)
	vb, pb := plugintest.PoStVanilla(t, plugintest.WindowPoSt, r, 2, 0)
	vb, pb = vb[1:], pb[1:] // another sector than va's
	id := "wdpost-1000-0-117901063"
	type res struct {
		r   *cuzkv1.ProveResponse
		err error
	}
	out := make([]res, 2)
	var wg sync.WaitGroup
	for i, v := range [][][]byte{va, vb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: curioPoSt(cuzkv1.ProofKind_WINDOW_POST_PARTITION, plugintest.WindowPoSt, id, masked, v)})
			out[i] = res{resp, err}
		}()
	}
	wg.Wait()
	for i, pubs := range [][]fallback.PublicSector{pa, pb} {
		if out[i].err != nil || out[i].r.GetResult().GetStatus() != cuzkv1.AwaitProofResponse_COMPLETED {
			t.Fatalf("WindowPoSt %d: %v %v", i, out[i].r, out[i].err)
		}
		if err := plugintest.VerifyPoSt(t, plugintest.WindowPoSt, r, pubs, 0, out[i].r.GetResult().GetProof()); err != nil {
			t.Fatalf("WindowPoSt %d: %v", i, err)
		}
	}
	if out[0].r.GetResult().GetJobId() == out[1].r.GetResult().GetJobId() {
		t.Fatalf("two partitions under one request_id merged into job %s", out[0].r.GetResult().GetJobId())
	}
	if err := plugintest.VerifyPoSt(t, plugintest.WindowPoSt, r, pb, 0, out[0].r.GetResult().GetProof()); err == nil {
		t.Fatal("the first partition's proof verifies for the second's sectors")
	}

	// WinningPoSt, critical, with the randomness as curio masks it.
	vw, pw := plugintest.PoStVanilla(t, plugintest.WinningPoSt, r, 1, 0)
	resp, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: curioPoSt(cuzkv1.ProofKind_WINNING_POST, plugintest.WinningPoSt, "winpost-1000-07070700", masked, vw)})
	if err != nil || resp.GetResult().GetStatus() != cuzkv1.AwaitProofResponse_COMPLETED {
		t.Fatalf("WinningPoSt: %v %v", resp, err)
	}
	if err := plugintest.VerifyPoSt(t, plugintest.WinningPoSt, r, pw, 0, resp.GetResult().GetProof()); err != nil {
		t.Fatalf("WinningPoSt: %v", err)
	}

	// Vanilla proofs made for another randomness fail the vanilla check.
	other := [32]byte{8}
	_, err = c.Prove(ctx, &cuzkv1.ProveRequest{Submit: curioPoSt(cuzkv1.ProofKind_WINNING_POST, plugintest.WinningPoSt, "winpost-1000-08", other, vw)})
	wantCode(t, "vanilla for another randomness", err, codes.InvalidArgument, "PoSt.VanillaProofs")
	// A WindowPoSt with more sectors than a partition holds.
	many := make([][]byte, plugintest.WindowPoSt.SectorCount+1)
	for i := range many {
		many[i] = va[0]
	}
	_, err = c.SubmitProof(ctx, curioPoSt(cuzkv1.ProofKind_WINDOW_POST_PARTITION, plugintest.WindowPoSt, "wdpost-many", masked, many))
	wantCode(t, "too many sectors", err, codes.InvalidArgument, "at most")

	st, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, s := range st.GetLoadedSrs() {
		ids[s.GetCircuitId()] = true
	}
	if !ids["wpost-2k"] || !ids["winning-2k"] || st.GetTotalProofsCompleted() != 3 {
		t.Fatalf("status: circuits %v, %d completed", ids, st.GetTotalProofsCompleted())
	}
}

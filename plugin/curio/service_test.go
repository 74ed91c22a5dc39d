package curio_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/curio"
	"github.com/filc2/filc2/plugin/plugintest"
	cuzkv1 "github.com/filc2/filc2/plugin/proto/cuzk/v1"
)

// cuzkClient serves the cuzk service over p on loopback and returns a
// client made as curio makes its own (insecure, 256 MiB messages).
func cuzkClient(t *testing.T, p plugin.Prover) cuzkv1.ProvingEngineClient {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := curio.NewGRPCServer(curio.NewService(curio.Config{Prover: p}))
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("dns:///"+ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20), grpc.MaxCallSendMsgSize(256<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return cuzkv1.NewProvingEngineClient(conn)
}

// curioRequest is the request curio's PoRepSnarkCuzk sends for a 2KiB
// sector of plugintest.Miner: the C1 in the {SectorNum, Phase1Out,
// SectorSize} wrapper.
func curioRequest(t testing.TB, number uint64, c1o []byte) *cuzkv1.SubmitProofRequest {
	t.Helper()
	wrapped, err := json.Marshal(struct {
		SectorNum  int64
		Phase1Out  []byte
		SectorSize uint64
	}{int64(number), c1o, 2048})
	if err != nil {
		t.Fatal(err)
	}
	return &cuzkv1.SubmitProofRequest{
		RequestId:       "porep-1000-" + strings.Repeat("x", int(number)),
		ProofKind:       cuzkv1.ProofKind_POREP_SEAL_COMMIT,
		SectorSize:      2048,
		RegisteredProof: uint64(plugintest.Proof.Proof),
		Priority:        cuzkv1.Priority_NORMAL,
		VanillaProof:    wrapped,
		SectorNumber:    number,
		MinerId:         plugintest.Miner,
	}
}

func wantCode(t *testing.T, what string, err error, code codes.Code, msg string) {
	t.Helper()
	if s, _ := status.FromError(err); err == nil || s.Code() != code || !strings.Contains(s.Message(), msg) {
		t.Errorf("%s: %v, want %v and %q", what, err, code, msg)
	}
}

// The cuzk service over a fake prover: Prove, the refused kinds and bad
// input, Submit/Await/Cancel and their statuses, GetStatus's queue counts,
// metrics, a full queue, request ids reused, and SRS management.
func TestCuzkService(t *testing.T) {
	a, b := plugintest.Sealed(t)
	g := plugintest.NewGate()
	svc := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, QueueSize: 2, Prove: g.Prove})
	t.Cleanup(func() { svc.Close() })
	c := cuzkClient(t, plugin.NewServer(svc, "test"))
	ctx := context.Background()

	// Prove, as curio calls it.
	req := curioRequest(t, 1, a)
	type proved struct {
		r   *cuzkv1.ProveResponse
		err error
	}
	ch := make(chan proved, 1)
	go func() {
		r, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: req})
		ch <- proved{r, err}
	}()
	g.WaitRunning(t, plugin.JobID(req.RequestId))
	g.Open(plugin.JobID(req.RequestId), nil)
	p := <-ch
	if p.err != nil || p.r.GetResult().GetStatus() != cuzkv1.AwaitProofResponse_COMPLETED || string(p.r.GetResult().GetProof()) != "proof of "+req.RequestId ||
		p.r.GetResult().GetJobId() != req.RequestId {
		t.Fatalf("Prove: %v %v", p.r, p.err)
	}

	// PoSt and SnapDeals vanilla proofs that are no bincode are bad input;
	// bad requests are refused.
	for _, k := range []cuzkv1.ProofKind{cuzkv1.ProofKind_SNAP_DEALS_UPDATE, cuzkv1.ProofKind_WINDOW_POST_PARTITION, cuzkv1.ProofKind_WINNING_POST} {
		r := curioRequest(t, 1, a)
		r.ProofKind, r.VanillaProof, r.VanillaProofs, r.Randomness = k, nil, [][]byte{[]byte("x")}, make([]byte, 32)
		r.RegisteredProof, r.SectorSize = 10, 2048 // StackedDrgWindow2KiBV1_1
		code, msg := codes.InvalidArgument, "PoSt.VanillaProofs[0]"
		switch k {
		case cuzkv1.ProofKind_SNAP_DEALS_UPDATE:
			r.RegisteredProof = 0 // StackedDrg2KiBV1 (an update type)
			r.CommROld, r.CommRNew, r.CommDNew = make([]byte, 32), make([]byte, 32), make([]byte, 32)
			msg = "Snap.VanillaProofs[0]"
		case cuzkv1.ProofKind_WINNING_POST:
			r.RegisteredProof = 0 // StackedDrgWinning2KiBV1
		}
		_, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: r})
		wantCode(t, k.String(), err, code, msg)
		_, err = c.SubmitProof(ctx, r)
		wantCode(t, k.String()+" submit", err, code, msg)
		if k == cuzkv1.ProofKind_WINDOW_POST_PARTITION {
			r.RegisteredProof = 0 // a Winning type for a WindowPoSt
			_, err = c.SubmitProof(ctx, r)
			wantCode(t, "a Winning type for WINDOW_POST_PARTITION", err, codes.InvalidArgument, "not a WINDOW_POST_PARTITION type")
		}
	}
	for what, mod := range map[string]func(r *cuzkv1.SubmitProofRequest){
		"unspecified kind":   func(r *cuzkv1.SubmitProofRequest) { r.ProofKind = cuzkv1.ProofKind_PROOF_KIND_UNSPECIFIED },
		"unknown kind":       func(r *cuzkv1.SubmitProofRequest) { r.ProofKind = 9 },
		"unknown proof type": func(r *cuzkv1.SubmitProofRequest) { r.RegisteredProof = 99 },
		"wrong sector size":  func(r *cuzkv1.SubmitProofRequest) { r.SectorSize = 32 << 30 },
		"wrong proof type":   func(r *cuzkv1.SubmitProofRequest) { r.RegisteredProof, r.SectorSize = 8, 0 },
		"no vanilla proof":   func(r *cuzkv1.SubmitProofRequest) { r.VanillaProof = nil },
		"truncated C1":       func(r *cuzkv1.SubmitProofRequest) { r.VanillaProof = r.VanillaProof[:100] },
		"another miner":      func(r *cuzkv1.SubmitProofRequest) { r.MinerId = 1001 },
		"bad request id":     func(r *cuzkv1.SubmitProofRequest) { r.RequestId = "with space" },
	} {
		r := curioRequest(t, 1, a)
		mod(r)
		_, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: r})
		wantCode(t, what, err, codes.InvalidArgument, "")
	}
	_, err := c.Prove(ctx, &cuzkv1.ProveRequest{})
	wantCode(t, "no submit", err, codes.InvalidArgument, "submit")

	// Submit, status, await with a timeout, cancel.
	r1, r2 := curioRequest(t, 1, a), curioRequest(t, 2, b)
	r1.RequestId, r2.RequestId = "job-1", "job-2"
	s1, err := c.SubmitProof(ctx, r1)
	if err != nil || s1.GetJobId() != "job-1" {
		t.Fatalf("submit 1: %v %v", s1, err)
	}
	g.WaitRunning(t, "job-1")
	s2, err := c.SubmitProof(ctx, r2)
	if err != nil || s2.GetJobId() != "job-2" || s2.GetQueuePosition() != 1 {
		t.Fatalf("submit 2: %v %v", s2, err)
	}
	st, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	if err != nil || len(st.GetQueues()) != 1 || st.GetQueues()[0].GetProofKind() != "porep-c2" || st.GetQueues()[0].GetPending() != 1 ||
		st.GetQueues()[0].GetInProgress() != 1 || st.GetTotalProofsCompleted() != 1 {
		t.Fatalf("status: %v %v", st, err)
	}
	aw, err := c.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "job-1", TimeoutMs: 50})
	if err != nil || aw.GetStatus() != cuzkv1.AwaitProofResponse_TIMEOUT {
		t.Fatalf("await with timeout: %v %v", aw, err)
	}
	// The same request id with other content gets an id of its own.
	r1b := curioRequest(t, 2, b)
	r1b.RequestId = "job-1"
	s3, err := c.SubmitProof(ctx, r1b)
	if err != nil || !strings.HasPrefix(s3.GetJobId(), "job-1-") {
		t.Fatalf("reused request id: %v %v", s3, err)
	}
	// The queue (2) is full now.
	r4 := curioRequest(t, 1, a)
	r4.RequestId = "job-4"
	_, err = c.Prove(ctx, &cuzkv1.ProveRequest{Submit: r4})
	wantCode(t, "full queue", err, codes.ResourceExhausted, "busy")

	if cr, err := c.CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: "job-1"}); err != nil || !cr.GetWasRunning() {
		t.Fatalf("cancel running: %v %v", cr, err)
	}
	if aw, err := c.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "job-1"}); err != nil || aw.GetStatus() != cuzkv1.AwaitProofResponse_CANCELLED {
		t.Fatalf("await cancelled: %v %v", aw, err)
	}
	if cr, err := c.CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: s3.GetJobId()}); err != nil || cr.GetWasRunning() {
		t.Fatalf("cancel queued: %v %v", cr, err)
	}
	g.WaitRunning(t, "job-2")
	g.Open("job-2", errors.New("out of GPU memory"))
	if aw, err := c.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "job-2"}); err != nil || aw.GetStatus() != cuzkv1.AwaitProofResponse_FAILED ||
		!strings.Contains(aw.GetErrorMessage(), "out of GPU memory") {
		t.Fatalf("await failed: %v %v", aw, err)
	}
	_, err = c.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "never"})
	wantCode(t, "await unknown", err, codes.NotFound, "never")
	_, err = c.CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: "never"})
	wantCode(t, "cancel unknown", err, codes.NotFound, "never")

	// A Prove caller that goes away cancels its job.
	r5 := curioRequest(t, 1, a)
	r5.RequestId = "job-5"
	pctx, cancel := context.WithCancel(ctx)
	go func() {
		_, err := c.Prove(pctx, &cuzkv1.ProveRequest{Submit: r5})
		ch <- proved{nil, err}
	}()
	g.WaitRunning(t, "job-5")
	cancel()
	wantCode(t, "Prove given up", (<-ch).err, codes.Canceled, "")
	plugintest.WaitFor(t, 5*time.Second, "job-5 to be cancelled", func() bool {
		aw, err := c.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: "job-5", TimeoutMs: 100})
		return err == nil && aw.GetStatus() == cuzkv1.AwaitProofResponse_CANCELLED
	})

	m, err := c.GetMetrics(ctx, &cuzkv1.GetMetricsRequest{})
	if err != nil || !strings.Contains(m.GetPrometheusText(), "filc2_jobs_total{result=\"succeeded\"} 1") {
		t.Fatalf("metrics: %v %v", m, err)
	}

	// This prover has no CircuitManager.
	_, err = c.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "porep-32g"})
	wantCode(t, "preload", err, codes.Unimplemented, "not supported by this backend")
	_, err = c.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: "porep-2k"})
	wantCode(t, "evict", err, codes.Unimplemented, "not supported by this backend")
	_, err = c.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "wpost-32g"})
	wantCode(t, "preload wpost", err, codes.Unimplemented, "unsupported")
	_, err = c.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "porep-1t"})
	wantCode(t, "preload unknown", err, codes.InvalidArgument, "circuit_id")
}

// circuitProver is a Prover with a CircuitManager.
type circuitProver struct {
	plugintest.ErrProver
	loaded map[abi.RegisteredSealProof]bool
}

func (p *circuitProver) PreloadCircuit(_ context.Context, pt abi.RegisteredSealProof) (bool, error) {
	was := p.loaded[pt]
	p.loaded[pt] = true
	return was, nil
}

func (p *circuitProver) EvictCircuit(_ context.Context, pt abi.RegisteredSealProof) (bool, uint64, error) {
	was := p.loaded[pt]
	delete(p.loaded, pt)
	return was, 123, nil
}

func TestCuzkServiceCircuits(t *testing.T) {
	p := &circuitProver{ErrProver: plugintest.ErrProver{Err: &plugin.UnavailableError{Msg: "down"}}, loaded: map[abi.RegisteredSealProof]bool{}}
	c := cuzkClient(t, p)
	ctx := context.Background()
	if r, err := c.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "porep-32g"}); err != nil || r.GetAlreadyLoaded() {
		t.Fatalf("preload: %v %v", r, err)
	}
	if !p.loaded[abi.RegisteredSealProof_StackedDrg32GiBV1_1] {
		t.Fatalf("loaded %v", p.loaded)
	}
	if r, err := c.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: "porep-32g"}); err != nil || !r.GetAlreadyLoaded() {
		t.Fatalf("preload again: %v %v", r, err)
	}
	if r, err := c.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: "porep-32g"}); err != nil || !r.GetWasLoaded() || r.GetFreedBytes() != 123 {
		t.Fatalf("evict: %v %v", r, err)
	}
	// A prover that is down.
	_, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
	wantCode(t, "status", err, codes.Unavailable, "down")
	_, err = c.Prove(ctx, &cuzkv1.ProveRequest{Submit: curioRequest(t, 1, []byte("{}"))})
	wantCode(t, "prove", err, codes.Unavailable, "down")
}

// panicProver panics in Status and Submit.
type panicProver struct{ plugintest.ErrProver }

func (panicProver) Status(context.Context) (plugin.Status, error) { panic("status exploded") }
func (panicProver) Submit(context.Context, plugin.ProveRequest) (plugin.JobID, error) {
	panic("submit exploded")
}

// A panic behind a gRPC call is answered INTERNAL and the server carries
// on: no request can take the host down.
func TestCuzkServicePanics(t *testing.T) {
	a, _ := plugintest.Sealed(t)
	c := cuzkClient(t, panicProver{})
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		_, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
		wantCode(t, "status", err, codes.Internal, "status exploded")
		_, err = c.Prove(ctx, &cuzkv1.ProveRequest{Submit: curioRequest(t, 1, a)})
		wantCode(t, "prove", err, codes.Internal, "submit exploded")
	}
}

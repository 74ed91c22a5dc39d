// Package curio serves curio's cuzk.v1.ProvingEngine gRPC API over a plugin.Prover: what a
// curio node with [Cuzk] Address set calls for PoRep, WindowPoSt and WinningPoSt (see docs/curio.md).
package curio

//go:generate protoc -I ../proto --go_out=../proto --go_opt=paths=source_relative --go-grpc_out=../proto --go-grpc_opt=paths=source_relative cuzk/v1/proving.proto

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/filc2/filc2/plugin"
	fabi "github.com/filc2/filc2/proofs/abi"

	cuzkv1 "github.com/filc2/filc2/plugin/proto/cuzk/v1"
)

// QueueKind is the proof_kind name of the one queue GetStatus reports,
// the name cuzk gives POREP_SEAL_COMMIT.
const QueueKind = "porep-c2"

// CircuitManager is what a plugin.Prover may offer to load and release a
// circuit's parameters on request (cuzk's PreloadSRS and EvictSRS). A
// plugin.Prover without it loads parameters on first use and keeps them; the gRPC
// service then answers those calls UNIMPLEMENTED, "not supported by this
// backend".
type CircuitManager interface {
	// PreloadCircuit loads proof's parameters and reports whether they were
	// loaded already.
	PreloadCircuit(ctx context.Context, proof abi.RegisteredSealProof) (alreadyLoaded bool, err error)
	// EvictCircuit releases proof's parameters once no job uses them and
	// reports whether they were loaded and how many bytes that freed.
	EvictCircuit(ctx context.Context, proof abi.RegisteredSealProof) (wasLoaded bool, freedBytes uint64, err error)
}

// Config configures NewService.
type Config struct {
	// Prover proves; when it is also a CircuitManager, PreloadSRS and
	// EvictSRS use it.
	Prover plugin.Prover
	// Gatherer answers GetMetrics (the host's registry); nil: the prover's
	// Status as Prometheus metrics (plugin.NewStatusCollector).
	Gatherer prometheus.Gatherer
	// Logger (default: none).
	Logger hclog.Logger
}

// Service is the cuzk.v1.ProvingEngine gRPC service over a plugin.Prover: what
// curio's [Cuzk] client calls. It proves all four kinds curio sends:
// POREP_SEAL_COMMIT, SNAP_DEALS_UPDATE, WINDOW_POST_PARTITION and
// WINNING_POST.
//
//	SubmitProof  validate and queue (Submit); request_id is the job id
//	AwaitProof   wait (Await), at most timeout_ms: COMPLETED with the proof,
//	             FAILED, CANCELLED, or TIMEOUT with the job carrying on
//	Prove        both; a caller that goes away cancels the job
//	CancelProof  Cancel
//	GetStatus    GPUs, resident circuits, the porep-c2 queue counts, totals
//	GetMetrics   the Prometheus text
//	PreloadSRS, EvictSRS  through CircuitManager when the plugin.Prover has it
//
// Errors before a job exists are gRPC statuses: INVALID_ARGUMENT for bad
// input, RESOURCE_EXHAUSTED when the queue is full, UNAVAILABLE when the
// prover is restarting, NOT_FOUND for an unknown job id.
type Service struct {
	cuzkv1.UnimplementedProvingEngineServer
	p       plugin.Prover
	g       prometheus.Gatherer
	log     hclog.Logger
	started time.Time
}

var _ cuzkv1.ProvingEngineServer = (*Service)(nil)

// NewService returns the service.
func NewService(cfg Config) *Service {
	g := cfg.Gatherer
	if g == nil {
		reg := prometheus.NewRegistry()
		reg.MustRegister(plugin.NewStatusCollector(cfg.Prover))
		g = reg
	}
	log := cfg.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Service{p: cfg.Prover, g: g, log: log, started: time.Now()}
}

// NewGRPCServer returns a gRPC server with svc registered, accepting
// messages of up to plugin.DefaultMaxRequestSize (a 64GiB C1 output) and sending
// up to the same (curio's client allows 256 MiB both ways). A panic in a
// call is answered INTERNAL and logged; it does not take the process down
// (gRPC itself does not recover handlers).
func NewGRPCServer(svc *Service, opts ...grpc.ServerOption) *grpc.Server {
	srv := grpc.NewServer(append([]grpc.ServerOption{
		grpc.MaxRecvMsgSize(plugin.DefaultMaxRequestSize),
		grpc.MaxSendMsgSize(plugin.DefaultMaxRequestSize),
		grpc.ChainUnaryInterceptor(svc.recoverUnary),
		grpc.ChainStreamInterceptor(svc.recoverStream),
	}, opts...)...)
	cuzkv1.RegisterProvingEngineServer(srv, svc)
	return srv
}

// recoverUnary turns a panic in a unary call into an INTERNAL status.
func (s *Service) recoverUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer s.recovered(info.FullMethod, &err)
	return handler(ctx, req)
}

// recoverStream turns a panic in a streaming call into an INTERNAL status.
func (s *Service) recoverStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	defer s.recovered(info.FullMethod, &err)
	return handler(srv, ss)
}

// recovered is deferred by the interceptors: it stops a panic and sets *err.
func (s *Service) recovered(method string, err *error) {
	if r := recover(); r != nil {
		s.log.Error("panic in a gRPC call", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		*err = status.Errorf(codes.Internal, "internal error in %s: %v", method, r)
	}
}

// proveRequest turns a SubmitProofRequest into a plugin.ProveRequest:
// POREP_SEAL_COMMIT, SNAP_DEALS_UPDATE, WINDOW_POST_PARTITION and
// WINNING_POST.
func proveRequest(r *cuzkv1.SubmitProofRequest) (plugin.ProveRequest, error) {
	if r == nil {
		return plugin.ProveRequest{}, status.Error(codes.InvalidArgument, "bad input: no request (Prove needs submit)")
	}
	switch k := r.GetProofKind(); k {
	case cuzkv1.ProofKind_POREP_SEAL_COMMIT:
	case cuzkv1.ProofKind_WINDOW_POST_PARTITION, cuzkv1.ProofKind_WINNING_POST:
		return postRequest(r)
	case cuzkv1.ProofKind_SNAP_DEALS_UPDATE:
		return snapRequest(r)
	default:
		return plugin.ProveRequest{}, status.Errorf(codes.InvalidArgument, "bad input: proof_kind %d: want POREP_SEAL_COMMIT, SNAP_DEALS_UPDATE, WINDOW_POST_PARTITION or WINNING_POST", int32(k))
	}
	if r.GetRegisteredProof() > math.MaxInt64 {
		return plugin.ProveRequest{}, status.Errorf(codes.InvalidArgument, "bad input: registered_proof %d is not a RegisteredSealProof", r.GetRegisteredProof())
	}
	pt := abi.RegisteredSealProof(r.GetRegisteredProof())
	p, err := fabi.Lookup(pt)
	if err != nil {
		return plugin.ProveRequest{}, status.Errorf(codes.InvalidArgument, "bad input: registered_proof: %v", err)
	}
	if ss := r.GetSectorSize(); ss != 0 && ss != uint64(p.SectorSize) {
		return plugin.ProveRequest{}, status.Errorf(codes.InvalidArgument, "bad input: sector_size %d, but registered_proof %d (%s) has %d-byte sectors",
			ss, pt, p.Name, uint64(p.SectorSize))
	}
	if len(r.GetVanillaProof()) == 0 {
		msg := "bad input: vanilla_proof is empty: send the C1 output (SealCommitPhase1Output JSON or its {SectorNum, Phase1Out, SectorSize} wrapper)"
		if len(r.GetVanillaProofs()) > 0 {
			msg += "; vanilla_proofs is for the other proof kinds"
		}
		return plugin.ProveRequest{}, status.Error(codes.InvalidArgument, msg)
	}
	return plugin.ProveRequest{
		ID:         plugin.JobID(r.GetRequestId()),
		Sector:     plugin.SectorRef{ID: abi.SectorID{Miner: abi.ActorID(r.GetMinerId()), Number: abi.SectorNumber(r.GetSectorNumber())}, ProofType: pt},
		Commit1Out: r.GetVanillaProof(),
		Priority:   cuzkPriority(r.GetPriority()),
	}, nil
}

// postRequest is proveRequest for WINDOW_POST_PARTITION and WINNING_POST,
// with the fields curio's WindowPoStCuzk and WinningPoStCuzk set:
// registered_proof an abi.RegisteredPoStProof of the kind, randomness (32
// bytes, masked by curio and again here), vanilla_proofs one bincode
// FallbackPoStSectorProof per sector, partition_index, miner_id.
func postRequest(r *cuzkv1.SubmitProofRequest) (plugin.ProveRequest, error) {
	if r.GetRegisteredProof() > math.MaxInt64 {
		return plugin.ProveRequest{}, status.Errorf(codes.InvalidArgument, "bad input: registered_proof %d is not a RegisteredPoStProof", r.GetRegisteredProof())
	}
	pt := abi.RegisteredPoStProof(r.GetRegisteredProof())
	p, err := fabi.LookupPoSt(pt)
	if err != nil {
		return plugin.ProveRequest{}, status.Errorf(codes.InvalidArgument, "bad input: registered_proof: %v", err)
	}
	want := fabi.Window
	if r.GetProofKind() == cuzkv1.ProofKind_WINNING_POST {
		want = fabi.Winning
	}
	if p.Kind != want {
		return plugin.ProveRequest{}, status.Errorf(codes.InvalidArgument, "bad input: registered_proof %d is %s, not a %s type", pt, p.Name, r.GetProofKind())
	}
	if ss := r.GetSectorSize(); ss != 0 && ss != uint64(p.SectorSize) {
		return plugin.ProveRequest{}, status.Errorf(codes.InvalidArgument, "bad input: sector_size %d, but registered_proof %d (%s) has %d-byte sectors",
			ss, pt, p.Name, uint64(p.SectorSize))
	}
	if len(r.GetVanillaProof()) != 0 {
		return plugin.ProveRequest{}, status.Error(codes.InvalidArgument, "bad input: vanilla_proof is set: a PoSt's per-sector vanilla proofs go in vanilla_proofs")
	}
	return plugin.ProveRequest{
		ID:       plugin.JobID(r.GetRequestId()),
		Sector:   plugin.SectorRef{ID: abi.SectorID{Miner: abi.ActorID(r.GetMinerId())}},
		Priority: cuzkPriority(r.GetPriority()),
		PoSt: &plugin.PoStRequest{ProofType: pt, Randomness: r.GetRandomness(), VanillaProofs: r.GetVanillaProofs(),
			Partition: int(r.GetPartitionIndex())},
	}, nil
}

// snapRequest is proveRequest for SNAP_DEALS_UPDATE, with the fields
// curio's ProveUpdateCuzk sets: registered_proof an
// abi.RegisteredUpdateProof (0–4), sector_size (0 from ProofShare: derived
// from the type), vanilla_proofs one bincode PartitionProof per partition
// in partition order, comm_r_old, comm_r_new and comm_d_new (32 raw bytes
// each), sector_number and miner_id.
func snapRequest(r *cuzkv1.SubmitProofRequest) (plugin.ProveRequest, error) {
	if r.GetRegisteredProof() > math.MaxInt64 {
		return plugin.ProveRequest{}, status.Errorf(codes.InvalidArgument, "bad input: registered_proof %d is not a RegisteredUpdateProof", r.GetRegisteredProof())
	}
	pt := abi.RegisteredUpdateProof(r.GetRegisteredProof())
	p, err := fabi.LookupUpdate(pt)
	if err != nil {
		return plugin.ProveRequest{}, status.Errorf(codes.InvalidArgument, "bad input: registered_proof: %v", err)
	}
	if ss := r.GetSectorSize(); ss != 0 && ss != uint64(p.SectorSize) {
		return plugin.ProveRequest{}, status.Errorf(codes.InvalidArgument, "bad input: sector_size %d, but registered_proof %d (%s) has %d-byte sectors",
			ss, pt, p.Name, uint64(p.SectorSize))
	}
	if len(r.GetVanillaProof()) != 0 {
		return plugin.ProveRequest{}, status.Error(codes.InvalidArgument, "bad input: vanilla_proof is set: an update's per-partition vanilla proofs go in vanilla_proofs")
	}
	return plugin.ProveRequest{
		ID:       plugin.JobID(r.GetRequestId()),
		Sector:   plugin.SectorRef{ID: abi.SectorID{Miner: abi.ActorID(r.GetMinerId()), Number: abi.SectorNumber(r.GetSectorNumber())}},
		Priority: cuzkPriority(r.GetPriority()),
		Snap: &plugin.SnapRequest{ProofType: pt, CommROld: r.GetCommROld(), CommRNew: r.GetCommRNew(), CommDNew: r.GetCommDNew(),
			VanillaProofs: r.GetVanillaProofs()},
	}, nil
}

// contentDigest identifies a request's content for a reused request_id.
func contentDigest(req plugin.ProveRequest) [sha256.Size]byte {
	h := sha256.New()
	h.Write(req.Commit1Out)
	if ps := req.PoSt; ps != nil {
		fmt.Fprintf(h, "post %d %d %x", ps.ProofType, ps.Partition, ps.Randomness)
		for _, v := range ps.VanillaProofs {
			fmt.Fprintf(h, " %d:", len(v))
			h.Write(v)
		}
	}
	if sr := req.Snap; sr != nil {
		fmt.Fprintf(h, "snap %d %x %x %x", sr.ProofType, sr.CommROld, sr.CommRNew, sr.CommDNew)
		for _, v := range sr.VanillaProofs {
			fmt.Fprintf(h, " %d:", len(v))
			h.Write(v)
		}
	}
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

// cuzkPriority maps cuzk's priorities onto the plugin.Prover's: NORMAL (and
// unspecified) is 0, as lotus's SealCommit2; LOW −1, HIGH 1, CRITICAL 2.
func cuzkPriority(p cuzkv1.Priority) int {
	switch p {
	case cuzkv1.Priority_LOW:
		return -1
	case cuzkv1.Priority_HIGH:
		return 1
	case cuzkv1.Priority_CRITICAL:
		return 2
	}
	return 0
}

// grpcError maps a plugin.Prover error onto a gRPC status.
func grpcError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	if ctx.Err() != nil {
		return status.FromContextError(ctx.Err()).Err()
	}
	var (
		bad  *plugin.BadInputError
		busy *plugin.BusyError
		unav *plugin.UnavailableError
		nf   *plugin.NotFoundError
		canc *plugin.CancelledError
		perm *plugin.PermissionError
	)
	switch {
	case errors.As(err, &bad):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.As(err, &busy):
		return status.Error(codes.ResourceExhausted, err.Error())
	case errors.As(err, &unav):
		return status.Error(codes.Unavailable, err.Error())
	case errors.As(err, &nf):
		return status.Error(codes.NotFound, err.Error())
	case errors.As(err, &canc), errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	case errors.As(err, &perm):
		return status.Error(codes.PermissionDenied, err.Error())
	}
	return status.Error(codes.Internal, err.Error())
}

// submit validates and queues r. A request_id already used for another
// request gets the content's digest appended instead of being refused:
// curio reuses "porep-<miner>-<number>" when it retries a task, and
// "wdpost-<miner>-0-<randomness>" for the two chain partitions of one
// deadline, which must be two jobs, not one.
func (s *Service) submit(ctx context.Context, r *cuzkv1.SubmitProofRequest) (plugin.JobID, error) {
	req, err := proveRequest(r)
	if err != nil {
		return "", err
	}
	id, err := s.p.Submit(ctx, req)
	var bad *plugin.BadInputError
	if err != nil && req.ID != "" && errors.As(err, &bad) && bad.Field == "ID" {
		d := contentDigest(req)
		alt := string(req.ID)
		if len(alt) > plugin.MaxIDLen-17 {
			alt = alt[:plugin.MaxIDLen-17]
		}
		req.ID = plugin.JobID(alt + "-" + hex.EncodeToString(d[:8]))
		s.log.Info("request_id reused for another request; using the content's id", "request_id", r.GetRequestId(), "job", req.ID)
		id, err = s.p.Submit(ctx, req)
	}
	if err != nil {
		return "", grpcError(ctx, err)
	}
	if req.PoSt != nil {
		s.log.Info("proof submitted", "job", id, "kind", r.GetProofKind().String(), "miner", req.Sector.ID.Miner, "sectors", len(req.PoSt.VanillaProofs), "priority", req.Priority)
	} else {
		s.log.Info("proof submitted", "job", id, "sector", req.Sector.String(), "priority", req.Priority)
	}
	return id, nil
}

// SubmitProof implements cuzk's SubmitProof.
func (s *Service) SubmitProof(ctx context.Context, r *cuzkv1.SubmitProofRequest) (*cuzkv1.SubmitProofResponse, error) {
	id, err := s.submit(ctx, r)
	if err != nil {
		return nil, err
	}
	resp := &cuzkv1.SubmitProofResponse{JobId: string(id)}
	if st, err := s.p.Status(ctx); err == nil {
		for i, j := range st.Queued {
			if j.ID == id {
				resp.QueuePosition = uint32(i + 1)
			}
		}
	}
	return resp, nil
}

// await waits for job id, at most timeout when it is positive.
func (s *Service) await(ctx context.Context, id plugin.JobID, timeout time.Duration) (*cuzkv1.AwaitProofResponse, error) {
	actx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	res, err := s.p.Await(actx, id)
	out := &cuzkv1.AwaitProofResponse{JobId: string(id)}
	var (
		nf   *plugin.NotFoundError
		canc *plugin.CancelledError
	)
	switch {
	case err == nil:
		out.Status = cuzkv1.AwaitProofResponse_COMPLETED
		out.Proof = res.Proof
		fillTimings(out, res)
	case ctx.Err() != nil:
		return nil, status.FromContextError(ctx.Err()).Err()
	case actx.Err() != nil:
		out.Status = cuzkv1.AwaitProofResponse_TIMEOUT
		out.ErrorMessage = fmt.Sprintf("job %s has not finished after %v; it carries on: await it again", id, timeout)
	case errors.As(err, &nf):
		return nil, grpcError(ctx, err)
	case errors.As(err, &canc):
		out.Status = cuzkv1.AwaitProofResponse_CANCELLED
		out.ErrorMessage = err.Error()
	default:
		out.Status = cuzkv1.AwaitProofResponse_FAILED
		out.ErrorMessage = err.Error()
	}
	return out, nil
}

// fillTimings reports a plugin.Result's times: the queue, synthesis, proving (the
// MSMs and NTTs, on whichever backend), and the rest of the job (loading
// parameters on first use, verification) as srs_load_ms.
func fillTimings(out *cuzkv1.AwaitProofResponse, res plugin.Result) {
	var synth, prove, verify time.Duration
	for _, p := range res.Partitions {
		synth += p.SynthesisNS
		prove += p.ProveNS
		verify += p.VerifyNS
	}
	ms := func(d time.Duration) uint64 {
		if d < 0 {
			return 0
		}
		return uint64(d / time.Millisecond)
	}
	out.QueueWaitMs = ms(res.QueueNS)
	out.SynthesisMs = ms(synth)
	out.GpuComputeMs = ms(prove)
	out.SrsLoadMs = ms(res.ProveNS - synth - prove - verify)
	out.TotalMs = ms(res.QueueNS + res.ProveNS)
}

// AwaitProof implements cuzk's AwaitProof; timeout_ms is honoured.
func (s *Service) AwaitProof(ctx context.Context, r *cuzkv1.AwaitProofRequest) (*cuzkv1.AwaitProofResponse, error) {
	if r.GetJobId() == "" {
		return nil, status.Error(codes.InvalidArgument, "bad input: job_id is empty")
	}
	return s.await(ctx, plugin.JobID(r.GetJobId()), time.Duration(min(r.GetTimeoutMs(), math.MaxInt64/uint64(time.Millisecond)))*time.Millisecond)
}

// Prove implements cuzk's Prove, the call curio makes: submit and await.
// When the caller goes away (curio's ProveTimeout) the job is cancelled.
func (s *Service) Prove(ctx context.Context, r *cuzkv1.ProveRequest) (*cuzkv1.ProveResponse, error) {
	id, err := s.submit(ctx, r.GetSubmit())
	if err != nil {
		return nil, err
	}
	res, err := s.await(ctx, id, 0)
	if err != nil {
		if ctx.Err() != nil {
			s.p.Cancel(context.Background(), id)
			s.log.Warn("the caller went away; job cancelled", "job", id, "why", ctx.Err())
		}
		return nil, err
	}
	if res.Status != cuzkv1.AwaitProofResponse_COMPLETED {
		s.log.Warn("proof not completed", "job", id, "status", res.Status.String(), "error", res.ErrorMessage)
	}
	return &cuzkv1.ProveResponse{Result: res}, nil
}

// CancelProof implements cuzk's CancelProof.
func (s *Service) CancelProof(ctx context.Context, r *cuzkv1.CancelProofRequest) (*cuzkv1.CancelProofResponse, error) {
	id := plugin.JobID(r.GetJobId())
	running := false
	if st, err := s.p.Status(ctx); err == nil {
		for _, j := range st.Running {
			running = running || j.ID == id
		}
	}
	if err := s.p.Cancel(ctx, id); err != nil {
		return nil, grpcError(ctx, err)
	}
	return &cuzkv1.CancelProofResponse{WasRunning: running}, nil
}

// GetStatus implements cuzk's GetStatus. queues has porep-c2 with the
// queued (pending) and proving (in_progress) SealCommit2 jobs, and
// window-post, winning-post and snap-deals when such jobs are there: curio
// sums them all for its backpressure.
func (s *Service) GetStatus(ctx context.Context, _ *cuzkv1.GetStatusRequest) (*cuzkv1.GetStatusResponse, error) {
	st, err := s.p.Status(ctx)
	if err != nil {
		return nil, grpcError(ctx, err)
	}
	queues := map[string]*cuzkv1.QueueStatus{QueueKind: {ProofKind: QueueKind}}
	queue := func(kind string) *cuzkv1.QueueStatus {
		name := cuzkQueueName(kind)
		q := queues[name]
		if q == nil {
			q = &cuzkv1.QueueStatus{ProofKind: name}
			queues[name] = q
		}
		return q
	}
	for _, j := range st.Queued {
		queue(j.Kind).Pending++
	}
	for _, j := range st.Running {
		queue(j.Kind).InProgress++
	}
	out := &cuzkv1.GetStatusResponse{
		Queues:               []*cuzkv1.QueueStatus{queues[QueueKind]},
		TotalProofsCompleted: st.Totals.Succeeded,
		TotalProofsFailed:    st.Totals.Failed,
		UptimeSeconds:        uint64(time.Since(s.started) / time.Second),
	}
	for _, name := range []string{"window-post", "winning-post", "snap-deals"} {
		if q := queues[name]; q != nil {
			out.Queues = append(out.Queues, q)
		}
	}
	for _, g := range st.GPUs {
		out.Gpus = append(out.Gpus, &cuzkv1.GPUStatus{Ordinal: uint32(g.Ordinal), Name: g.Name, VramTotalBytes: g.Memory})
	}
	for _, c := range st.Circuits {
		kind, id := "", CircuitID(c.SectorSize)
		size := strings.TrimPrefix(id, "porep-")
		switch c.Kind {
		case "window-post", "winning-post", "snap-deals":
			kind = c.Kind
			id = map[string]string{"window-post": "wpost-", "winning-post": "winning-", "snap-deals": "snap-"}[kind] + size
		case "", "porep":
			if p, err := fabi.ParsePoStName(c.ProofType); err == nil { // a prover that reports no kind
				kind, id = "window-post", "wpost-"+size
				if p.Kind == fabi.Winning {
					kind, id = "winning-post", "winning-"+size
				}
			}
		}
		srs := &cuzkv1.SRSStatus{CircuitId: id, Tier: cuzkv1.SRSStatus_HOT}
		if fi, err := os.Stat(c.Params); err == nil {
			srs.SizeBytes = uint64(fi.Size())
		}
		for _, j := range st.Running {
			if cuzkQueueName(j.Kind) != cuzkQueueName(kind) {
				continue
			}
			if kind != "" {
				srs.RefCount++ // the PoSt or Snap jobs of its kind (one circuit per size is the usual case)
			} else if p, err := fabi.Lookup(j.Sector.ProofType); err == nil && uint64(p.SectorSize) == c.SectorSize {
				srs.RefCount++
			}
		}
		out.LoadedSrs = append(out.LoadedSrs, srs)
	}
	return out, nil
}

// cuzkQueueName is the GetStatus queue of a job kind: porep-c2 for PoRep,
// else the kind's own name.
func cuzkQueueName(kind string) string {
	if kind == "" || kind == "porep" {
		return QueueKind
	}
	return kind
}

// GetMetrics implements cuzk's GetMetrics: the Gatherer's metrics in the
// Prometheus text format.
func (s *Service) GetMetrics(ctx context.Context, _ *cuzkv1.GetMetricsRequest) (*cuzkv1.GetMetricsResponse, error) {
	mfs, err := s.g.Gather()
	if err != nil && len(mfs) == 0 {
		return nil, status.Error(codes.Internal, "gathering metrics: "+err.Error())
	}
	var b bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&b, mf); err != nil {
			return nil, status.Error(codes.Internal, "writing metrics: "+err.Error())
		}
	}
	return &cuzkv1.GetMetricsResponse{PrometheusText: b.String()}, nil
}

// PreloadSRS implements cuzk's PreloadSRS through CircuitManager.
func (s *Service) PreloadSRS(ctx context.Context, r *cuzkv1.PreloadSrsRequest) (*cuzkv1.PreloadSrsResponse, error) {
	pt, err := ParseCircuitID(r.GetCircuitId())
	if err != nil {
		return nil, err
	}
	cm, ok := s.p.(CircuitManager)
	if !ok {
		return nil, status.Errorf(codes.Unimplemented, "PreloadSRS is not supported by this backend: parameters load on the first proof of each sector size and stay resident")
	}
	t0 := time.Now()
	already, err := cm.PreloadCircuit(ctx, pt)
	if err != nil {
		return nil, grpcError(ctx, err)
	}
	return &cuzkv1.PreloadSrsResponse{AlreadyLoaded: already, LoadTimeMs: uint64(time.Since(t0) / time.Millisecond)}, nil
}

// EvictSRS implements cuzk's EvictSRS through CircuitManager.
func (s *Service) EvictSRS(ctx context.Context, r *cuzkv1.EvictSrsRequest) (*cuzkv1.EvictSrsResponse, error) {
	pt, err := ParseCircuitID(r.GetCircuitId())
	if err != nil {
		return nil, err
	}
	cm, ok := s.p.(CircuitManager)
	if !ok {
		return nil, status.Errorf(codes.Unimplemented, "EvictSRS is not supported by this backend: loaded parameters stay resident until the prover restarts")
	}
	was, freed, err := cm.EvictCircuit(ctx, pt)
	if err != nil {
		return nil, grpcError(ctx, err)
	}
	return &cuzkv1.EvictSrsResponse{WasLoaded: was, FreedBytes: freed}, nil
}

// circuitSizes are the PoRep circuit ids and their sector sizes.
var circuitSizes = map[string]uint64{
	"porep-2k": 2 << 10, "porep-8m": 8 << 20, "porep-512m": 512 << 20, "porep-32g": 32 << 30, "porep-64g": 64 << 30,
}

// CircuitID names the PoRep circuit of a sector size as cuzk does:
// "porep-32g", "porep-64g"; and for the small test sizes "porep-2k",
// "porep-8m", "porep-512m".
func CircuitID(sectorSize uint64) string {
	for id, n := range circuitSizes {
		if n == sectorSize {
			return id
		}
	}
	return fmt.Sprintf("porep-%db", sectorSize)
}

// ParseCircuitID reads a circuit id (CircuitID's names) as the
// StackedDrg…V1_1 proof type of its sector size. The ids of cuzk's other
// circuits (snap-, wpost-, winning-) are UNIMPLEMENTED, anything else
// INVALID_ARGUMENT.
func ParseCircuitID(id string) (abi.RegisteredSealProof, error) {
	if n, ok := circuitSizes[id]; ok {
		p, err := fabi.BySectorSize(n, fabi.Interactive)
		if err != nil {
			return 0, status.Error(codes.Internal, err.Error())
		}
		return p.Proof, nil
	}
	for _, other := range []string{"snap-", "wpost-", "winning-"} {
		if strings.HasPrefix(id, other) {
			return 0, status.Errorf(codes.Unimplemented, "unsupported: circuit %q; filc2 proves PoRep only (porep-2k, porep-8m, porep-512m, porep-32g, porep-64g)", id)
		}
	}
	return 0, status.Errorf(codes.InvalidArgument, "bad input: circuit_id %q: want porep-2k, porep-8m, porep-512m, porep-32g or porep-64g", id)
}

package curio_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/curio"
	"github.com/filc2/filc2/plugin/plugintest"
	cuzkv1 "github.com/filc2/filc2/plugin/proto/cuzk/v1"
	"github.com/filc2/filc2/proofs/c2"
)

// cuzkCall is one request message of the cuzk service and the codes its
// method may answer a client's bytes with.
type cuzkCall struct {
	name  string
	msg   func() proto.Message
	call  func(ctx context.Context, s *curio.Service, m proto.Message) (proto.Message, error)
	codes []codes.Code
}

// cuzkCalls are the service's methods as a gRPC server calls them after
// decoding the request, without the interceptor that turns a panic into
// INTERNAL (so that the fuzzer sees it).
var cuzkCalls = []cuzkCall{
	{"SubmitProof", func() proto.Message { return new(cuzkv1.SubmitProofRequest) },
		func(ctx context.Context, s *curio.Service, m proto.Message) (proto.Message, error) {
			return s.SubmitProof(ctx, m.(*cuzkv1.SubmitProofRequest))
		}, []codes.Code{codes.InvalidArgument, codes.Unimplemented, codes.ResourceExhausted}},
	{"Prove", func() proto.Message { return new(cuzkv1.ProveRequest) },
		func(ctx context.Context, s *curio.Service, m proto.Message) (proto.Message, error) {
			return s.Prove(ctx, m.(*cuzkv1.ProveRequest))
		}, []codes.Code{codes.InvalidArgument, codes.Unimplemented, codes.ResourceExhausted}},
	{"AwaitProof", func() proto.Message { return new(cuzkv1.AwaitProofRequest) },
		func(ctx context.Context, s *curio.Service, m proto.Message) (proto.Message, error) {
			return s.AwaitProof(ctx, m.(*cuzkv1.AwaitProofRequest))
		}, []codes.Code{codes.InvalidArgument, codes.NotFound}},
	{"CancelProof", func() proto.Message { return new(cuzkv1.CancelProofRequest) },
		func(ctx context.Context, s *curio.Service, m proto.Message) (proto.Message, error) {
			return s.CancelProof(ctx, m.(*cuzkv1.CancelProofRequest))
		}, []codes.Code{codes.InvalidArgument, codes.NotFound}},
	{"GetStatus", func() proto.Message { return new(cuzkv1.GetStatusRequest) },
		func(ctx context.Context, s *curio.Service, m proto.Message) (proto.Message, error) {
			return s.GetStatus(ctx, m.(*cuzkv1.GetStatusRequest))
		}, nil},
	{"GetMetrics", func() proto.Message { return new(cuzkv1.GetMetricsRequest) },
		func(ctx context.Context, s *curio.Service, m proto.Message) (proto.Message, error) {
			return s.GetMetrics(ctx, m.(*cuzkv1.GetMetricsRequest))
		}, nil},
	{"PreloadSRS", func() proto.Message { return new(cuzkv1.PreloadSrsRequest) },
		func(ctx context.Context, s *curio.Service, m proto.Message) (proto.Message, error) {
			return s.PreloadSRS(ctx, m.(*cuzkv1.PreloadSrsRequest))
		}, []codes.Code{codes.InvalidArgument, codes.Unimplemented}},
	{"EvictSRS", func() proto.Message { return new(cuzkv1.EvictSrsRequest) },
		func(ctx context.Context, s *curio.Service, m proto.Message) (proto.Message, error) {
			return s.EvictSRS(ctx, m.(*cuzkv1.EvictSrsRequest))
		}, []codes.Code{codes.InvalidArgument, codes.Unimplemented}},
}

// FuzzCuzkService feeds arbitrary bytes, as a request message of the method
// that method picks (modulo the method count), to the cuzk service over a
// Server and a LocalService whose prover answers at once. A message that
// decodes is answered in time, either with a response or with one of the
// method's codes (INVALID_ARGUMENT's message saying "bad input"), and a
// completed proof is the prover's proof of that job.
func FuzzCuzkService(f *testing.F) {
	a, _ := plugintest.Sealed(f)
	lsvc := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, QueueSize: 64, MaxRetained: 64,
		Prove: func(ctx context.Context, r *plugin.Request) (plugin.Proof, []c2.PartitionTiming, error) {
			return plugin.Proof("proof of " + r.ID), nil, nil
		}})
	f.Cleanup(func() { lsvc.Close() })
	svc := curio.NewService(curio.Config{Prover: plugin.NewServer(lsvc, "fuzz")})

	var r [32]byte
	r[0] = 9
	window, _ := plugintest.PoStVanilla(f, plugintest.WindowPoSt, r, 2, 0)
	winning, _ := plugintest.PoStVanilla(f, plugintest.WinningPoSt, r, 1, 0)
	porep := curioRequest(f, 1, a)
	raw := curioRequest(f, 1, a)
	raw.RequestId, raw.VanillaProof = "", a
	snap := curioRequest(f, 1, a)
	snap.ProofKind = cuzkv1.ProofKind_SNAP_DEALS_UPDATE
	add := func(method int, m proto.Message) {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(method), b)
	}
	add(0, porep)
	add(0, raw)
	add(0, curioPoSt(cuzkv1.ProofKind_WINDOW_POST_PARTITION, plugintest.WindowPoSt, "wdpost-1000-0", r, window))
	add(0, curioPoSt(cuzkv1.ProofKind_WINNING_POST, plugintest.WinningPoSt, "", r, winning))
	add(0, snap)
	add(1, &cuzkv1.ProveRequest{Submit: porep})
	add(1, &cuzkv1.ProveRequest{Submit: curioPoSt(cuzkv1.ProofKind_WINDOW_POST_PARTITION, plugintest.WindowPoSt, "", r, window[:1])})
	add(1, &cuzkv1.ProveRequest{})
	add(2, &cuzkv1.AwaitProofRequest{JobId: porep.RequestId, TimeoutMs: 1000})
	add(2, &cuzkv1.AwaitProofRequest{JobId: "wdpost-1000-0"})
	add(3, &cuzkv1.CancelProofRequest{JobId: "nope"})
	add(4, &cuzkv1.GetStatusRequest{})
	add(5, &cuzkv1.GetMetricsRequest{})
	add(6, &cuzkv1.PreloadSrsRequest{CircuitId: "porep-2k"})
	add(7, &cuzkv1.EvictSrsRequest{CircuitId: "wpost-32g"})
	add(7, &cuzkv1.EvictSrsRequest{CircuitId: "x"})

	f.Fuzz(func(t *testing.T, method uint8, b []byte) {
		c := cuzkCalls[int(method)%len(cuzkCalls)]
		m := c.msg()
		if proto.Unmarshal(b, m) != nil {
			return // gRPC answers INTERNAL before the service sees it
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		t0 := time.Now()
		resp, err := c.call(ctx, svc, m)
		if d := time.Since(t0); d > 30*time.Second {
			t.Fatalf("%s answered after %v", c.name, d)
		}
		if err != nil {
			s, ok := status.FromError(err)
			allowed := false
			for _, code := range c.codes {
				allowed = allowed || ok && s.Code() == code
			}
			if !allowed || s.Message() == "" || (s.Code() == codes.InvalidArgument && !strings.HasPrefix(s.Message(), "bad input")) {
				t.Fatalf("%s answered %v, want one of %v", c.name, err, c.codes)
			}
			return
		}
		if resp == nil {
			t.Fatalf("%s: no response and no error", c.name)
		}
		var res *cuzkv1.AwaitProofResponse
		switch r := resp.(type) {
		case *cuzkv1.SubmitProofResponse:
			if r.GetJobId() == "" {
				t.Fatalf("submitted without a job id")
			}
		case *cuzkv1.ProveResponse:
			if res = r.GetResult(); res.GetStatus() != cuzkv1.AwaitProofResponse_COMPLETED {
				t.Fatalf("Prove answered %v", res)
			}
		case *cuzkv1.AwaitProofResponse:
			res = r
		}
		if res.GetStatus() == cuzkv1.AwaitProofResponse_COMPLETED && string(res.GetProof()) != "proof of "+res.GetJobId() {
			t.Fatalf("job %s completed with proof %q", res.GetJobId(), res.GetProof())
		}
	})
}

package plugin_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	gabi "github.com/filecoin-project/go-state-types/abi"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/filc2/filc2/internal/testvec"
	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/c2"
)

// fuzzInputs are the real inputs the fuzz targets start from: a sealed 2KiB
// C1 of sector 1 and its Commit2In wrapper, 2KiB WindowPoSt (two sectors)
// and WinningPoSt vanilla proofs under randomness r, and the 32GiB
// WindowPoSt vanilla proof of the shared vectors (zero randomness).
type fuzzInputs struct {
	c1, wrapped     []byte
	r               [32]byte
	window, winning [][]byte
	golden          []byte
}

func newFuzzInputs(t testing.TB) fuzzInputs {
	t.Helper()
	a, _ := plugintest.Sealed(t)
	in := fuzzInputs{c1: a, wrapped: c1.EncodeWrapper(1, 2048, a), r: [32]byte{7, 1, 2}}
	in.window, _ = plugintest.PoStVanilla(t, plugintest.WindowPoSt, in.r, 2, 0)
	in.winning, _ = plugintest.PoStVanilla(t, plugintest.WinningPoSt, in.r, 1, 0)
	in.golden = testvec.Read(t, "window-post-vanilla-32GiB", "post.vproof")
	return in
}

// requests are valid ProveRequests of every kind.
func (in fuzzInputs) requests() []plugin.ProveRequest {
	return []plugin.ProveRequest{
		{Sector: plugintest.Sector(1), Commit1Out: in.c1, Priority: 3},
		{ID: "porep-1000-1", Sector: plugintest.Sector(1), Commit1Out: in.wrapped},
		{ID: "wdpost", PoSt: &plugin.PoStRequest{ProofType: plugintest.WindowPoSt.Proof, Randomness: in.r[:], VanillaProofs: in.window}},
		{PoSt: &plugin.PoStRequest{ProofType: plugintest.WinningPoSt.Proof, Randomness: in.r[:], VanillaProofs: in.winning}},
		{Sector: plugin.SectorRef{ID: gabi.SectorID{Miner: 1000}}, PoSt: &plugin.PoStRequest{
			ProofType: gabi.RegisteredPoStProof_StackedDrgWindow32GiBV1, Randomness: make([]byte, 32), VanillaProofs: [][]byte{in.golden}}},
	}
}

// checkParsed asserts what ParseRequest promises for req: a refusal is a
// *BadInputError naming a field, an accepted request keeps the sector, id
// and priority it was given, and parsing again gives the same request.
func checkParsed(t *testing.T, req plugin.ProveRequest) {
	t.Helper()
	ctx := context.Background()
	r, err := plugin.ParseRequest(ctx, req)
	if err != nil {
		var bi *plugin.BadInputError
		if !errors.As(err, &bi) || bi.Field == "" || bi.Msg == "" || r != nil {
			t.Fatalf("refused with %T %v (request %v), want a *BadInputError naming a field", err, err, r)
		}
		return
	}
	switch {
	case r.ID == "" || (req.ID != "" && r.ID != req.ID):
		t.Fatalf("accepted with id %q, asked for %q", r.ID, req.ID)
	case r.Sector.ID != req.Sector.ID:
		t.Fatalf("accepted for sector %v, asked for %v", r.Sector.ID, req.Sector.ID)
	case req.PoSt == nil && (r.C1 == nil || r.PoSt != nil || r.Proof.Proof != req.Sector.ProofType || r.Priority != req.Priority):
		t.Fatalf("a C1 request accepted as %+v", r)
	case req.PoSt != nil && (r.PoSt == nil || r.C1 != nil || r.Priority < req.Priority || !r.PoSt.Checked):
		t.Fatalf("a PoSt request accepted as %+v", r)
	}
	again, err := plugin.ParseRequest(ctx, req)
	if err != nil || again.Digest != r.Digest || again.Kind() != r.Kind() || again.ProofName() != r.ProofName() ||
		(req.PoSt == nil && !reflect.DeepEqual(again.C1, r.C1)) {
		t.Fatalf("parsing the accepted request again: %v, or a different request", err)
	}
}

// FuzzParseRequest: a ProveRequest as the Prover API's JSON carries it,
// from arbitrary bytes, through ParseRequest.
func FuzzParseRequest(f *testing.F) {
	in := newFuzzInputs(f)
	for i, req := range in.requests() {
		if _, err := plugin.ParseRequest(context.Background(), req); err != nil {
			f.Fatalf("seed request %d: %v", i, err)
		}
		b, err := json.Marshal(req)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var req plugin.ProveRequest
		if json.Unmarshal(b, &req) != nil {
			return
		}
		checkParsed(t, req)
	})
}

// FuzzParseRequestC1 is FuzzParseRequest with the C1 bytes and the sector
// fuzzed directly, so that mutations reach the C1 decoder, its validation and
// the vanilla proof checks rather than the base64 around them.
func FuzzParseRequestC1(f *testing.F) {
	in := newFuzzInputs(f)
	p := int64(plugintest.Proof.Proof)
	f.Add("", uint64(plugintest.Miner), uint64(1), p, in.c1, 0)
	f.Add("porep-1000-1", uint64(plugintest.Miner), uint64(1), p, in.wrapped, 2)
	f.Add("x", uint64(plugintest.Miner), uint64(2), p, in.c1, -1)
	f.Add("", uint64(7), uint64(1), int64(gabi.RegisteredSealProof_StackedDrg2KiBV1), in.c1, 0)
	f.Fuzz(func(t *testing.T, id string, miner, number uint64, proof int64, c1o []byte, priority int) {
		checkParsed(t, plugin.ProveRequest{
			ID:         plugin.JobID(id),
			Sector:     plugin.SectorRef{ID: gabi.SectorID{Miner: gabi.ActorID(miner), Number: gabi.SectorNumber(number)}, ProofType: gabi.RegisteredSealProof(proof)},
			Commit1Out: c1o,
			Priority:   priority,
		})
	})
}

// FuzzParsePoStRequest is FuzzParseRequest for a PoSt with its fields
// fuzzed directly: the bincode vanilla proofs (one or two sectors), the
// randomness, the type and the partition reach the vanilla decoder, the
// partition's shape and the vanilla check.
func FuzzParsePoStRequest(f *testing.F) {
	in := newFuzzInputs(f)
	win, winning := int64(plugintest.WindowPoSt.Proof), int64(plugintest.WinningPoSt.Proof)
	f.Add(win, in.r[:], 0, in.window[0], in.window[1])
	f.Add(win, in.r[:], 1, in.window[0], []byte(nil))
	f.Add(winning, in.r[:], 0, in.winning[0], []byte(nil))
	f.Add(int64(gabi.RegisteredPoStProof_StackedDrgWindow32GiBV1), make([]byte, 32), 0, in.golden, []byte(nil))
	f.Fuzz(func(t *testing.T, proof int64, randomness []byte, partition int, v0, v1 []byte) {
		vs := [][]byte{v0}
		if len(v1) > 0 {
			vs = append(vs, v1)
		}
		checkParsed(t, plugin.ProveRequest{PoSt: &plugin.PoStRequest{
			ProofType: gabi.RegisteredPoStProof(proof), Randomness: randomness, VanillaProofs: vs, Partition: partition}})
	})
}

// rpcCodes are the JSON-RPC error codes the Prover API may answer: the
// protocol's own (parse error, invalid request, unknown method, invalid
// params) and its typed errors. go-jsonrpc answers 0 for a method that
// panicked and 1 for an untyped error.
var rpcCodes = map[int]bool{-32700: true, -32600: true, -32601: true, -32602: true,
	int(plugin.CodeBadInput): true, int(plugin.CodeBusy): true, int(plugin.CodeCancelled): true, int(plugin.CodeNotFound): true,
	int(plugin.CodeInternal): true, int(plugin.CodeUnavailable): true, int(plugin.CodePermission): true}

// rpcResponse is a JSON-RPC 2.0 response.
type rpcResponse struct {
	Jsonrpc string
	ID      any
	Result  json.RawMessage
	Error   *struct {
		Code    int
		Message string
	}
}

// checkRPCResponse asserts that one JSON-RPC response is well formed: version
// 2.0, and an error (if any) with a Prover API code and a message, not a
// method that panicked.
func checkRPCResponse(t *testing.T, b []byte) {
	t.Helper()
	var r rpcResponse
	if err := json.Unmarshal(b, &r); err != nil || r.Jsonrpc != "2.0" {
		t.Fatalf("not a JSON-RPC 2.0 response (%v): %.300q", err, b)
	}
	if e := r.Error; e != nil {
		if !rpcCodes[e.Code] || e.Message == "" || strings.HasPrefix(e.Message, "fatal error calling") {
			t.Fatalf("error code %d %q: an untyped error or a panic", e.Code, e.Message)
		}
		if r.Result != nil {
			t.Fatalf("both a result and an error: %.300q", b)
		}
	}
}

// FuzzRPCHandler posts arbitrary bodies to the Prover API's JSON-RPC
// endpoint (NewHandler over a Server and a LocalService whose prover answers
// at once; every caller has write permission, so Submit and SealCommit2
// reach ParseRequest). Each request is answered in time with a status, and a
// JSON answer is a well-formed JSON-RPC response (an array of them for a
// batch); a limit in front of the server may answer a plain HTTP error.
func FuzzRPCHandler(f *testing.F) {
	in := newFuzzInputs(f)
	svc := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, QueueSize: 64, MaxRetained: 64,
		Prove: func(ctx context.Context, r *plugin.Request) (plugin.Proof, []c2.PartitionTiming, error) {
			return plugin.Proof("proof of " + r.ID), nil, nil
		}})
	f.Cleanup(func() { svc.Close() })
	secret := make([]byte, 32)
	rand.Read(secret)
	h := plugin.NewHandler(plugin.HandlerConfig{
		Prover:       plugin.NewServer(svc, "fuzz"),
		Verify:       plugin.TokenVerifier(secret),
		DefaultPerms: plugin.AllPermissions,
		Registry:     prometheus.NewRegistry(),
	})
	call := func(id any, method string, params ...any) []byte {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": plugin.Namespace + "." + method, "params": params})
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	reqs := in.requests()
	for _, b := range [][]byte{
		call(1, "Version"), call("s", "Status"), call(2, "Submit", reqs[0]), call(3, "Submit", reqs[2]),
		call(4, "SealCommit2", plugintest.Sector(1), plugin.Commit1Out(in.c1)), call(5, "Await", "wdpost"),
		call(6, "Cancel", "nope"), call(7, "Timeline", 60e9), call(8, "Timeline", -1), call(9, "Submit", map[string]any{"PoSt": map[string]any{}}),
		[]byte(`{"jsonrpc":"2.0","method":"Filc2.Version","params":[]}`),
		[]byte(`[{"jsonrpc":"2.0","id":1,"method":"Filc2.Version","params":[]},{"jsonrpc":"2.0","id":2,"method":"Filc2.Cancel","params":["x"]}]`),
		[]byte(`{"jsonrpc":"2.0","id":{},"method":"Filc2.Version"}`), []byte(`{"id":1,"method":"Filc2.Nope","params":[]}`),
		[]byte(`{"id":1,"method":"Filc2.Submit","params":[1,2]}`), []byte(`{"id":1,"method":"Filc2.Submit","params":{"a":1}}`),
		[]byte(``), []byte(`[]`), []byte(`{`), []byte(`null`),
	} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, plugin.RPCPath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		t0 := time.Now()
		h.ServeHTTP(rec, req)
		if d := time.Since(t0); d > 30*time.Second {
			t.Fatalf("answered after %v", d)
		}
		if rec.Code < 200 || rec.Code > 599 {
			t.Fatalf("status %d", rec.Code)
		}
		out := bytes.TrimSpace(rec.Body.Bytes())
		if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			if rec.Code < 400 || len(out) == 0 {
				t.Fatalf("status %d with a %q answer %.300q: want JSON-RPC or an HTTP error", rec.Code, rec.Header().Get("Content-Type"), out)
			}
			return
		}
		in := bytes.TrimSpace(body)
		if len(in) > 1 && in[0] == '[' && in[len(in)-1] == ']' && len(out) > 0 && out[0] == '[' {
			checkBatch(t, out)
			return
		}
		if len(out) == 0 {
			// A notification (no id) is answered with nothing.
			var n struct{ ID any }
			if rec.Code != http.StatusOK || json.NewDecoder(bytes.NewReader(in)).Decode(&n) != nil || n.ID != nil {
				t.Fatalf("status %d and no answer to %.300q", rec.Code, in)
			}
			return
		}
		checkRPCResponse(t, out)
	})
}

// checkBatch asserts what go-jsonrpc v0.10.0 writes for a batch: the
// responses between brackets, separated by commas. It writes nothing for a
// notification (so "[,]" can come back) and stops after the error for an
// element whose id is not a string or number (leaving the array open), so
// the elements are checked one by one rather than the answer as one value.
func checkBatch(t *testing.T, out []byte) {
	t.Helper()
	rest, last := out[1:], 0
	for {
		rest = bytes.TrimLeft(rest, ", \t\r\n")
		if len(rest) == 0 {
			if last != -32700 {
				t.Fatalf("batch answer %.300q ends without a bracket", out)
			}
			return
		}
		if rest[0] == ']' {
			if len(bytes.TrimSpace(rest[1:])) != 0 {
				t.Fatalf("batch answer %.300q: data after the bracket", out)
			}
			return
		}
		d := json.NewDecoder(bytes.NewReader(rest))
		var m json.RawMessage
		if err := d.Decode(&m); err != nil {
			t.Fatalf("batch answer %.300q: %v", out, err)
		}
		checkRPCResponse(t, m)
		var r rpcResponse
		json.Unmarshal(m, &r)
		last = 0
		if r.Error != nil {
			last = r.Error.Code
		}
		rest = rest[d.InputOffset():]
	}
}

package plugin_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/golang-jwt/jwt/v5"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
	"github.com/filc2/filc2/proofs/c2"
)

// testServer is NewHandler over a LocalService with a fake prover.
type testServer struct {
	url    string // http://…/rpc/v0
	base   string
	tokens map[auth.Permission]string
	bad    string // a token signed with another secret
	secret []byte
}

func newTestServer(t *testing.T, prove plugin.ProveFunc, maxRequest int64) *testServer {
	t.Helper()
	return newLimitedServer(t, prove, plugin.Limits{MaxRequestSize: maxRequest})
}

// newLimitedServer is newTestServer with limits.
func newLimitedServer(t *testing.T, prove plugin.ProveFunc, limits plugin.Limits) *testServer {
	t.Helper()
	secret := make([]byte, 32)
	rand.Read(secret)
	svc := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, QueueSize: 32, Prove: prove})
	t.Cleanup(func() { svc.Close() })
	srv := httptest.NewServer(plugin.NewHandler(plugin.HandlerConfig{
		Prover: plugin.NewServer(svc, "test"),
		Verify: plugin.TokenVerifier(secret),
		Limits: limits,
	}))
	t.Cleanup(srv.Close)
	ts := &testServer{url: srv.URL + plugin.RPCPath, base: srv.URL, tokens: map[auth.Permission]string{}, secret: secret}
	for _, p := range plugin.AllPermissions {
		perms, _ := plugin.PermissionsUpTo(p)
		ts.tokens[p], _ = plugin.NewToken(secret, perms)
	}
	other := make([]byte, 32)
	rand.Read(other)
	ts.bad, _ = plugin.NewToken(other, plugin.AllPermissions)
	return ts
}

func bearer(tok string) http.Header {
	if tok == "" {
		return nil
	}
	return http.Header{"Authorization": []string{"Bearer " + tok}}
}

func fakeProof(d time.Duration, running *atomic.Int32, peak *atomic.Int32) plugin.ProveFunc {
	return func(ctx context.Context, r *plugin.Request) (plugin.Proof, []c2.PartitionTiming, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		select {
		case <-time.After(d):
			return plugin.Proof("fake proof"), nil, nil
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
}

// Without a token or with a read token only Status and Version answer;
// write proves; a token of another secret is refused outright.
func TestHandlerPermissions(t *testing.T) {
	var running, peak atomic.Int32
	ts := newTestServer(t, fakeProof(0, &running, &peak), 0)
	a, _ := plugintest.Sealed(t)
	ctx := context.Background()
	for _, tok := range []string{"", ts.tokens[plugin.PermRead]} {
		api := dial(t, ts.url, bearer(tok))
		if v, err := api.Version(ctx); err != nil || v.Version != "test" || v.APIVersion != plugin.ProverAPIVersion {
			t.Fatalf("version: %+v %v", v, err)
		}
		if _, err := api.Status(ctx); err != nil {
			t.Fatal(err)
		}
		var pe *plugin.PermissionError
		if _, err := api.SealCommit2(ctx, plugintest.Sector(1), a); !errors.As(err, &pe) || pe.Need != plugin.PermWrite || pe.Method != "Filc2.SealCommit2" {
			t.Fatalf("SealCommit2 with token %.8q: %v", tok, err)
		}
		for name, call := range map[string]func() error{
			"Submit": func() error { _, err := api.Submit(ctx, plugin.ProveRequest{}); return err },
			"Await":  func() error { _, err := api.Await(ctx, "x"); return err },
			"Cancel": func() error { return api.Cancel(ctx, "x") },
		} {
			if err := call(); !errors.As(err, &pe) {
				t.Fatalf("%s with token %.8q: %v", name, tok, err)
			}
		}
	}
	for _, p := range []auth.Permission{plugin.PermWrite, plugin.PermAdmin} {
		proof, err := dial(t, ts.url, bearer(ts.tokens[p])).SealCommit2(ctx, plugintest.Sector(1), a)
		if err != nil || string(proof) != "fake proof" {
			t.Fatalf("SealCommit2 with %s: %q %v", p, proof, err)
		}
	}
	if _, err := dial(t, ts.url, bearer(ts.bad)).Version(ctx); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("foreign token: %v", err)
	}
	// ?token= works too (auth.Handler).
	if err := dial(t, ts.url+"?token="+ts.tokens[plugin.PermWrite], nil).Cancel(ctx, "x"); !errors.As(err, new(*plugin.NotFoundError)) {
		t.Fatalf("token in the query: %v", err)
	}
}

// Over websocket the API works the same, and a cancelled Await comes back
// at once (xrpc.cancel) while the job carries on.
func TestHandlerWebsocket(t *testing.T) {
	g := plugintest.NewGate()
	ts := newTestServer(t, g.Prove, 0)
	a, _ := plugintest.Sealed(t)
	ctx := context.Background()
	api := dial(t, "ws"+strings.TrimPrefix(ts.url, "http"), bearer(ts.tokens[plugin.PermWrite]))
	id, err := api.Submit(ctx, plugin.ProveRequest{ID: "ws-job", Sector: plugintest.Sector(1), Commit1Out: a})
	if err != nil || id != "ws-job" {
		t.Fatalf("submit: %q %v", id, err)
	}
	g.WaitRunning(t, "ws-job")
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	t0 := time.Now()
	_, err = api.Await(short, id)
	cancel()
	// go-jsonrpc's websocket client sends xrpc.cancel and returns the
	// server's answer to the cancelled call.
	if err == nil || time.Since(t0) > 5*time.Second {
		t.Fatalf("await with a deadline: %v after %v", err, time.Since(t0))
	}
	t.Logf("await past its deadline over websocket: %T %v", err, err)
	st, err := api.Status(ctx)
	if err != nil || len(st.Running) != 1 || st.Running[0].ID != id {
		t.Fatalf("status after a timed-out await: %+v %v", st.Running, err)
	}
	g.Open(id, nil)
	if res, err := api.Await(ctx, id); err != nil || string(res.Proof) != "proof of ws-job" {
		t.Fatalf("await: %+v %v", res, err)
	}
}

// A SealCommit2 whose caller goes away cancels its job (HTTP: the request
// is aborted, the handler's context ends).
func TestHandlerSealCommit2CallerGone(t *testing.T) {
	g := plugintest.NewGate()
	ts := newTestServer(t, g.Prove, 0)
	a, _ := plugintest.Sealed(t)
	api := dial(t, ts.url, bearer(ts.tokens[plugin.PermWrite]))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := api.SealCommit2(ctx, plugintest.Sector(1), a)
		done <- err
	}()
	select {
	case <-g.Running():
	case <-time.After(10 * time.Second):
		t.Fatal("the job did not start")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("SealCommit2 after cancel: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := api.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.Totals.Cancelled == 1 && len(st.Running) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job was not cancelled: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A request over the size limit gets a typed bad input (with Content-Length
// or chunked), and the server keeps serving.
func TestHandlerRequestTooLarge(t *testing.T) {
	var running, peak atomic.Int32
	const limit = 1 << 20
	ts := newTestServer(t, fakeProof(0, &running, &peak), limit)
	api := dial(t, ts.url, bearer(ts.tokens[plugin.PermWrite]))
	ctx := context.Background()
	big := make([]byte, 2*limit)
	_, err := api.SealCommit2(ctx, plugintest.Sector(1), big)
	badInput(t, "2 MiB request", err, "request", "over the limit of 1048576")

	// Chunked, from a client that is not go-jsonrpc.
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"abc","method":"Filc2.SealCommit2","params":[%s,"%s"]}`,
		mustJSON(plugintest.Sector(1)), base64.StdEncoding.EncodeToString(big))
	req, _ := http.NewRequest("POST", ts.url, io.MultiReader(strings.NewReader(body)))
	req.Header.Set("Authorization", "Bearer "+ts.tokens[plugin.PermWrite])
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		ID    any
		Error struct {
			Code int
			Meta plugin.BadInputError
		}
	}
	json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if resp.StatusCode != 400 || out.ID != "abc" || out.Error.Code != int(plugin.CodeBadInput) || out.Error.Meta.Field != "request" {
		t.Fatalf("chunked oversized request: %d %+v", resp.StatusCode, out)
	}
	// A chunked request under the limit passes.
	small := `{"jsonrpc":"2.0","id":1,"method":"Filc2.Version","params":[]}`
	resp, err = http.Post(ts.url, "application/json", io.MultiReader(bytes.NewReader([]byte(small))))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"APIVersion"`) {
		t.Fatalf("chunked small request: %s", b)
	}
	if _, err := api.Version(ctx); err != nil {
		t.Fatalf("after the oversized requests: %v", err)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// /healthz and /metrics.
func TestHandlerHealthAndMetrics(t *testing.T) {
	var running, peak atomic.Int32
	ts := newTestServer(t, fakeProof(0, &running, &peak), 0)
	dial(t, ts.url, nil).Submit(context.Background(), plugin.ProveRequest{}) // a permission error, counted
	resp, err := http.Get(ts.base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "ok\n" {
		t.Fatalf("healthz: %d %q", resp.StatusCode, b)
	}
	resp, err = http.Get(ts.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`filc2_rpc_calls_total{method="Submit",result="permission"} 1`,
		`filc2_prover_up 1`,
		`filc2_queue_capacity 32`,
		`filc2_jobs_total{result="submitted"} 0`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	// A LocalService without an engine has no timeline: 503, and a bad window 400.
	for q, code := range map[string]int{"": 503, "?minutes=5": 503, "?minutes=x": 400, "?minutes=-1": 400} {
		resp, err = http.Get(ts.base + "/debug/timeline.svg" + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != code {
			t.Errorf("timeline%s: %d, want %d", q, resp.StatusCode, code)
		}
	}
}

// 20 concurrent SealCommit2 calls over HTTP with one slot: they queue and all
// complete, one at a time (a fake 100 ms prover; the real-proof version is
// in cli's serve test).
func TestHandlerConcurrent(t *testing.T) {
	var running, peak atomic.Int32
	ts := newTestServer(t, fakeProof(100*time.Millisecond, &running, &peak), 0)
	a, _ := plugintest.Sealed(t)
	api := dial(t, ts.url, bearer(ts.tokens[plugin.PermWrite]))
	t0 := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			proof, err := api.SealCommit2(context.Background(), plugintest.Sector(1), a)
			if err == nil && string(proof) != "fake proof" {
				err = fmt.Errorf("proof %q", proof)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if peak.Load() != 1 || time.Since(t0) < 2*time.Second {
		t.Fatalf("peak concurrency %d, took %v", peak.Load(), time.Since(t0))
	}
	st, _ := api.Status(context.Background())
	if st.Totals.Succeeded != 20 {
		t.Fatalf("totals %+v", st.Totals)
	}
}

// Timeline refuses a window outside [0, a week] before drawing anything (a
// read-permission caller once hung the plugin with a window near 2^63 ns).
func TestTimelineWindowBounded(t *testing.T) {
	svc := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, QueueSize: 1,
		Timeline: func(ctx context.Context, window time.Duration) (string, error) { return "<svg/>", nil }})
	t.Cleanup(func() { svc.Close() })
	srv := plugin.NewServer(svc, "test")
	for _, w := range []time.Duration{-1, plugin.MaxTimelineWindow + 1, 1<<63 - 1} {
		var bad *plugin.BadInputError
		if _, err := srv.Timeline(context.Background(), w); !errors.As(err, &bad) || bad.Field != "window" {
			t.Fatalf("window %d: %v, want a BadInputError on window", w, err)
		}
	}
	if svg, err := srv.Timeline(context.Background(), plugin.MaxTimelineWindow); err != nil || svg != "<svg/>" {
		t.Fatalf("a week: %q, %v", svg, err)
	}
}

// metric reads one sample of /metrics (0 when it is absent).
func metric(t *testing.T, base, sample string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, sample+" "); ok {
			var f float64
			fmt.Sscan(v, &f)
			return f
		}
	}
	return 0
}

// rpcPost posts a JSON-RPC call with the Authorization header auth ("": none)
// and returns the status.
func rpcPost(t *testing.T, url, authz, method string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"Filc2.`+method+`","params":[]}`))
	req.Header.Set("Content-Type", "application/json")
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// The JWT checks at the HTTP layer: a token signed with another secret, an
// unsigned one (alg none), an expired one, a malformed one and a header
// that is not Bearer are each refused with 401 before any method runs, in
// the header or in ?token=, and counted by reason; a read token cannot
// Submit; a write token can.
func TestHandlerTokenRejected(t *testing.T) {
	var running, peak atomic.Int32
	ts := newTestServer(t, fakeProof(0, &running, &peak), 0)
	b64 := base64.RawURLEncoding.EncodeToString
	none := b64([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + b64([]byte(`{"Allow":["read","write","admin"]}`)) + "."
	expired, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"Allow": []string{"read", "write"},
		"exp": time.Now().Add(-time.Minute).Unix()}).SignedString(ts.secret)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, authz, reason string }{
		{"wrong secret", "Bearer " + ts.bad, "signature"},
		{"alg none", "Bearer " + none, "signature"},
		{"expired", "Bearer " + expired, "expired"},
		{"not a JWT", "Bearer not.a.jwt", "malformed"},
		{"not Bearer", "Basic " + ts.tokens[plugin.PermAdmin], "header"},
	}
	for _, c := range cases {
		for _, method := range []string{"Version", "Submit"} {
			if code := rpcPost(t, ts.url, c.authz, method); code != http.StatusUnauthorized {
				t.Errorf("%s calling %s: %d, want 401", c.name, method, code)
			}
		}
		if c.reason != "header" { // the same token in the URL
			tok := strings.TrimPrefix(c.authz, "Bearer ")
			if code := rpcPost(t, ts.url+"?token="+tok, "", "Version"); code != http.StatusUnauthorized {
				t.Errorf("%s in ?token=: %d, want 401", c.name, code)
			}
		}
	}
	want := map[string]float64{"signature": 6, "expired": 3, "malformed": 3, "header": 2}
	for reason, n := range want {
		if got := metric(t, ts.base, `filc2_auth_rejected_total{reason="`+reason+`"}`); got != n {
			t.Errorf("filc2_auth_rejected_total{reason=%q} = %v, want %v", reason, got, n)
		}
	}
	// Over the typed client: 401 too, for the wrong secret and alg none.
	ctx := context.Background()
	for _, tok := range []string{ts.bad, none, expired} {
		if _, err := dial(t, ts.url, bearer(tok)).Version(ctx); err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("client with token %.12q: %v, want 401", tok, err)
		}
	}
	// A read token may not Submit (write); a write token may.
	var pe *plugin.PermissionError
	if _, err := dial(t, ts.url, bearer(ts.tokens[plugin.PermRead])).Submit(ctx, plugin.ProveRequest{}); !errors.As(err, &pe) || pe.Need != plugin.PermWrite {
		t.Fatalf("Submit with a read token: %v", err)
	}
	a, _ := plugintest.Sealed(t)
	id, err := dial(t, ts.url, bearer(ts.tokens[plugin.PermWrite])).Submit(ctx, plugin.ProveRequest{ID: "ok", Sector: plugintest.Sector(1), Commit1Out: a})
	if err != nil || id != "ok" {
		t.Fatalf("Submit with a write token: %q %v", id, err)
	}
}

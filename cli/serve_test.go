package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	plugintest.Cleanup()
	os.Exit(code)
}

// serveProc is a running `filc2 serve`.
type serveProc struct {
	cmd  *exec.Cmd
	url  string // from $FILC2_PATH/api
	home string
	log  *lockedBuffer
	done chan error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServe runs the filc2 binary's serve command with $FILC2_PATH home
// and waits for it to write its URL; t's cleanup stops it with SIGTERM
// and checks that it exits cleanly with its plugin.
func startServe(t *testing.T, home string, args ...string) *serveProc {
	t.Helper()
	cmd := exec.Command(plugintest.Binary(t), append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), plugin.EnvHome+"="+home)
	s := &serveProc{cmd: cmd, home: home, log: new(lockedBuffer), done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve log:\n%s", s.log)
		}
	})
	deadline := time.Now().Add(time.Minute)
	for {
		if b, err := os.ReadFile(filepath.Join(home, apiFile)); err == nil {
			s.url = strings.TrimSpace(string(b))
			break
		}
		select {
		case err := <-s.done:
			t.Fatalf("serve exited: %v\n%s", err, s.log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("serve did not start:\n%s", s.log)
		}
	}
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop sends SIGTERM and checks the exit: status 0, the api file gone, the
// plugin gone.
func (s *serveProc) stop(t *testing.T) {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("serve exited with %v\n%s", err, s.log)
		}
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		t.Errorf("serve did not stop on SIGTERM\n%s", s.log)
	}
	if _, err := os.Stat(filepath.Join(s.home, apiFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the api file is left behind: %v", err)
	}
	if !strings.Contains(s.log.String(), "plugin process exited") {
		t.Errorf("the plugin did not exit with serve:\n%s", s.log)
	}
}

func createToken(t *testing.T, perm string) string {
	t.Helper()
	out, err := run(t, "auth", "create-token", "--perm", perm)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// client makes a typed client of url; tok may be empty.
func client(t *testing.T, url, tok string, opts ...jsonrpc.Option) *plugin.ProverStruct {
	t.Helper()
	var h http.Header
	if tok != "" {
		h = http.Header{"Authorization": []string{"Bearer " + tok}}
	}
	var api plugin.ProverStruct
	closer, err := jsonrpc.NewMergeClient(context.Background(), url, plugin.Namespace, []any{&api.Internal}, h,
		append([]jsonrpc.Option{jsonrpc.WithErrors(plugin.Errors())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closer)
	return &api
}

func sectorRef(n uint64) plugin.SectorRef {
	return plugin.SectorRef{ID: abi.SectorID{Miner: plugintest.Miner, Number: abi.SectorNumber(n)}, ProofType: plugintest.Proof.Proof}
}

// The whole of `filc2 serve` on loopback with the real plugin and 2KiB
// proofs: health and metrics; tokens; bad input answered and survived;
// 20 concurrent requests on one slot: two real proofs (a SealCommit2 and a
// Submit at a higher priority), both verified; 17 queued jobs submitted,
// cancelled and awaited; one SealCommit2 whose caller gives up, which
// cancels its job; idempotent ids; Await's deadline; unknown ids.
func TestServe(t *testing.T) {
	params := plugintest.Params(t)
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv(plugin.EnvHome, home)
	write, read := createToken(t, "write"), createToken(t, "read")
	s := startServe(t, home, "--listen", "127.0.0.1:0", "--params-dir", params, "--backend", "cpu", "--slots", "1", "--queue", "32")
	base := strings.TrimSuffix(s.url, plugin.RPCPath)
	ctx := context.Background()
	writer := client(t, s.url, write)

	t.Run("health and metrics", func(t *testing.T) {
		for path, want := range map[string]string{"/healthz": "ok", "/metrics": "filc2_plugin_up 1"} {
			resp, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
				t.Errorf("%s: %d, no %q in %.300s", path, resp.StatusCode, want, b)
			}
		}
	})

	a, b, c := plugintest.SealC1(t, 1, 3), plugintest.SealC1(t, 2, 4), plugintest.SealC1(t, 3, 5)

	t.Run("tokens", func(t *testing.T) {
		for name, tok := range map[string]string{"no token": "", "read token": read} {
			api := client(t, s.url, tok)
			if v, err := api.Version(ctx); err != nil || v.APIVersion != plugin.ProverAPIVersion {
				t.Errorf("%s: Version %+v %v", name, v, err)
			}
			var pe *plugin.PermissionError
			if _, err := api.SealCommit2(ctx, sectorRef(1), a); !errors.As(err, &pe) || pe.Need != plugin.PermWrite {
				t.Errorf("%s: SealCommit2 %v", name, err)
			}
			if _, err := api.Submit(ctx, plugin.ProveRequest{Sector: sectorRef(1), Commit1Out: a}); !errors.As(err, &pe) {
				t.Errorf("%s: Submit %v", name, err)
			}
		}
		if _, err := client(t, s.url, write+"x").Version(ctx); err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("forged token: %v", err)
		}
		// Websocket, with the token.
		ws := client(t, "ws"+strings.TrimPrefix(s.url, "http"), write)
		if st, err := ws.Status(ctx); err != nil || st.Backend != "cpu" {
			t.Errorf("websocket Status: %+v %v", st, err)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		wrongSize := sectorRef(1)
		wrongSize.ProofType = abi.RegisteredSealProof_StackedDrg8MiBV1_1
		for _, tc := range []struct {
			what   string
			sector plugin.SectorRef
			c1     []byte
			want   string
		}{
			{"malformed", sectorRef(1), []byte(`{"registered_proof":"StackedDrg2KiBV1_1",`), "c1:"},
			{"truncated", sectorRef(1), a[:len(a)-100], "c1:"},
			{"wrong size", wrongSize, a, "wrong sector size"},
			{"300 MiB", sectorRef(1), make([]byte, 300<<20), "over the limit"},
		} {
			t0 := time.Now()
			_, err := writer.SealCommit2(ctx, tc.sector, tc.c1)
			var bi *plugin.BadInputError
			if !errors.As(err, &bi) || !strings.Contains(bi.Msg, tc.want) {
				t.Errorf("%s: %T %v", tc.what, err, err)
			}
			t.Logf("%s (%v): %v", tc.what, time.Since(t0).Round(time.Millisecond), err)
			if _, err := writer.Version(ctx); err != nil {
				t.Fatalf("after %s: %v", tc.what, err)
			}
		}
	})

	t.Run("20 concurrent requests", func(t *testing.T) {
		t0 := time.Now()
		type answer struct {
			proof []byte
			err   error
		}
		first := make(chan answer, 1)
		go func() {
			p, err := writer.SealCommit2(ctx, sectorRef(1), a)
			first <- answer{p, err}
		}()
		waitUntil(t, time.Minute, "SealCommit2 to start", func() bool {
			st, err := writer.Status(ctx)
			return err == nil && len(st.Running) == 1
		})
		// 19 more at once: one real proof at a higher priority, 17 jobs
		// queued behind it and one more SealCommit2 whose caller gives up.
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, 19)
		giveUp, cancelGiveUp := context.WithCancel(ctx)
		defer cancelGiveUp()
		gaveUp := make(chan error, 1)
		go func() {
			<-start
			_, err := writer.SealCommit2(giveUp, sectorRef(3), c)
			gaveUp <- err
		}()
		submit := func(id string, n uint64, c1o []byte, prio int) {
			defer wg.Done()
			<-start
			got, err := writer.Submit(ctx, plugin.ProveRequest{ID: plugin.JobID(id), Sector: sectorRef(n), Commit1Out: c1o, Priority: prio})
			if err == nil && got != plugin.JobID(id) {
				err = fmt.Errorf("submit %s: id %s", id, got)
			}
			errs <- err
		}
		wg.Add(18)
		go submit("real-b", 2, b, 5)
		for i := range 17 {
			go submit(fmt.Sprintf("filler-%02d", i), 3, c, 0)
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		var st plugin.Status
		waitUntil(t, 30*time.Second, "19 queued jobs", func() bool {
			var err error
			st, err = writer.Status(ctx)
			return err == nil && len(st.Queued) == 19
		})
		if len(st.Running) != 1 || st.Queued[0].ID != "real-b" || st.Totals.Submitted != 20 {
			t.Fatalf("after 20 requests: running %d, queued %d (first %v), totals %+v", len(st.Running), len(st.Queued), st.Queued[0].ID, st.Totals)
		}
		// The SealCommit2 caller that gives up cancels its job, through the
		// host and into the plugin.
		cancelGiveUp()
		if err := <-gaveUp; !errors.Is(err, context.Canceled) {
			t.Fatalf("SealCommit2 given up: %v", err)
		}
		waitUntil(t, 10*time.Second, "the given-up job to be cancelled", func() bool {
			st, err := writer.Status(ctx)
			return err == nil && st.Totals.Cancelled == 1 && len(st.Queued) == 18
		})
		// The same request again is the same job.
		if id, err := writer.Submit(ctx, plugin.ProveRequest{ID: "real-b", Sector: sectorRef(2), Commit1Out: b, Priority: 5}); err != nil || id != "real-b" {
			t.Fatalf("resubmit: %q %v", id, err)
		}
		// Await honours its deadline and leaves the job be.
		short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		_, err := writer.Await(short, "real-b")
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("await with a deadline: %v", err)
		}
		// Cancel the 17 fillers; each Await answers cancelled.
		var cwg sync.WaitGroup
		for i := range 17 {
			cwg.Add(1)
			go func() {
				defer cwg.Done()
				id := plugin.JobID(fmt.Sprintf("filler-%02d", i))
				if err := writer.Cancel(ctx, id); err != nil {
					t.Errorf("cancel %s: %v", id, err)
				}
				var ce *plugin.CancelledError
				if _, err := writer.Await(ctx, id); !errors.As(err, &ce) || ce.ID != id {
					t.Errorf("await %s: %v", id, err)
				}
			}()
		}
		cwg.Wait()
		ans := <-first
		if ans.err != nil {
			t.Fatalf("SealCommit2: %v", ans.err)
		}
		if err := plugintest.Verify(t, a, ans.proof); err != nil {
			t.Fatalf("SealCommit2's proof: %v", err)
		}
		res, err := writer.Await(ctx, "real-b")
		if err != nil {
			t.Fatal(err)
		}
		if err := plugintest.Verify(t, b, res.Proof); err != nil || res.Sector != sectorRef(2) || len(res.Partitions) != 1 {
			t.Fatalf("real-b: %v (%+v)", err, res)
		}
		var nf *plugin.NotFoundError
		if _, err := writer.Await(ctx, "never-submitted"); !errors.As(err, &nf) {
			t.Fatalf("await unknown: %v", err)
		}
		if err := writer.Cancel(ctx, "never-submitted"); !errors.As(err, &nf) {
			t.Fatalf("cancel unknown: %v", err)
		}
		st, _ = writer.Status(ctx)
		if st.Totals.Succeeded != 2 || st.Totals.Cancelled != 18 || len(st.Queued)+len(st.Running) != 0 || len(st.Circuits) != 1 {
			t.Fatalf("status at the end: %+v", st)
		}
		t.Logf("20 concurrent requests (2 proved, 18 cancelled) in %v", time.Since(t0).Round(time.Millisecond))
	})
}

// unixClient is an HTTP client whose every request goes to the unix socket.
func unixClient(sock string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
}

// serve on unix sockets: the API and /healthz answer over one, made owner
// and group only whatever the umask; /metrics and the timeline on another
// (--metrics-listen), and not on the API's; malformed requests are counted
// and logged once, not a line each (go-jsonrpc's own log is quiet).
func TestServeUnixSocket(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	dir, err := os.MkdirTemp("", "f2s")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock, msock := filepath.Join(dir, "api.sock"), filepath.Join(dir, "metrics.sock")
	old := syscall.Umask(0)
	s := startServe(t, home, "--listen", "unix://"+sock, "--metrics-listen", "unix://"+msock, "--params-dir", t.TempDir())
	syscall.Umask(old)
	if s.url != "unix://"+sock {
		t.Fatalf("url %q", s.url)
	}
	for _, p := range []string{sock, msock} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o660 || st.Mode()&os.ModeSocket == 0 {
			t.Errorf("%s: %v %v, want a socket of mode 0660 under umask 0", p, st.Mode(), err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("the socket directory holds %d entries, want the two sockets", len(ents))
	}
	hc, mc := unixClient(sock), unixClient(msock)
	for _, c := range []struct {
		hc   *http.Client
		path string
		want int
	}{{mc, "/metrics", 200}, {mc, "/debug/timeline.svg", 200}, {mc, "/healthz", 200}, {hc, "/metrics", 404}, {hc, "/debug/timeline.svg", 404}} {
		resp, err := c.hc.Get("http://filc2" + c.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("GET %s on the %s socket: %d, want %d", c.path, map[bool]string{true: "metrics", false: "API"}[c.hc == mc], resp.StatusCode, c.want)
		}
	}
	for range 20 {
		resp, err := hc.Post("http://filc2"+plugin.RPCPath, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"Filc2.Nope","params":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	waitUntil(t, 5*time.Second, "the malformed requests in the log", func() bool {
		return strings.Contains(s.log.String(), "refused a malformed JSON-RPC request")
	})
	if n := strings.Count(s.log.String(), "refused a malformed"); n != 1 || strings.Contains(s.log.String(), "RPC Error") {
		t.Errorf("20 malformed requests wrote %d lines of ours and go-jsonrpc's %d, want 1 and 0", n, strings.Count(s.log.String(), "RPC Error"))
	}
	resp, err := mc.Get("http://filc2/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `filc2_rpc_refused_total{reason="malformed"} 20`) {
		t.Errorf("/metrics does not count the 20 malformed requests")
	}
	api := client(t, "http://filc2"+plugin.RPCPath, "", jsonrpc.WithHTTPClient(hc))
	if v, err := api.Version(context.Background()); err != nil || v.APIVersion != plugin.ProverAPIVersion {
		t.Fatalf("version over the unix socket: %+v %v", v, err)
	}
	resp, err = hc.Get("http://filc2/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("healthz: %d", resp.StatusCode)
	}
	// A second server on the same socket is refused.
	cmd := exec.Command(plugintest.Binary(t), "serve", "--listen", "unix://"+sock)
	cmd.Env = append(os.Environ(), plugin.EnvHome+"="+filepath.Join(t.TempDir(), "h2"))
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "already listening") {
		t.Fatalf("second server: %v %s", err, out)
	}
}

func waitUntil(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

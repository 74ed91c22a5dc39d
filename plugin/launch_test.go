package plugin_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
)

// logBuffer collects the host's log (the plugin's lines included).
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func hostLogger(t *testing.T) (hclog.Logger, *logBuffer) {
	buf := new(logBuffer)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("host log:\n%s", buf)
		}
	})
	return hclog.New(&hclog.LoggerOptions{Name: "host", Level: hclog.Debug, Output: buf}), buf
}

func checksum(t *testing.T, path string) []byte {
	t.Helper()
	sum, err := plugin.FileChecksum(path)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// A binary whose checksum is not the one given is not run.
func TestLaunchWrongChecksum(t *testing.T) {
	bin := plugintest.Binary(t)
	sum := checksum(t, bin)
	sum[0] ^= 1
	log, _ := hostLogger(t)
	c, err := plugin.Launch(context.Background(), plugin.Config{Path: bin, Checksum: sum, Logger: log})
	if !errors.Is(err, plugin.ErrChecksum) {
		t.Fatalf("wrong checksum: %v", err)
	}
	if c != nil {
		t.Fatal("a client for a refused binary")
	}
	if _, err := plugin.Launch(context.Background(), plugin.Config{Path: bin, Logger: log}); err == nil || !strings.Contains(err.Error(), "Checksum") {
		t.Fatalf("no checksum: %v", err)
	}
}

// `filc2 plugin` run by hand writes nothing to stdout and says why it stops.
func TestPluginByHand(t *testing.T) {
	cmd := exec.Command(plugintest.Binary(t), "plugin")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "started by a filc2 host") {
		t.Fatalf("exit %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
}

// The host runs the real plugin binary: Version and Status come from the
// plugin process, a 2KiB C1 through SealCommit2 gives a proof that verifies,
// the plugin's logs reach the host's logger. Then the plugin is SIGKILLed
// with three jobs in flight, two of them kept for resubmission
// (ResubmitBytes): it is restarted once, the two are resubmitted under
// their ids and their Awaits answer verified proofs, each proved once; the
// third answers a retryable error and then "lost". /metrics and Healthy
// tell. Close stops the plugin, and neither the killed plugin nor the
// closed one leaves a socket or directory in $TMPDIR.
func TestLaunchProveKillRestart(t *testing.T) {
	bin, params := plugintest.Binary(t), plugintest.Params(t)
	a, b := plugintest.Sealed(t)
	log, logs := hostLogger(t)
	tmp := t.TempDir()
	t.Setenv(plugintest.EnvParams, params) // Verify finds them, not new ones in tmp
	t.Setenv("TMPDIR", tmp)                // the host's and the plugin's
	ctx := context.Background()
	t0 := time.Now()
	c, err := plugin.Launch(ctx, plugin.Config{
		Path:          bin,
		Args:          []string{"plugin", "--params-dir", params, "--backend", "cpu"},
		Checksum:      checksum(t, bin),
		Logger:        log,
		ResubmitBytes: int64(len(a)+len(b)) + 1000, // the first two jobs, not the third
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	t.Logf("launched in %v", time.Since(t0))

	pid := c.PID()
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The plugin proves through the engine by default: its status comes along.
	if st.PID != pid || pid == os.Getpid() || st.Backend != "cpu" || st.Slots < 1 || st.Engine == nil || len(st.Engine.GPUs) != 1 {
		t.Fatalf("status %+v (plugin pid %d)", st, pid)
	}
	if v, err := c.Version(ctx); err != nil || v.APIVersion != plugin.ProverAPIVersion {
		t.Fatalf("version %+v %v", v, err)
	}
	if !strings.Contains(logs.String(), "serving the Prover API") {
		t.Fatalf("the plugin's log did not reach the host:\n%s", logs)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c.Collectors()...)
	if m := gather(t, reg); m["filc2_plugin_up"] != 1 || m["filc2_plugin_resident_bytes"] < 1<<20 || m["filc2_plugin_start_time_seconds"] < float64(t0.Unix()) {
		t.Fatalf("metrics of a running plugin: %v", m)
	}

	t0 = time.Now()
	proof, err := c.SealCommit2(ctx, plugintest.Sector(1), a)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SealCommit2 (parameters loaded, proved, verified) in %v", time.Since(t0))
	if len(proof) != 192 {
		t.Fatalf("%d proof bytes", len(proof))
	}
	if err := plugintest.Verify(t, a, proof); err != nil {
		t.Fatalf("the proof does not verify: %v", err)
	}
	// The engine in the plugin draws what it did.
	if svg, err := c.Timeline(ctx, time.Minute); err != nil || !strings.Contains(svg, "<svg") || !strings.Contains(svg, "gpu") {
		t.Fatalf("timeline: %v\n%.300s", err, svg)
	}
	if st, _ := c.Status(ctx); len(st.Circuits) != 1 || st.Circuits[0].ProofType != "StackedDrg2KiBV1_1" || st.Totals.Succeeded != 1 {
		t.Fatalf("status after a proof: %+v", st)
	}

	// Kill the plugin while it proves three jobs: the first two kept, one
	// with an id the plugin chose.
	jobs := []struct {
		req  plugin.ProveRequest
		c1   []byte
		kept bool
	}{
		{plugin.ProveRequest{ID: "kept", Sector: plugintest.Sector(1), Commit1Out: a}, a, true},
		{plugin.ProveRequest{Sector: plugintest.Sector(2), Commit1Out: b, Priority: 1}, b, true},
		{plugin.ProveRequest{ID: "doomed", Sector: plugintest.Sector(1), Commit1Out: a}, a, false},
	}
	type answer struct {
		i   int
		res plugin.Result
		err error
	}
	answers := make(chan answer, 2*len(jobs))
	ids := make([]plugin.JobID, len(jobs))
	for i, j := range jobs {
		if ids[i], err = c.Submit(ctx, j.req); err != nil {
			t.Fatal(err)
		}
		go func() {
			res, err := c.Await(ctx, ids[i])
			answers <- answer{i, res, err}
		}()
	}
	if ids[1] == "" || ids[0] != "kept" {
		t.Fatalf("ids %q", ids)
	}
	plugintest.WaitFor(t, 30*time.Second, "a job to run", func() bool {
		st, err := c.Status(ctx)
		return err == nil && len(st.Running) > 0
	})
	time.Sleep(time.Second) // well into proving
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	t0 = time.Now()
	got := make([]*answer, len(jobs))
	for range jobs {
		select {
		case an := <-answers:
			if got[an.i] != nil {
				t.Fatalf("job %d answered twice", an.i)
			}
			got[an.i] = &an
			if !jobs[an.i].kept {
				var un *plugin.UnavailableError
				if !errors.As(an.err, &un) || !plugin.IsRetryable(an.err) {
					t.Fatalf("await of a job not kept, whose plugin was killed: %T %v", an.err, an.err)
				}
				t.Logf("not kept: %v", an.err)
				continue
			}
			if an.err != nil {
				t.Fatalf("await of a resubmitted job %s: %v", ids[an.i], an.err)
			}
			if an.res.ID != ids[an.i] {
				t.Fatalf("job %s answered %s", ids[an.i], an.res.ID)
			}
			if err := plugintest.Verify(t, jobs[an.i].c1, an.res.Proof); err != nil {
				t.Fatalf("the resubmitted job's proof does not verify: %v", err)
			}
			t.Logf("resubmitted %s: proved %v after the kill", ids[an.i], time.Since(t0))
		case <-time.After(5 * time.Minute):
			t.Fatalf("awaits did not return after the plugin was killed: %v", got)
		}
	}
	var un *plugin.UnavailableError
	if _, err := c.Await(ctx, ids[2]); !errors.As(err, &un) || !strings.Contains(err.Error(), "lost") {
		t.Fatalf("await of the lost job again: %v", err)
	}
	newPID := c.PID()
	if newPID == pid || newPID == 0 || c.Restarts() != 1 {
		t.Fatalf("pid %d → %d, %d restarts", pid, newPID, c.Restarts())
	}
	// Each resubmitted job was proved once on the restarted plugin.
	if st, err := c.Status(ctx); err != nil || st.Totals.Submitted != 2 || st.Totals.Succeeded != 2 {
		t.Fatalf("the restarted plugin's totals: %+v %v", st.Totals, err)
	}
	if err := c.Healthy(ctx); err != nil {
		t.Fatalf("healthy after one restart: %v", err)
	}
	if m := gather(t, reg); m["filc2_plugin_restarts_total"] != 1 || m["filc2_plugin_jobs_resubmitted_total"] != 2 ||
		m["filc2_plugin_jobs_lost_total"] != 1 || m["filc2_plugin_resubmit_kept_bytes"] != 0 || m["filc2_plugin_up"] != 1 {
		t.Fatalf("metrics after the kill: %v", m)
	}
	if !strings.Contains(logs.String(), "resubmitted a job to the restarted plugin") {
		t.Fatal("no resubmission in the log")
	}

	c.Close()
	plugintest.WaitFor(t, 5*time.Second, "the plugin to exit", func() bool {
		return syscall.Kill(newPID, 0) == syscall.ESRCH
	})
	if _, err := c.Version(ctx); !errors.As(err, &un) {
		t.Fatalf("call after Close: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Fatalf("left in $TMPDIR after a kill, a restart and Close: %v", names)
	}
}

// A plugin SIGKILLed over and over: each is restarted, none leaves a socket
// or directory in $TMPDIR once the client is closed, and after more than 3
// restarts within 5 minutes Healthy calls it a crash loop although a plugin
// is up.
func TestKillLeavesNoSockets(t *testing.T) {
	bin := plugintest.Binary(t)
	log, _ := hostLogger(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx := context.Background()
	c, err := plugin.Launch(ctx, plugin.Config{Path: bin, Args: []string{"plugin", "--params-dir", tmp, "--backend", "cpu"},
		Checksum: checksum(t, bin), Logger: log, MaxRestartDelay: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Healthy(ctx); err != nil {
		t.Fatalf("healthy at start: %v", err)
	}
	for i := range 4 {
		pid := c.PID()
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		plugintest.WaitFor(t, 30*time.Second, "the restart", func() bool {
			p := c.PID()
			return p != 0 && p != pid
		})
		if i == 0 {
			if err := c.Healthy(ctx); err != nil {
				t.Fatalf("healthy after one restart: %v", err)
			}
		}
	}
	var un *plugin.UnavailableError
	if err := c.Healthy(ctx); !errors.As(err, &un) || !strings.Contains(err.Error(), "crash loop") {
		t.Fatalf("healthy after 4 restarts in a row: %v", err)
	}
	if _, err := c.Version(ctx); err != nil {
		t.Fatalf("the plugin after 4 restarts: %v", err)
	}
	c.Close()
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Fatalf("left in $TMPDIR after 4 kills and Close: %v", names)
	}
}

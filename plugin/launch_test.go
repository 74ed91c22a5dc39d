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
// the plugin's logs reach the host's logger; killing the plugin mid-job
// fails the job with a retryable error and the next job succeeds on the
// restarted plugin; Close stops the plugin.
func TestLaunchProveKillRestart(t *testing.T) {
	bin, params := plugintest.Binary(t), plugintest.Params(t)
	a, b := plugintest.Sealed(t)
	log, logs := hostLogger(t)
	ctx := context.Background()
	t0 := time.Now()
	c, err := plugin.Launch(ctx, plugin.Config{
		Path:     bin,
		Args:     []string{"plugin", "--params-dir", params, "--backend", "cpu"},
		Checksum: checksum(t, bin),
		Logger:   log,
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

	// Kill the plugin while it proves.
	id, err := c.Submit(ctx, plugin.ProveRequest{ID: "doomed", Sector: plugintest.Sector(2), Commit1Out: b})
	if err != nil {
		t.Fatal(err)
	}
	awaited := make(chan error, 1)
	go func() {
		_, err := c.Await(ctx, id)
		awaited <- err
	}()
	plugintest.WaitFor(t, 30*time.Second, "the job to run", func() bool {
		st, err := c.Status(ctx)
		return err == nil && len(st.Running) == 1
	})
	time.Sleep(time.Second) // well into proving
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var un *plugin.UnavailableError
	select {
	case err := <-awaited:
		if !errors.As(err, &un) || !plugin.IsRetryable(err) {
			t.Fatalf("await of a job whose plugin was killed: %T %v", err, err)
		}
		t.Logf("in flight: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("await did not return after the plugin was killed")
	}
	if _, err := c.Await(ctx, id); !errors.As(err, &un) || !strings.Contains(err.Error(), "lost") {
		t.Fatalf("await of the lost job again: %v", err)
	}

	t0 = time.Now()
	proof, err = c.SealCommit2(ctx, plugintest.Sector(2), b)
	if err != nil {
		t.Fatalf("the next job: %v", err)
	}
	t.Logf("the next SealCommit2, on the restarted plugin, in %v", time.Since(t0))
	if err := plugintest.Verify(t, b, proof); err != nil {
		t.Fatalf("the proof does not verify: %v", err)
	}
	newPID := c.PID()
	if newPID == pid || newPID == 0 || c.Restarts() != 1 {
		t.Fatalf("pid %d → %d, %d restarts", pid, newPID, c.Restarts())
	}

	c.Close()
	plugintest.WaitFor(t, 5*time.Second, "the plugin to exit", func() bool {
		return syscall.Kill(newPID, 0) == syscall.ESRCH
	})
	if _, err := c.Version(ctx); !errors.As(err, &un) {
		t.Fatalf("call after Close: %v", err)
	}
}

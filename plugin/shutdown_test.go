package plugin_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
)

// launchCPU launches the real plugin on the CPU backend with the 2KiB test
// parameters; t's cleanup closes it.
func launchCPU(t *testing.T, cfg plugin.Config) (*plugin.Client, *logBuffer) {
	t.Helper()
	bin, params := plugintest.Binary(t), plugintest.Params(t)
	log, logs := hostLogger(t)
	cfg.Path, cfg.Checksum, cfg.Logger = bin, checksum(t, bin), log
	cfg.Args = []string{"plugin", "--params-dir", params, "--backend", "cpu"}
	c, err := plugin.Launch(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, logs
}

// waitRunning waits until the plugin runs n jobs.
func waitRunning(t *testing.T, c *plugin.Client, n int) {
	t.Helper()
	plugintest.WaitFor(t, 30*time.Second, "the jobs to run", func() bool {
		st, err := c.Status(context.Background())
		return err == nil && len(st.Running) == n
	})
}

// noCrash fails t if the host took the plugin's exit for a crash, or had to
// kill a plugin that did not exit when closed.
func noCrash(t *testing.T, c *plugin.Client, logs *logBuffer) {
	t.Helper()
	for _, bad := range []string{"plugin died", "restarting", "plugin failed to exit gracefully"} {
		if strings.Contains(logs.String(), bad) {
			t.Errorf("the host log says %q", bad)
		}
	}
	if c.Restarts() != 0 {
		t.Errorf("%d restarts", c.Restarts())
	}
}

// SIGTERM to the plugin (as systemd sends the host's whole group) does not
// stop it: the job in flight goes on, nothing restarts. Shutdown then
// refuses new jobs at once, lets the running one finish within the grace
// (its Await answers the proof), and stops the idle plugin without killing
// it.
func TestShutdownSIGTERMDrains(t *testing.T) {
	a, _ := plugintest.Sealed(t)
	c, logs := launchCPU(t, plugin.Config{})
	ctx := context.Background()
	pid := c.PID()
	id, err := c.Submit(ctx, plugin.ProveRequest{ID: "drained", Sector: plugintest.Sector(1), Commit1Out: a})
	if err != nil {
		t.Fatal(err)
	}
	awaited := make(chan error, 1)
	var proof plugin.Proof
	go func() {
		res, err := c.Await(ctx, id)
		proof = res.Proof
		awaited <- err
	}()
	waitRunning(t, c, 1)
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if err := syscall.Kill(pid, 0); err != nil || c.PID() != pid {
		t.Fatalf("the plugin did not survive SIGTERM: %v (pid %d → %d)", err, pid, c.PID())
	}
	if err := c.Healthy(ctx); err != nil {
		t.Fatalf("healthy after SIGTERM: %v", err)
	}
	if st, err := c.Status(ctx); err != nil || len(st.Running) != 1 {
		t.Fatalf("status after SIGTERM: %+v %v", st, err)
	}

	const grace = 3 * time.Minute
	t0 := time.Now()
	shut := make(chan error, 1)
	go func() { shut <- c.Shutdown(ctx, grace) }()
	plugintest.WaitFor(t, 5*time.Second, "the drain to begin", func() bool {
		return strings.Contains(logs.String(), "draining the plugin")
	})
	var un *plugin.UnavailableError
	if _, err := c.Submit(ctx, plugin.ProveRequest{Sector: plugintest.Sector(1), Commit1Out: a}); !errors.As(err, &un) || !strings.Contains(err.Error(), "shutting down") {
		t.Fatalf("a Submit during shutdown: %v", err)
	}
	if err := c.Healthy(ctx); !errors.As(err, &un) {
		t.Fatalf("healthy during shutdown: %v", err)
	}
	var tookJob time.Duration
	select {
	case err := <-awaited:
		tookJob = time.Since(t0)
		if err != nil {
			t.Fatalf("the job in flight during the drain: %v", err)
		}
		if err := plugintest.Verify(t, a, proof); err != nil {
			t.Fatalf("its proof does not verify: %v", err)
		}
	case <-time.After(grace):
		t.Fatal("the job did not finish within the grace")
	}
	select {
	case err := <-shut:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("Shutdown did not return 15 s after the job finished")
	}
	t.Logf("the job finished %v into the drain; Shutdown returned after %v", tookJob, time.Since(t0))
	plugintest.WaitFor(t, 5*time.Second, "the plugin to exit", func() bool { return syscall.Kill(pid, 0) == syscall.ESRCH })
	noCrash(t, c, logs)
	if !strings.Contains(logs.String(), "the plugin drained") {
		t.Errorf("no drain in the log")
	}
}

// A grace shorter than the job: Shutdown returns within grace plus a few
// seconds, the job's Await answers a retryable error saying the prover shut
// down, and the plugin exits on its own (go-plugin did not have to kill it).
func TestShutdownGraceCancels(t *testing.T) {
	a, b := plugintest.Sealed(t)
	tmp := t.TempDir()
	c, logs := launchCPU(t, plugin.Config{SocketDir: tmp})
	ctx := context.Background()
	pid := c.PID()
	var ids []plugin.JobID
	for i, c1 := range [][]byte{a, b} {
		id, err := c.Submit(ctx, plugin.ProveRequest{Sector: plugintest.Sector(uint64(i + 1)), Commit1Out: c1})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	awaited := make(chan error, len(ids))
	for _, id := range ids {
		go func() {
			_, err := c.Await(ctx, id)
			awaited <- err
		}()
	}
	plugintest.WaitFor(t, 30*time.Second, "a job to run", func() bool {
		st, err := c.Status(ctx)
		return err == nil && len(st.Running) > 0
	})
	const grace = 500 * time.Millisecond
	t0 := time.Now()
	if err := c.Shutdown(ctx, grace); err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	t.Logf("Shutdown with a %v grace took %v", grace, took)
	if took > grace+4*time.Second {
		t.Errorf("Shutdown took %v with a %v grace", took, grace)
	}
	for range ids {
		select {
		case err := <-awaited:
			var un *plugin.UnavailableError
			if !errors.As(err, &un) || !strings.Contains(err.Error(), "shut down") {
				t.Errorf("a job cancelled by the shutdown: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("an Await did not return after Shutdown")
		}
	}
	plugintest.WaitFor(t, 5*time.Second, "the plugin to exit", func() bool { return syscall.Kill(pid, 0) == syscall.ESRCH })
	noCrash(t, c, logs)
	if !strings.Contains(logs.String(), "jobs still in flight were cancelled") {
		t.Errorf("the log does not say jobs were cancelled")
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in the socket directory: %v", left)
	}
}

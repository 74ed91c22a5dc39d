package plugin_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
)

// A job cancelled right after its plugin was SIGKILLed (before or while it
// is resubmitted) succeeds, its Await answers *CancelledError, and the
// restarted plugin does not go on proving it.
func TestCancelAfterKill(t *testing.T) {
	a, _ := plugintest.Sealed(t)
	c, _ := launchCPU(t, plugin.Config{})
	ctx := context.Background()
	pid := c.PID()
	id, err := c.Submit(ctx, plugin.ProveRequest{ID: "cancelled", Sector: plugintest.Sector(1), Commit1Out: a})
	if err != nil {
		t.Fatal(err)
	}
	waitRunning(t, c, 1)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	plugintest.WaitFor(t, 5*time.Second, "the host to see the plugin gone", func() bool { return c.PID() != pid })
	if err := c.Cancel(ctx, id); err != nil {
		t.Fatalf("cancel of a job whose plugin died: %v", err)
	}
	var ce *plugin.CancelledError
	if _, err := c.Await(ctx, id); !errors.As(err, &ce) {
		t.Fatalf("await of the cancelled job: %v", err)
	}
	plugintest.WaitFor(t, 30*time.Second, "the restart", func() bool { return c.PID() != 0 })
	plugintest.WaitFor(t, 10*time.Second, "the restarted plugin to be idle", func() bool {
		st, err := c.Status(ctx)
		return err == nil && len(st.Running)+len(st.Queued) == 0
	})
	if c.Restarts() != 1 {
		t.Fatalf("%d restarts", c.Restarts())
	}
}

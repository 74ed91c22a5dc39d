package plugin

import (
	"context"
	"errors"
	"fmt"
	"net/rpc"
	"sync/atomic"
	"time"
)

// DefaultShutdownGrace is how long `filc2 serve` lets jobs in flight finish
// when it is told to stop (--shutdown-grace).
const DefaultShutdownGrace = 30 * time.Second

// drainSlack is how much longer than the grace the host waits for the
// plugin's drain to answer before it closes the plugin anyway.
const drainSlack = 10 * time.Second

// DrainReport is what the plugin's drain did.
type DrainReport struct {
	InFlight  int           // jobs queued or running when the drain began
	Cancelled int           // of those, jobs left when the grace ran out, cancelled
	Waited    time.Duration // how long it waited for the rest
}

// Shutdown stops the Client in order. New SealCommit2 and Submit calls
// answer *UnavailableError at once, and from here on the plugin's exit is
// not a crash: it is not restarted, and its jobs are not resubmitted. The
// plugin is asked to drain: it refuses new jobs, lets those queued and
// running finish for up to grace (their Await answers as usual), and cancels
// what is left, whose Await answers *UnavailableError ("the prover shut
// down"). Then the idle plugin is closed, as Close does. Shutdown returns
// within about grace plus a few seconds; ctx ending cuts the wait short.
func (c *Client) Shutdown(ctx context.Context, grace time.Duration) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.stopping = true
	inst := c.cur
	c.mu.Unlock()
	if inst != nil && !inst.isDead() {
		c.log.Info("draining the plugin: no new jobs; jobs in flight may finish", "grace", grace, "pid", inst.ep.PID)
		rep, err := inst.drain(ctx, grace)
		switch {
		case err != nil:
			c.log.Warn("the plugin did not drain; closing it", "error", err)
		case rep.Cancelled > 0:
			c.log.Warn("shutdown grace over: jobs still in flight were cancelled", "in_flight", rep.InFlight, "cancelled", rep.Cancelled, "grace", grace)
		default:
			c.log.Info("the plugin drained", "in_flight", rep.InFlight, "waited", rep.Waited.Round(time.Millisecond))
		}
	}
	return c.Close()
}

// drain asks the plugin to drain (Plugin.Drain over go-plugin's net/rpc)
// and waits for its answer, at most grace plus drainSlack.
func (in *instance) drain(ctx context.Context, grace time.Duration) (DrainReport, error) {
	var rep DrainReport
	call := in.ec.c.Go("Plugin.Drain", grace, &rep, make(chan *rpc.Call, 1))
	t := time.NewTimer(grace + drainSlack)
	defer t.Stop()
	select {
	case <-call.Done:
		return rep, call.Error
	case <-in.dead:
		return rep, fmt.Errorf("the plugin (pid %d) exited while draining", in.ep.PID)
	case <-t.C:
		return rep, fmt.Errorf("the plugin (pid %d) did not drain within %v", in.ep.PID, grace+drainSlack)
	case <-ctx.Done():
		return rep, ctx.Err()
	}
}

// drainService is the Service Serve puts behind the Prover API: the
// plugin's own, which drain stops in order.
type drainService struct {
	Service
	draining atomic.Bool
}

// Submit implements Service, refusing new jobs once draining.
func (d *drainService) Submit(ctx context.Context, req *Request) (JobID, error) {
	if d.draining.Load() {
		return "", &UnavailableError{Msg: "the prover is shutting down and takes no new jobs"}
	}
	return d.Service.Submit(ctx, req)
}

// TimelineSVG implements TimelineService when the Service does.
func (d *drainService) TimelineSVG(ctx context.Context, window time.Duration) (string, error) {
	ts, ok := d.Service.(TimelineService)
	if !ok {
		return "", &UnavailableError{Msg: "no timeline: this prover has no engine"}
	}
	return ts.TimelineSVG(ctx, window)
}

// drain refuses new jobs, waits up to grace for the queued and running ones
// to finish, then closes the Service, which fails or cancels what is left.
func (d *drainService) drain(grace time.Duration) DrainReport {
	d.draining.Store(true)
	t0 := time.Now()
	inFlight := func() int {
		st, err := d.Service.Status(context.Background())
		if err != nil {
			return 0
		}
		return len(st.Queued) + len(st.Running)
	}
	rep := DrainReport{InFlight: inFlight()}
	for n := rep.InFlight; n > 0; n = inFlight() {
		if time.Since(t0) >= grace {
			rep.Cancelled = n
			break
		}
		time.Sleep(min(50*time.Millisecond, max(grace-time.Since(t0), time.Millisecond)))
	}
	rep.Waited = time.Since(t0)
	d.Service.Close()
	// Let the cancelled jobs record their answers, so that their Awaits
	// say the prover shut down before the host closes us.
	for end := time.Now().Add(time.Second); rep.Cancelled > 0 && inFlight() > 0 && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	return rep
}

// errNoDrain answers Plugin.Drain on a plugin served without one.
var errNoDrain = errors.New("this plugin cannot drain")

package plugin

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"
)

// maxResubmits bounds how often one job is resubmitted: a job whose plugin
// died under it this often may be what kills it, and answers
// *UnavailableError instead of taking down the next plugin too.
const maxResubmits = 2

// tracked is a job submitted through the Client and not yet answered by
// Await: which plugin has it, and what the Client needs to give it to the
// next plugin when that one dies. Guarded by Client.mu.
type tracked struct {
	id        JobID
	gen       uint64 // the plugin generation that has it
	seq       uint64 // submission order
	at        time.Time
	priority  int
	req       *ProveRequest // kept to resubmit, ID filled in; nil beyond Config.ResubmitBytes
	size      int64         // bytes of req counted in Client.kept
	resubmits int
	cancelled bool  // a Cancel succeeded: never resubmitted
	err       error // Await's answer without asking a plugin (lost, cancelled)
}

// requestSize is what keeping req costs: its C1 or vanilla proof bytes.
func requestSize(req *ProveRequest) int64 {
	n := int64(len(req.ID)+len(req.Commit1Out)) + 64
	if req.PoSt != nil {
		n += int64(len(req.PoSt.Randomness))
		for _, v := range req.PoSt.VanillaProofs {
			n += int64(len(v)) + 24
		}
	}
	if req.Snap != nil {
		n += 96
		for _, v := range req.Snap.VanillaProofs {
			n += int64(len(v)) + 24
		}
	}
	return n
}

// track records job id, just submitted to inst, keeping req to resubmit
// while Config.ResubmitBytes allows. It reports false when inst is no longer
// the current plugin: it died after taking the job, and the restart's
// resubmission did not see it.
func (c *Client) track(id JobID, inst *instance, req ProveRequest) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != inst {
		return false
	}
	if t := c.jobs[id]; t != nil {
		if t.err == nil && t.gen == inst.gen {
			return true // the same request again: the same job
		}
		c.forget(t)
	}
	now := time.Now()
	if len(c.jobs) >= 1<<14 {
		for _, t := range c.jobs {
			if now.Sub(t.at) > 24*time.Hour {
				c.forget(t)
			}
		}
	}
	c.seq++
	t := &tracked{id: id, gen: inst.gen, seq: c.seq, at: now, priority: req.Priority}
	if size := requestSize(&req); c.cfg.ResubmitBytes > 0 && c.kept+size <= c.cfg.ResubmitBytes {
		req.ID = id
		t.req, t.size = &req, size
		c.kept += size
	}
	c.jobs[id] = t
	return true
}

// forget drops t and the bytes it kept; the caller holds mu.
func (c *Client) forget(t *tracked) {
	c.drop(t)
	if c.jobs[t.id] == t {
		delete(c.jobs, t.id)
	}
}

// drop releases t's kept request; the caller holds mu.
func (c *Client) drop(t *tracked) {
	c.kept -= t.size
	t.req, t.size = nil, 0
}

// settle gives t its final answer, err; the caller holds mu.
func (c *Client) settle(t *tracked, err error) {
	t.err = err
	c.drop(t)
}

func (c *Client) untrack(id JobID) {
	c.mu.Lock()
	if t := c.jobs[id]; t != nil {
		c.forget(t)
	}
	c.mu.Unlock()
}

// settled returns the answer of job id when no plugin has it any more (it
// was lost, or cancelled while between plugins), and forgets it; nil when
// inst has it or it is not tracked.
func (c *Client) settled(id JobID, inst *instance) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.jobs[id]
	if t == nil || (t.err == nil && t.gen == inst.gen) {
		return nil
	}
	err := t.err
	if err == nil {
		err = &UnavailableError{Msg: fmt.Sprintf("job %s was lost when its plugin died; submit it again", id)}
	}
	c.forget(t)
	return err
}

// willResubmit reports whether job id, whose call to inst failed, is (or
// will be) on the plugin after inst: inst is dead and the job was kept.
func (c *Client) willResubmit(id JobID, inst *instance) bool {
	if inst == nil || !inst.isDead() {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.jobs[id]
	if c.stopping || t == nil || t.err != nil || t.cancelled {
		return false
	}
	return t.gen > inst.gen || (t.req != nil && t.resubmits < maxResubmits)
}

// diedUnder reports whether err is inst dying under a call (not an answer
// of the plugin), while the Client still restarts plugins.
func (c *Client) diedUnder(inst *instance, err error) bool {
	return inst != nil && errors.As(err, new(*UnavailableError)) && inst.isDead() && !c.isStopping()
}

func (in *instance) isDead() bool {
	select {
	case <-in.dead:
		return true
	default:
		return false
	}
}

func (c *Client) isStopping() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopping
}

// refuseNew answers new jobs once Shutdown or Close began.
func (c *Client) refuseNew() error {
	if c.isStopping() {
		return &UnavailableError{Msg: "filc2 is shutting down and takes no new jobs; submit to another prover or retry when it is back"}
	}
	return nil
}

// cancelHere cancels job id in the Client when no running plugin has it:
// it was lost, or its plugin died and it is not (yet) on the next one (inst
// nil: the current plugin, if any). It is then never resubmitted, or
// cancelled on the plugin it was resubmitted to once that one is up, and
// its Await answers *CancelledError. It reports false when inst has the job
// or the Client does not know it: the plugin decides.
func (c *Client) cancelHere(id JobID, inst *instance) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.jobs[id]
	if t == nil {
		return false
	}
	if inst == nil {
		inst = c.cur
	}
	if t.err == nil && inst != nil && t.gen == inst.gen && !inst.isDead() {
		return false
	}
	t.cancelled = true
	c.settle(t, &CancelledError{ID: id})
	return true
}

// cancelled records that inst cancelled job id: if inst dies before the
// job's Await, the job is not resubmitted.
func (c *Client) cancelled(id JobID, inst *instance) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.jobs[id]; t != nil && inst != nil && t.gen == inst.gen {
		t.cancelled = true
	}
}

// resubmit gives next, a plugin started after another died and not yet
// taking calls, the jobs the dead ones had: in priority and submission
// order, under their ids. A job the Client did not keep, resubmitted
// maxResubmits times already, or refused by next is settled with
// *UnavailableError (counted in filc2_plugin_jobs_lost_total); one
// cancelled meanwhile with *CancelledError. If next dies meanwhile the rest
// wait for the plugin after it. It reports false when the Client closed.
func (c *Client) resubmit(next *instance) bool {
	c.mu.Lock()
	var todo []*tracked
	lost := 0
	for _, t := range c.jobs {
		if t.gen >= next.gen || t.err != nil {
			continue
		}
		switch {
		case t.cancelled:
			c.settle(t, &CancelledError{ID: t.id})
		case t.req == nil:
			lost++
			c.settle(t, &UnavailableError{Msg: fmt.Sprintf("job %s was lost when its plugin died (its request was not kept: over the client's ResubmitBytes); submit it again", t.id)})
		case t.resubmits >= maxResubmits:
			lost++
			c.settle(t, &UnavailableError{Msg: fmt.Sprintf("job %s was lost: its plugin died %d times while it was in flight, so it is not resubmitted again (check the job; submit it again if it is sound)", t.id, t.resubmits+1)})
		default:
			todo = append(todo, t)
		}
	}
	c.mu.Unlock()
	c.lostJobs.Add(uint64(lost))
	sort.Slice(todo, func(a, b int) bool {
		if todo[a].priority != todo[b].priority {
			return todo[a].priority > todo[b].priority
		}
		return todo[a].seq < todo[b].seq
	})
	done := 0
	for _, t := range todo {
		select {
		case <-c.done:
			return false
		default:
		}
		if next.pc.Exited() {
			c.log.Error("the restarted plugin died while jobs were resubmitted to it; the rest go to the next one", "pid", next.ep.PID)
			break
		}
		c.mu.Lock()
		if c.jobs[t.id] != t || t.err != nil || t.req == nil {
			c.mu.Unlock()
			continue // answered or cancelled meanwhile
		}
		req := *t.req
		c.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), c.cfg.StartTimeout)
		go func() {
			select {
			case <-c.done:
				cancel()
			case <-ctx.Done():
			}
		}()
		id, err := next.api.Submit(ctx, req)
		cancel()
		c.mu.Lock()
		switch {
		case c.jobs[t.id] != t || t.err != nil:
		case err == nil && id == t.id:
			t.gen = next.gen
			t.resubmits++
			done++
			c.resubmitted.Add(1)
			c.log.Info("resubmitted a job to the restarted plugin", "job", t.id, "sector", req.Sector.String(), "priority", t.priority, "pid", next.ep.PID)
		case next.pc.Exited():
			// Left for the plugin after next.
		default:
			if err == nil {
				err = fmt.Errorf("the plugin answered id %s", id)
			}
			c.lostJobs.Add(1)
			lost++
			c.settle(t, &UnavailableError{Msg: fmt.Sprintf("job %s was lost when its plugin died, and resubmitting it failed: %v; submit it again", t.id, err)})
			c.log.Error("resubmitting a job to the restarted plugin failed", "job", t.id, "error", err)
		}
		c.mu.Unlock()
	}
	if done+lost > 0 {
		c.log.Info("jobs of the dead plugin", "resubmitted", done, "lost", lost)
	}
	return true
}

// The crash-loop rule of Healthy: more than sickRestarts restarts within
// sickWindow.
const (
	sickRestarts = 3
	sickWindow   = 5 * time.Minute
)

// recentRestarts keeps the restart times within sickWindow of now.
func recentRestarts(ts []time.Time, now time.Time) []time.Time {
	n := 0
	for _, t := range ts {
		if now.Sub(t) <= sickWindow {
			ts[n] = t
			n++
		}
	}
	return ts[:n]
}

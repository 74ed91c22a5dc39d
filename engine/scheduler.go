package engine

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/filc2/filc2/proofs/groth16"
)

// The scheduler: which partition runs next, and what happens when one
// partition or a whole job ends. Everything here runs under e.mu; waiting is
// done outside it on e.changed (take its channel, look, then block).

// nextSynthesis blocks until a partition may be synthesised — the first in
// the engine's order whose circuit is resident and whose bytes fit in the
// budget — and returns it with its bytes reserved. A critical lane's worker
// takes only critical jobs' partitions.
func (e *Engine) nextSynthesis(critical bool) (*partition, error) {
	for {
		ch := e.changed.wait()
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			return nil, ErrClosed
		}
		p, wake := e.dispatchLocked(critical)
		e.mu.Unlock()
		if p != nil {
			return p, nil
		}
		if err := e.sleep(ch, wake); err != nil {
			return nil, err
		}
	}
}

// sleep waits for a broadcast on ch, until wake (if not zero), or for Close.
func (e *Engine) sleep(ch <-chan struct{}, wake time.Time) error {
	var timer <-chan time.Time
	if !wake.IsZero() {
		t := time.NewTimer(time.Until(wake))
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-ch:
	case <-timer:
	case <-e.ctx.Done():
		return ErrClosed
	}
	return nil
}

// dispatchLocked takes the next partition of the first job in the queue, or
// returns nil (and when to look again, if a timer should wake the caller).
// It never skips ahead: while the first job waits for its circuit or for
// memory, no later job starts, so the budget goes to jobs in order and a big
// partition is never starved by small ones. Only critical jobs may take the
// budget's critical reserve; with critical set only they are taken at all.
func (e *Engine) dispatchLocked(critical bool) (*partition, time.Time) {
	if p := e.takeResynthLocked(critical); p != nil {
		e.synthesizing++
		return p, time.Time{}
	}
	for e.queue.Len() > 0 {
		j := e.queue[0]
		if j.state.Final() {
			heap.Pop(&e.queue)
			continue
		}
		if critical && j.prio < PriorityCritical {
			return nil, time.Time{}
		}
		if e.rampHoldsLocked(j) {
			return nil, time.Time{} // a broadcast comes when a synthesis ends
		}
		keep := int64(e.cfg.Memory.CriticalReserve)
		if j.prio >= PriorityCritical {
			keep = 0
		}
		if j.res != nil {
			if st, _ := e.res.state(j.res); st != residentReady {
				j.res = nil // evicted between two of its partitions
			}
		}
		if j.res == nil {
			rc := e.res.lookup(j.spec.key())
			if rc == nil {
				total := e.budget.status().Budget
				if j.circuitEst > total {
					e.finishLocked(j, JobFailed, &BudgetError{Job: j.id, Circuit: j.circuitEst, Budget: total})
					continue
				}
				if e.res.startLoad(j.spec, j.circuitEst, keep) {
					return nil, time.Time{} // a broadcast comes when it is loaded
				}
				return nil, e.makeRoomLocked(j.spec.key(), j.circuitEst+keep)
			}
			switch st, err := e.res.state(rc); st {
			case residentLoading:
				return nil, time.Time{}
			case residentFailed:
				e.res.forget(rc)
				e.finishLocked(j, JobFailed, fmt.Errorf("engine: job %s: %w", j.id, err))
				continue
			}
			j.res = rc
		}
		rc := j.res
		pb := rc.circuit.PartitionBytes()
		if total := e.budget.status().Budget; rc.bytes+pb > total {
			e.finishLocked(j, JobFailed, &BudgetError{Job: j.id, Circuit: rc.bytes, Partition: pb, Budget: total})
			continue
		}
		if !e.budget.tryReserveKeeping(pb, keep) {
			return nil, e.makeRoomLocked(rc.key, pb+keep)
		}
		now := time.Now()
		k := j.next
		j.next++
		if j.next == j.n {
			heap.Pop(&e.queue)
		}
		if j.state == JobQueued {
			j.state, j.started = JobRunning, now
			e.queued--
			e.running++
		}
		j.inFlight++
		e.synthesizing++
		e.res.use(rc, j.prio)
		p := &partition{job: j, k: k, bytes: pb, res: rc, in: j.in, heapIndex: -1, avoid: -1}
		p.t = PartitionTiming{Partition: k, GPU: -1, Queue: now.Sub(j.submitted)}
		e.m.observe(StageQueue, p.t.Queue.Seconds())
		e.tl.emit(TimelineEvent{Time: j.submitted, Job: j.id, Partition: k, GPU: -1, Stage: StageQueue, Event: "start"})
		e.tl.emit(TimelineEvent{Time: now, Job: j.id, Partition: k, GPU: -1, Stage: StageQueue, Event: "end"})
		return p, time.Time{}
	}
	return nil, time.Time{}
}

// rampHoldsLocked reports whether Synthesis.Ramp holds j's next partition
// back: as many are in synthesis as are synthesised and waiting for or on a
// GPU, plus one. Critical jobs are never held.
func (e *Engine) rampHoldsLocked(j *job) bool {
	return e.cfg.Synthesis.Ramp && j.prio < PriorityCritical && e.synthesizing >= 1+e.ready.Len()+e.proving
}

// takeResynthLocked takes the first partition to synthesise again (a retry
// whose witness the failed attempt consumed): it holds its bytes and its
// circuit already, so it goes before any new partition.
func (e *Engine) takeResynthLocked(critical bool) *partition {
	for i, p := range e.resynth {
		if critical && p.job.prio < PriorityCritical {
			continue
		}
		e.resynth = append(e.resynth[:i], e.resynth[i+1:]...)
		return p
	}
	return nil
}

// resynthesize puts p back for synthesis (see takeResynthLocked).
func (e *Engine) resynthesize(p *partition) {
	e.mu.Lock()
	if p.job.state.Final() || e.closed {
		e.dropLocked(p, "dropped")
		e.mu.Unlock()
		return
	}
	e.resynth = append(e.resynth, p)
	e.mu.Unlock()
	e.changed.broadcast()
}

// makeRoomLocked is called when need bytes do not fit. If they would fit once
// the partitions in flight are done, it waits for that; only when the resident
// circuits themselves leave too little room does it evict an idle one (not
// keep's). It returns when to look again if a timer must wake the caller.
func (e *Engine) makeRoomLocked(keep circuitKey, need int64) time.Time {
	if e.res.residentBytes()+need <= e.budget.status().Budget {
		return time.Time{}
	}
	_, wake := e.res.evictIdle(keep)
	return wake
}

// pushReady puts a synthesised partition in the GPU queue, waiting while the
// queue is full (a critical job's partition does not wait: the queue's depth
// bounds the memory of normal work, and a critical partition's is reserved);
// a partition whose job ended meanwhile is dropped.
func (e *Engine) pushReady(p *partition) {
	for {
		ch := e.changed.wait()
		e.mu.Lock()
		if p.job.state.Final() || e.closed {
			e.dropLocked(p, "dropped")
			e.mu.Unlock()
			return
		}
		// Past a full queue: a critical partition (its memory is reserved), and
		// one of higher priority than every partition waiting (it goes next
		// anyway; were it to wait, workers held by a prover swap that waits
		// for it would never get it).
		if e.ready.Len() < e.cfg.Queue.GPUQueueDepth || (e.cfg.Queue.CriticalLane && p.job.prio >= PriorityCritical) ||
			p.job.prio > e.ready[0].job.prio {
			p.readyAt = time.Now()
			heap.Push(&e.ready, p)
			e.tl.emit(TimelineEvent{Time: p.readyAt, Job: p.job.id, Partition: p.k, GPU: -1, Stage: StageGPUQueue, Event: "start"})
			e.mu.Unlock()
			e.changed.broadcast()
			return
		}
		e.mu.Unlock()
		if e.sleep(ch, time.Time{}) != nil {
			e.mu.Lock()
			e.dropLocked(p, "dropped")
			e.mu.Unlock()
			return
		}
	}
}

// higherReady reports whether the GPU queue holds a partition of higher
// priority than prio.
func (e *Engine) higherReady(prio Priority) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ready.Len() > 0 && e.ready[0].job.prio > prio
}

// requeue puts back a partition a worker took from the GPU queue and did not
// start (its prover waits for a partition of higher priority to go first).
func (e *Engine) requeue(p *partition) {
	e.mu.Lock()
	if p.job.state.Final() || e.closed {
		e.dropLocked(p, "dropped")
		e.mu.Unlock()
		return
	}
	p.readyAt = time.Now()
	heap.Push(&e.ready, p)
	e.tl.emit(TimelineEvent{Time: p.readyAt, Job: p.job.id, Partition: p.k, GPU: -1, Stage: StageGPUQueue, Event: "start"})
	e.mu.Unlock()
	e.changed.broadcast()
}

// nextReady blocks until the GPU queue has a partition for gpu and takes
// the first; a critical lane's worker takes only critical jobs' partitions,
// a quarantined GPU's none, and a retry is left to the other GPUs while one
// of them is in service.
func (e *Engine) nextReady(critical bool, gpu int) (*partition, error) {
	for {
		ch := e.changed.wait()
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			return nil, ErrClosed
		}
		if p := e.takeReadyLocked(critical, gpu); p != nil {
			e.proving++
			e.mu.Unlock()
			e.changed.broadcast() // room in the GPU queue
			return p, nil
		}
		e.mu.Unlock()
		if err := e.sleep(ch, time.Time{}); err != nil {
			return nil, err
		}
	}
}

// takeReadyLocked pops the first partition of the GPU queue that gpu's
// worker may take (see nextReady), dropping those whose job ended.
func (e *Engine) takeReadyLocked(critical bool, gpu int) *partition {
	if !e.health.inService(gpu) {
		return nil
	}
	var skipped []*partition
	defer func() {
		for _, q := range skipped {
			heap.Push(&e.ready, q)
		}
	}()
	for e.ready.Len() > 0 {
		if critical && e.ready[0].job.prio < PriorityCritical {
			return nil
		}
		p := heap.Pop(&e.ready).(*partition)
		switch {
		case p.job.state.Final():
			e.dropLocked(p, "dropped")
		case p.avoid == gpu && e.health.othersInService(gpu):
			skipped = append(skipped, p)
		default:
			return p
		}
	}
	return nil
}

// completePartition records a proof; the last one finishes the job. The
// proof has passed Circuit.Verify (p.t.Verified), unless the engine is in
// synthetic mode: then it is counted as unverified and the job's proof bytes
// are withheld. Outside synthetic mode an unverified proof fails the job here
// too, whatever the caller did: the engine hands out no proof that did not
// verify.
func (e *Engine) completePartition(p *partition, proof *groth16.Proof) {
	if !p.t.Verified && !e.synthetic {
		e.failPartition(p, StageVerify, errors.New("engine: a proof that was not verified reached completion; nothing was returned"))
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	j := p.job
	outcome := "dropped"
	if !j.state.Final() {
		outcome = "proved"
		if p.t.Verified {
			j.proofs[p.k] = *proof
		} else {
			outcome = "unverified"
			j.unverified++
			e.totals.PartitionsUnverified++
		}
		p.t.Completed = time.Now()
		j.timings[p.k] = p.t
		j.proved++
		e.totals.PartitionsProved++
		if j.proved == j.n {
			if j.unverified == 0 {
				j.encoded = groth16.EncodeProofs(j.proofs)
			}
			j.proofs = nil
			e.finishLocked(j, JobSucceeded, nil)
		}
	}
	e.dropLocked(p, outcome)
}

// failPartition fails p's job with p named, unless the job already ended (or
// its context did: then the context's cause decides how it ends).
func (e *Engine) failPartition(p *partition, s Stage, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	j := p.job
	outcome := "dropped"
	if !j.state.Final() {
		if j.ctx.Err() != nil {
			e.contextEndedLocked(j)
		} else {
			outcome = "failed"
			e.totals.PartitionsFailed++
			pe := &PartitionError{Job: j.id, Partition: p.k, Stage: s, Err: err}
			if len(p.attempts) > 1 {
				pe.Attempts = p.attempts
			}
			e.finishLocked(j, JobFailed, pe)
		}
	}
	e.dropLocked(p, outcome)
}

// dropLocked returns p's bytes to the budget and its reference to the
// circuit; it is idempotent.
func (e *Engine) dropLocked(p *partition, outcome string) {
	if p.dropped {
		return
	}
	p.dropped = true
	e.budget.release(p.bytes)
	if p.w != nil {
		if rc, ok := p.res.circuit.(WitnessRecycler); ok {
			rc.Recycle(p.w) // dropped before Prepare: nobody else holds it
		}
	}
	e.res.unuse(p.res, p.job.prio)
	p.w = nil
	p.job.inFlight--
	e.m.partitions.WithLabelValues(outcome).Inc()
}

// contextEndedLocked ends a job whose context ended: its deadline, Close, or
// a cancellation.
func (e *Engine) contextEndedLocked(j *job) {
	if j.state.Final() {
		return
	}
	switch cause := context.Cause(j.ctx); {
	case errors.Is(cause, errDeadline):
		e.finishLocked(j, JobExpired, &DeadlineError{Job: j.id, Deadline: j.deadline, Done: j.proved, Of: j.n})
	case errors.Is(cause, ErrClosed):
		e.finishLocked(j, JobCanceled, ErrClosed)
	default:
		e.finishLocked(j, JobCanceled, cause)
	}
}

// finishLocked ends job j in a final state: out of the queues, its queued
// partitions dropped (their memory back to the budget), its running ones
// told to stop, its waiters woken.
func (e *Engine) finishLocked(j *job, state JobState, err error) {
	if j.state.Final() {
		return
	}
	switch j.state {
	case JobQueued:
		e.queued--
	case JobRunning:
		e.running--
	}
	j.state, j.err, j.finished = state, err, time.Now()
	e.queue.remove(j)
	for _, p := range e.ready.removeJob(j) {
		e.dropLocked(p, "dropped")
	}
	keep := e.resynth[:0]
	for _, p := range e.resynth {
		if p.job == j {
			e.dropLocked(p, "dropped")
		} else {
			keep = append(keep, p)
		}
	}
	e.resynth = keep
	j.in = nil
	j.stop()
	j.cancel(errFinished)
	close(j.done)
	e.finished = append(e.finished, j)
	switch state {
	case JobSucceeded:
		e.totals.Succeeded++
	case JobFailed:
		e.totals.Failed++
	case JobCanceled:
		e.totals.Canceled++
	case JobExpired:
		e.totals.Expired++
	}
	e.m.finished.WithLabelValues(state.String()).Inc()
	if err != nil {
		e.log.Warn("job ended", "job", j.id, "state", state, "err", err)
	} else {
		e.log.Info("job ended", "job", j.id, "state", state, "time", j.finished.Sub(j.submitted))
	}
	e.tl.emit(TimelineEvent{Time: j.finished, Job: j.id, Partition: -1, GPU: -1, Stage: StageJob, Event: "end", Detail: state.String(), Error: errString(err)})
	j.res = nil
	e.changed.broadcast()
}

// forgetLocked drops finished jobs older than queue.retain_finished.
func (e *Engine) forgetLocked() {
	cutoff := time.Now().Add(-e.cfg.Queue.RetainFinished)
	for len(e.finished) > 0 && !e.finished[0].finished.After(cutoff) {
		j := e.finished[0]
		e.finished[0] = nil
		e.finished = e.finished[1:]
		if e.jobs[j.id] == j {
			delete(e.jobs, j.id)
		}
	}
}

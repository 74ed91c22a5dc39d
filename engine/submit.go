package engine

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/groth16"
)

// Submit queues a SealCommit2 and returns its job id. It decodes the C1 (if
// given as bytes) and checks it (structure, vanilla proofs) before queueing,
// so a bad C1 is the caller's error here (ErrBadRequest), not a failed job.
// Submitting a live or succeeded job's id again returns the same job; with
// another C1 it is ErrIDConflict.
func (e *Engine) Submit(ctx context.Context, req Request) (JobID, error) {
	if req.ID == "" {
		req.ID = uuid.NewString()
	}
	id := JobID(req.ID)
	c, p, err := decodeRequest(&req)
	if err != nil {
		return "", fmt.Errorf("%w: request %s: %w", ErrBadRequest, id, err)
	}
	fp := fingerprintOf(c)
	e.mu.Lock()
	closed := e.closed
	same, err := e.sameJobLocked(id, fp)
	e.mu.Unlock()
	if closed {
		return "", ErrClosed
	}
	if same || err != nil {
		return id, err
	}
	if err := e.backend.CheckC1(ctx, p, c); err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return "", fmt.Errorf("%w: request %s: %w", ErrBadRequest, id, err)
	}
	est, err := e.backend.CircuitBytes(p)
	if err != nil {
		return "", fmt.Errorf("engine: request %s: %w", id, err)
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return "", ErrClosed
	}
	if same, err := e.sameJobLocked(id, fp); same || err != nil {
		return id, err
	}
	e.forgetLocked()
	if e.queued >= e.cfg.Queue.MaxQueued {
		return "", fmt.Errorf("%w: %d jobs waiting (queue.max_queued)", ErrQueueFull, e.queued)
	}
	if err := e.fitsLocked(id, p, est); err != nil {
		return "", err
	}
	j := e.newJobLocked(id, p, c, fp, req, est)
	e.jobs[id] = j
	heap.Push(&e.queue, j)
	e.queued++
	e.totals.Submitted++
	e.m.submitted.Inc()
	e.tl.emit(TimelineEvent{Job: id, Partition: -1, GPU: -1, Stage: StageJob, Event: "start", Detail: p.Name})
	e.changed.broadcast()
	return id, nil
}

// decodeRequest returns the request's C1 and proof type after the checks
// that need no backend.
func decodeRequest(req *Request) (*c1.Commit1Out, abi.SealProof, error) {
	c := req.Commit1
	switch {
	case c != nil && req.C1 != nil:
		return nil, abi.SealProof{}, errors.New("both C1 bytes and a decoded C1: set one")
	case c == nil && req.C1 == nil:
		return nil, abi.SealProof{}, errors.New("no C1 output")
	case c == nil:
		var err error
		if c, err = c1.Decode(req.C1); err != nil {
			return nil, abi.SealProof{}, err
		}
	}
	p, err := c.ProofType()
	if err != nil {
		return nil, p, err
	}
	if req.ProofType.Name != "" && req.ProofType.Name != p.Name {
		return nil, p, fmt.Errorf("the request is for %s but its C1 output is %s", req.ProofType.Name, p.Name)
	}
	if n := len(c.VanillaProofs.Partitions); n != p.Partitions {
		return nil, p, fmt.Errorf("the C1 output has %d partitions, %s has %d", n, p.Name, p.Partitions)
	}
	return c, p, nil
}

// sameJobLocked reports whether id names a job a resubmission returns: one
// not failed, canceled or expired. Another C1 under that id is ErrIDConflict.
func (e *Engine) sameJobLocked(id JobID, fp [32]byte) (bool, error) {
	j := e.jobs[id]
	if j == nil || j.state == JobFailed || j.state == JobCanceled || j.state == JobExpired {
		return false, nil
	}
	if j.fingerprint != fp {
		return false, fmt.Errorf("%w: job %s is for another C1 output (%s, replica %x)", ErrIDConflict, id, j.proof.Name, j.fingerprint[:4])
	}
	return true, nil
}

// fitsLocked refuses a job that could never fit in the budget.
func (e *Engine) fitsLocked(id JobID, p abi.SealProof, est int64) error {
	total := e.budget.status().Budget
	if rc := e.res.lookup(uint64(p.SectorSize)); rc != nil {
		if st, _ := e.res.state(rc); st == residentReady {
			if pb := rc.circuit.PartitionBytes(); rc.bytes+pb > total {
				return &BudgetError{Job: id, Circuit: rc.bytes, Partition: pb, Budget: total}
			}
		}
		return nil
	}
	if est > total {
		return &BudgetError{Job: id, Circuit: est, Budget: total}
	}
	return nil
}

// errDeadline is the cause of a job context that passed its deadline.
var errDeadline = errors.New("engine: deadline")

// errFinished is the cause of a job context canceled because the job ended.
var errFinished = errors.New("engine: job finished")

func (e *Engine) newJobLocked(id JobID, p abi.SealProof, c *c1.Commit1Out, fp [32]byte, req Request, est int64) *job {
	now := time.Now()
	e.seq++
	j := &job{id: id, seq: e.seq, prio: req.Priority, proof: p, c1: c, fingerprint: fp, n: p.Partitions,
		circuitEst: est, state: JobQueued, proofs: make([]groth16.Proof, p.Partitions),
		timings: make([]PartitionTiming, p.Partitions), submitted: now, done: make(chan struct{}), heapIndex: -1,
		synthetic: e.synthetic}
	j.deadline = req.Deadline
	if j.deadline.IsZero() && e.cfg.Queue.DefaultTimeout > 0 {
		j.deadline = now.Add(e.cfg.Queue.DefaultTimeout)
	}
	ctx, cancel := context.WithCancelCause(e.ctx)
	j.ctx, j.cancel = ctx, cancel
	if !j.deadline.IsZero() {
		dctx, dcancel := context.WithDeadlineCause(ctx, j.deadline, errDeadline)
		j.ctx = dctx
		j.cancel = func(cause error) { cancel(cause); dcancel() }
	}
	j.stop = context.AfterFunc(j.ctx, func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.contextEndedLocked(j)
	})
	return j
}

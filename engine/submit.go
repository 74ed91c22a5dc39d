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

// Submit queues a job and returns its id. It decodes a C1 (if given as
// bytes) and checks the input (structure, vanilla proofs) before queueing,
// so a bad input is the caller's error here (ErrBadRequest), not a failed
// job. Submitting a live or succeeded job's id again returns the same job;
// with another input (another fingerprint) it is ErrIDConflict.
func (e *Engine) Submit(ctx context.Context, req Request) (JobID, error) {
	if req.ID == "" {
		req.ID = uuid.NewString()
	}
	id := JobID(req.ID)
	in, err := decodeRequest(&req)
	if err != nil {
		return "", fmt.Errorf("%w: request %s: %w", ErrBadRequest, id, err)
	}
	fp := in.Fingerprint()
	spec := in.Circuit()
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
	if err := e.backend.Check(e.gated(ctx, jobPriority(req, in)), in); err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return "", fmt.Errorf("%w: request %s: %w", ErrBadRequest, id, err)
	}
	est, err := e.backend.CircuitBytes(spec)
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
	if err := e.fitsLocked(id, spec, est); err != nil {
		return "", err
	}
	j := e.newJobLocked(id, in, fp, req, est)
	e.jobs[id] = j
	heap.Push(&e.queue, j)
	e.queued++
	e.totals.Submitted++
	e.m.submitted.Inc()
	e.tl.emit(TimelineEvent{Job: id, Partition: -1, GPU: -1, Stage: StageJob, Event: "start", Detail: spec.Name})
	e.changed.broadcast()
	return id, nil
}

// decodeRequest returns the request's input after the checks that need no
// backend.
func decodeRequest(req *Request) (Input, error) {
	set := 0
	for _, ok := range []bool{req.C1 != nil, req.Commit1 != nil, req.Input != nil} {
		if ok {
			set++
		}
	}
	switch {
	case set > 1:
		return nil, errors.New("more than one of C1 bytes, a decoded C1 and an input: set one")
	case set == 0:
		return nil, errors.New("no input (no C1 output)")
	case req.Input != nil:
		if req.ProofType.Name != "" && req.ProofType.Name != req.Input.Circuit().Name {
			return nil, fmt.Errorf("the request is for %s but its input is %s", req.ProofType.Name, req.Input.Circuit().Name)
		}
		if pr, ok := req.Input.(*PoRep); ok {
			return checkPoRep(req.ProofType, pr.C1)
		}
		return req.Input, nil
	}
	c := req.Commit1
	if c == nil {
		var err error
		if c, err = c1.Decode(req.C1); err != nil {
			return nil, err
		}
	}
	return checkPoRep(req.ProofType, c)
}

// checkPoRep makes a C1 output a PoRep input, checking its proof type and
// partition count.
func checkPoRep(want abi.SealProof, c *c1.Commit1Out) (*PoRep, error) {
	if c == nil {
		return nil, errors.New("a PoRep input without a C1 output")
	}
	p, err := c.ProofType()
	if err != nil {
		return nil, err
	}
	if want.Name != "" && want.Name != p.Name {
		return nil, fmt.Errorf("the request is for %s but its C1 output is %s", want.Name, p.Name)
	}
	if n := len(c.VanillaProofs.Partitions); n != p.Partitions {
		return nil, fmt.Errorf("the C1 output has %d partitions, %s has %d", n, p.Name, p.Partitions)
	}
	return &PoRep{Proof: p, C1: c}, nil
}

// sameJobLocked reports whether id names a job a resubmission returns: one
// not failed, canceled or expired. Another input under that id is
// ErrIDConflict.
func (e *Engine) sameJobLocked(id JobID, fp [32]byte) (bool, error) {
	j := e.jobs[id]
	if j == nil || j.state == JobFailed || j.state == JobCanceled || j.state == JobExpired {
		return false, nil
	}
	if j.fingerprint != fp {
		return false, fmt.Errorf("%w: job %s is for another input (%s, fingerprint %x)", ErrIDConflict, id, j.name, j.fingerprint[:4])
	}
	return true, nil
}

// fitsLocked refuses a job that could never fit in the budget.
func (e *Engine) fitsLocked(id JobID, spec CircuitSpec, est int64) error {
	total := e.budget.status().Budget
	if rc := e.res.lookup(spec.key()); rc != nil {
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

// jobPriority is the priority a job of req runs at: the request's, at least its kind's.
func jobPriority(req Request, in Input) Priority { return max(req.Priority, in.Kind().Priority()) }

func (e *Engine) newJobLocked(id JobID, in Input, fp [32]byte, req Request, est int64) *job {
	now := time.Now()
	e.seq++
	n, spec := in.Partitions(), in.Circuit()
	j := &job{id: id, seq: e.seq, prio: jobPriority(req, in), kind: in.Kind(), name: spec.Name,
		spec: spec, in: in, fingerprint: fp, n: n,
		circuitEst: est, state: JobQueued, proofs: make([]groth16.Proof, n),
		timings: make([]PartitionTiming, n), submitted: now, done: make(chan struct{}), heapIndex: -1,
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

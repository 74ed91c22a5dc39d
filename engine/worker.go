package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/filc2/filc2/internal/fault"
	"github.com/filc2/filc2/internal/preempt"

	"github.com/filc2/filc2/proofs/groth16"
)

// workerState is what one worker is doing, for Status (guarded by e.mu).
type workerState struct {
	name      string
	gpu       int // −1 for synthesis workers
	stage     Stage
	job       JobID
	partition int
	since     time.Time
}

// synthesisWorker synthesises partitions in the engine's order, each with its
// bytes reserved before it starts, and hands them to the GPU queue; a
// critical lane's worker (critical set) only critical jobs' partitions.
func (e *Engine) synthesisWorker(w *workerState, critical bool) {
	defer e.wg.Done()
	for {
		p, err := e.nextSynthesis(critical)
		if err != nil {
			return
		}
		e.synthesize(w, p)
		e.setIdle(w)
	}
}

func (e *Engine) synthesize(w *workerState, p *partition) {
	j := p.job
	err := e.stage(w, p, StageSynthesis, &p.t.Synthesis, func() (err error) {
		p.w, err = p.res.circuit.Synthesize(e.gated(j.ctx, j.prio), p.in, p.k)
		return err
	})
	e.mu.Lock()
	e.synthesizing--
	e.mu.Unlock()
	e.changed.broadcast() // a held partition may start (Synthesis.Ramp)
	if err != nil {
		e.retryOrFail(p, -1, StageSynthesis, err)
		return
	}
	e.pushReady(p)
}

// gpuWorker proves partitions from the GPU queue on its GPU, holding the
// GPU's lock only around the kernel section; a critical lane's worker
// (critical set) only critical jobs' partitions.
func (e *Engine) gpuWorker(w *workerState, critical bool) {
	defer e.wg.Done()
	lock := e.locks[w.gpu]
	for {
		p, err := e.nextReady(critical, w.gpu)
		if err != nil {
			return
		}
		e.prove(w, lock, p)
		e.mu.Lock()
		e.proving--
		e.mu.Unlock()
		e.setIdle(w)
	}
}

// prove runs one partition's GPU stages: prover → Prepare → lock → RunGPU →
// unlock → Finish → verify. A stage that fails (a proof that does not verify
// too, except in synthetic mode) retries the partition or, its retries
// spent, fails the job naming every attempt (retryOrFail); a job that ended
// stops the partition at the next stage.
func (e *Engine) prove(w *workerState, lock *gpuLock, p *partition) {
	j := p.job
	p.t.GPU, p.t.Worker = w.gpu, w.name
	p.t.GPUQueue = time.Since(p.readyAt)
	e.m.observe(StageGPUQueue, p.t.GPUQueue.Seconds())
	e.tl.emit(TimelineEvent{Job: j.id, Partition: p.k, GPU: -1, Stage: StageGPUQueue, Event: "end"})

	proof, s, err := e.attempt(w, lock, p)
	switch {
	case errors.Is(err, errYield):
		e.requeue(p)
	case err != nil:
		e.retryOrFail(p, w.gpu, s, err)
	default:
		// A proof that failed verification on a GPU and then verified counts
		// against that GPU only now: one that fails everywhere is the
		// parameters' or the input's fault, not a GPU's.
		for _, a := range p.attempts {
			if a.Stage == StageVerify && a.GPU >= 0 {
				e.health.failure(a.GPU, "verify", a.Err)
			}
		}
		e.completePartition(p, proof)
	}
}

// attempt is one try at p's GPU stages on w's GPU. It returns the verified
// proof (unverified in synthetic mode), or the stage that failed and why.
func (e *Engine) attempt(w *workerState, lock *gpuLock, p *partition) (*groth16.Proof, Stage, error) {
	j := p.job
	ctx := fault.With(j.ctx, e.faults)
	var pr PartitionProver
	yield := func() bool { return e.higherReady(j.prio) }
	if err := e.stage(w, p, StageLoad, &p.t.Load, func() (err error) {
		if e.faults.Hit(fault.Alloc) {
			return fmt.Errorf("%w: %w", ErrDeviceMemory, fault.Errorf(fault.Alloc, "a device allocation for job %s partition %d on GPU %d", j.id, p.k, w.gpu))
		}
		pr, err = e.res.acquireProver(ctx, p.res, w.gpu, yield)
		return err
	}); errors.Is(err, errYield) {
		return nil, StageLoad, err
	} else if err != nil {
		return nil, StageLoad, e.deviceMemoryHint(err, p, w.gpu)
	}
	defer e.res.releaseProver(p.res, w.gpu)
	aware, _ := pr.(fault.Aware)

	var prep Prepared
	wit := p.w
	if err := e.stage(w, p, StagePrepare, &p.t.Prepare, func() (err error) {
		prep, err = pr.Prepare(ctx, wit)
		return err
	}); err != nil {
		p.w = nil // Prepare owns it, failed or not
		return nil, StagePrepare, err
	}
	p.w = nil // the prover owns the witness now
	if wc, ok := pr.(WitnessCopier); ok && wc.CopiesWitness() {
		if rc, ok := p.res.circuit.(WitnessRecycler); ok {
			rc.Recycle(wit) // Prepare copied it: its storage can hold the next witness
		}
	}

	holder := lockHolder{worker: w.name, job: j.id, partition: p.k, prio: j.prio}
	if err := e.stage(w, p, StageLockWait, &p.t.LockWait, func() error { return lock.lockAs(ctx, holder) }); err != nil {
		release(prep)
		return nil, StageLockWait, err
	}
	var raw Raw
	ran := false
	err := e.stage(w, p, StageGPU, &p.t.GPUTime, func() (err error) {
		if e.faults.Hit(fault.Lost) {
			e.health.injectLoss(w.gpu)
		}
		if e.health.injectedLost(w.gpu) {
			return fmt.Errorf("%w: %w", ErrDeviceLost, fault.Errorf(fault.Lost, "GPU %d", w.gpu))
		}
		ran = true
		raw, err = pr.RunGPU(e.preemptible(ctx, lock, p, holder), prep)
		if err == nil && (aware == nil || !aware.HitsFault(fault.Section)) && e.faults.Hit(fault.Section) {
			release(raw)
			raw, err = nil, fault.Errorf(fault.Section, "the kernel section of job %s partition %d on GPU %d", j.id, p.k, w.gpu)
		}
		return err
	})
	p.t.GPUTime -= p.t.Lent
	lock.unlock()
	if err != nil {
		if !ran {
			release(prep)
		}
		return nil, StageGPU, e.deviceMemoryHint(err, p, w.gpu)
	}
	if ks, ok := raw.(interface {
		KernelSplit() ([]string, []time.Duration)
	}); ok {
		p.t.Kernels = splitTimes(p.t.Kernels[:0], ks.KernelSplit)
	}
	if ps, ok := raw.(interface {
		PrepareSplit() ([]string, []time.Duration)
	}); ok {
		p.t.PrepareSteps = splitTimes(p.t.PrepareSteps[:0], ps.PrepareSplit)
	}

	var proof *groth16.Proof
	ran = false
	if err := e.stage(w, p, StageFinish, &p.t.Finish, func() (err error) {
		ran = true
		proof, err = pr.Finish(ctx, raw)
		return err
	}); err != nil {
		if !ran {
			release(raw)
		}
		return nil, StageFinish, err
	}
	if e.faults.Hit(fault.Corrupt) {
		bad := *proof
		bad.A.Neg(&bad.A) // what a flipped bit in a kernel would do: a proof that does not verify
		proof = &bad
	}
	err = e.stage(w, p, StageVerify, &p.t.Verify, func() error {
		return p.res.circuit.Verify(p.in, p.k, proof)
	})
	switch {
	case err == nil:
		p.t.Verified = true
	case e.synthetic && ctx.Err() == nil:
		// A synthetic backend's proofs do not verify (random C1 and key): the
		// partition counts as unverified and its job returns no proof bytes.
	default:
		return nil, StageVerify, fmt.Errorf("our own proof does not verify (%w): the parameters do not match the circuit, or the %s backend or GPU is broken; it was not returned", err, e.backend.Name())
	}
	return proof, "", nil
}

// retryOrFail handles a failed attempt of p on gpu: a job that ended, a
// failure no retry can mend (an input the circuit refuses, a GPU too small
// for the circuit) or spent retries fail the job (failPartition, naming
// every attempt); else the failure is charged to the GPU's health when it is
// the GPU's, and p goes back — to the GPU queue when it still has its
// witness, else to synthesis — preferring another GPU.
func (e *Engine) retryOrFail(p *partition, gpu int, s Stage, err error) {
	p.attempts = append(p.attempts, Attempt{GPU: gpu, Stage: s, Err: err})
	if p.job.ctx.Err() != nil {
		e.failPartition(p, s, err)
		return
	}
	cause, gpuFault := retryCause(s, err)
	if gpuFault {
		e.health.failure(gpu, cause, err)
	}
	if cause == "" || len(p.attempts) > e.cfg.Recovery.PartitionRetries ||
		(errors.Is(err, ErrDeviceMemory) && !errors.Is(err, fault.ErrInjected) && !e.health.othersInService(gpu)) {
		e.failPartition(p, s, err)
		return
	}
	e.m.retries.WithLabelValues(cause).Inc()
	e.log.Warn("retrying partition", "job", p.job.id, "partition", p.k, "gpu", gpu, "stage", s, "cause", cause,
		"attempt", len(p.attempts), "of", e.cfg.Recovery.PartitionRetries+1, "err", err)
	e.tl.emit(TimelineEvent{Job: p.job.id, Partition: p.k, GPU: gpu, Stage: s, Event: "retry", Detail: cause, Error: errString(err)})
	e.mu.Lock()
	e.totals.PartitionsRetried++
	p.t.Retries++
	p.avoid = gpu
	p.t.Verified, p.t.Lent, p.t.Preempted = false, 0, 0
	e.mu.Unlock()
	if p.w != nil {
		e.requeue(p)
		return
	}
	e.resynthesize(p)
}

// retryCause names what failed for the retry metric ("" when a retry cannot
// help) and reports whether it counts against the GPU's health at once: a
// lost device, a failed kernel section or prover load (not for want of
// device memory, which is no sickness). A proof that does not verify counts
// once the partition verifies elsewhere (see prove).
func retryCause(s Stage, err error) (cause string, gpuFault bool) {
	switch {
	case errors.Is(err, ErrDeviceLost):
		return "lost", true
	case errors.Is(err, ErrBadRequest), errors.Is(err, ErrClosed):
		return "", false
	}
	oom := errors.Is(err, ErrDeviceMemory)
	switch s {
	case StageGPU:
		return "section", !oom
	case StageVerify:
		return "verify", false
	case StageLoad:
		return "load", !oom
	case StagePrepare:
		return "prepare", false
	case StageFinish:
		return "finish", false
	}
	return "", false
}

// deviceMemoryHint adds to an out-of-device-memory error the circuits
// resident beside p's on that GPU and what to do: their provers were busy
// (an idle one would have been evicted for p's), so a circuit that needs
// the whole GPU while another keeps it busy needs a GPU of its own.
func (e *Engine) deviceMemoryHint(err error, p *partition, gpu int) error {
	if !errors.Is(err, ErrDeviceMemory) {
		return err
	}
	var others []string
	for _, name := range e.res.onGPU(gpu) {
		if name != p.res.spec.Name {
			others = append(others, name)
		}
	}
	if len(others) == 0 {
		return fmt.Errorf("%w; the %s circuit alone does not fit on GPU %d", err, p.res.spec.Name, gpu)
	}
	return fmt.Errorf("%w; the %s circuit does not fit on GPU %d beside %s busy there: give it a GPU of its own (another filc2 with --gpus), see docs/curio.md",
		err, p.res.spec.Name, gpu, strings.Join(others, ", "))
}

// preemptible returns ctx with the preemption point of p's kernel section
// (preempt.Point, which the backend calls between kernels): while a
// critical job waits for the lock, a job of lower priority hands it over
// there and takes it back after (ahead of the normal waiters), so that a
// WinningPoSt waits for one kernel, not a whole 32GiB section. The time
// lent is counted in PartitionTiming.Lent, not in the section's.
func (e *Engine) preemptible(ctx context.Context, lock *gpuLock, p *partition, h lockHolder) context.Context {
	if !e.cfg.Queue.CriticalLane || p.job.prio >= PriorityCritical {
		return ctx
	}
	resume := h
	resume.prio = PriorityCritical // back right after the critical jobs waiting now
	return preempt.With(ctx, func() {
		if !lock.criticalWaiting() {
			return
		}
		t0 := time.Now()
		lock.unlock()
		_ = lock.lockAs(context.Background(), resume) // the section must be held again before RunGPU goes on
		p.t.Lent += time.Since(t0)
		p.t.Preempted++
	})
}

// stage runs one stage of p on worker w: skipped if p's job has ended, else
// timed into *d, observed in the metrics and written to the timeline.
func (e *Engine) stage(w *workerState, p *partition, s Stage, d *time.Duration, f func() error) error {
	if err := p.job.ctx.Err(); err != nil {
		return err
	}
	t0 := time.Now()
	e.mu.Lock()
	w.stage, w.job, w.partition, w.since = s, p.job.id, p.k, t0
	e.mu.Unlock()
	e.tl.emit(TimelineEvent{Time: t0, Job: p.job.id, Partition: p.k, GPU: w.gpu, Worker: w.name, Stage: s, Event: "start"})
	err := f()
	*d = time.Since(t0)
	e.m.observe(s, d.Seconds())
	e.tl.emit(TimelineEvent{Job: p.job.id, Partition: p.k, GPU: w.gpu, Worker: w.name, Stage: s, Event: "end", Error: errString(err)})
	return err
}

func (e *Engine) setIdle(w *workerState) {
	e.mu.Lock()
	defer e.mu.Unlock()
	w.stage, w.job, w.partition, w.since = "", "", 0, time.Now()
}

// release frees a Prepared or Raw the engine drops without passing it on,
// if it has a Release method.
func release(x any) {
	if r, ok := x.(interface{ Release() }); ok {
		r.Release()
	}
}

// splitTimes appends a backend's named steps (KernelSplit, PrepareSplit) to dst.
func splitTimes(dst []KernelTime, split func() ([]string, []time.Duration)) []KernelTime {
	names, ds := split()
	for i := range min(len(names), len(ds)) {
		dst = append(dst, KernelTime{Name: names[i], Time: ds[i]})
	}
	return dst
}

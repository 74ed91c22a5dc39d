package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

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
		p.w, err = p.res.circuit.Synthesize(j.ctx, p.in, p.k)
		return err
	})
	if err != nil {
		e.failPartition(p, StageSynthesis, err)
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
		p, err := e.nextReady(critical)
		if err != nil {
			return
		}
		e.prove(w, lock, p)
		e.setIdle(w)
	}
}

// prove runs one partition's GPU stages: prover → Prepare → lock → RunGPU →
// unlock → Finish → verify. A stage that fails fails the job naming the
// partition (a proof that does not verify too, except in synthetic mode); a
// job that ended stops the partition at the next stage.
func (e *Engine) prove(w *workerState, lock *gpuLock, p *partition) {
	j, ctx := p.job, p.job.ctx
	p.t.GPU, p.t.Worker = w.gpu, w.name
	p.t.GPUQueue = time.Since(p.readyAt)
	e.m.observe(StageGPUQueue, p.t.GPUQueue.Seconds())
	e.tl.emit(TimelineEvent{Job: j.id, Partition: p.k, GPU: -1, Stage: StageGPUQueue, Event: "end"})

	var pr PartitionProver
	yield := func() bool { return e.higherReady(j.prio) }
	if err := e.stage(w, p, StageLoad, &p.t.Load, func() (err error) {
		pr, err = e.res.acquireProver(ctx, p.res, w.gpu, yield)
		return err
	}); errors.Is(err, errYield) {
		e.requeue(p)
		return
	} else if err != nil {
		e.failPartition(p, StageLoad, e.deviceMemoryHint(err, p, w.gpu))
		return
	}
	defer e.res.releaseProver(p.res, w.gpu)

	var prep Prepared
	wit := p.w
	if err := e.stage(w, p, StagePrepare, &p.t.Prepare, func() (err error) {
		prep, err = pr.Prepare(ctx, wit)
		return err
	}); err != nil {
		e.failPartition(p, StagePrepare, err)
		return
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
		e.failPartition(p, StageLockWait, err)
		return
	}
	var raw Raw
	ran := false
	err := e.stage(w, p, StageGPU, &p.t.GPUTime, func() (err error) {
		ran = true
		raw, err = pr.RunGPU(e.preemptible(ctx, lock, p, holder), prep)
		return err
	})
	p.t.GPUTime -= p.t.Lent
	lock.unlock()
	if err != nil {
		if !ran {
			release(prep)
		}
		e.failPartition(p, StageGPU, e.deviceMemoryHint(err, p, w.gpu))
		return
	}
	if ks, ok := raw.(interface {
		KernelSplit() ([]string, []time.Duration)
	}); ok {
		names, ds := ks.KernelSplit()
		for i := range min(len(names), len(ds)) {
			p.t.Kernels = append(p.t.Kernels, KernelTime{Name: names[i], Time: ds[i]})
		}
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
		e.failPartition(p, StageFinish, err)
		return
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
		e.failPartition(p, StageVerify, fmt.Errorf("our own proof does not verify (%w): the parameters do not match the circuit, or the %s backend is broken; nothing was returned", err, e.backend.Name()))
		return
	}
	e.completePartition(p, proof)
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

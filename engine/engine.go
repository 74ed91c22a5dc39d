package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/filc2/filc2/internal/fault"
	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/abi"
)

// Engine runs SealCommit2 jobs over the configured GPUs. Its methods are safe
// for concurrent use. Close it to stop its workers and free its circuits.
type Engine struct {
	cfg       Config // resolved
	backend   Backend
	synthetic bool // backend is synthetic: its proofs do not verify (see Synthetic)
	log       *slog.Logger
	tl        *timeline
	tlFile    io.Closer // the timeline file the engine opened, if any
	m         *metrics
	budget    *budget
	res       *residency
	cpu       *par.Gate // the threads synthesis and input checks share (Synthesis.CPUs)
	locks     map[int]*gpuLock
	changed   *signal // the scheduler's wake-up: submissions, releases, loads, job ends
	health    *health
	faults    *fault.Injector // nil: none injected
	start     time.Time

	ctx    context.Context // ends at Close, with cause ErrClosed
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup // workers and loads

	mu       sync.Mutex
	closed   bool
	seq      uint64
	jobs     map[JobID]*job
	finished []*job // final jobs in the order they ended, for forgetting
	queue    jobQueue
	ready    readyQueue
	resynth  []*partition // retries to synthesise again, first in first out
	queued   int          // jobs in JobQueued
	running  int          // jobs in JobRunning
	// synthesizing counts partitions in synthesis, proving those a GPU
	// worker took from the GPU queue and has not finished (Synthesis.Ramp).
	synthesizing, proving int
	workers               []*workerState
	totals                Totals
}

// Option configures New beyond the Config.
type Option func(*options)

type options struct {
	timeline io.Writer
	keep     *int
	log      *slog.Logger
	faults   *fault.Injector
}

// WithTimeline writes the TIMELINE event log to w (overriding timeline.path).
func WithTimeline(w io.Writer) Option { return func(o *options) { o.timeline = w } }

// WithTimelineMemory keeps the last n TIMELINE events in memory for
// TimelineEvents and TimelineSVG (default DefaultTimelineMemory; 0 keeps
// none). It is independent of the log WithTimeline and timeline.path write.
func WithTimelineMemory(n int) Option { return func(o *options) { o.keep = &n } }

// WithFaults injects the faults of in (tests and soak runs only; see
// internal/fault): failed kernel sections, corrupted proofs, failed device
// allocations, lost devices. The engine recovers from them as from real ones.
func WithFaults(in *fault.Injector) Option { return func(o *options) { o.faults = in } }

// WithLogger logs the engine's events to l (default: slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// New starts an engine on backend with cfg: its synthesis workers, and
// cfg.GPU.WorkersPerGPU workers on each GPU. Circuits load when the first job
// needs them (or on Preload).
func New(cfg Config, backend Backend, opts ...Option) (*Engine, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cfg, err := cfg.resolved()
	if err != nil {
		return nil, err
	}
	if backend == nil {
		return nil, errors.New("engine: no backend")
	}
	if o.log == nil {
		o.log = slog.Default()
	}
	e := &Engine{cfg: cfg, backend: backend, synthetic: isSynthetic(backend), log: o.log, m: newMetrics(), changed: newSignal(),
		cpu: par.NewGate(cfg.Synthesis.CPUs), locks: map[int]*gpuLock{}, jobs: map[JobID]*job{}, start: time.Now()}
	tw := o.timeline
	if tw == nil && cfg.Timeline.Path != "" {
		f, err := os.OpenFile(cfg.Timeline.Path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("engine: timeline: %w", err)
		}
		tw, e.tlFile = f, f
	}
	keep := DefaultTimelineMemory
	if o.keep != nil {
		keep = *o.keep
	}
	e.tl = newTimeline(tw, keep)
	e.ctx, e.cancel = context.WithCancelCause(context.Background())
	e.budget = newBudget(int64(cfg.Memory.Budget), e.changed)
	e.res = &residency{backend: backend, budget: e.budget, gpus: cfg.GPU.Devices, minIdle: cfg.Memory.EvictIdle,
		changed: e.changed, ctx: e.ctx, wg: &e.wg, log: e.log, tl: e.tl, m: e.m, circuits: map[circuitKey]*resident{}, claims: map[int]*resident{}}
	e.faults = o.faults
	e.health = newHealth(e, o.faults)
	e.res.inService = e.health.inService
	for _, gpu := range cfg.GPU.Devices {
		l := newGPULock(gpu)
		l.tl = e.tl
		e.locks[gpu] = l
	}
	e.m.register(e)
	for i := range cfg.Synthesis.Workers {
		w := &workerState{name: fmt.Sprintf("synth-%d", i), gpu: -1}
		e.workers = append(e.workers, w)
		e.wg.Add(1)
		go e.synthesisWorker(w, false)
	}
	if cfg.Queue.CriticalLane {
		w := &workerState{name: "synth-critical", gpu: -1}
		e.workers = append(e.workers, w)
		e.wg.Add(1)
		go e.synthesisWorker(w, true)
	}
	for _, gpu := range cfg.GPU.Devices {
		for i := range cfg.GPU.WorkersPerGPU {
			w := &workerState{name: fmt.Sprintf("gpu%d/w%d", gpu, i), gpu: gpu}
			e.workers = append(e.workers, w)
			e.wg.Add(1)
			go e.gpuWorker(w, false)
		}
		if cfg.Queue.CriticalLane {
			w := &workerState{name: fmt.Sprintf("gpu%d/critical", gpu), gpu: gpu}
			e.workers = append(e.workers, w)
			e.wg.Add(1)
			go e.gpuWorker(w, true)
		}
	}
	if e.synthetic {
		e.log.Warn("synthetic backend: proofs do not verify and no proof bytes are returned", "backend", backend.Name())
	}
	e.log.Info("engine started", "backend", backend.Name(), "gpus", cfg.GPU.Devices, "workers_per_gpu", cfg.GPU.WorkersPerGPU,
		"synthesis_workers", cfg.Synthesis.Workers, "synthesis_cpus", cfg.Synthesis.CPUs, "memory_budget", cfg.Memory.Budget)
	return e, nil
}

// Config returns the engine's configuration, its auto knobs resolved.
func (e *Engine) Config() Config {
	c := e.cfg
	c.GPU.Devices = append([]int(nil), c.GPU.Devices...)
	return c
}

// Synthetic reports whether the engine runs on a synthetic backend, whose
// proofs do not verify (see Synthetic): its jobs succeed with Result.Synthetic
// set and no proof bytes.
func (e *Engine) Synthetic() bool { return e.synthetic }

// Registry is the engine's Prometheus registry (serve it with promhttp).
func (e *Engine) Registry() *prometheus.Registry { return e.m.reg }

// Await waits for job id to finish and returns its result; the error is the
// job's (nil when it succeeded). If ctx ends first, Await returns ctx's error
// and the job goes on.
func (e *Engine) Await(ctx context.Context, id JobID) (Result, error) {
	e.mu.Lock()
	j := e.jobs[id]
	e.mu.Unlock()
	if j == nil {
		return Result{ID: id}, fmt.Errorf("%w: %s", ErrUnknownJob, id)
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		e.mu.Lock()
		defer e.mu.Unlock()
		return Result{ID: id, Kind: j.kind, ProofType: j.name, State: j.state, Submitted: j.submitted, Started: j.started}, ctx.Err()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	r := j.result()
	return r, r.Err
}

// Cancel ends job id: a queued job leaves the queue, a running one stops at
// its partitions' next stage boundary, and its memory returns to the budget.
// Canceling a finished job does nothing.
func (e *Engine) Cancel(id JobID) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	j := e.jobs[id]
	if j == nil {
		return fmt.Errorf("%w: %s", ErrUnknownJob, id)
	}
	e.finishLocked(j, JobCanceled, fmt.Errorf("%w: %s", ErrCanceled, id))
	return nil
}

// Preload loads p's circuit and its provers on every GPU, and waits for them.
// Jobs load their circuit themselves; Preload takes the wait out of the
// first job. A preloaded circuit is evicted like any other.
func (e *Engine) Preload(ctx context.Context, p abi.SealProof) error {
	return e.PreloadCircuit(ctx, (&PoRep{Proof: p}).Circuit())
}

// PreloadPoSt is Preload for a PoSt type's circuit: a WinningPoSt machine
// keeps its circuit loaded so that a winning ticket waits for no load.
func (e *Engine) PreloadPoSt(ctx context.Context, p abi.PoStProof) error {
	kind := KindWindowPoSt
	if p.Kind == abi.Winning {
		kind = KindWinningPoSt
	}
	return e.PreloadCircuit(ctx, CircuitSpec{Kind: kind, SectorSize: uint64(p.SectorSize), Name: p.Name, PoSt: p})
}

// PreloadCircuit is Preload for any kind's circuit.
func (e *Engine) PreloadCircuit(ctx context.Context, spec CircuitSpec) error {
	est, err := e.backend.CircuitBytes(spec)
	if err != nil {
		return err
	}
	p := spec
	for {
		ch := e.changed.wait()
		if e.ctx.Err() != nil {
			return ErrClosed
		}
		rc := e.res.lookup(p.key())
		if rc == nil {
			if est > e.budget.status().Budget {
				return &BudgetError{Job: "preload", Circuit: est, Budget: e.budget.status().Budget}
			}
			if !e.res.startLoad(p, est, 0) {
				if evicted, _ := e.res.evictIdle(p.key()); !evicted {
					return fmt.Errorf("%w: preloading %s needs %v and the budget is in use", ErrBudget, p.Name, ByteSize(est))
				}
			}
		} else {
			switch st, err := e.res.state(rc); st {
			case residentFailed:
				e.res.forget(rc)
				return err
			case residentReady:
				return e.awaitProvers(ctx, rc)
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-e.ctx.Done():
			return ErrClosed
		}
	}
}

// awaitProvers waits for rc's provers on every GPU.
func (e *Engine) awaitProvers(ctx context.Context, rc *resident) error {
	for _, gpu := range e.cfg.GPU.Devices {
		if _, err := e.res.acquireProver(ctx, rc, gpu, nil); err != nil {
			return err
		}
		e.res.releaseProver(rc, gpu)
	}
	return nil
}

// Close stops the engine: jobs not finished end with ErrClosed, workers stop
// at their next stage boundary, circuits are closed. It waits for all that.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	for _, j := range e.jobs {
		e.finishLocked(j, JobCanceled, ErrClosed)
	}
	e.mu.Unlock()
	e.res.close() // no new loads from here on
	e.cancel(ErrClosed)
	e.changed.broadcast()
	e.wg.Wait()
	e.res.closeAll()
	var err error
	if terr := e.tl.failed(); terr != nil {
		err = fmt.Errorf("engine: timeline: %w", terr)
	}
	if e.tlFile != nil {
		if cerr := e.tlFile.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("engine: timeline: %w", cerr)
		}
	}
	e.log.Info("engine closed")
	return err
}

package plugin

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/post"
	"github.com/filc2/filc2/proofs/snap"
	"github.com/filc2/filc2/proofs/snark"
)

// ProveFunc proves one validated request and returns the proof bytes and the
// per-partition timings. It must honour ctx.
type ProveFunc func(ctx context.Context, req *Request) (Proof, []c2.PartitionTiming, error)

// LocalConfig configures NewLocalService.
type LocalConfig struct {
	// ParamsDir holds the Groth16 parameters (.params, .vk and filc2's
	// recorded circuits), loaded on first use of each proof type.
	ParamsDir string
	// Backend proves; nil is the CPU backend.
	Backend groth16.Backend
	// Slots is how many jobs are proved at once, one worker each (default 1).
	Slots int
	// QueueSize is how many jobs may wait; Submit answers *BusyError beyond
	// it (default 64).
	QueueSize int
	// Retain is how long a finished job stays for Await (default 1 h), and
	// MaxRetained how many finished jobs are kept at most (default 1024).
	Retain      time.Duration
	MaxRetained int
	// GPUs are reported by Status.
	GPUs []GPU
	// Logger logs job starts, ends and failures (default: none).
	Logger hclog.Logger
	// Prove, when not nil, replaces proving through proofs/c2 (for tests
	// and embedders). The default loads the parameters with c2.Load, proves
	// with c2.Prover.Prove, which verifies every partition, and verifies the
	// encoded proof bytes with c2.VerifyC1Proof before returning them.
	Prove ProveFunc
	// Describe, when not nil, completes each Status snapshot (the engine
	// service reports its circuits, GPUs and pipeline there).
	Describe func(st *Status)
	// Timeline, when not nil, draws the last window of work as SVG
	// (TimelineService); the engine service sets it.
	Timeline func(ctx context.Context, window time.Duration) (string, error)
}

// LocalService is an in-process Service: a bounded priority queue and one
// worker per slot, proving through proofs/c2. The engine will replace it
// behind the same interface.
type LocalService struct {
	cfg     LocalConfig
	log     hclog.Logger
	prove   ProveFunc
	backend string
	ctx     context.Context // cancelled by Close
	stop    context.CancelFunc
	provers *proverCache

	mu       sync.Mutex
	wake     *sync.Cond
	queue    jobQueue
	jobs     map[JobID]*job
	finished []*job // in finishing order, for pruning
	running  map[*job]struct{}
	seq      uint64
	totals   Totals
	closed   bool
	workers  sync.WaitGroup
}

var _ Service = (*LocalService)(nil)

// job is one request's life in a LocalService. Fields other than req, done
// and index are guarded by LocalService.mu; result and err are final once
// done is closed.
type job struct {
	req       *Request // nil once finished
	id        JobID
	kind      string
	sector    SectorRef
	priority  int
	digest    [32]byte
	seq       uint64
	index     int // in the queue heap; -1 when not queued
	state     JobState
	submitted time.Time
	started   time.Time
	finishedT time.Time
	cancel    context.CancelFunc // while running
	done      chan struct{}
	result    Result
	err       error
}

// NewLocalService starts a LocalService's workers.
func NewLocalService(cfg LocalConfig) *LocalService {
	if cfg.Slots <= 0 {
		cfg.Slots = 1
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 64
	}
	if cfg.Retain <= 0 {
		cfg.Retain = time.Hour
	}
	if cfg.MaxRetained <= 0 {
		cfg.MaxRetained = 1024
	}
	if cfg.Backend == nil {
		cfg.Backend = groth16.CPU{}
	}
	log := cfg.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &LocalService{
		cfg:     cfg,
		log:     log,
		prove:   cfg.Prove,
		backend: cfg.Backend.Name(),
		ctx:     ctx,
		stop:    stop,
		jobs:    make(map[JobID]*job),
		running: make(map[*job]struct{}),
	}
	s.provers = &proverCache{dir: cfg.ParamsDir, backend: cfg.Backend, ctx: ctx, log: log, m: make(map[string]*proverEntry)}
	if s.prove == nil {
		s.prove = s.proveC2
	}
	s.wake = sync.NewCond(&s.mu)
	for range cfg.Slots {
		s.workers.Add(1)
		go s.worker()
	}
	return s
}

// Submit implements Service.
func (s *LocalService) Submit(ctx context.Context, req *Request) (JobID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", &UnavailableError{Msg: "the prover is shutting down"}
	}
	now := time.Now()
	s.prune(now)
	if j, ok := s.jobs[req.ID]; ok {
		if j.digest != req.Digest {
			s.totals.Rejected++
			return "", &BadInputError{Field: "ID", Msg: fmt.Sprintf("job %s already exists for another request (sector %v); use a fresh id", req.ID, j.sector)}
		}
		if j.state != StateFailed && j.state != StateCancelled {
			return req.ID, nil // the same request again: the same job
		}
	}
	if s.queue.Len() >= s.cfg.QueueSize {
		s.totals.Rejected++
		return "", &BusyError{Queued: s.queue.Len(), Capacity: s.cfg.QueueSize}
	}
	s.seq++
	j := &job{req: req, id: req.ID, kind: req.Kind(), sector: req.Sector, priority: req.Priority, digest: req.Digest,
		seq: s.seq, state: StateQueued, submitted: now, done: make(chan struct{})}
	heap.Push(&s.queue, j)
	s.jobs[req.ID] = j
	s.totals.Submitted++
	s.wake.Signal()
	s.log.Info("job queued", "job", req.ID, "sector", req.Sector.String(), "proof", req.ProofName(), "priority", req.Priority, "queued", s.queue.Len())
	return req.ID, nil
}

// Await implements Service.
func (s *LocalService) Await(ctx context.Context, id JobID) (Result, error) {
	s.mu.Lock()
	j := s.jobs[id]
	s.mu.Unlock()
	if j == nil {
		return Result{}, &NotFoundError{ID: id}
	}
	select {
	case <-j.done:
		return j.result, j.err
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

// Cancel implements Service.
func (s *LocalService) Cancel(ctx context.Context, id JobID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[id]
	if j == nil {
		return &NotFoundError{ID: id}
	}
	switch j.state {
	case StateQueued:
		heap.Remove(&s.queue, j.index)
	case StateRunning:
		j.cancel() // the worker stays busy until the backend notices
	default:
		return nil
	}
	s.finish(j, StateCancelled, Result{}, &CancelledError{ID: id})
	return nil
}

// TimelineSVG implements TimelineService with LocalConfig.Timeline.
func (s *LocalService) TimelineSVG(ctx context.Context, window time.Duration) (string, error) {
	if s.cfg.Timeline == nil {
		return "", &UnavailableError{Msg: "no timeline: the prover runs without the engine (--engine=false)"}
	}
	return s.cfg.Timeline(ctx, window)
}

// Status implements Service.
func (s *LocalService) Status(ctx context.Context) (Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{
		Backend:       s.backend,
		GPUs:          append([]GPU(nil), s.cfg.GPUs...),
		Circuits:      s.provers.loaded(),
		Slots:         s.cfg.Slots,
		QueueCapacity: s.cfg.QueueSize,
		Totals:        s.totals,
	}
	queued := append([]*job(nil), s.queue...)
	sort.Slice(queued, func(a, b int) bool { return queued[a].before(queued[b]) })
	for _, j := range queued {
		st.Queued = append(st.Queued, j.info())
	}
	var running []*job
	for j := range s.running {
		running = append(running, j)
	}
	sort.Slice(running, func(a, b int) bool { return running[a].started.Before(running[b].started) })
	for _, j := range running {
		st.Running = append(st.Running, j.info())
	}
	if s.cfg.Describe != nil {
		s.cfg.Describe(&st)
	}
	return st, nil
}

// Close implements Service: queued jobs fail with *UnavailableError, running
// ones are cancelled. It does not wait for a backend call in progress; the
// loaded parameters are released once the workers are done.
func (s *LocalService) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for s.queue.Len() > 0 {
		j := heap.Pop(&s.queue).(*job)
		s.finish(j, StateFailed, Result{}, &UnavailableError{Msg: "the prover shut down before the job started"})
	}
	s.wake.Broadcast()
	s.mu.Unlock()
	s.stop()
	go func() {
		s.workers.Wait()
		s.provers.close()
	}()
	return nil
}

func (s *LocalService) worker() {
	defer s.workers.Done()
	for {
		s.mu.Lock()
		for s.queue.Len() == 0 && !s.closed {
			s.wake.Wait()
		}
		if s.closed {
			s.mu.Unlock()
			return
		}
		j := heap.Pop(&s.queue).(*job)
		ctx, cancel := context.WithCancel(s.ctx)
		j.state, j.started, j.cancel = StateRunning, time.Now(), cancel
		s.running[j] = struct{}{}
		req := j.req
		s.mu.Unlock()

		s.log.Info("job started", "job", req.ID, "sector", req.Sector.String(), "waited", j.started.Sub(j.submitted).String())
		proof, timings, err := s.run(ctx, req)
		cancel()
		proved := time.Since(j.started)

		s.mu.Lock()
		delete(s.running, j)
		if j.state == StateRunning {
			switch {
			case err == nil:
				s.finish(j, StateDone, Result{ID: req.ID, Sector: req.Sector, Proof: proof, Backend: s.backend,
					QueueNS: j.started.Sub(j.submitted), ProveNS: proved, Partitions: partitionTimings(timings)}, nil)
			case s.closed:
				s.finish(j, StateFailed, Result{}, &UnavailableError{Msg: "the prover shut down while proving"})
			default:
				s.finish(j, StateFailed, Result{}, wireError(err))
			}
		}
		s.mu.Unlock()
	}
}

// run proves one request, turning a panic into an *InternalError.
func (s *LocalService) run(ctx context.Context, req *Request) (proof Proof, timings []c2.PartitionTiming, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic while proving", "job", req.ID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			proof, timings, err = nil, nil, &InternalError{Msg: fmt.Sprintf("panic while proving: %v", r)}
		}
	}()
	return s.prove(ctx, req)
}

// finish records a job's end; the caller holds mu.
func (s *LocalService) finish(j *job, state JobState, res Result, err error) {
	j.state, j.result, j.err, j.finishedT = state, res, err, time.Now()
	j.req = nil // the C1 can be large: drop it now
	close(j.done)
	s.finished = append(s.finished, j)
	switch state {
	case StateDone:
		s.totals.Succeeded++
		s.log.Info("job done", "job", res.ID, "sector", res.Sector.String(), "prove", res.ProveNS.String())
	case StateCancelled:
		s.totals.Cancelled++
		s.log.Info("job cancelled", "job", j.id)
	default:
		s.totals.Failed++
		s.log.Error("job failed", "job", j.id, "error", err)
	}
}

// prune forgets finished jobs past the retention limits; the caller holds mu.
func (s *LocalService) prune(now time.Time) {
	n := 0
	for n < len(s.finished) && (len(s.finished)-n > s.cfg.MaxRetained || now.Sub(s.finished[n].finishedT) > s.cfg.Retain) {
		if j := s.finished[n]; s.jobs[j.id] == j {
			delete(s.jobs, j.id)
		}
		s.finished[n] = nil
		n++
	}
	s.finished = s.finished[n:]
}

// proveC2 is the default ProveFunc: c2 for a SealCommit2, post for a PoSt,
// snap for a SnapDeals update.
func (s *LocalService) proveC2(ctx context.Context, req *Request) (Proof, []c2.PartitionTiming, error) {
	if req.PoSt != nil {
		return s.provePoSt(ctx, req)
	}
	if req.Snap != nil {
		return s.proveSnap(ctx, req)
	}
	pr, err := s.provers.get(ctx, req.Proof)
	if err != nil {
		return nil, nil, err
	}
	proof, timings, err := pr.Prove(ctx, req.C1, nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, &InternalError{Msg: err.Error()}
	}
	if err := c2.VerifyC1Proof(pr.PVK, req.C1, proof); err != nil {
		return nil, nil, &InternalError{Msg: fmt.Sprintf("the proof does not verify under %s: %v", pr.Files.VK, err)}
	}
	return proof, timings, nil
}

// provePoSt proves a PoSt with post (which verifies before it returns).
func (s *LocalService) provePoSt(ctx context.Context, req *Request) (Proof, []c2.PartitionTiming, error) {
	pt := req.PoSt.Partition
	pr, err := s.provers.getPoSt(ctx, pt.Proof)
	if err != nil {
		return nil, nil, err
	}
	proof, t, err := pr.ProvePartition(ctx, pt, req.PoSt.Randomness)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, &InternalError{Msg: err.Error()}
	}
	return proof, []c2.PartitionTiming{{Partition: 0, Synthesis: t.Synthesis, Prove: t.Prove, Verify: t.Verify}}, nil
}

// proveSnap proves a SnapDeals update's partitions with snap (each verified
// before it is returned); the vanilla proofs were checked by ParseRequest.
func (s *LocalService) proveSnap(ctx context.Context, req *Request) (Proof, []c2.PartitionTiming, error) {
	sr := req.Snap.Request
	pr, err := s.provers.getSnap(ctx, sr.Proof)
	if err != nil {
		return nil, nil, err
	}
	var proof Proof
	var timings []c2.PartitionTiming
	for k := range sr.Proof.Partitions {
		b, t, err := pr.ProvePartition(ctx, sr, k)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, &InternalError{Msg: fmt.Sprintf("partition %d: %v", k, err)}
		}
		proof = append(proof, b...)
		timings = append(timings, c2.PartitionTiming{Partition: k, Synthesis: t.Synthesis, Prove: t.Prove, Verify: t.Verify})
	}
	return proof, timings, nil
}

// before orders the queue: higher priority first, then submission order.
func (j *job) before(k *job) bool {
	if j.priority != k.priority {
		return j.priority > k.priority
	}
	return j.seq < k.seq
}

func (j *job) info() JobInfo {
	return JobInfo{ID: j.id, Kind: j.kind, Sector: j.sector, Priority: j.priority, State: j.state, Submitted: j.submitted, Started: j.started}
}

// jobQueue is a heap of queued jobs in run order.
type jobQueue []*job

func (q jobQueue) Len() int           { return len(q) }
func (q jobQueue) Less(a, b int) bool { return q[a].before(q[b]) }
func (q jobQueue) Swap(a, b int) {
	q[a], q[b] = q[b], q[a]
	q[a].index, q[b].index = a, b
}
func (q *jobQueue) Push(x any) {
	j := x.(*job)
	j.index = len(*q)
	*q = append(*q, j)
}
func (q *jobQueue) Pop() any {
	old := *q
	j := old[len(old)-1]
	old[len(old)-1] = nil
	j.index = -1
	*q = old[:len(old)-1]
	return j
}

// proverCache loads each circuit's parameters once and keeps them resident.
type proverCache struct {
	dir     string
	backend groth16.Backend
	ctx     context.Context
	log     hclog.Logger

	mu sync.Mutex
	m  map[string]*proverEntry // by .params file name
}

type proverEntry struct {
	ready chan struct{}
	pr    interface{ Close() error } // a *c2.Prover, *post.Prover or *snap.Prover
	err   error
	info  Circuit
}

// circuitLoad is one circuit as proverCache loads it: its parameter files,
// the flag naming its proof type to params fetch and setup ("-p",
// "--post-proof"), and the load.
type circuitLoad struct {
	kind  string // the engine kind's name ("" for PoRep)
	name  string
	size  uint64
	files snark.Files
	flag  string
	load  func() (interface{ Close() error }, error)
}

// get returns the prover for p's circuit, loading it on first use; loads
// are shared by every job that needs them.
func (pc *proverCache) get(ctx context.Context, p abi.SealProof) (*c2.Prover, error) {
	pr, err := pc.entry(ctx, circuitLoad{name: p.Name, size: uint64(p.SectorSize), files: c2.FilesIn(pc.dir, p), flag: "-p",
		load: func() (interface{ Close() error }, error) {
			pr, err := c2.Load(pc.ctx, p, c2.LoadOptions{ParamsDir: pc.dir, Backend: pc.backend})
			if err != nil {
				return nil, err
			}
			return pr, nil
		}})
	if err != nil {
		return nil, err
	}
	return pr.(*c2.Prover), nil
}

// getPoSt is get for a PoSt circuit.
func (pc *proverCache) getPoSt(ctx context.Context, p abi.PoStProof) (*post.Prover, error) {
	kind := engine.KindWindowPoSt
	if p.Kind == abi.Winning {
		kind = engine.KindWinningPoSt
	}
	pr, err := pc.entry(ctx, circuitLoad{kind: kind.String(), name: p.Name, size: uint64(p.SectorSize), files: post.FilesIn(pc.dir, p), flag: "--post-proof",
		load: func() (interface{ Close() error }, error) {
			pr, err := post.Load(pc.ctx, p, post.LoadOptions{ParamsDir: pc.dir, Backend: pc.backend})
			if err != nil {
				return nil, err
			}
			return pr, nil
		}})
	if err != nil {
		return nil, err
	}
	return pr.(*post.Prover), nil
}

// getSnap is get for a SnapDeals circuit.
func (pc *proverCache) getSnap(ctx context.Context, p abi.UpdateProof) (*snap.Prover, error) {
	pr, err := pc.entry(ctx, circuitLoad{kind: engine.KindSnapDeals.String(), name: p.Name, size: uint64(p.SectorSize), files: snap.FilesIn(pc.dir, p), flag: "--update-proof",
		load: func() (interface{ Close() error }, error) {
			pr, err := snap.Load(pc.ctx, p, snap.LoadOptions{ParamsDir: pc.dir, Backend: pc.backend})
			if err != nil {
				return nil, err
			}
			return pr, nil
		}})
	if err != nil {
		return nil, err
	}
	return pr.(*snap.Prover), nil
}

// entry returns the loaded circuit cl, loading it on first use (keyed by
// its .params file).
func (pc *proverCache) entry(ctx context.Context, cl circuitLoad) (interface{ Close() error }, error) {
	key := filepath.Base(cl.files.Params)
	pc.mu.Lock()
	e := pc.m[key]
	if e == nil {
		e = &proverEntry{ready: make(chan struct{})}
		pc.m[key] = e
		pc.mu.Unlock()
		pc.load(key, e, cl)
	} else {
		pc.mu.Unlock()
	}
	select {
	case <-e.ready:
		return e.pr, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (pc *proverCache) load(key string, e *proverEntry, cl circuitLoad) {
	defer close(e.ready)
	t0 := time.Now()
	pc.log.Info("loading parameters", "proof", cl.name, "params", cl.files.Params)
	pr, err := cl.load()
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("%w; run `filc2 params fetch %s %s --dir %s` (official) or `filc2 setup %s %s --out %s` (test)",
				err, cl.flag, cl.name, pc.dir, cl.flag, cl.name, pc.dir)
		}
		e.err = &InternalError{Msg: fmt.Sprintf("loading the %s parameters: %v", cl.name, err)}
		pc.log.Error("loading parameters failed", "proof", cl.name, "error", err)
		pc.mu.Lock()
		delete(pc.m, key) // try again next time
		pc.mu.Unlock()
		return
	}
	e.pr = pr
	e.info = Circuit{Kind: cl.kind, ProofType: cl.name, SectorSize: cl.size, Params: cl.files.Params, LoadNS: time.Since(t0), Loaded: time.Now()}
	pc.log.Info("parameters loaded", "proof", cl.name, "took", e.info.LoadNS.String())
}

// loaded lists the resident circuits.
func (pc *proverCache) loaded() []Circuit {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	var out []Circuit
	for _, e := range pc.m {
		select {
		case <-e.ready:
			if e.pr != nil {
				out = append(out, e.info)
			}
		default:
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].SectorSize < out[b].SectorSize })
	return out
}

func (pc *proverCache) close() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for k, e := range pc.m {
		select {
		case <-e.ready:
			if e.pr != nil {
				e.pr.Close()
			}
			delete(pc.m, k)
		default:
		}
	}
}

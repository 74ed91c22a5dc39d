package lotus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/google/uuid"
	"github.com/hashicorp/go-hclog"
	"github.com/ipfs/go-cid"

	"github.com/filc2/filc2/plugin"
	fabi "github.com/filc2/filc2/proofs/abi"
)

// Miner is the part of the lotus miner's API a worker calls;
// *MinerStruct (DialMiner) implements it.
type Miner interface {
	Version(ctx context.Context) (APIVersionInfo, error)
	Session(ctx context.Context) (uuid.UUID, error)
	AuthVerify(ctx context.Context, token string) ([]auth.Permission, error)
	WorkerConnect(ctx context.Context, url string) error
	ReturnSealCommit2(ctx context.Context, callID CallID, proof plugin.Proof, err *CallError) error
}

var _ Miner = (*MinerStruct)(nil)

// UpdateReturner is the miner's return of ProveReplicaUpdate2 results, which
// a worker serving seal/v0/provereplicaupdate/2 needs; *MinerStruct
// implements it.
type UpdateReturner interface {
	ReturnProveReplicaUpdate2(ctx context.Context, callID CallID, proof plugin.Proof, err *CallError) error
}

var _ UpdateReturner = (*MinerStruct)(nil)

// WorkerConfig configures NewWorker.
type WorkerConfig struct {
	// plugin.Prover proves, typically the *Client of a launched plugin.
	Prover plugin.Prover
	// Miner is the miner the worker serves.
	Miner Miner
	// Name is the worker's Hostname in Info (default: os.Hostname).
	Name string
	// Lookup reads the resource overrides C2_… (default os.LookupEnv).
	Lookup func(key string) (string, bool)
	// NoSwap reports no swap to the miner, as lotus-worker --no-swap.
	NoSwap bool
	// ReturnInterval is the wait between attempts at ReturnSealCommit2
	// (default 5 s, as lotus's workers).
	ReturnInterval time.Duration
	// HeartbeatInterval is how often the miner's session is checked, to
	// register again after the miner restarts (default 10 s, lotus's
	// paths.HeartbeatInterval).
	HeartbeatInterval time.Duration
	// MaxRequestSize bounds a request to the worker API (≤ 0:
	// plugin.DefaultMaxRequestSize).
	MaxRequestSize int64
	// CallsFile, when set, keeps the calls not yet returned on disk, as
	// lotus's workers keep theirs: a worker started on the same file
	// reports each call a previous process left behind to the miner as
	// ErrTempWorkerRestart (101), so that the miner does not wait for it
	// forever. CallsFile+".lock" keeps two workers off one file.
	CallsFile string
	// Tasks are the task types served (default: seal/v0/commit/2; also or
	// instead seal/v0/provereplicaupdate/2). A PoSt worker serves
	// post/v0/windowproof and/or post/v0/winningproof and no sealing task,
	// as lotus-worker --windowpost / --winningpost.
	Tasks []TaskType
	// Vanilla reads PoSt vanilla proofs (default: a RemoteVanilla on the
	// miner's index, when Miner has StorageFindSector, with MinerHeader).
	Vanilla VanillaSource
	// MinerHeader is what RemoteVanilla sends the storage nodes (the
	// miner's Authorization).
	MinerHeader http.Header
	// Logger (default: none).
	Logger hclog.Logger
}

// Worker is a C2-only lotus worker over a plugin.Prover: the Worker API v0
// methods a lotus miner calls on a seal/v0/commit/2 worker, the
// registration with the miner (WorkerConnect) and the asynchronous return
// of results (ReturnSealCommit2), as lotus-worker does them.
//
//	Version         1.7.0 (lotus's WorkerAPIVersion0)
//	TaskTypes       {"seal/v0/commit/2":{}}
//	Paths           [] (the worker stores no sectors)
//	Info            hostname, memory, CPUs, GPUs, the C2 resource table
//	Session         a UUID per process; an error while disabled
//	ProcessSession  the same UUID, disabled or not
//	Enabled, SetEnabled, WaitQuiet
//	SealCommit2     validates and queues the job, answers a CallID at once,
//	                and reports the proof with the miner's ReturnSealCommit2
//
// Every method needs a token with admin permission, checked with the
// miner's AuthVerify: the miner dials back with an admin token it signed,
// and lotus-worker checks tokens the same way. Errors are plain JSON-RPC
// errors (code 1), as lotus's.
type Worker struct {
	cfg     WorkerConfig
	log     hclog.Logger
	prover  plugin.Prover
	miner   Miner
	name    string
	session uuid.UUID

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc

	disabled atomic.Bool
	closing  atomic.Bool

	mu      sync.Mutex
	calls   map[CallID]plugin.JobID // in flight: proving or returning
	idle    chan struct{}           // closed when calls is empty
	pending map[CallID]struct{}     // not yet returned: CallsFile's content
	lost    []CallID                // left behind by a previous process
	lock    *os.File                // CallsFile's lock

	registrations atomic.Uint64
}

// NewWorker returns a worker; Run registers it with the miner and
// RPCHandler serves its API.
func NewWorker(cfg WorkerConfig) (*Worker, error) {
	if cfg.Prover == nil || cfg.Miner == nil {
		return nil, errors.New("plugin.NewWorker: plugin.Prover and Miner are required")
	}
	if cfg.Name == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("no worker name and no hostname: %w", err)
		}
		cfg.Name = h
	}
	if cfg.Lookup == nil {
		cfg.Lookup = os.LookupEnv
	}
	if cfg.ReturnInterval <= 0 {
		cfg.ReturnInterval = 5 * time.Second
	}
	if cfg.HeartbeatInterval <= 0 {
		cfg.HeartbeatInterval = 10 * time.Second
	}
	if cfg.MaxRequestSize <= 0 {
		cfg.MaxRequestSize = plugin.DefaultMaxRequestSize
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	if len(cfg.Tasks) == 0 {
		cfg.Tasks = []TaskType{TTCommit2}
	}
	post := false
	for _, tt := range cfg.Tasks {
		switch tt {
		case TTCommit2:
		case TTProveReplicaUpdate2:
			if _, ok := cfg.Miner.(UpdateReturner); !ok {
				return nil, errors.New("plugin.NewWorker: serving ProveReplicaUpdate2 needs a Miner with ReturnProveReplicaUpdate2")
			}
		case TTGenerateWindowPoSt, TTGenerateWinningPoSt:
			post = true
		default:
			return nil, fmt.Errorf("plugin.NewWorker: task type %q: want %s, %s, %s or %s", tt, TTCommit2, TTProveReplicaUpdate2, TTGenerateWindowPoSt, TTGenerateWinningPoSt)
		}
	}
	if post && (contains(cfg.Tasks, TTCommit2) || contains(cfg.Tasks, TTProveReplicaUpdate2)) {
		return nil, errors.New("a PoSt worker serves only PoSt tasks (as lotus-worker's): run C2 and ProveReplicaUpdate2 on another worker")
	}
	if post && cfg.Vanilla == nil {
		finder, ok := cfg.Miner.(SectorFinder)
		if !ok {
			return nil, errors.New("plugin.NewWorker: a PoSt worker needs a VanillaSource or a Miner with StorageFindSector")
		}
		cfg.Vanilla = &RemoteVanilla{Index: finder, Header: cfg.MinerHeader}
	}
	// A resource override that does not parse fails now, not at the
	// miner's first Info.
	if _, err := TaskResources(cfg.Lookup, TTCommit2, TTProveReplicaUpdate2); err != nil {
		return nil, err
	}
	idle := make(chan struct{})
	close(idle)
	w := &Worker{
		cfg:     cfg,
		log:     cfg.Logger,
		prover:  cfg.Prover,
		miner:   cfg.Miner,
		name:    cfg.Name,
		session: uuid.New(),
		calls:   make(map[CallID]plugin.JobID),
		idle:    idle,
		pending: make(map[CallID]struct{}),
	}
	if cfg.CallsFile != "" {
		if err := w.openCalls(); err != nil {
			return nil, err
		}
	}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	return w, nil
}

// openCalls locks CallsFile and reads the calls a previous process left.
func (w *Worker) openCalls() error {
	path := w.cfg.CallsFile
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("locking the calls file: %w", err)
	}
	if err := tryLock(lock); err != nil {
		lock.Close()
		return fmt.Errorf("%s is in use by another filc2 worker (%v): give each worker its own state (%s)", path, err, plugin.EnvHome)
	}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		lock.Close()
		return fmt.Errorf("reading the calls file: %w", err)
	default:
		if err := json.Unmarshal(b, &w.lost); err != nil {
			w.log.Error("the calls file does not parse; the calls it held are forgotten", "file", path, "error", err)
			w.lost = nil
		}
	}
	w.lock = lock
	for _, ci := range w.lost {
		w.pending[ci] = struct{}{}
	}
	return nil
}

// persist writes the pending calls to CallsFile (atomically); the caller
// holds mu.
func (w *Worker) persist() {
	if w.lock == nil {
		return
	}
	ids := make([]CallID, 0, len(w.pending))
	for ci := range w.pending {
		ids = append(ids, ci)
	}
	b, _ := json.Marshal(ids)
	tmp := w.cfg.CallsFile + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		w.log.Error("writing the calls file", "error", err)
		return
	}
	if err := os.Rename(tmp, w.cfg.CallsFile); err != nil {
		w.log.Error("writing the calls file", "error", err)
	}
}

// returned forgets a call the miner has its answer to.
func (w *Worker) returned(ci CallID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.pending[ci]; ok {
		delete(w.pending, ci)
		w.persist()
	}
}

// Version implements the Worker API: lotus's WorkerAPIVersion0.
func (w *Worker) Version(context.Context) (plugin.APIVersion, error) { return WorkerAPIVersion, nil }

// TaskTypes implements the Worker API: seal/v0/commit/2, or the PoSt task
// types the worker was started for.
func (w *Worker) TaskTypes(context.Context) (map[TaskType]struct{}, error) {
	out := make(map[TaskType]struct{}, len(w.cfg.Tasks))
	for _, tt := range w.cfg.Tasks {
		out[tt] = struct{}{}
	}
	return out, nil
}

func contains(tts []TaskType, tt TaskType) bool {
	for _, t := range tts {
		if t == tt {
			return true
		}
	}
	return false
}

// Paths implements the Worker API: none, since commit-2 and
// ProveReplicaUpdate2 need no sector files (the miner schedules them with a
// task selector that asks for none).
func (w *Worker) Paths(context.Context) ([]StoragePath, error) { return []StoragePath{}, nil }

// Info implements the Worker API: the host's memory (within its cgroup, as
// lotus reads it), CPUs, the prover's GPUs and the resource tables of the
// sealing tasks served with their C2_… and PR2_… environment overrides.
func (w *Worker) Info(ctx context.Context) (WorkerInfo, error) {
	mem, err := ReadMemInfo()
	if err != nil {
		return WorkerInfo{}, fmt.Errorf("getting memory info: %w", err)
	}
	if w.cfg.NoSwap {
		mem.Swap, mem.SwapUsed = 0, 0
	}
	tts := w.cfg.Tasks
	if !contains(tts, TTCommit2) && !contains(tts, TTProveReplicaUpdate2) {
		tts = []TaskType{TTCommit2} // a PoSt worker reports commit-2's table, as before
	}
	res, err := TaskResources(w.cfg.Lookup, tts...)
	if err != nil {
		return WorkerInfo{}, fmt.Errorf("interpreting resource env vars: %w", err)
	}
	gpus := []string{}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	st, err := w.prover.Status(sctx)
	cancel()
	if err != nil {
		w.log.Warn("Info: the prover did not answer Status; reporting no GPUs", "error", err)
	}
	for _, g := range st.GPUs {
		gpus = append(gpus, g.Name)
	}
	return WorkerInfo{
		Hostname: w.name,
		Resources: WorkerResources{
			MemPhysical: mem.Physical,
			MemUsed:     mem.Used,
			MemSwap:     mem.Swap,
			MemSwapUsed: mem.SwapUsed,
			CPUs:        uint64(runtime.NumCPU()),
			GPUs:        gpus,
			Resources:   res,
		},
	}, nil
}

// Session implements the Worker API: the process's session UUID, an error
// while the worker is disabled (the miner then stops scheduling on it), and
// the zero UUID once it is closing.
func (w *Worker) Session(ctx context.Context) (uuid.UUID, error) {
	if w.disabled.Load() {
		return uuid.UUID{}, errors.New("worker disabled")
	}
	return w.ProcessSession(ctx)
}

// ProcessSession implements the Worker API: Session, disabled or not.
func (w *Worker) ProcessSession(context.Context) (uuid.UUID, error) {
	if w.closing.Load() {
		return uuid.UUID{}, nil // lotus's ClosedWorkerID
	}
	return w.session, nil
}

// Enabled implements the Worker API.
func (w *Worker) Enabled(context.Context) (bool, error) { return !w.disabled.Load(), nil }

// SetEnabled implements the Worker API.
func (w *Worker) SetEnabled(_ context.Context, enabled bool) error {
	w.disabled.Store(!enabled)
	return nil
}

// WaitQuiet implements the Worker API: it returns when no SealCommit2 call
// is proving or returning.
func (w *Worker) WaitQuiet(ctx context.Context) error { return w.waitIdle(ctx) }

// SealCommit2 implements the Worker API. It validates c1o and queues it
// (the prover's Submit; job id "lotus-<CallID>") and answers the CallID; a
// request that does not validate is answered with the error at once. The
// proof, or the error of a job that failed, reaches the miner through
// ReturnSealCommit2, retried every ReturnInterval until the miner accepts
// it. Busy and unavailable provers are reported as temporary errors (codes
// 100 and 101).
func (w *Worker) SealCommit2(ctx context.Context, sector plugin.SectorRef, c1o plugin.Commit1Out) (CallID, error) {
	if err := w.served(TTCommit2); err != nil {
		return CallID{}, err
	}
	return w.call(ctx, sector, "SealCommit2", plugin.ProveRequest{Sector: sector, Commit1Out: c1o}, w.miner.ReturnSealCommit2)
}

// ProveReplicaUpdate2 implements the Worker API (seal/v0/provereplicaupdate/2,
// served with --prove-replica-update2): the update of sector from the
// sector key sectorKey (its sealed CID before the update) to newSealed with
// the data newUnsealed, proved from the partitions' vanilla proofs
// (ProveReplicaUpdate1's output, one bincode PartitionProof each). As
// SealCommit2: validated (every partition's vanilla proof checked) and
// queued, a CallID answered at once, the proof (192 bytes per partition)
// returned with ReturnProveReplicaUpdate2, retried until the miner takes it.
func (w *Worker) ProveReplicaUpdate2(ctx context.Context, sector plugin.SectorRef, sectorKey, newSealed, newUnsealed cid.Cid, vanilla [][]byte) (CallID, error) {
	if err := w.served(TTProveReplicaUpdate2); err != nil {
		return CallID{}, err
	}
	up, err := fabi.UpdateForSeal(sector.ProofType)
	if err != nil {
		return CallID{}, &plugin.BadInputError{Field: "sector.ProofType", Msg: err.Error()}
	}
	old, err1 := commcid.CIDToReplicaCommitmentV1(sectorKey)
	rNew, err2 := commcid.CIDToReplicaCommitmentV1(newSealed)
	dNew, err3 := commcid.CIDToDataCommitmentV1(newUnsealed)
	for _, e := range []struct {
		name string
		err  error
	}{{"sectorKey", err1}, {"newSealed", err2}, {"newUnsealed", err3}} {
		if e.err != nil {
			return CallID{}, &plugin.BadInputError{Field: e.name, Msg: e.err.Error()}
		}
	}
	req := plugin.ProveRequest{Sector: sector, Snap: &plugin.SnapRequest{ProofType: up.Proof, CommROld: old, CommRNew: rNew, CommDNew: dNew, VanillaProofs: vanilla}}
	return w.call(ctx, sector, "ProveReplicaUpdate2", req, w.miner.(UpdateReturner).ReturnProveReplicaUpdate2)
}

// call queues req (the prover's Submit; job id "lotus-<CallID>") and
// answers the CallID; a request that does not validate is answered with the
// error at once. The result reaches the miner through ret (complete).
func (w *Worker) call(ctx context.Context, sector plugin.SectorRef, what string, req plugin.ProveRequest, ret returnFunc) (CallID, error) {
	if w.closing.Load() {
		return CallID{}, errors.New("the worker is shutting down")
	}
	ci := CallID{Sector: sector.ID, ID: uuid.New()}
	id := plugin.JobID("lotus-" + ci.String())
	req.ID = id
	w.begin(ci, id)
	_, err := w.prover.Submit(ctx, req)
	var bad *plugin.BadInputError
	switch {
	case err == nil:
		w.log.Info(what+" queued", "call", ci.String(), "sector", sector.String())
	case errors.As(err, &bad):
		w.returned(ci)
		w.end(ci)
		w.log.Warn(what+" refused", "sector", sector.String(), "error", err)
		return CallID{}, err
	case ctx.Err() != nil:
		w.returned(ci)
		w.end(ci)
		w.prover.Cancel(context.Background(), id) // in case it was queued after all
		return CallID{}, ctx.Err()
	default:
		w.log.Warn(what+" could not be queued; reporting it to the miner", "call", ci.String(), "error", err)
	}
	go w.complete(ci, id, err, what, ret)
	return ci, nil
}

// complete waits for the job and returns its result to the miner with
// ret (the method named what in logs).
func (w *Worker) complete(ci CallID, id plugin.JobID, submitErr error, what string, ret returnFunc) {
	defer w.end(ci)
	var proof plugin.Proof
	cerr := w.callError(submitErr)
	if submitErr == nil {
		res, err := w.prover.Await(w.ctx, id)
		if w.ctx.Err() != nil {
			w.log.Warn("shutting down before the job ended; its result is not returned", "call", ci.String())
			return
		}
		if err != nil {
			cerr = w.callError(err)
			w.log.Error(what+" failed", "call", ci.String(), "error", err)
		} else {
			proof = res.Proof
			w.log.Info(what+" proved", "call", ci.String(), "prove", res.ProveNS.String(), "queued", res.QueueNS.String())
		}
	}
	w.returnResult(ci, proof, cerr, "Return"+what, ret)
}

// returnFunc is a miner's Return method of a task.
type returnFunc func(ctx context.Context, callID CallID, proof plugin.Proof, err *CallError) error

// returnResult calls the miner's return method (named name) until it
// accepts the result or the worker closes.
func (w *Worker) returnResult(ci CallID, proof plugin.Proof, cerr *CallError, name string, ret returnFunc) {
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(w.ctx, time.Minute)
		err := ret(ctx, ci, proof, cerr)
		cancel()
		if err == nil {
			w.returned(ci)
			w.log.Info("result returned to the miner", "call", ci.String(), "ok", cerr == nil, "attempts", attempt)
			return
		}
		w.log.Error(name+" failed; retrying", "call", ci.String(), "in", w.cfg.ReturnInterval.String(), "error", err)
		select {
		case <-time.After(w.cfg.ReturnInterval):
		case <-w.ctx.Done():
			w.log.Error("shutting down with a result not returned", "call", ci.String())
			return
		}
	}
}

// callError is lotus's CallError for a prover error: temporary (100, 101)
// for a busy or unavailable prover, 0 otherwise; nil for nil. The message
// names the worker, as lotus's workers do.
func (w *Worker) callError(err error) *CallError {
	if err == nil {
		return nil
	}
	code := ErrUnknown
	var busy *plugin.BusyError
	var unav *plugin.UnavailableError
	switch {
	case errors.As(err, &busy):
		code = ErrTempUnknown
	case errors.As(err, &unav):
		code = ErrTempWorkerRestart
	}
	return &CallError{Code: code, Message: fmt.Sprintf("%v [name: %s]", err, w.name)}
}

func (w *Worker) begin(ci CallID, id plugin.JobID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.calls) == 0 {
		w.idle = make(chan struct{})
	}
	w.calls[ci] = id
	w.pending[ci] = struct{}{}
	w.persist()
}

func (w *Worker) end(ci CallID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.calls[ci]; !ok {
		return
	}
	delete(w.calls, ci)
	if len(w.calls) == 0 {
		close(w.idle)
	}
}

func (w *Worker) waitIdle(ctx context.Context) error {
	w.mu.Lock()
	idle := w.idle
	w.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// InFlight counts SealCommit2 calls proving or returning.
func (w *Worker) InFlight() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.calls)
}

// Registrations counts successful WorkerConnect calls.
func (w *Worker) Registrations() uint64 { return w.registrations.Load() }

// Run registers the worker with the miner, as lotus-worker does: it waits
// for the miner's API (trying every second), requires its API version
// 1.5.x, and calls WorkerConnect(selfURL), selfURL being where RPCHandler
// is served, http://HOST:PORT/rpc/v0. It then checks the miner's session
// every HeartbeatInterval; when the miner restarted it waits until no call
// is in flight and registers again. It returns nil when ctx ends and the
// error of a WorkerConnect the miner refused (lotus-worker exits then).
func (w *Worker) Run(ctx context.Context, selfURL string) error {
	var v APIVersionInfo
	for attempt := 0; ; attempt++ {
		vctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		var err error
		v, err = w.miner.Version(vctx)
		cancel()
		if err == nil {
			break
		}
		if attempt%10 == 0 {
			w.log.Warn("connecting to the miner's API", "error", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
	if !v.APIVersion.EqMajorMinor(MinerAPIVersion) {
		return fmt.Errorf("the miner's API version is %s (lotus %s), want %s", v.APIVersion, v.Version, MinerAPIVersion)
	}
	w.log.Info("connected to the miner", "version", v.Version, "api", v.APIVersion.String())
	w.mu.Lock()
	lost := w.lost
	w.lost = nil
	w.mu.Unlock()
	for _, ci := range lost {
		w.log.Warn("reporting a call the previous worker process left unfinished", "call", ci.String())
		// Through ReturnSealCommit2 whatever the call was: lotus's miner routes
		// every Return* by the CallID alone, and an error carries no proof.
		go w.returnResult(ci, nil, &CallError{Code: ErrTempWorkerRestart, Message: fmt.Sprintf("worker [name: %s] restarted", w.name)},
			"ReturnSealCommit2", w.miner.ReturnSealCommit2)
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	session, err := w.miner.Session(sctx)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("getting the miner's session: %w", err)
	}
	tick := time.NewTicker(w.cfg.HeartbeatInterval)
	defer tick.Stop()
	for first := true; ; first = false {
		if !first {
			w.log.Info("waiting for the calls in flight to end before registering again", "calls", w.InFlight())
			if w.waitIdle(ctx) != nil {
				return nil
			}
		}
		if err := w.miner.WorkerConnect(ctx, selfURL); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("registering with the miner (WorkerConnect %s): %w", selfURL, err)
		}
		w.registrations.Add(1)
		w.log.Info("registered with the miner; waiting for tasks", "url", selfURL, "session", w.session.String())
	heartbeat:
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C:
			}
			sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			cur, err := w.miner.Session(sctx)
			cancel()
			switch {
			case err != nil:
				if ctx.Err() != nil {
					return nil
				}
				w.log.Error("heartbeat: the miner's session did not answer", "error", err)
			case cur != session:
				w.log.Error("the miner restarted (its session changed); registering again")
				session = cur
				break heartbeat
			}
		}
	}
}

// Close stops the worker: Session answers the zero UUID (the miner drops
// the worker at its next heartbeat) and results not yet returned are
// abandoned (CallsFile keeps them for the next process to report).
func (w *Worker) Close() error {
	w.closing.Store(true)
	w.cancel()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lock != nil {
		w.lock.Close() // the calls file keeps what was not returned
		w.lock = nil
	}
	return nil
}

// WorkerStruct is the Worker API as go-jsonrpc function fields, each
// needing admin as in lotus's PermissionedWorkerAPI.
type WorkerStruct struct {
	Internal struct {
		Version     func(ctx context.Context) (plugin.APIVersion, error)                                      `perm:"admin"`
		TaskTypes   func(ctx context.Context) (map[TaskType]struct{}, error)                                  `perm:"admin"`
		Paths       func(ctx context.Context) ([]StoragePath, error)                                          `perm:"admin"`
		Info        func(ctx context.Context) (WorkerInfo, error)                                             `perm:"admin"`
		SealCommit2 func(ctx context.Context, sector plugin.SectorRef, c1o plugin.Commit1Out) (CallID, error) `perm:"admin"`

		ProveReplicaUpdate2 func(ctx context.Context, sector plugin.SectorRef, sectorKey, newSealed, newUnsealed cid.Cid, vanilla [][]byte) (CallID, error) `perm:"admin"`
		Enabled             func(ctx context.Context) (bool, error)                                                                                         `perm:"admin"`
		SetEnabled          func(ctx context.Context, enabled bool) error                                                                                   `perm:"admin"`
		WaitQuiet           func(ctx context.Context) error                                                                                                 `perm:"admin"`
		ProcessSession      func(ctx context.Context) (uuid.UUID, error)                                                                                    `perm:"admin"`
		Session             func(ctx context.Context) (uuid.UUID, error)                                                                                    `perm:"admin"`

		GenerateWinningPoSt func(ctx context.Context, ppt abi.RegisteredPoStProof, mid abi.ActorID, sectors []PostSectorChallenge, randomness abi.PoStRandomness) ([]proof.PoStProof, error)                  `perm:"admin"`
		GenerateWindowPoSt  func(ctx context.Context, ppt abi.RegisteredPoStProof, mid abi.ActorID, sectors []PostSectorChallenge, partitionIdx int, randomness abi.PoStRandomness) (WindowPoStResult, error) `perm:"admin"`
	}
}

// GenerateWinningPoSt calls Internal.
func (s *WorkerStruct) GenerateWinningPoSt(ctx context.Context, ppt abi.RegisteredPoStProof, mid abi.ActorID, sectors []PostSectorChallenge, randomness abi.PoStRandomness) ([]proof.PoStProof, error) {
	return s.Internal.GenerateWinningPoSt(ctx, ppt, mid, sectors, randomness)
}

// GenerateWindowPoSt calls Internal.
func (s *WorkerStruct) GenerateWindowPoSt(ctx context.Context, ppt abi.RegisteredPoStProof, mid abi.ActorID, sectors []PostSectorChallenge, partitionIdx int, randomness abi.PoStRandomness) (WindowPoStResult, error) {
	return s.Internal.GenerateWindowPoSt(ctx, ppt, mid, sectors, partitionIdx, randomness)
}

// Version calls Internal.
func (s *WorkerStruct) Version(ctx context.Context) (plugin.APIVersion, error) {
	return s.Internal.Version(ctx)
}

// TaskTypes calls Internal.
func (s *WorkerStruct) TaskTypes(ctx context.Context) (map[TaskType]struct{}, error) {
	return s.Internal.TaskTypes(ctx)
}

// Paths calls Internal.
func (s *WorkerStruct) Paths(ctx context.Context) ([]StoragePath, error) {
	return s.Internal.Paths(ctx)
}

// Info calls Internal.
func (s *WorkerStruct) Info(ctx context.Context) (WorkerInfo, error) {
	return s.Internal.Info(ctx)
}

// SealCommit2 calls Internal.
func (s *WorkerStruct) SealCommit2(ctx context.Context, sector plugin.SectorRef, c1o plugin.Commit1Out) (CallID, error) {
	return s.Internal.SealCommit2(ctx, sector, c1o)
}

// ProveReplicaUpdate2 calls Internal.
func (s *WorkerStruct) ProveReplicaUpdate2(ctx context.Context, sector plugin.SectorRef, sectorKey, newSealed, newUnsealed cid.Cid, vanilla [][]byte) (CallID, error) {
	return s.Internal.ProveReplicaUpdate2(ctx, sector, sectorKey, newSealed, newUnsealed, vanilla)
}

// Enabled calls Internal.
func (s *WorkerStruct) Enabled(ctx context.Context) (bool, error) {
	return s.Internal.Enabled(ctx)
}

// SetEnabled calls Internal.
func (s *WorkerStruct) SetEnabled(ctx context.Context, enabled bool) error {
	return s.Internal.SetEnabled(ctx, enabled)
}

// WaitQuiet calls Internal.
func (s *WorkerStruct) WaitQuiet(ctx context.Context) error { return s.Internal.WaitQuiet(ctx) }

// ProcessSession calls Internal.
func (s *WorkerStruct) ProcessSession(ctx context.Context) (uuid.UUID, error) {
	return s.Internal.ProcessSession(ctx)
}

// Session calls Internal.
func (s *WorkerStruct) Session(ctx context.Context) (uuid.UUID, error) {
	return s.Internal.Session(ctx)
}

// RPCHandler serves the Worker API (go-jsonrpc, namespace Filecoin, HTTP
// POST and websocket) for /rpc/v0. Tokens (Authorization: Bearer or
// ?token=) are verified by the miner's AuthVerify; every method needs admin.
func (w *Worker) RPCHandler() http.Handler {
	api := new(WorkerStruct)
	plugin.BindProxy(w, &api.Internal, func(ctx context.Context, method string, need auth.Permission) error {
		if auth.HasPerm(ctx, plugin.DefaultPermissions, need) {
			return nil
		}
		return fmt.Errorf("missing permission to invoke '%s' (need '%s')", method, need) // lotus's words
	})
	plainErrors(&api.Internal)
	srv := jsonrpc.NewServer(jsonrpc.WithMaxRequestSize(w.cfg.MaxRequestSize))
	srv.Register(Namespace, api)
	verify := func(ctx context.Context, token string) ([]auth.Permission, error) {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return w.miner.AuthVerify(ctx, token)
	}
	// The token is checked before the body is read (and never taken from a
	// form body); refused tokens are logged at most once per 10 s.
	return plugin.NewTokenAuth(verify, nil, w.log).Wrap(plugin.LimitRequestSize(w.cfg.MaxRequestSize, http.HandlerFunc(srv.ServeHTTP)))
}

// plainErrors makes the function fields of *fields return their errors as
// plain ones, which go-jsonrpc sends with code 1 and the message, as lotus's
// workers answer. filc2's typed errors carry codes from
// jsonrpc.FirstUserCode that a lotus client (api.RPCErrors) would decode as
// lotus's own errors of those codes ("call ran out of gas" for bad input).
func plainErrors(fields any) {
	v := reflect.ValueOf(fields).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		fn := reflect.ValueOf(f.Interface())
		f.Set(reflect.MakeFunc(f.Type(), func(args []reflect.Value) []reflect.Value {
			out := fn.Call(args)
			if last := out[len(out)-1]; !last.IsNil() {
				err := errors.New(last.Interface().(error).Error())
				out[len(out)-1] = reflect.ValueOf(&err).Elem()
			}
			return out
		}))
	}
}

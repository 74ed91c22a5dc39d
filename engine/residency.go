package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"
)

// residentState is where a resident circuit or prover is in its load.
type residentState int

const (
	residentLoading residentState = iota
	residentReady
	residentFailed
	residentEvicted
)

func (s residentState) String() string {
	return [...]string{"loading", "ready", "failed", "evicted"}[s]
}

// resident is one circuit (a kind and sector size), loaded once and kept, with its
// provers on each GPU. Each partition in flight references it, and each GPU
// worker references its prover while it proves; only an unreferenced circuit
// is evicted, only when the budget needs its bytes, and only once it has been
// idle for memory.evict_idle. A job between two partitions holds no
// reference: a running job of one size never keeps a waiting job of another
// size from the memory it needs (it reloads its circuit when its turn comes).
type resident struct {
	key       circuitKey
	spec      CircuitSpec // the proof type it was first loaded for
	bytes     int64       // reserved in the budget while it is resident
	state     residentState
	loaded    chan struct{} // closed when the circuit's load ends
	err       error
	circuit   Circuit          // set once ready, never changed while referenced
	inFlight  int              // partitions referencing it
	byPrio    map[Priority]int // of inFlight, by their job's priority
	lastUsed  time.Time
	loadStart time.Time
	loadTime  time.Duration
	progress  [2]int64 // done, total
	provers   map[int]*residentProver
}

// residentProver is a circuit's prover on one GPU.
type residentProver struct {
	gpu      int
	state    residentState
	loaded   chan struct{}
	err      error
	prover   PartitionProver
	inUse    int
	loadTime time.Duration
	// draining: a load of higher priority waits for this prover's room; no
	// new partition takes it, and it is closed once the last one is done.
	draining bool
	// hostBytes is the pinned host memory its key's spilled queries hold,
	// charged to the budget while it is loaded.
	hostBytes int64
}

// residency keeps circuits and their per-GPU provers, keyed by (kind,
// sector size) and by (GPU, kind, sector size). Loads run in the background on the engine's
// context; a finished load broadcasts on changed.
type residency struct {
	backend Backend
	budget  *budget
	gpus    []int
	minIdle time.Duration // memory.evict_idle
	changed *signal
	ctx     context.Context
	wg      *sync.WaitGroup
	log     *slog.Logger
	tl      *timeline
	m       *metrics
	// inService reports whether a GPU takes work (health); provers are not
	// loaded ahead on a quarantined one.
	inService func(gpu int) bool

	mu       sync.Mutex
	closed   bool // no more loads or evictions: the engine's wg is being waited for
	circuits map[circuitKey]*resident
	// claims holds, per GPU, the circuit whose prover load drains a prover of
	// lower priority there: loads of no higher priority wait until it ends,
	// so that the room drained is not taken by another.
	claims map[int]*resident
}

// close refuses loads and evictions from now on.
func (r *residency) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
}

// lookup returns the entry of a circuit, or nil.
func (r *residency) lookup(k circuitKey) *resident {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.circuits[k]
}

// state returns the entry's load state and error.
func (r *residency) state(rc *resident) (residentState, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return rc.state, rc.err
}

// startLoad reserves bytes and starts loading the circuit in the background,
// unless an entry for it exists. It returns false, loading nothing, when the
// bytes do not fit in the budget with keep bytes left free.
func (r *residency) startLoad(spec CircuitSpec, bytes, keep int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.circuits[spec.key()] != nil {
		return true
	}
	if r.closed || !r.budget.tryReserveKeeping(bytes, keep) {
		return false
	}
	rc := &resident{key: spec.key(), spec: spec, bytes: bytes, loaded: make(chan struct{}),
		loadStart: time.Now(), provers: map[int]*residentProver{}, byPrio: map[Priority]int{}}
	r.circuits[spec.key()] = rc
	r.wg.Add(1)
	go r.loadCircuit(rc)
	return true
}

func (r *residency) loadCircuit(rc *resident) {
	defer r.wg.Done()
	r.log.Info("loading circuit", "proof", rc.spec.Name, "bytes", rc.bytes)
	r.tl.emit(TimelineEvent{Partition: -1, GPU: -1, Worker: "loader", Stage: StageCircuit, Event: "start", Detail: rc.spec.Name})
	c, err := r.backend.LoadCircuit(r.ctx, rc.spec, func(done, total int64) {
		r.mu.Lock()
		rc.progress = [2]int64{done, total}
		r.mu.Unlock()
	})
	r.mu.Lock()
	rc.loadTime = time.Since(rc.loadStart)
	if err != nil {
		rc.state, rc.err = residentFailed, fmt.Errorf("loading the %s circuit: %w", rc.spec.Name, err)
		r.budget.release(rc.bytes)
		r.m.circuitLoads.WithLabelValues("failed").Inc()
		r.log.Error("circuit load failed", "proof", rc.spec.Name, "err", err)
	} else {
		rc.state, rc.circuit, rc.lastUsed = residentReady, c, time.Now()
		r.m.circuitLoads.WithLabelValues("loaded").Inc()
		r.m.loadSeconds.Observe(rc.loadTime.Seconds())
		r.log.Info("circuit loaded", "proof", rc.spec.Name, "time", rc.loadTime)
		for _, gpu := range r.gpus {
			if r.inService == nil || r.inService(gpu) {
				r.startProverLocked(rc, gpu, true)
			}
		}
	}
	close(rc.loaded)
	r.mu.Unlock()
	r.tl.emit(TimelineEvent{Partition: -1, GPU: -1, Worker: "loader", Stage: StageCircuit, Event: "end", Detail: rc.spec.Name, Error: errString(err)})
	r.changed.broadcast()
}

// startProverLocked starts loading rc's prover on gpu (r.mu held, rc ready).
// ahead: loaded as the circuit becomes ready, before any partition needs it;
// such a load takes only the room of idle provers, and where there is none it
// leaves the prover to the first partition's load (state evicted).
func (r *residency) startProverLocked(rc *resident, gpu int, ahead bool) *residentProver {
	pe := &residentProver{gpu: gpu, loaded: make(chan struct{})}
	rc.provers[gpu] = pe
	if r.closed {
		pe.state, pe.err = residentFailed, ErrClosed
		close(pe.loaded)
		return pe
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t0 := time.Now()
		r.tl.emit(TimelineEvent{Partition: -1, GPU: gpu, Worker: "loader", Stage: StageLoad, Event: "start", Detail: rc.spec.Name})
		pr, hostBytes, err := r.loadProverOn(gpu, rc, ahead)
		r.mu.Lock()
		pe.loadTime = time.Since(t0)
		if errors.Is(err, errNotAhead) {
			pe.state = residentEvicted
			r.log.Info("prover not loaded ahead: its GPU is busy; the first partition loads it", "proof", rc.spec.Name, "gpu", gpu)
			err = nil
		} else if err != nil {
			pe.state, pe.err = residentFailed, fmt.Errorf("loading the %s prover on GPU %d: %w", rc.spec.Name, gpu, err)
			r.log.Error("prover load failed", "proof", rc.spec.Name, "gpu", gpu, "err", err)
		} else {
			pe.state, pe.prover, pe.hostBytes = residentReady, pr, hostBytes
		}
		close(pe.loaded)
		r.mu.Unlock()
		r.tl.emit(TimelineEvent{Partition: -1, GPU: gpu, Worker: "loader", Stage: StageLoad, Event: "end", Detail: rc.spec.Name, Error: errString(err)})
		r.changed.broadcast()
	}()
	return pe
}

// forget removes a failed entry, so that the next job loads it again.
func (r *residency) forget(rc *resident) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.circuits[rc.key] == rc && rc.state == residentFailed {
		delete(r.circuits, rc.key)
	}
}

// residentBytes is what the circuits loaded and loading hold of the budget.
func (r *residency) residentBytes() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n int64
	for _, rc := range r.circuits {
		if rc.state != residentFailed {
			n += rc.bytes
		}
		for _, pe := range rc.provers {
			n += pe.hostBytes
		}
	}
	return n
}

// onGPU names the circuits with a prover loaded or loading on gpu.
func (r *residency) onGPU(gpu int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rc := range r.circuits {
		if pe := rc.provers[gpu]; pe != nil && pe.state != residentFailed && pe.state != residentEvicted {
			out = append(out, rc.spec.Name)
		}
	}
	sort.Strings(out)
	return out
}

// use and unuse count the partitions in flight on a ready circuit, by their
// job's priority.
func (r *residency) use(rc *resident, prio Priority) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rc.inFlight++
	rc.byPrio[prio]++
}

func (r *residency) unuse(rc *resident, prio Priority) {
	r.mu.Lock()
	rc.inFlight--
	if rc.byPrio[prio]--; rc.byPrio[prio] <= 0 {
		delete(rc.byPrio, prio)
	}
	rc.lastUsed = time.Now()
	r.mu.Unlock()
	r.changed.broadcast()
}

// acquireProver returns rc's prover on gpu, waiting for its load, and counts
// it in use until releaseProver. A failed load is returned once and then
// forgotten, so the next partition loads it again. While it waits, yield is
// asked after every change: true ends the wait with errYield (a partition of
// higher priority is ready for this worker, and the prover it waits for is
// waiting for that one's room).
func (r *residency) acquireProver(ctx context.Context, rc *resident, gpu int, yield func() bool) (PartitionProver, error) {
	for {
		r.mu.Lock()
		if rc.state != residentReady {
			r.mu.Unlock()
			return nil, errors.New("engine: circuit not resident")
		}
		pe := rc.provers[gpu]
		if pe == nil || pe.state == residentEvicted {
			pe = r.startProverLocked(rc, gpu, false)
		}
		switch {
		case pe.state == residentEvicted:
			continue // a load ahead left it to this one
		case pe.state == residentReady && !pe.draining:
			pe.inUse++
			r.mu.Unlock()
			return pe.prover, nil
		case pe.state == residentFailed:
			delete(rc.provers, gpu)
			r.mu.Unlock()
			return nil, pe.err
		}
		// Loading, or draining for a load of higher priority (wait for the
		// eviction, then load again, or for the drain to be called off).
		loaded, wake := pe.loaded, r.changed.wait()
		r.mu.Unlock()
		if yield != nil && yield() {
			return nil, errYield
		}
		select {
		case <-loaded:
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// errYield is acquireProver's answer when its worker should take the ready
// partition of higher priority instead (the caller puts its own back).
var errYield = errors.New("engine: a partition of higher priority goes first")

func (r *residency) releaseProver(rc *resident, gpu int) {
	r.mu.Lock()
	rc.provers[gpu].inUse--
	rc.lastUsed = time.Now()
	r.mu.Unlock()
	r.changed.broadcast()
}

// idleLocked reports whether rc may be evicted: ready, no partition in
// flight on it, no prover loading or in use.
func (rc *resident) idleLocked() bool {
	if rc.state != residentReady || rc.inFlight > 0 {
		return false
	}
	for _, pe := range rc.provers {
		if pe.state == residentLoading || pe.inUse > 0 {
			return false
		}
	}
	return true
}

// evictIdle evicts the longest-idle circuit other than keep's whose idle time
// has reached evict_idle; its bytes return to the budget (a broadcast) once it
// is closed. It returns whether it evicted one, and otherwise when an idle
// circuit will become evictable (zero if none will).
func (r *residency) evictIdle(keep circuitKey) (bool, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false, time.Time{}
	}
	var victim *resident
	var wake time.Time
	now := time.Now()
	for _, rc := range r.circuits {
		if rc.key == keep || !rc.idleLocked() {
			continue
		}
		if at := rc.lastUsed.Add(r.minIdle); at.After(now) {
			if wake.IsZero() || at.Before(wake) {
				wake = at
			}
			continue
		}
		if victim == nil || rc.lastUsed.Before(victim.lastUsed) {
			victim = rc
		}
	}
	if victim == nil {
		return false, wake
	}
	delete(r.circuits, victim.key)
	victim.state = residentEvicted
	r.log.Info("evicting idle circuit under memory pressure", "proof", victim.spec.Name, "bytes", victim.bytes, "idle", now.Sub(victim.lastUsed))
	r.m.circuitLoads.WithLabelValues("evicted").Inc()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.closeResident(victim)
		r.budget.release(victim.bytes)
	}()
	return true, time.Time{}
}

// evictProverLocked marks rc's prover on gpu evicted (r.mu held) and returns
// what the caller closes outside the lock: the prover, and the host bytes it
// held of the budget. The circuit stays resident: its next partition loads its
// prover there again.
func (r *residency) evictProverLocked(rc *resident, gpu int) (PartitionProver, int64) {
	pe := rc.provers[gpu]
	pr, host := pe.prover, pe.hostBytes
	pe.state, pe.prover, pe.err, pe.draining, pe.hostBytes = residentEvicted, nil, nil, false, 0
	return pr, host
}

// dropGPU evicts every idle prover on gpu (a quarantined GPU) and reports
// whether one is still loading or in use there. The circuits stay resident.
func (r *residency) dropGPU(gpu int) (busy bool) {
	type dropped struct {
		rc   *resident
		pr   PartitionProver
		host int64
	}
	var out []dropped
	r.mu.Lock()
	for _, rc := range r.circuits {
		pe := rc.provers[gpu]
		switch {
		case pe == nil || pe.state == residentEvicted:
		case pe.state == residentFailed:
			delete(rc.provers, gpu)
		case pe.state == residentLoading || pe.inUse > 0:
			busy = true
		default:
			pr, host := r.evictProverLocked(rc, gpu)
			out = append(out, dropped{rc, pr, host})
		}
	}
	r.mu.Unlock()
	for _, d := range out {
		r.log.Info("dropping a prover of a quarantined GPU", "proof", d.rc.spec.Name, "gpu", gpu)
		r.m.circuitLoads.WithLabelValues("prover_quarantined").Inc()
		r.closeEvicted(d.rc, gpu, d.pr, d.host)
	}
	return busy
}

// closeEvicted closes a prover evictProverLocked took and returns its host bytes.
func (r *residency) closeEvicted(rc *resident, gpu int, pr PartitionProver, host int64) {
	if pr != nil {
		if err := pr.Close(); err != nil {
			r.log.Warn("closing prover", "proof", rc.spec.Name, "gpu", gpu, "err", err)
		}
	}
	if host > 0 {
		r.budget.release(host)
	}
	r.changed.broadcast()
}

// closeResident closes a circuit's provers, returning the host bytes of their
// spilled keys, then the circuit.
func (r *residency) closeResident(rc *resident) {
	for gpu, pe := range rc.provers {
		if pe.prover != nil {
			if err := pe.prover.Close(); err != nil {
				r.log.Warn("closing prover", "proof", rc.spec.Name, "gpu", gpu, "err", err)
			}
		}
		if pe.hostBytes > 0 {
			r.budget.release(pe.hostBytes)
			pe.hostBytes = 0
		}
	}
	if rc.circuit != nil {
		if err := rc.circuit.Close(); err != nil {
			r.log.Warn("closing circuit", "proof", rc.spec.Name, "err", err)
		}
	}
}

// closeAll closes every circuit; the engine's workers and loads have ended.
func (r *residency) closeAll() {
	r.mu.Lock()
	all := r.circuits
	r.circuits = map[circuitKey]*resident{}
	r.mu.Unlock()
	for _, rc := range all {
		if rc.state == residentReady {
			r.closeResident(rc)
			r.budget.release(rc.bytes)
		}
	}
}

// CircuitStatus is one resident circuit.
type CircuitStatus struct {
	Kind           Kind           `json:"kind"`
	SectorSize     uint64         `json:"sector_size"`
	ProofType      string         `json:"registered_proof"` // the type it was loaded for
	State          string         `json:"state"`            // loading, ready or failed
	Error          string         `json:"error,omitempty"`
	Bytes          int64          `json:"bytes"`           // charged to the memory budget
	PartitionBytes int64          `json:"partition_bytes"` // one partition's reservation
	InFlight       int            `json:"in_flight"`       // partitions using it now
	LoadTime       time.Duration  `json:"load_ns"`         // so far, while loading
	Progress       [2]int64       `json:"progress"`        // done, total of the load
	Idle           time.Duration  `json:"idle_ns"`         // since last used (ready only)
	Provers        []ProverStatus `json:"provers"`
}

// ProverStatus is a circuit's prover on one GPU.
type ProverStatus struct {
	GPU      int           `json:"gpu"`
	State    string        `json:"state"`
	Error    string        `json:"error,omitempty"`
	InUse    int           `json:"in_use"`
	LoadTime time.Duration `json:"load_ns"`
	// HostResident names the key's queries kept in pinned host memory because
	// the GPU had no room (their MSMs read over the bus: slower).
	HostResident []string `json:"host_resident,omitempty"`
	// StreamChunks maps each host-resident query to the points its MSMs copy to
	// the GPU at a time (0: read over the bus), as set at load.
	StreamChunks map[string]int `json:"stream_chunks,omitempty"`
	// HostSpMV: the circuit's matrices did not fit on the GPU, so A·w, B·w,
	// C·w are computed on the host (slower Prepare).
	HostSpMV bool `json:"host_spmv,omitempty"`
	// DeviceBytes is the GPU memory the prover took at load (its key, matrices,
	// NTT tables, MSM scratch and work buffers), where the backend says.
	DeviceBytes int64 `json:"device_bytes,omitempty"`
	// HostBytes is the pinned host memory of its spilled queries, charged to
	// the memory budget (and counted in Memory.Resident).
	HostBytes int64 `json:"host_bytes,omitempty"`
	// Draining: a prover of higher priority waits for its room on this GPU;
	// it takes no new partition and is evicted once its last one is done.
	Draining bool `json:"draining,omitempty"`
}

func (r *residency) status() (out []CircuitStatus, residentBytes int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rc := range r.circuits {
		cs := CircuitStatus{Kind: rc.key.kind, SectorSize: rc.key.size, ProofType: rc.spec.Name, State: rc.state.String(),
			Error: errString(rc.err), Bytes: rc.bytes, InFlight: rc.inFlight, LoadTime: rc.loadTime, Progress: rc.progress}
		switch rc.state {
		case residentLoading:
			cs.LoadTime = time.Since(rc.loadStart)
			residentBytes += rc.bytes
		case residentReady:
			cs.PartitionBytes = rc.circuit.PartitionBytes()
			cs.Idle = time.Since(rc.lastUsed)
			residentBytes += rc.bytes
		}
		for _, pe := range rc.provers {
			ps := ProverStatus{GPU: pe.gpu, State: pe.state.String(), Error: errString(pe.err), InUse: pe.inUse, LoadTime: pe.loadTime,
				HostBytes: pe.hostBytes, Draining: pe.draining}
			residentBytes += pe.hostBytes
			if pe.prover != nil {
				if hr, ok := pe.prover.(interface{ HostResident() []string }); ok {
					ps.HostResident = hr.HostResident()
				}
				if sc, ok := pe.prover.(interface{ StreamChunks() map[string]int }); ok {
					ps.StreamChunks = sc.StreamChunks()
				}
				if hs, ok := pe.prover.(interface{ HostSpMV() bool }); ok {
					ps.HostSpMV = hs.HostSpMV()
				}
				if fp, ok := pe.prover.(interface{ Footprint() uint64 }); ok {
					ps.DeviceBytes = int64(fp.Footprint())
				}
			}
			cs.Provers = append(cs.Provers, ps)
		}
		sort.Slice(cs.Provers, func(i, j int) bool { return cs.Provers[i].GPU < cs.Provers[j].GPU })
		out = append(out, cs)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].SectorSize < out[j].SectorSize
	})
	return out, residentBytes
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

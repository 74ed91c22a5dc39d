package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/filc2/filc2/internal/fault"
)

// GPU health: the failures of each GPU, and the quarantine of one that keeps
// failing. A quarantined GPU's workers take no partition, its provers are
// dropped once idle, and a probe runs every recovery.probe_interval until one
// passes; a lost device (ErrDeviceLost) is quarantined at its first failure.

// DeviceProber is a Backend that can check a GPU: the engine probes a
// quarantined GPU with it, lost set when the device was lost (the backend
// then re-initialises it first, where the driver allows). A backend without
// it has its GPUs returned to service after one probe interval.
type DeviceProber interface {
	ProbeDevice(ctx context.Context, gpu int, lost bool) error
}

// GPUHealth is one GPU's health in Status.
type GPUHealth struct {
	InService bool `json:"in_service"`
	// Lost: the device reported a sticky error (or an injected loss).
	Lost bool `json:"lost,omitempty"`
	// Failures counts this GPU's failures within recovery.quarantine_window.
	Failures int `json:"recent_failures"`
	// Quarantined is when it was taken out of service, Reason why (zero and
	// empty while in service).
	Quarantined time.Time `json:"quarantined_since,omitzero"`
	Reason      string    `json:"reason,omitempty"`
	// Quarantines counts how often it was taken out, Probes its probes,
	// LastProbe the error of the last probe that failed.
	Quarantines int64  `json:"quarantines"`
	Probes      int64  `json:"probes"`
	LastProbe   string `json:"last_probe_error,omitempty"`
}

// gpuState is one GPU's record (guarded by health.mu).
type gpuState struct {
	failures    []time.Time
	quarantined time.Time // zero: in service
	lost        bool
	reason      string
	quarantines int64
	probes      int64
	lastProbe   string
	lostUntil   time.Time // an injected loss lasts until then
}

// health keeps every GPU's record and runs the probes of quarantined ones.
type health struct {
	cfg     RecoveryConfig
	backend Backend
	faults  *fault.Injector
	res     *residency
	changed *signal
	log     *slog.Logger
	tl      *timeline
	m       *metrics
	ctx     context.Context
	wg      *sync.WaitGroup

	mu   sync.Mutex
	gpus map[int]*gpuState
}

func newHealth(e *Engine, faults *fault.Injector) *health {
	h := &health{cfg: e.cfg.Recovery, backend: e.backend, faults: faults, res: e.res, changed: e.changed, log: e.log, tl: e.tl,
		m: e.m, ctx: e.ctx, wg: &e.wg, gpus: map[int]*gpuState{}}
	for _, gpu := range e.cfg.GPU.Devices {
		h.gpus[gpu] = &gpuState{}
	}
	return h
}

// inService reports whether gpu takes work.
func (h *health) inService(gpu int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.gpus[gpu]
	return st != nil && st.quarantined.IsZero()
}

// othersInService reports whether a GPU other than gpu takes work.
func (h *health) othersInService(gpu int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for g, st := range h.gpus {
		if g != gpu && st.quarantined.IsZero() {
			return true
		}
	}
	return false
}

// injectLoss makes gpu lost for the injector's lost_for (fault.Lost).
func (h *health) injectLoss(gpu int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gpus[gpu].lostUntil = time.Now().Add(h.faults.LostFor())
}

// injectedLost reports whether an injected loss of gpu lasts.
func (h *health) injectedLost(gpu int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return time.Now().Before(h.gpus[gpu].lostUntil)
}

// failure records a failure of gpu (cause: a retry cause) and quarantines
// it when it has failed recovery.quarantine_after times within the window,
// or at once when the device is lost.
func (h *health) failure(gpu int, cause string, err error) {
	lost := errors.Is(err, ErrDeviceLost)
	h.m.gpuFailures.WithLabelValues(strconv.Itoa(gpu), cause).Inc()
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.gpus[gpu]
	if st == nil {
		return
	}
	now := time.Now()
	st.failures = append(st.failures, now)
	st.trimLocked(now, h.cfg.QuarantineWindow)
	if !st.quarantined.IsZero() {
		st.lost = st.lost || lost
		return
	}
	if !lost && (h.cfg.QuarantineAfter == 0 || len(st.failures) < h.cfg.QuarantineAfter) {
		return
	}
	st.quarantined, st.lost, st.quarantines = now, lost, st.quarantines+1
	if lost {
		st.reason = fmt.Sprintf("device lost: %v", err)
	} else {
		st.reason = fmt.Sprintf("%d failures within %v, the last: %v", len(st.failures), h.cfg.QuarantineWindow, err)
	}
	h.m.gpuQuarantines.WithLabelValues(strconv.Itoa(gpu)).Inc()
	h.log.Error("GPU quarantined: it takes no work until a probe passes", "gpu", gpu, "reason", st.reason, "probe_interval", h.cfg.ProbeInterval)
	h.tl.emit(TimelineEvent{Partition: -1, GPU: gpu, Worker: fmt.Sprintf("gpu%d/health", gpu), Stage: StageQuarantine, Event: "start", Detail: st.reason})
	h.wg.Add(1)
	go h.probe(gpu)
	h.changed.broadcast()
}

// trimLocked forgets failures older than window.
func (st *gpuState) trimLocked(now time.Time, window time.Duration) {
	i := 0
	for i < len(st.failures) && now.Sub(st.failures[i]) > window {
		i++
	}
	st.failures = append(st.failures[:0], st.failures[i:]...)
}

// probe runs while gpu is quarantined: every probe interval it drops the
// GPU's idle provers and, once none is left, probes the device; a probe that
// passes returns the GPU to service.
func (h *health) probe(gpu int) {
	defer h.wg.Done()
	tick := time.NewTicker(h.cfg.ProbeInterval)
	defer tick.Stop()
	for {
		h.res.dropGPU(gpu)
		select {
		case <-h.ctx.Done():
			return
		case <-tick.C:
		}
		if h.res.dropGPU(gpu) {
			continue // a partition still holds a prover there: it ends first
		}
		h.mu.Lock()
		st := h.gpus[gpu]
		lost := st.lost
		st.probes++
		h.mu.Unlock()
		err := h.probeOnce(gpu, lost)
		h.mu.Lock()
		if err != nil {
			st.lastProbe = err.Error()
			h.mu.Unlock()
			h.log.Warn("GPU probe failed; it stays quarantined", "gpu", gpu, "err", err)
			continue
		}
		since := st.quarantined
		st.quarantined, st.lost, st.reason, st.lastProbe, st.failures = time.Time{}, false, "", "", st.failures[:0]
		h.mu.Unlock()
		h.log.Info("GPU back in service: its probe passed", "gpu", gpu, "quarantined_for", time.Since(since).Round(time.Millisecond))
		h.tl.emit(TimelineEvent{Partition: -1, GPU: gpu, Worker: fmt.Sprintf("gpu%d/health", gpu), Stage: StageQuarantine, Event: "end"})
		h.changed.broadcast()
		return
	}
}

// probeGPU probes gpu with g when it is a DeviceProber; the Backends on a
// GPUBackend (Proofs, SetupKey, Synthetic) implement DeviceProber with it.
func probeGPU(ctx context.Context, g GPUBackend, gpu int, lost bool) error {
	if p, ok := g.(DeviceProber); ok {
		return p.ProbeDevice(ctx, gpu, lost)
	}
	return nil
}

// ProbeDevice implements DeviceProber with the GPU backend's.
func (b *Proofs) ProbeDevice(ctx context.Context, gpu int, lost bool) error {
	return probeGPU(ctx, b.GPU, gpu, lost)
}

// ProbeDevice implements DeviceProber with the GPU backend's.
func (b *SetupKey) ProbeDevice(ctx context.Context, gpu int, lost bool) error {
	return probeGPU(ctx, b.GPU, gpu, lost)
}

// ProbeDevice implements DeviceProber with the GPU backend's.
func (b *Synthetic) ProbeDevice(ctx context.Context, gpu int, lost bool) error {
	return probeGPU(ctx, b.GPU, gpu, lost)
}

// probeOnce checks gpu: an injected loss fails it while it lasts, then the
// backend's DeviceProber, if it has one.
func (h *health) probeOnce(gpu int, lost bool) error {
	if h.injectedLost(gpu) {
		return fault.Errorf(fault.Lost, "GPU %d is still lost", gpu)
	}
	p, ok := h.backend.(DeviceProber)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(h.ctx, max(h.cfg.ProbeInterval, 10*time.Second))
	defer cancel()
	return p.ProbeDevice(ctx, gpu, lost)
}

// status returns every GPU's health.
func (h *health) status() map[int]GPUHealth {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	out := map[int]GPUHealth{}
	for gpu, st := range h.gpus {
		st.trimLocked(now, h.cfg.QuarantineWindow)
		out[gpu] = GPUHealth{InService: st.quarantined.IsZero(), Lost: st.lost, Failures: len(st.failures),
			Quarantined: st.quarantined, Reason: st.reason, Quarantines: st.quarantines, Probes: st.probes, LastProbe: st.lastProbe}
	}
	return out
}

// quarantined lists the GPUs out of service, for logs and errors.
func (h *health) quarantined() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []int
	for gpu, st := range h.gpus {
		if !st.quarantined.IsZero() {
			out = append(out, gpu)
		}
	}
	sort.Ints(out)
	return out
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/porep"
)

// markedFake is the fake backend declaring itself synthetic or not.
type markedFake struct {
	*fakeBackend
	synthetic bool
}

func (m markedFake) Synthetic() bool { return m.synthetic }

func newMarkedEngine(t *testing.T, cfg Config, f *fakeBackend, synthetic bool) *Engine {
	t.Helper()
	e, err := New(cfg, markedFake{f, synthetic}, WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// The invariant: outside synthetic mode a partition whose proof does not
// verify fails its job and no proof bytes come out — also for a backend that
// has a Synthetic method answering false.
func TestUnverifiedProofFailsJobOutsideSyntheticMode(t *testing.T) {
	for _, marked := range []bool{false, true} {
		f := newFake()
		f.fail["nv/4"] = StageVerify
		var e *Engine
		if marked {
			e = newMarkedEngine(t, testConfig(0), f, false)
		} else {
			e = newTestEngine(t, testConfig(0), f)
		}
		if e.Synthetic() {
			t.Fatal("a real backend made a synthetic engine")
		}
		r, err := await(t, e, submit(t, e, "nv", proof32G, PriorityNormal))
		var pe *PartitionError
		if !errors.As(err, &pe) || pe.Stage != StageVerify || pe.Partition != 4 {
			t.Fatalf("marked %v: %v", marked, err)
		}
		if r.State != JobFailed || r.Proof != nil || r.Synthetic || r.Unverified != 0 {
			t.Fatalf("marked %v: result %+v", marked, r)
		}
		if st := e.Status(); st.Totals.PartitionsUnverified != 0 || st.Synthetic {
			t.Fatalf("marked %v: status %+v", marked, st.Totals)
		}
	}
}

// In synthetic mode a failed verification is counted, not fatal: the job
// succeeds with every partition's timings, Result.Synthetic and Unverified
// set, and no proof bytes; a job whose partitions all verify still gets its
// proof.
func TestSyntheticModeCountsUnverifiedPartitions(t *testing.T) {
	f := newFake()
	for k := range 10 {
		f.fail[fmt.Sprintf("sy/%d", k)] = StageVerify
	}
	f.fail["half/3"] = StageVerify
	e := newMarkedEngine(t, testConfig(0, 1), f, true)
	if !e.Synthetic() || !e.Status().Synthetic {
		t.Fatal("the engine does not say it is synthetic")
	}
	r, err := await(t, e, submit(t, e, "sy", proof32G, PriorityNormal))
	if err != nil {
		t.Fatal(err)
	}
	if r.State != JobSucceeded || !r.Synthetic || r.Unverified != 10 || r.Proof != nil || len(r.Partitions) != 10 {
		t.Fatalf("synthetic job: %+v", r)
	}
	for _, pt := range r.Partitions {
		if pt.Verified || pt.GPUTime < 0 || pt.Worker == "" {
			t.Fatalf("partition timing %+v", pt)
		}
	}
	r, err = await(t, e, submit(t, e, "half", proof32G, PriorityNormal))
	if err != nil || r.Unverified != 1 || r.Proof != nil {
		t.Fatalf("one unverified partition: %v, %+v", err, r)
	}
	r, err = await(t, e, submit(t, e, "ok", proof32G, PriorityNormal))
	if err != nil {
		t.Fatal(err)
	}
	checkProof(t, r, "ok", proof32G)
	if !r.Synthetic || r.Unverified != 0 || !r.Partitions[0].Verified {
		t.Fatalf("verified synthetic job: %+v", r)
	}
	st := e.Status()
	if st.Totals.PartitionsUnverified != 11 || st.Totals.PartitionsProved != 30 || st.Totals.Succeeded != 3 {
		t.Fatalf("totals %+v", st.Totals)
	}
	if v, _ := metricValue(t, e.Registry(), "filc2_engine_partitions_total", map[string]string{"outcome": "unverified"}); v != 11 {
		t.Fatalf("unverified partitions metric %v", v)
	}
}

// The synthetic backend's own checks: structure only for C1 outputs, and a
// GPU backend without synthetic keys is refused before anything is recorded.
func TestSyntheticBackendChecks(t *testing.T) {
	s := &Synthetic{GPU: CPUWholeProof(1)}
	if !isSynthetic(s) || !strings.HasPrefix(s.Name(), "synthetic/") {
		t.Fatalf("%s is not synthetic", s.Name())
	}
	if isSynthetic(&Proofs{GPU: CPUWholeProof(1)}) {
		t.Fatal("Proofs is synthetic")
	}
	out, err := porep.SyntheticC1(proof32G, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(context.Background(), &PoRep{Proof: proof32G, C1: out}); err != nil {
		t.Fatalf("a synthetic C1: %v", err)
	}
	out.VanillaProofs.Partitions[2] = out.VanillaProofs.Partitions[2][:5]
	var ve *c1.ValidationError
	if err := s.Check(context.Background(), &PoRep{Proof: proof32G, C1: out}); !errors.As(err, &ve) {
		t.Fatalf("a truncated C1: %v", err)
	}
	noKeys := &Synthetic{GPU: Staged{Label: "nokeys"}}
	if _, err := noKeys.LoadCircuit(context.Background(), (&PoRep{Proof: proof2K}).Circuit(), func(int64, int64) {}); err == nil || !strings.Contains(err.Error(), "no synthetic keys") {
		t.Fatalf("a GPU backend without synthetic keys: %v", err)
	}
	if _, err := (Staged{Label: "nokeys"}).LoadSyntheticProver(context.Background(), 0, nil, 1); err == nil {
		t.Fatal("Staged without LoadSynthetic made a prover")
	}
}

// The engine keeps its recent TIMELINE in memory without a log, with a
// gpu_held interval around every kernel section.
func TestTimelineMemory(t *testing.T) {
	f := newFake()
	f.gpuDelay = time.Millisecond
	cfg := testConfig(0)
	cfg.GPU.WorkersPerGPU = 2
	e := newTestEngine(t, cfg, f)
	if _, err := await(t, e, submit(t, e, "mem", proof32G, PriorityNormal)); err != nil {
		t.Fatal(err)
	}
	evs := e.TimelineEvents(0)
	var held, locked [][2]time.Time
	var open time.Time
	for _, ev := range evs {
		switch {
		case ev.Stage == StageGPUHeld && ev.Event == "start":
			if !open.IsZero() || ev.GPU != 0 || ev.Job != "mem" || !strings.HasPrefix(ev.Worker, "gpu0/") || !strings.HasPrefix(ev.Detail, "partition ") {
				t.Fatalf("gpu_held start %+v (open since %v)", ev, open)
			}
			open = ev.Time
		case ev.Stage == StageGPUHeld:
			held = append(held, [2]time.Time{open, ev.Time})
			open = time.Time{}
		case ev.Stage == StageGPU && ev.Event == "start":
			locked = append(locked, [2]time.Time{ev.Time})
		case ev.Stage == StageGPU:
			for i := range locked {
				if locked[i][1].IsZero() {
					locked[i][1] = ev.Time
					break
				}
			}
		}
	}
	if len(held) != 10 || len(locked) != 10 || int64(len(held)) != e.Status().GPUs[0].Lock.Acquisitions {
		t.Fatalf("%d gpu_held and %d gpu_locked intervals, %d acquisitions", len(held), len(locked), e.Status().GPUs[0].Lock.Acquisitions)
	}
	for _, l := range locked {
		inside := false
		for _, h := range held {
			inside = inside || (!l[0].Before(h[0]) && !h[1].Before(l[1]))
		}
		if !inside {
			t.Fatalf("kernel section %v is outside every lock hold %v", l, held)
		}
	}
	if got := e.TimelineEvents(time.Hour); len(got) != len(evs) {
		t.Fatalf("the last hour has %d of %d events", len(got), len(evs))
	}
	if got := e.TimelineEvents(time.Nanosecond); len(got) != 0 {
		t.Fatalf("the last nanosecond has %d events", len(got))
	}

	g := newFake()
	small := newTestEngine(t, testConfig(0), g, WithTimelineMemory(5))
	none := newTestEngine(t, testConfig(0), newFake(), WithTimelineMemory(0))
	await(t, small, submit(t, small, "s", proof32G, PriorityNormal))
	await(t, none, submit(t, none, "n", proof32G, PriorityNormal))
	// The job's end event follows Await's return by a moment.
	var kept []TimelineEvent
	eventually(t, "the job's end event", func() bool {
		kept = small.TimelineEvents(0)
		return len(kept) == 5 && kept[4].Stage == StageJob && kept[4].Event == "end"
	})
	for i := 1; i < len(kept); i++ {
		if kept[i].Time.Before(kept[i-1].Time) {
			t.Fatalf("kept events out of order: %+v", kept)
		}
	}
	if n := len(none.TimelineEvents(0)); n != 0 {
		t.Fatalf("WithTimelineMemory(0) kept %d events", n)
	}
}

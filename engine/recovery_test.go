package engine

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/filc2/filc2/internal/fault"
)

func mustFaults(t *testing.T, spec string) *fault.Injector {
	t.Helper()
	in, err := fault.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// synthCount is how often partition job/k was synthesised.
func synthCount(f *fakeBackend, key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, s := range f.synthOrder {
		if s == key {
			n++
		}
	}
	return n
}

// A partition whose kernel section fails is proved again, on the other
// GPU, from a fresh witness (the failed attempt's Prepare consumed it); the
// job succeeds with every proof in place, and the retry is counted.
func TestPartitionRetrySucceeds(t *testing.T) {
	f := newFake()
	f.gpuDelay = time.Millisecond
	in := mustFaults(t, "section=3")
	e := newTestEngine(t, testConfig(0, 1), f, WithFaults(in))
	r, err := await(t, e, submit(t, e, "re", proof32G, PriorityNormal))
	if err != nil {
		t.Fatal(err)
	}
	checkProof(t, r, "re", proof32G)
	retried := -1
	for _, pt := range r.Partitions {
		if pt.Retries > 0 {
			if retried >= 0 || pt.Retries != 1 {
				t.Fatalf("partition timings: %+v", r.Partitions)
			}
			retried = pt.Partition
		}
	}
	if retried < 0 {
		t.Fatal("no partition says it was retried")
	}
	if n := synthCount(f, fmt.Sprintf("re/%d", retried)); n != 2 {
		t.Fatalf("the retried partition was synthesised %d times, want 2 (its witness was consumed)", n)
	}
	st := e.Status()
	if st.Totals.PartitionsRetried != 1 || st.Totals.PartitionsFailed != 0 || st.Totals.Succeeded != 1 {
		t.Fatalf("totals %+v", st.Totals)
	}
	if v, _ := metricValue(t, e.Registry(), "filc2_engine_partition_retries_total", map[string]string{"cause": "section"}); v != 1 {
		t.Fatalf("retries metric %v", v)
	}
	for _, g := range st.GPUs {
		if !g.Health.InService || g.Health.Quarantines != 0 {
			t.Fatalf("GPU %d health %+v after one failure", g.Device, g.Health)
		}
	}
	if c := in.Counts()[fault.Section]; c.Hits != 1 || c.Calls != int64(proof32G.Partitions)+1 {
		t.Fatalf("section fault %+v", c)
	}
}

// A failed device allocation leaves the witness in place: the retry goes
// straight back to the GPU queue without synthesising again.
func TestRetryKeepsAnUnconsumedWitness(t *testing.T) {
	f := newFake()
	e := newTestEngine(t, testConfig(0, 1), f, WithFaults(mustFaults(t, "alloc=1")))
	r, err := await(t, e, submit(t, e, "al", proof32G, PriorityNormal))
	if err != nil {
		t.Fatal(err)
	}
	checkProof(t, r, "al", proof32G)
	for k := range proof32G.Partitions {
		if n := synthCount(f, fmt.Sprintf("al/%d", k)); n != 1 {
			t.Fatalf("partition %d synthesised %d times", k, n)
		}
	}
	if v, _ := metricValue(t, e.Registry(), "filc2_engine_partition_retries_total", map[string]string{"cause": "load"}); v != 1 {
		t.Fatalf("retries metric %v", v)
	}
}

// Spent retries fail the job naming every attempt, on alternating GPUs.
func TestRetriesExhaustedNameEveryAttempt(t *testing.T) {
	f := newFake()
	f.fail["bad/3"] = StageGPU
	e := newTestEngine(t, testConfig(0, 1), f)
	_, err := await(t, e, submit(t, e, "bad", proof32G, PriorityNormal))
	var pe *PartitionError
	if !errors.As(err, &pe) || pe.Partition != 3 || pe.Stage != StageGPU || len(pe.Attempts) != 3 {
		t.Fatalf("error %v (%+v)", err, pe)
	}
	for i, a := range pe.Attempts {
		if a.Stage != StageGPU || !strings.Contains(err.Error(), fmt.Sprintf("attempt %d (GPU %d, gpu_locked): fake gpu_locked failure", i+1, a.GPU)) {
			t.Fatalf("attempt %d %+v in %q", i+1, a, err)
		}
		if i > 0 && a.GPU == pe.Attempts[i-1].GPU {
			t.Fatalf("attempt %d ran on GPU %d again while the other was in service: %v", i+1, a.GPU, err)
		}
	}
	if st := e.Status(); st.Totals.PartitionsRetried != 2 || st.Totals.PartitionsFailed != 1 || st.Totals.Failed != 1 {
		t.Fatalf("totals %+v", st.Totals)
	}
	// With retries off the first failure fails the job.
	cfg := testConfig(0, 1)
	cfg.Recovery.PartitionRetries = 0
	f2 := newFake()
	f2.fail["once/0"] = StageFinish
	e2 := newTestEngine(t, cfg, f2)
	_, err = await(t, e2, submit(t, e2, "once", proof32G, PriorityNormal))
	if !errors.As(err, &pe) || pe.Attempts != nil || e2.Status().Totals.PartitionsRetried != 0 {
		t.Fatalf("retries off: %v", err)
	}
}

// A corrupted proof is never returned: it fails verification, and the
// partition is proved again (or, retries off, the job fails).
func TestCorruptedProofNeverReturned(t *testing.T) {
	f := newFake()
	in := mustFaults(t, "corrupt=every:4")
	cfg := testConfig(0, 1)
	cfg.Recovery.QuarantineAfter = 0 // this test is about the proofs, not the GPUs' health
	e := newTestEngine(t, cfg, f, WithFaults(in))
	var ids []JobID
	for i := range 6 {
		ids = append(ids, submit(t, e, fmt.Sprintf("c%d", i), proof32G, PriorityNormal))
	}
	succeeded := 0
	for i, id := range ids {
		r, err := await(t, e, id)
		var pe *PartitionError
		switch {
		case err == nil:
			checkProof(t, r, fmt.Sprintf("c%d", i), proof32G)
			succeeded++
		case errors.As(err, &pe) && pe.Stage == StageVerify && len(pe.Attempts) == 3 && r.Proof == nil:
			// One partition drew a corruption at each of its three attempts
			// (the last partitions in flight see every fourth Finish).
		default:
			t.Fatalf("job %s: %v, %d proof bytes", id, err, len(r.Proof))
		}
	}
	hits := in.Counts()[fault.Corrupt].Hits
	if hits < 10 || succeeded < 3 {
		t.Fatalf("%d corruptions injected, %d of 6 jobs succeeded", hits, succeeded)
	}
	if v, _ := metricValue(t, e.Registry(), "filc2_engine_partition_retries_total", map[string]string{"cause": "verify"}); v < 1 || v > float64(hits) {
		t.Fatalf("verify retries %v, corruptions %d", v, hits)
	}

	cfg = testConfig(0)
	cfg.Recovery.PartitionRetries = 0
	e2 := newTestEngine(t, cfg, newFake(), WithFaults(mustFaults(t, "corrupt=2")))
	r, err := await(t, e2, submit(t, e2, "x", proof32G, PriorityNormal))
	var pe *PartitionError
	if !errors.As(err, &pe) || pe.Stage != StageVerify || r.Proof != nil || !strings.Contains(err.Error(), "not returned") {
		t.Fatalf("corrupt proof, retries off: %v, %d bytes", err, len(r.Proof))
	}
}

// A GPU that keeps failing is quarantined: it takes no work, its provers
// are dropped, its probes run until one passes, and it comes back.
func TestQuarantinedGPUTakesNoWorkAndComesBack(t *testing.T) {
	f := newFake()
	f.gpuDelay = time.Millisecond
	f.gpuFails = map[int]int{1: 2}
	f.probeErr = errors.New("fake: GPU 1 still sick")
	cfg := testConfig(0, 1)
	cfg.Recovery.QuarantineAfter = 2
	cfg.Recovery.ProbeInterval = 20 * time.Millisecond
	e := newTestEngine(t, cfg, f)
	// Two failures of GPU 1 (each retried on GPU 0) quarantine it.
	r, err := await(t, e, submit(t, e, "q1", proof32G, PriorityNormal))
	if err != nil {
		t.Fatal(err)
	}
	checkProof(t, r, "q1", proof32G)
	eventually(t, "GPU 1 to be quarantined", func() bool { return !e.Status().GPUs[1].Health.InService })
	h := e.Status().GPUs[1].Health
	if h.Quarantines != 1 || !strings.Contains(h.Reason, "2 failures") || h.Lost {
		t.Fatalf("GPU 1 health %+v", h)
	}
	if v, _ := metricValue(t, e.Registry(), "filc2_engine_gpu_in_service", map[string]string{"gpu": "1"}); v != 0 {
		t.Fatalf("gpu_in_service{gpu=1} = %v", v)
	}
	eventually(t, "GPU 1's prover to be dropped", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, c := range f.closed {
			if strings.HasPrefix(c, "prover 1/") {
				return true
			}
		}
		return false
	})
	// While quarantined, every partition runs on GPU 0.
	f.mu.Lock()
	clear(f.kernelGPU)
	f.mu.Unlock()
	r, err = await(t, e, submit(t, e, "q2", proof32G, PriorityNormal))
	if err != nil {
		t.Fatal(err)
	}
	checkProof(t, r, "q2", proof32G)
	f.mu.Lock()
	for key, gpu := range f.kernelGPU {
		if gpu != 0 {
			t.Errorf("%s ran on quarantined GPU %d", key, gpu)
		}
	}
	f.mu.Unlock()
	eventually(t, "a failed probe", func() bool { return e.Status().GPUs[1].Health.LastProbe != "" })
	// The probe passes: GPU 1 is back and takes work.
	f.mu.Lock()
	f.probeErr = nil
	f.mu.Unlock()
	eventually(t, "GPU 1 back in service", func() bool { return e.Status().GPUs[1].Health.InService })
	f.mu.Lock()
	clear(f.kernelGPU)
	f.mu.Unlock()
	f.gpuDelay = 5 * time.Millisecond
	r, err = await(t, e, submit(t, e, "q3", proof32G, PriorityNormal))
	if err != nil {
		t.Fatal(err)
	}
	checkProof(t, r, "q3", proof32G)
	f.mu.Lock()
	on1 := 0
	for _, gpu := range f.kernelGPU {
		if gpu == 1 {
			on1++
		}
	}
	probed := len(f.probes)
	f.mu.Unlock()
	if on1 == 0 || probed < 2 {
		t.Fatalf("after its return GPU 1 proved %d partitions; %d probes", on1, probed)
	}
	if v, _ := metricValue(t, e.Registry(), "filc2_engine_gpu_quarantines_total", map[string]string{"gpu": "1"}); v != 1 {
		t.Fatalf("quarantines metric %v", v)
	}
	if v, _ := metricValue(t, e.Registry(), "filc2_engine_gpu_failures_total", map[string]string{"gpu": "1", "cause": "section"}); v != 2 {
		t.Fatalf("failures metric %v", v)
	}
}

// A lost device is quarantined at its first failure; with no other GPU the
// retry waits for it, and the job completes once the loss is over.
func TestLostDeviceQuarantinedAtOnce(t *testing.T) {
	f := newFake()
	cfg := testConfig(0)
	cfg.Recovery.ProbeInterval = 30 * time.Millisecond
	in := mustFaults(t, "lost=2,lost_for=150ms")
	e := newTestEngine(t, cfg, f, WithFaults(in))
	r, err := await(t, e, submit(t, e, "lo", proof2K, PriorityNormal))
	if err != nil {
		t.Fatal(err)
	}
	checkProof(t, r, "lo", proof2K)
	r, err = await(t, e, submit(t, e, "lo2", proof32G, PriorityNormal))
	if err != nil {
		t.Fatal(err)
	}
	checkProof(t, r, "lo2", proof32G)
	h := e.Status().GPUs[0].Health
	if !h.InService || h.Quarantines != 1 || h.Probes < 2 {
		t.Fatalf("GPU 0 health %+v: want one quarantine, a failed probe while lost, then service", h)
	}
	// Every section on the device while it was lost failed (the other
	// worker's too) and was retried.
	if v, _ := metricValue(t, e.Registry(), "filc2_engine_partition_retries_total", map[string]string{"cause": "lost"}); v < 1 {
		t.Fatalf("lost retries %v", v)
	}
}

// A proof that fails verification everywhere is the parameters' fault, not
// a GPU's: no quarantine. One that verifies on retry charges the GPU.
func TestVerifyFailuresChargeTheGPUOnlyWhenARetryVerifies(t *testing.T) {
	cfg := testConfig(0)
	cfg.Recovery.QuarantineAfter = 1
	cfg.Recovery.ProbeInterval = 20 * time.Millisecond
	f := newFake()
	f.fail["v/2"] = StageVerify
	e := newTestEngine(t, cfg, f)
	if _, err := await(t, e, submit(t, e, "v", proof32G, PriorityNormal)); err == nil {
		t.Fatal("a partition that never verifies succeeded")
	}
	if h := e.Status().GPUs[0].Health; !h.InService || h.Quarantines != 0 {
		t.Fatalf("GPU quarantined for a proof that fails everywhere: %+v", h)
	}
	e2 := newTestEngine(t, cfg, newFake(), WithFaults(mustFaults(t, "corrupt=1")))
	if _, err := await(t, e2, submit(t, e2, "w", proof32G, PriorityNormal)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the GPU back after its quarantine", func() bool {
		h := e2.Status().GPUs[0].Health
		return h.Quarantines == 1 && h.InService
	})
	if v, _ := metricValue(t, e2.Registry(), "filc2_engine_gpu_failures_total", map[string]string{"gpu": "0", "cause": "verify"}); v != 1 {
		t.Fatalf("verify failures charged %v", v)
	}
}

package engine

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// Synthesis.Ramp: a lone job's first partition is synthesised alone, so the
// GPU starts after one synthesis, not after as many as there are workers;
// later partitions start as synthesised ones wait for the GPU, and the job
// completes. Without Ramp every worker starts a partition at once.
func TestSynthesisRamp(t *testing.T) {
	const synth = 200 * time.Millisecond
	for _, ramp := range []bool{true, false} {
		f := newFake()
		f.synthDelay, f.gpuDelay = synth, 30*time.Millisecond
		var mu sync.Mutex
		var starts []time.Duration
		var firstKernel time.Duration
		t0 := time.Now()
		f.onSynth = func(string, int) {
			mu.Lock()
			starts = append(starts, time.Since(t0))
			mu.Unlock()
		}
		f.onKernel = func(string, int) {
			mu.Lock()
			if firstKernel == 0 {
				firstKernel = time.Since(t0)
			}
			mu.Unlock()
		}
		cfg := testConfig(0)
		cfg.Synthesis.Workers = 8
		cfg.Synthesis.Ramp = ramp
		cfg.Memory.Budget = 1 << 40
		e := newTestEngine(t, cfg, f)
		if err := e.Preload(t.Context(), proof32G); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		t0 = time.Now()
		mu.Unlock()
		id := submit(t, e, "lone", proof32G, PriorityNormal)
		r, err := await(t, e, id)
		if err != nil {
			t.Fatalf("ramp %v: %v", ramp, err)
		}
		checkProof(t, r, "lone", proof32G)
		mu.Lock()
		slices.Sort(starts)
		gap, fk := starts[1]-starts[0], firstKernel
		mu.Unlock()
		if len(starts) != proof32G.Partitions {
			t.Fatalf("ramp %v: %d syntheses for %d partitions", ramp, len(starts), proof32G.Partitions)
		}
		if ramp {
			// The second partition waits for the first's synthesis; the
			// kernels start right after it.
			if gap < synth {
				t.Errorf("ramp: the second synthesis started %v after the first, before its %v ended", gap, synth)
			}
			if fk > 3*synth {
				t.Errorf("ramp: the first kernel started %v after submission, want about one synthesis (%v)", fk, synth)
			}
		} else if gap >= synth {
			t.Errorf("no ramp: the second synthesis started %v after the first, after it ended; want them together", gap)
		}
	}
}

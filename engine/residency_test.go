package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestCircuitsLoadOncePerGPUAndSize(t *testing.T) {
	f := newFake()
	f.loadDelay = 5 * time.Millisecond
	e := newTestEngine(t, testConfig(0, 1), f)
	for i := range 3 {
		submit(t, e, fmt.Sprintf("a%d", i), proof32G, PriorityNormal)
		submit(t, e, fmt.Sprintf("b%d", i), proof2K, PriorityNormal)
	}
	for i := range 3 {
		for _, n := range []string{"a", "b"} {
			if _, err := await(t, e, JobID(fmt.Sprintf("%s%d", n, i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	big, small := uint64(proof32G.SectorSize), uint64(proof2K.SectorSize)
	// Which GPU takes a one-partition job is the scheduler's choice: run more
	// 2KiB jobs until both GPUs have proved one (a few at most), so that every
	// (GPU, size) pair below has been loaded, and then only once.
	loaded := func(key string) bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.proverLoads[key] > 0
	}
	for i := 0; !loaded(fmt.Sprintf("0/%d", small)) || !loaded(fmt.Sprintf("1/%d", small)); i++ {
		if i == 50 {
			t.Fatalf("50 more 2KiB jobs and a GPU still never proved one: prover loads %v", f.proverLoads)
		}
		if _, err := await(t, e, submit(t, e, fmt.Sprintf("more%d", i), proof2K, PriorityNormal)); err != nil {
			t.Fatal(err)
		}
	}
	if f.circuitLoads[big] != 1 || f.circuitLoads[small] != 1 {
		t.Fatalf("circuit loads %v, want one per size", f.circuitLoads)
	}
	for _, key := range []string{fmt.Sprintf("0/%d", big), fmt.Sprintf("1/%d", big), fmt.Sprintf("0/%d", small), fmt.Sprintf("1/%d", small)} {
		if f.proverLoads[key] != 1 {
			t.Fatalf("prover loads %v, want one per (GPU, size)", f.proverLoads)
		}
	}
	st := e.Status()
	if len(st.Circuits) != 2 || st.Memory.Resident != 2*f.circuitBytes {
		t.Fatalf("circuits %+v, memory %+v", st.Circuits, st.Memory)
	}
	for _, c := range st.Circuits {
		if c.State != "ready" || c.InFlight != 0 || c.PartitionBytes != f.partBytes || len(c.Provers) != 2 || c.Progress != [2]int64{1, 1} {
			t.Fatalf("circuit %+v", c)
		}
	}
	if len(f.closed) != 0 {
		t.Fatalf("closed without pressure: %v", f.closed)
	}
}

func TestEvictionOnlyUnderPressureAndIdle(t *testing.T) {
	f := newFake()
	f.gpuDelay = 5 * time.Millisecond
	cfg := testConfig(0, 1)
	cfg.Memory.Budget = ByteSize(f.circuitBytes + 3*f.partBytes) // one circuit at a time
	cfg.Memory.EvictIdle = 40 * time.Millisecond
	e := newTestEngine(t, cfg, f)
	big, small := uint64(proof32G.SectorSize), uint64(proof2K.SectorSize)

	if _, err := await(t, e, submit(t, e, "big1", proof32G, PriorityNormal)); err != nil {
		t.Fatal(err)
	}
	// The 2KiB job needs the room: the idle 32GiB circuit goes, but only once
	// it has been idle for memory.evict_idle.
	t0 := time.Now()
	if _, err := await(t, e, submit(t, e, "small", proof2K, PriorityNormal)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d < 30*time.Millisecond {
		t.Errorf("the 2KiB job finished %v after submission, before the 32GiB circuit was idle for 40ms", d)
	}
	want := []string{fmt.Sprintf("prover 0/%d", big), fmt.Sprintf("prover 1/%d", big), fmt.Sprintf("circuit %d", big)}
	got := slices.Clone(f.closed)
	slices.Sort(got[:2])
	if !slices.Equal(got, want) {
		t.Fatalf("closed %v, want %v", got, want)
	}
	// While partitions use a circuit, the other size waits instead of
	// evicting it (the fake reports a circuit closed during a call).
	submit(t, e, "big2", proof32G, PriorityNormal)
	submit(t, e, "small2", proof2K, PriorityNormal)
	for _, id := range []JobID{"big2", "small2"} {
		if _, err := await(t, e, id); err != nil {
			t.Fatal(err)
		}
	}
	if f.circuitLoads[big] != 2 || f.circuitLoads[small] != 2 {
		t.Fatalf("loads %v", f.circuitLoads)
	}
	if m := e.Status().Memory; m.HighWater > m.Budget {
		t.Fatalf("memory %+v", m)
	}
}

func TestPreload(t *testing.T) {
	f := newFake()
	f.loadDelay = 10 * time.Millisecond
	e := newTestEngine(t, testConfig(0, 1), f)
	if err := e.Preload(context.Background(), proof32G); err != nil {
		t.Fatal(err)
	}
	st := e.Status()
	if len(st.Circuits) != 1 || st.Circuits[0].State != "ready" || len(st.Circuits[0].Provers) != 2 {
		t.Fatalf("after Preload: %+v", st.Circuits)
	}
	for _, p := range st.Circuits[0].Provers {
		if p.State != "ready" || p.InUse != 0 {
			t.Fatalf("prover %+v", p)
		}
	}
	if err := e.Preload(context.Background(), proof32G); err != nil || f.circuitLoads[uint64(proof32G.SectorSize)] != 1 {
		t.Fatalf("second Preload: %v, loads %v", err, f.circuitLoads)
	}
	f.mu.Lock()
	f.loadErr = errors.New("broken params")
	f.mu.Unlock()
	if err := e.Preload(context.Background(), proof2K); !errors.Is(err, f.loadErr) {
		t.Fatalf("Preload of a failing circuit: %v", err)
	}
}

// A higher-priority job of another size, with room for one circuit only, gets
// the memory: the running job's circuit is evicted between its partitions
// and reloaded when its turn comes again. (Were jobs to hold their circuit
// between partitions, this would wait forever.)
func TestPriorityJobOfAnotherSizeGetsTheMemory(t *testing.T) {
	f := newFake()
	f.gpuDelay = 10 * time.Millisecond
	cfg := testConfig(0)
	cfg.Memory.Budget = ByteSize(f.circuitBytes + 2*f.partBytes)
	e := newTestEngine(t, cfg, f)
	submit(t, e, "slow", proof32G, PriorityLow)
	eventually(t, "the low-priority job to prove a partition", func() bool {
		js, _ := e.Job("slow")
		return js.Proved >= 1
	})
	submit(t, e, "urgent", proof2K, PriorityHigh)
	hi, err := await(t, e, "urgent")
	if err != nil {
		t.Fatal(err)
	}
	lo, err := await(t, e, "slow")
	if err != nil {
		t.Fatal(err)
	}
	checkProof(t, lo, "slow", proof32G)
	if !hi.Finished.Before(lo.Finished) {
		t.Fatalf("the high-priority job finished at %v, after the low one (%v)", hi.Finished, lo.Finished)
	}
	if f.circuitLoads[uint64(proof32G.SectorSize)] != 2 || f.circuitLoads[uint64(proof2K.SectorSize)] != 1 {
		t.Fatalf("loads %v: want the 32GiB circuit evicted and reloaded", f.circuitLoads)
	}
	if m := e.Status().Memory; m.HighWater > m.Budget {
		t.Fatalf("memory %+v", m)
	}
}

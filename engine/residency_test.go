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

// A prover that finds its GPU full takes the memory of another circuit's idle
// prover there (least recently used first); that circuit stays resident, its
// prover evicted in Status, and its next job loads the prover again. A prover
// in use is never evicted: the load fails naming what holds the GPU.
func TestProverEvictedForDeviceMemory(t *testing.T) {
	f := newFake()
	f.deviceSlots = 1
	cfg := testConfig(0)
	cfg.Memory.Budget = ByteSize(3*f.circuitBytes + 6*f.partBytes) // every circuit fits in host memory
	e := newTestEngine(t, cfg, f)
	big, small := uint64(proof32G.SectorSize), uint64(proof2K.SectorSize)

	if _, err := await(t, e, submit(t, e, "big1", proof32G, PriorityNormal)); err != nil {
		t.Fatal(err)
	}
	if _, err := await(t, e, submit(t, e, "small1", proof2K, PriorityNormal)); err != nil {
		t.Fatal(err)
	}
	if want := []string{fmt.Sprintf("prover 0/%d", big)}; !slices.Equal(f.closed, want) {
		t.Fatalf("closed %v, want %v (the 32GiB prover only, not its circuit)", f.closed, want)
	}
	states := map[uint64]string{}
	for _, c := range e.Status().Circuits {
		if c.State != "ready" || len(c.Provers) != 1 {
			t.Fatalf("circuit %+v: want ready with one prover", c)
		}
		states[c.SectorSize] = c.Provers[0].State
	}
	if states[big] != "evicted" || states[small] != "ready" {
		t.Fatalf("prover states %v: want the 32GiB one evicted, the 2KiB one ready", states)
	}
	if _, err := await(t, e, submit(t, e, "big2", proof32G, PriorityNormal)); err != nil {
		t.Fatal(err)
	}
	if f.proverLoads[fmt.Sprintf("0/%d", big)] != 2 || f.circuitLoads[big] != 1 {
		t.Fatalf("prover loads %v, circuit loads %v: want the 32GiB prover loaded twice, its circuit once", f.proverLoads, f.circuitLoads)
	}

	// The 32GiB prover busy in a long GPU section, a 2KiB job of the same
	// priority and no host memory for keys: the 2KiB prover waits for the
	// 32GiB one to go idle and takes its room.
	started := make(chan struct{}, 1)
	f.mu.Lock()
	f.gpuDelay = 100 * time.Millisecond
	f.onKernel = func(job string, k int) {
		if job == "big3" || job == "big4" {
			select {
			case started <- struct{}{}:
			default:
			}
		}
	}
	f.mu.Unlock()
	submit(t, e, "big3", proof32G, PriorityNormal)
	<-started
	small2, err := await(t, e, submit(t, e, "small2", proof2K, PriorityNormal))
	if err != nil {
		t.Fatalf("2KiB job beside a busy 32GiB prover of its priority: %v, want it to wait for the room", err)
	}
	big3, err := await(t, e, "big3")
	if err != nil {
		t.Fatal(err)
	}
	if !big3.Finished.Before(small2.Partitions[0].Completed) {
		t.Fatalf("big3 finished %v, small2's partition %v: the 2KiB job should have waited for the 32GiB one", big3.Finished, small2.Partitions[0].Completed)
	}

	// A backend that can keep a key in host memory loads it there beside a
	// busy prover of its priority, and the pinned bytes are charged to the
	// memory budget.
	f.mu.Lock()
	f.spill = true
	f.keyBytes = 40
	f.mu.Unlock()
	select { // a signal of big3's
	case <-started:
	default:
	}
	submit(t, e, "big4", proof32G, PriorityNormal)
	<-started
	if _, err := await(t, e, submit(t, e, "small3", proof2K, PriorityNormal)); err != nil {
		t.Fatalf("2KiB job beside a busy 32GiB prover, host memory allowed: %v", err)
	}
	var hostResident []string
	var chunks map[string]int
	var hostBytes, circuitBytes int64
	st := e.Status()
	for _, c := range st.Circuits {
		circuitBytes += c.Bytes
		if c.SectorSize == small && len(c.Provers) == 1 {
			hostResident, hostBytes, chunks = c.Provers[0].HostResident, c.Provers[0].HostBytes, c.Provers[0].StreamChunks
		}
	}
	if !slices.Equal(hostResident, []string{"h"}) || hostBytes != 20 || len(chunks) != 1 || chunks["h"] != 1<<22 {
		t.Fatalf("the 2KiB prover loaded beside a busy one reports host-resident %v in chunks %v, %d host bytes; want [h] in chunks of 2^22, 20",
			hostResident, chunks, hostBytes)
	}
	if st.Memory.Resident != circuitBytes+hostBytes {
		t.Fatalf("resident %d bytes, want the circuits' %d and the spilled key's %d", st.Memory.Resident, circuitBytes, hostBytes)
	}
	if _, err := await(t, e, "big4"); err != nil {
		t.Fatal(err)
	}
}

// A job of higher priority whose prover does not fit beside a busy prover of
// lower priority drains it, rather than spilling its key to host memory: the
// busy prover takes no new partition, is closed once the partitions holding it
// are done, and the lower job's next partitions load it again after the
// higher job's are proved.
func TestProverDrainedForHigherPriority(t *testing.T) {
	f := newFake()
	f.deviceSlots = 1
	f.spill = true // host memory allowed: a higher priority still drains
	f.keyBytes = 40
	f.gpuDelay = 40 * time.Millisecond
	cfg := testConfig(0)
	cfg.Memory.Budget = ByteSize(3*f.circuitBytes + 6*f.partBytes)
	e := newTestEngine(t, cfg, f)
	big := uint64(proof32G.SectorSize)
	started := make(chan struct{}, 1)
	f.mu.Lock()
	f.onKernel = func(job string, k int) {
		if job == "big" {
			select {
			case started <- struct{}{}:
			default:
			}
		}
	}
	f.mu.Unlock()
	submit(t, e, "big", proof32G, PriorityNormal)
	<-started
	hi, err := await(t, e, submit(t, e, "urgent", proof2K, PriorityHigh))
	if err != nil {
		t.Fatalf("high-priority job beside a busy prover of lower priority: %v", err)
	}
	for _, c := range e.Status().Circuits {
		if c.SectorSize == uint64(proof2K.SectorSize) {
			for _, p := range c.Provers {
				if len(p.HostResident) != 0 || p.HostBytes != 0 {
					t.Fatalf("the high-priority prover spilled (%v, %d bytes): it should have drained the busy one", p.HostResident, p.HostBytes)
				}
			}
		}
	}
	lo, err := await(t, e, "big")
	if err != nil {
		t.Fatalf("the drained job: %v", err)
	}
	resumed := 0
	for _, p := range lo.Partitions {
		if p.Completed.After(hi.Finished) {
			resumed++
		}
	}
	if resumed == 0 || !hi.Finished.Before(lo.Finished) {
		t.Fatalf("urgent finished %v, big %v with %d partitions after: want the urgent job first and big resumed after it", hi.Finished, lo.Finished, resumed)
	}
	f.mu.Lock()
	loads, errs := f.proverLoads[fmt.Sprintf("0/%d", big)], slices.Clone(f.errs)
	f.mu.Unlock()
	if loads != 2 || len(errs) != 0 {
		t.Fatalf("32GiB prover loaded %d times (want 2: drained, then again), fake errors %v", loads, errs)
	}
	if v, _ := metricValue(t, e.Registry(), "filc2_engine_circuit_loads_total", map[string]string{"outcome": "prover_drained"}); v != 1 {
		t.Fatalf("prover_drained %v, want 1", v)
	}
	if st := e.Status(); st.Memory.InUse != st.Memory.Resident {
		t.Fatalf("after both jobs: %d bytes in use, %d resident: a reservation leaked", st.Memory.InUse, st.Memory.Resident)
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

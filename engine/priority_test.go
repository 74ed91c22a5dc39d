package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// sectionsBefore counts, from the TIMELINE's gpu_held events, the kernel
// sections of other jobs that began on GPU gpu after from and before job's
// own first section; it fails the test if job never held the GPU.
func sectionsBefore(t *testing.T, evs []TimelineEvent, gpu int, job JobID, from time.Time) (int, time.Time) {
	t.Helper()
	var own time.Time
	for _, ev := range evs {
		if ev.Stage == StageGPUHeld && ev.Event == "start" && ev.GPU == gpu && ev.Job == job {
			own = ev.Time
			break
		}
	}
	if own.IsZero() {
		t.Fatalf("job %s never held GPU %d", job, gpu)
	}
	n := 0
	for _, ev := range evs {
		if ev.Stage == StageGPUHeld && ev.Event == "start" && ev.GPU == gpu && ev.Job != job &&
			ev.Time.After(from) && ev.Time.Before(own) {
			n++
		}
	}
	return n, own
}

// A WinningPoSt submitted while the GPU queue, the synthesis workers and the
// budget are all taken by 32GiB-shaped PoRep work starts its kernel section
// within one section of the others: it waits for the section running when it
// is ready, never for the partitions queued before it. Every PoRep job still
// finishes (the kinds share the GPU without starving), and a WindowPoSt runs
// at high priority without asking.
func TestCriticalJobTakesTheNextSection(t *testing.T) {
	for _, lane := range []bool{true, false} {
		t.Run(fmt.Sprintf("lane=%v", lane), func(t *testing.T) {
			f := newFake()
			// Synthesis slower than the kernels, as a 32GiB PoRep's is on a
			// machine whose cores are shared: every synthesis worker busy.
			f.synthDelay = 300 * time.Millisecond
			f.prepDelay = 5 * time.Millisecond
			f.gpuDelay = 120 * time.Millisecond
			f.finishDelay = 20 * time.Millisecond
			cfg := testConfig(0)
			cfg.Synthesis.Workers = 2
			// Three circuits (PoRep, Winning, Window) of 300 each and a reserve
			// of 100 leave normal work six partitions of 100 in flight: the
			// budget is full whenever the pipeline is.
			cfg.Memory.Budget = 1600
			cfg.Memory.CriticalReserve = 100
			cfg.Queue.CriticalLane = lane
			e := newTestEngine(t, cfg, f)
			ctx := context.Background()

			winning := func(name string) Request {
				return Request{ID: name, Input: &fakePoSt{name: name, kind: KindWinningPoSt, size: 1 << 35, synth: 5 * time.Millisecond}}
			}
			// Load the Winning and Window circuits first: a PoSt machine keeps
			// them resident (serve preloads them).
			for _, req := range []Request{winning("warm"), {ID: "wwarm", Input: &fakePoSt{name: "wwarm", kind: KindWindowPoSt, size: 1 << 35}}} {
				if _, err := e.Submit(ctx, req); err != nil {
					t.Fatal(err)
				}
				if _, err := e.Await(ctx, JobID(req.ID)); err != nil {
					t.Fatal(err)
				}
			}
			var porep []JobID
			for i := range 3 {
				id, err := e.Submit(ctx, Request{Commit1: fakeC1(fmt.Sprintf("pr%d", i), proof32G)})
				if err != nil {
					t.Fatal(err)
				}
				porep = append(porep, id)
			}
			// Wait until the pipeline is full: sections running, every
			// synthesis worker busy.
			deadline := time.Now().Add(10 * time.Second)
			for {
				st := e.Status()
				busy := 0
				for _, w := range st.Synthesis {
					if w.Stage == StageSynthesis {
						busy++
					}
				}
				if busy == cfg.Synthesis.Workers && st.GPUs[0].Lock.Acquisitions >= 3 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the pipeline never filled: %+v", st)
				}
				time.Sleep(2 * time.Millisecond)
			}
			submitted := time.Now()
			if _, err := e.Submit(ctx, winning("win")); err != nil {
				t.Fatal(err)
			}
			if st, err := e.Job("win"); err != nil || st.Priority != PriorityCritical || st.Kind != KindWinningPoSt {
				t.Fatalf("the WinningPoSt job: %+v, %v", st, err)
			}
			wid, err := e.Submit(ctx, Request{ID: "window", Input: &fakePoSt{name: "window", kind: KindWindowPoSt, size: 1 << 35, synth: 5 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			if st, _ := e.Job(wid); st.Priority != PriorityHigh {
				t.Fatalf("a WindowPoSt without a priority runs at %v, want high", st.Priority)
			}
			r, err := e.Await(ctx, "win")
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Proof) != 192 || r.Kind != KindWinningPoSt {
				t.Fatalf("the WinningPoSt result: kind %v, %d proof bytes", r.Kind, len(r.Proof))
			}
			n, began := sectionsBefore(t, e.TimelineEvents(0), 0, "win", submitted)
			t.Logf("lane %v: %d other sections began between submission and the WinningPoSt's, which began %v after submission",
				lane, n, began.Sub(submitted))
			if lane && n > 1 {
				t.Errorf("%d kernel sections of other jobs began before the WinningPoSt's: want at most 1", n)
			}
			if !lane && n < 2 {
				// Without the lane the WinningPoSt waits for a synthesis worker and
				// for the partitions queued ahead: the assertion above can fail.
				t.Errorf("without the critical lane only %d sections went first: the test no longer tells the lane from none", n)
			}
			// Nothing starves: every PoRep job and the WindowPoSt prove.
			wr, err := e.Await(ctx, wid)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range porep {
				pr, err := e.Await(ctx, id)
				if err != nil {
					t.Fatalf("PoRep job %s: %v", id, err)
				}
				if len(pr.Proof) != 10*192 {
					t.Fatalf("PoRep job %s: %d proof bytes", id, len(pr.Proof))
				}
				if id == porep[2] && !wr.Finished.Before(pr.Finished) {
					t.Errorf("the WindowPoSt (high) finished after the last PoRep job queued before it")
				}
			}
			st := e.Status()
			if st.GPUs[0].Lock.MaxHolders != 1 {
				t.Fatalf("%d holders at once", st.GPUs[0].Lock.MaxHolders)
			}
			if st.Memory.HighWater > int64(cfg.Memory.Budget) {
				t.Fatalf("budget high water %d over %d", st.Memory.HighWater, cfg.Memory.Budget)
			}
			kinds := map[Kind]bool{}
			for _, c := range st.Circuits {
				kinds[c.Kind] = true
			}
			if len(kinds) != 3 {
				t.Fatalf("resident circuits %+v: want PoRep, Window and Winning at once", st.Circuits)
			}
		})
	}
}

// The lock hands its section to waiters by priority, FIFO within one.
func TestGPULockPriorityOrder(t *testing.T) {
	l := newGPULock(0)
	ctx := context.Background()
	if err := l.lockAs(ctx, lockHolder{job: "first", partition: -1}); err != nil {
		t.Fatal(err)
	}
	order := make(chan JobID, 4)
	waiters := []lockHolder{{job: "n1"}, {job: "n2"}, {job: "crit", prio: PriorityCritical}, {job: "high", prio: PriorityHigh}}
	for i, h := range waiters {
		go func() {
			if err := l.lockAs(ctx, h); err != nil {
				t.Error(err)
				return
			}
			order <- h.job
			l.unlock()
		}()
		for l.status().Waiting != i+1 { // queue them in this order
			time.Sleep(time.Millisecond)
		}
	}
	// One more that gives up: its place must not block the others.
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- l.lockAs(cctx, lockHolder{job: "gone", prio: PriorityCritical}) }()
	for l.status().Waiting != len(waiters)+1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a canceled waiter entered")
	}
	l.unlock()
	var got []JobID
	for range waiters {
		got = append(got, <-order)
	}
	if fmt.Sprint(got) != "[crit high n1 n2]" {
		t.Fatalf("order %v, want [crit high n1 n2]", got)
	}
	if s := l.status(); s.MaxHolders != 1 || s.Acquisitions != 5 || s.Waiting != 0 || s.Holders != 0 {
		t.Fatalf("accounting %+v", s)
	}
}

// A kernel section with a preemption point between its kernels (as ffi's:
// after H, after the H MSM, before B_G2) lends the GPU to a WinningPoSt
// waiting there and takes it back: the WinningPoSt's section runs inside the
// PoRep partition's, never beside it, and the PoRep proof still verifies.
func TestCriticalJobPreemptsAtAKernelBoundary(t *testing.T) {
	f := newFake()
	f.gpuDelay = 300 * time.Millisecond
	f.yieldMid = true
	cfg := testConfig(0)
	cfg.Memory.Budget = 1600
	cfg.Memory.CriticalReserve = 100
	e := newTestEngine(t, cfg, f)
	ctx := context.Background()
	win := Request{ID: "win", Input: &fakePoSt{name: "win", kind: KindWinningPoSt, size: 1 << 35}}
	warm := Request{ID: "warm", Input: &fakePoSt{name: "warm", kind: KindWinningPoSt, size: 1 << 35}}
	if _, err := e.Submit(ctx, warm); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Await(ctx, "warm"); err != nil {
		t.Fatal(err)
	}
	submitted := make(chan error, 1)
	var once sync.Once
	f.mu.Lock()
	f.onKernel = func(name string, k int) {
		if name == "pr" && k == 1 { // a PoRep section has just begun: the WinningPoSt comes now
			once.Do(func() {
				go func() {
					_, err := e.Submit(ctx, win)
					submitted <- err
				}()
			})
		}
	}
	f.mu.Unlock()
	id, err := e.Submit(ctx, Request{Commit1: fakeC1("pr", proof32G)})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-submitted; err != nil {
		t.Fatal(err)
	}
	if _, err := e.Await(ctx, "win"); err != nil {
		t.Fatal(err)
	}
	res, err := e.Await(ctx, id)
	if err != nil || len(res.Proof) != 10*192 {
		t.Fatalf("the PoRep job: %v, %d proof bytes", err, len(res.Proof))
	}
	f.mu.Lock()
	preempted := append([]string(nil), f.preempted...)
	f.mu.Unlock()
	if len(preempted) != 1 || preempted[0] != "pr/1" {
		t.Fatalf("sections another ran inside: %v, want [pr/1]", preempted)
	}
	if pt := res.Partitions[1]; pt.Preempted != 1 || pt.Lent <= 0 || pt.GPUTime >= f.gpuDelay+pt.Lent {
		t.Fatalf("partition 1's timing %+v: want one lending, its time out of the section's", pt)
	}
	if st := e.Status(); st.GPUs[0].Lock.MaxHolders != 1 || f.maxInKernel[0] != 1 {
		t.Fatalf("the lock had %d holders at once, the fake saw %d kernels at once", st.GPUs[0].Lock.MaxHolders, f.maxInKernel[0])
	}
}

// A GPU section out of device memory (a GPUBackend's ErrDeviceMemory) fails
// its job naming the circuits resident beside it on that GPU and what to do.
func TestDeviceMemoryErrorNamesTheResidents(t *testing.T) {
	f := newFake()
	cfg := testConfig(0)
	cfg.Memory.Budget = 2000
	e := newTestEngine(t, cfg, f)
	ctx := context.Background()
	id, err := e.Submit(ctx, Request{Commit1: fakeC1("pr", proof32G)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Await(ctx, id); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.fail["win/0"], f.failErr = StageGPU, ErrDeviceMemory
	f.mu.Unlock()
	if _, err := e.Submit(ctx, Request{ID: "win", Input: &fakePoSt{name: "win", kind: KindWindowPoSt, size: 1 << 35}}); err != nil {
		t.Fatal(err)
	}
	_, err = e.Await(ctx, "win")
	var pe *PartitionError
	if !errors.Is(err, ErrDeviceMemory) || !errors.As(err, &pe) || pe.Stage != StageGPU ||
		!strings.Contains(err.Error(), "beside StackedDrg32GiBV1_1") || !strings.Contains(err.Error(), "GPU of its own") {
		t.Fatalf("out of device memory: %v", err)
	}
}

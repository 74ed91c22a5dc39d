package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestGPULockAccounting(t *testing.T) {
	l := newGPULock(3)
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if err := l.lock(ctx); err != nil {
					t.Error(err)
					return
				}
				time.Sleep(50 * time.Microsecond)
				l.unlock()
			}
		}()
	}
	wg.Wait()
	s := l.status()
	if s.MaxHolders != 1 || s.Holders != 0 || s.Waiting != 0 || s.Acquisitions != 160 {
		t.Fatalf("lock status %+v", s)
	}
	if s.Busy < 160*50*time.Microsecond {
		t.Fatalf("busy %v for 160 holds of at least 50µs", s.Busy)
	}
	// A waiter whose context ends leaves without the lock.
	if err := l.lock(ctx); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
	defer cancel()
	if err := l.lock(cctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("lock with an ended context: %v", err)
	}
	if s := l.status(); s.Holders != 1 || s.Waiting != 0 || s.Busy < 160*50*time.Microsecond {
		t.Fatalf("lock status while held %+v", s)
	}
	l.unlock()
}

// Two workers per GPU, two GPUs: never two kernel sections on one GPU at
// once, by the lock's own accounting and by the fake GPU's.
func TestTwoWorkersPerGPUNeverShareTheKernelSection(t *testing.T) {
	f := newFake()
	f.prepDelay, f.gpuDelay, f.finishDelay = 2*time.Millisecond, 3*time.Millisecond, 2*time.Millisecond
	cfg := testConfig(0, 1)
	cfg.GPU.WorkersPerGPU = 2
	cfg.Memory.Budget = ByteSize(f.circuitBytes + 12*f.partBytes)
	e := newTestEngine(t, cfg, f)
	for i := range 4 {
		submit(t, e, fmt.Sprintf("k%d", i), proof32G, PriorityNormal)
	}
	for i := range 4 {
		if _, err := await(t, e, JobID(fmt.Sprintf("k%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	perGPU := map[int]int64{}
	for _, gpu := range f.kernelGPU {
		perGPU[gpu]++
	}
	var total int64
	for _, g := range e.Status().GPUs {
		l := g.Lock
		if l.MaxHolders != 1 || l.Holders != 0 {
			t.Errorf("GPU %d: lock %+v, want at most one holder ever", g.Device, l)
		}
		if f.maxInKernel[g.Device] != 1 {
			t.Errorf("GPU %d: the fake saw %d kernel sections at once", g.Device, f.maxInKernel[g.Device])
		}
		if l.Acquisitions != perGPU[g.Device] {
			t.Errorf("GPU %d: %d lock acquisitions, %d kernels ran there", g.Device, l.Acquisitions, perGPU[g.Device])
		}
		if min := time.Duration(l.Acquisitions) * f.gpuDelay; l.Busy < min {
			t.Errorf("GPU %d: busy %v, less than %d kernels of %v", g.Device, l.Busy, l.Acquisitions, f.gpuDelay)
		}
		if len(g.Workers) != 3 { // two, and the critical lane's
			t.Errorf("GPU %d: %d workers", g.Device, len(g.Workers))
		}
		total += l.Acquisitions
	}
	if total != 40 {
		t.Fatalf("%d kernel sections for 40 partitions", total)
	}
}

// The second worker's CPU stages overlap the first's kernels: with Prepare,
// RunGPU and Finish equally long, two workers prove a job in clearly less
// time than one.
func TestSecondWorkerOverlapsCPUStages(t *testing.T) {
	run := func(workers int) (time.Duration, LockStatus) {
		f := newFake()
		f.prepDelay, f.gpuDelay, f.finishDelay = 10*time.Millisecond, 10*time.Millisecond, 10*time.Millisecond
		cfg := testConfig(0)
		cfg.GPU.WorkersPerGPU = workers
		e := newTestEngine(t, cfg, f)
		if err := e.Preload(context.Background(), proof32G); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		if _, err := await(t, e, submit(t, e, fmt.Sprintf("w%d", workers), proof32G, PriorityNormal)); err != nil {
			t.Fatal(err)
		}
		return time.Since(t0), e.Status().GPUs[0].Lock
	}
	one, l1 := run(1)
	two, l2 := run(2)
	t.Logf("one worker %v (GPU busy %v), two workers %v (GPU busy %v)", one, l1.Busy, two, l2.Busy)
	if l2.MaxHolders != 1 {
		t.Fatalf("two workers: lock %+v", l2)
	}
	if two > one*4/5 {
		t.Fatalf("two workers took %v, one %v: the CPU stages do not overlap the kernels", two, one)
	}
}

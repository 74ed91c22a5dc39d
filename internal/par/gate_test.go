package par

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Two EachGated calls sharing a Gate of 3 run every index once and never more
// than 3 tasks at once between them (each call alone has 8 workers).
func TestGateBoundsSharedTasks(t *testing.T) {
	g := NewGate(3)
	if g.Size() != 3 {
		t.Fatalf("Size = %d, want 3", g.Size())
	}
	var running, peak atomic.Int32
	task := func() {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		running.Add(-1)
	}
	const n = 40
	var seen [2][n]atomic.Int32
	var wg sync.WaitGroup
	for c := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			EachGated(n, 8, g, func(i int) { seen[c][i].Add(1); task() })
		}()
	}
	wg.Wait()
	for c := range seen {
		for i := range seen[c] {
			if v := seen[c][i].Load(); v != 1 {
				t.Fatalf("call %d: index %d ran %d times", c, i, v)
			}
		}
	}
	if p := peak.Load(); p > 3 {
		t.Fatalf("%d tasks ran at once through a Gate of 3", p)
	}
}

// A nil Gate bounds nothing; NewGate(0) still admits one task.
func TestGateNilAndSize(t *testing.T) {
	var g *Gate
	if g.Size() != 0 {
		t.Fatalf("nil Gate Size = %d", g.Size())
	}
	var ran atomic.Int32
	EachGated(5, 2, g, func(int) { ran.Add(1) })
	g.Do(func() { ran.Add(1) })
	if ran.Load() != 6 {
		t.Fatalf("nil Gate ran %d tasks, want 6", ran.Load())
	}
	if s := NewGate(0).Size(); s != 1 {
		t.Fatalf("NewGate(0).Size() = %d, want 1", s)
	}
}

// Leave runs even when the task panics, so the slot is not lost.
func TestGateLeavesOnPanic(t *testing.T) {
	g := NewGate(1)
	func() {
		defer func() { _ = recover() }()
		g.Do(func() { panic("boom") })
	}()
	done := make(chan struct{})
	go func() { g.Do(func() {}); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the slot of a panicking task was never given back")
	}
}

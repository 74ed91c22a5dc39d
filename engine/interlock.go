package engine

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// gpuLock is one GPU's kernel lock, shared by that GPU's workers: each holds
// it only around PartitionProver.RunGPU and does its CPU stages outside, so
// one worker's preparation and finalisation overlap the other's kernels. It
// keeps its own accounting (holders at once, busy time) so that a test, the
// status and the metrics see what actually happened. Each hold is also a
// gpu_held start/end pair in the TIMELINE, stamped by the lock's own clock.
type gpuLock struct {
	gpu int
	tl  *timeline // nil: no events

	mu           sync.Mutex
	taken        bool          // the section is held, or handed to a waiter about to enter
	queue        []*lockWaiter // waiting, in arrival order
	seq          uint64
	holders      int // inside the section now (0 or 1 unless the lock is broken)
	maxHolders   int // the most ever inside at once
	acquisitions int64
	busy         time.Duration // total time with a holder inside
	since        time.Time     // when the current hold began
	holder       lockHolder    // who holds it now
}

// lockHolder names who holds a GPU's lock, for the TIMELINE, and the
// priority it waits with.
type lockHolder struct {
	worker    string
	job       JobID
	partition int
	prio      Priority
}

// lockWaiter is one worker waiting for the section.
type lockWaiter struct {
	h       lockHolder
	seq     uint64
	granted chan struct{} // closed when the section is handed to it
}

func newGPULock(gpu int) *gpuLock {
	return &gpuLock{gpu: gpu}
}

// lock enters the kernel section, or returns ctx's error if it ends first.
func (l *gpuLock) lock(ctx context.Context) error {
	return l.lockAs(ctx, lockHolder{partition: -1})
}

// lockAs is lock on behalf of h, who is named in the TIMELINE. Waiters enter
// in priority order, FIFO within a priority: a critical partition waits for
// the section running now, not for the normal ones queued before it.
func (l *gpuLock) lockAs(ctx context.Context, h lockHolder) error {
	l.mu.Lock()
	if !l.taken && len(l.queue) == 0 {
		l.taken = true
		l.enterLocked(h)
		l.mu.Unlock()
		return nil
	}
	l.seq++
	w := &lockWaiter{h: h, seq: l.seq, granted: make(chan struct{})}
	l.queue = append(l.queue, w)
	l.mu.Unlock()
	select {
	case <-w.granted:
		l.mu.Lock()
		l.enterLocked(h)
		l.mu.Unlock()
		return nil
	case <-ctx.Done():
		l.mu.Lock()
		defer l.mu.Unlock()
		select {
		case <-w.granted: // handed over as ctx ended: pass it on
			l.handOffLocked()
		default:
			l.removeLocked(w)
		}
		return ctx.Err()
	}
}

// enterLocked counts h inside the section (l.mu held, the section taken).
func (l *gpuLock) enterLocked(h lockHolder) {
	l.holders++
	l.maxHolders = max(l.maxHolders, l.holders)
	l.acquisitions++
	if l.holders == 1 {
		l.since = time.Now()
	}
	l.holder = h
	l.tl.emit(l.event(l.since, "start"))
}

// handOffLocked gives the section to the first waiter by priority, or frees
// it (l.mu held).
func (l *gpuLock) handOffLocked() {
	if len(l.queue) == 0 {
		l.taken = false
		return
	}
	best := 0
	for i, w := range l.queue {
		if b := l.queue[best]; w.h.prio > b.h.prio || (w.h.prio == b.h.prio && w.seq < b.seq) {
			best = i
		}
	}
	w := l.queue[best]
	l.queue = append(l.queue[:best], l.queue[best+1:]...)
	close(w.granted)
}

// criticalWaiting reports whether a critical waiter is queued.
func (l *gpuLock) criticalWaiting() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range l.queue {
		if w.h.prio >= PriorityCritical {
			return true
		}
	}
	return false
}

func (l *gpuLock) removeLocked(w *lockWaiter) {
	for i, x := range l.queue {
		if x == w {
			l.queue = append(l.queue[:i], l.queue[i+1:]...)
			return
		}
	}
}

// unlock leaves the kernel section, handing it to the next waiter.
func (l *gpuLock) unlock() {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	l.holders--
	if l.holders == 0 {
		l.busy += now.Sub(l.since)
	}
	l.tl.emit(l.event(now, "end"))
	l.handOffLocked()
}

// event is a gpu_held event of the current holder (l.mu held).
func (l *gpuLock) event(t time.Time, what string) TimelineEvent {
	ev := TimelineEvent{Time: t, Job: l.holder.job, Partition: -1, GPU: l.gpu, Worker: l.holder.worker, Stage: StageGPUHeld, Event: what}
	if l.holder.partition >= 0 {
		ev.Detail = fmt.Sprintf("partition %d", l.holder.partition)
	}
	return ev
}

// LockStatus is one GPU lock's accounting.
type LockStatus struct {
	Holders      int           `json:"holders"`      // workers inside the kernel section now
	MaxHolders   int           `json:"max_holders"`  // the most ever inside at once: 1 when the interlock works
	Waiting      int           `json:"waiting"`      // workers waiting for the lock
	Acquisitions int64         `json:"acquisitions"` // kernel sections entered
	Busy         time.Duration `json:"busy_ns"`      // time with a worker inside: the GPU's busy time
}

func (l *gpuLock) status() LockStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := LockStatus{Holders: l.holders, MaxHolders: l.maxHolders, Waiting: len(l.queue), Acquisitions: l.acquisitions, Busy: l.busy}
	if l.holders > 0 {
		s.Busy += time.Since(l.since)
	}
	return s
}

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
	sem chan struct{} // one slot: the kernel section
	tl  *timeline     // nil: no events

	mu           sync.Mutex
	holders      int // inside the section now (0 or 1 unless the lock is broken)
	maxHolders   int // the most ever inside at once
	waiting      int
	acquisitions int64
	busy         time.Duration // total time with a holder inside
	since        time.Time     // when the current hold began
	holder       lockHolder    // who holds it now
}

// lockHolder names who holds a GPU's lock, for the TIMELINE.
type lockHolder struct {
	worker    string
	job       JobID
	partition int
}

func newGPULock(gpu int) *gpuLock {
	return &gpuLock{gpu: gpu, sem: make(chan struct{}, 1)}
}

// lock enters the kernel section, or returns ctx's error if it ends first.
func (l *gpuLock) lock(ctx context.Context) error {
	return l.lockAs(ctx, lockHolder{partition: -1})
}

// lockAs is lock on behalf of h, who is named in the TIMELINE.
func (l *gpuLock) lockAs(ctx context.Context, h lockHolder) error {
	l.mu.Lock()
	l.waiting++
	l.mu.Unlock()
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		l.mu.Lock()
		l.waiting--
		l.mu.Unlock()
		return ctx.Err()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waiting--
	l.holders++
	l.maxHolders = max(l.maxHolders, l.holders)
	l.acquisitions++
	if l.holders == 1 {
		l.since = time.Now()
	}
	l.holder = h
	l.tl.emit(l.event(l.since, "start"))
	return nil
}

// unlock leaves the kernel section.
func (l *gpuLock) unlock() {
	l.mu.Lock()
	now := time.Now()
	l.holders--
	if l.holders == 0 {
		l.busy += now.Sub(l.since)
	}
	l.tl.emit(l.event(now, "end"))
	l.mu.Unlock()
	<-l.sem
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
	s := LockStatus{Holders: l.holders, MaxHolders: l.maxHolders, Waiting: l.waiting, Acquisitions: l.acquisitions, Busy: l.busy}
	if l.holders > 0 {
		s.Busy += time.Since(l.since)
	}
	return s
}

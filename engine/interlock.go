package engine

import (
	"context"
	"sync"
	"time"
)

// gpuLock is one GPU's kernel lock, shared by that GPU's workers: each holds
// it only around PartitionProver.RunGPU and does its CPU stages outside, so
// one worker's preparation and finalisation overlap the other's kernels. It
// keeps its own accounting (holders at once, busy time) so that a test, the
// status and the metrics see what actually happened.
type gpuLock struct {
	gpu int
	sem chan struct{} // one slot: the kernel section

	mu           sync.Mutex
	holders      int // inside the section now (0 or 1 unless the lock is broken)
	maxHolders   int // the most ever inside at once
	waiting      int
	acquisitions int64
	busy         time.Duration // total time with a holder inside
	since        time.Time     // when the current hold began
}

func newGPULock(gpu int) *gpuLock {
	return &gpuLock{gpu: gpu, sem: make(chan struct{}, 1)}
}

// lock enters the kernel section, or returns ctx's error if it ends first.
func (l *gpuLock) lock(ctx context.Context) error {
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
	return nil
}

// unlock leaves the kernel section.
func (l *gpuLock) unlock() {
	l.mu.Lock()
	l.holders--
	if l.holders == 0 {
		l.busy += time.Since(l.since)
	}
	l.mu.Unlock()
	<-l.sem
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

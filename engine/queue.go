package engine

import (
	"container/heap"
	"sync"
	"time"

	"github.com/filc2/filc2/proofs/groth16"
)

// The engine's order of work: higher priority first, then the older job, then
// the lower partition, so that jobs finish in the order they were submitted.

// jobBefore reports whether job a goes before job b.
func jobBefore(a, b *job) bool {
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	return a.seq < b.seq
}

// partition is one partition of a job on its way through the pipeline. It
// holds bytes of the memory budget from dispatch until it is dropped or
// proved.
type partition struct {
	job       *job
	k         int
	bytes     int64
	res       *resident
	in        Input // the job's input (the job lets go of it when it ends)
	w         *groth16.Assignment
	t         PartitionTiming
	readyAt   time.Time // when it entered the GPU queue
	heapIndex int
	dropped   bool // its bytes are back in the budget
	// attempts are its failed attempts so far; avoid is the GPU of the last
	// (−1: none), which its retry leaves to others while one is in service.
	attempts []Attempt
	avoid    int
}

// partitionBefore reports whether partition a goes before partition b.
func partitionBefore(a, b *partition) bool {
	if a.job != b.job {
		return jobBefore(a.job, b.job)
	}
	return a.k < b.k
}

// jobQueue is a heap of the jobs with partitions left to dispatch.
type jobQueue []*job

func (q jobQueue) Len() int           { return len(q) }
func (q jobQueue) Less(i, j int) bool { return jobBefore(q[i], q[j]) }
func (q jobQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].heapIndex, q[j].heapIndex = i, j
}
func (q *jobQueue) Push(x any) {
	j := x.(*job)
	j.heapIndex = len(*q)
	*q = append(*q, j)
}
func (q *jobQueue) Pop() any {
	old := *q
	j := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	j.heapIndex = -1
	return j
}

// remove takes j out of the queue if it is in it.
func (q *jobQueue) remove(j *job) {
	if j.heapIndex >= 0 && j.heapIndex < len(*q) && (*q)[j.heapIndex] == j {
		heap.Remove(q, j.heapIndex)
	}
}

// readyQueue is the GPU queue: a heap of synthesised partitions.
type readyQueue []*partition

func (q readyQueue) Len() int           { return len(q) }
func (q readyQueue) Less(i, j int) bool { return partitionBefore(q[i], q[j]) }
func (q readyQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].heapIndex, q[j].heapIndex = i, j
}
func (q *readyQueue) Push(x any) {
	p := x.(*partition)
	p.heapIndex = len(*q)
	*q = append(*q, p)
}
func (q *readyQueue) Pop() any {
	old := *q
	p := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	p.heapIndex = -1
	return p
}

// removeJob takes j's partitions out of the queue and returns them.
func (q *readyQueue) removeJob(j *job) []*partition {
	var out []*partition
	kept := (*q)[:0]
	for _, p := range *q {
		if p.job == j {
			p.heapIndex = -1
			out = append(out, p)
			continue
		}
		p.heapIndex = len(kept)
		kept = append(kept, p)
	}
	clear((*q)[len(kept):])
	*q = kept
	heap.Init(q)
	return out
}

// signal is a broadcast a goroutine can select on: take wait()'s channel
// before looking at the state it guards, then block on it.
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

func newSignal() *signal { return &signal{ch: make(chan struct{})} }

// wait returns a channel closed by the next broadcast.
func (s *signal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ch
}

// broadcast wakes every waiter.
func (s *signal) broadcast() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.ch)
	s.ch = make(chan struct{})
}

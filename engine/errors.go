package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Errors the engine returns; test them with errors.Is.
var (
	ErrUnknownJob = errors.New("engine: unknown job")                       // no job has that id (or it was forgotten)
	ErrIDConflict = errors.New("engine: request id already used")           // same id, another C1 output
	ErrQueueFull  = errors.New("engine: queue full")                        // queue.max_queued jobs are waiting
	ErrCanceled   = errors.New("engine: job canceled")                      // Cancel was called
	ErrClosed     = errors.New("engine: closed")                            // the engine shut down
	ErrBadRequest = errors.New("engine: bad request")                       // the request itself is unusable
	ErrBudget     = errors.New("engine: memory budget too small for a job") // see BudgetError
	// ErrDeviceMemory is what a GPUBackend wraps when a GPU has no room:
	// the engine then names the circuits resident on that GPU.
	ErrDeviceMemory = errors.New("engine: out of device memory")
	// ErrDeviceLost is what a GPUBackend wraps when the device is lost (a
	// sticky CUDA error: its context is gone): the engine quarantines the
	// GPU at once and retries the partition elsewhere.
	ErrDeviceLost = errors.New("engine: GPU device lost")
)

// DeadlineError is the error of a job that passed its deadline; errors.Is
// matches it with context.DeadlineExceeded.
type DeadlineError struct {
	Job      JobID
	Deadline time.Time
	Done     int // partitions proved by then
	Of       int // partitions of the job
}

// Error says which job passed which deadline, and how far it got.
func (e *DeadlineError) Error() string {
	return fmt.Sprintf("engine: job %s passed its deadline %s with %d of %d partitions proved",
		e.Job, e.Deadline.Format(time.RFC3339), e.Done, e.Of)
}

// Is reports whether target is context.DeadlineExceeded.
func (e *DeadlineError) Is(target error) bool { return target == context.DeadlineExceeded }

// PartitionError is the error of a job one of whose partitions failed: which
// partition, in which stage, and why — the last attempt's stage and error,
// with every attempt in Attempts when it was retried. The job's other
// partitions are dropped.
type PartitionError struct {
	Job       JobID
	Partition int
	Stage     Stage
	Err       error
	Attempts  []Attempt // every attempt, the last one's Stage and Err above; nil when there was one
}

// Attempt is one failed attempt of a partition: where it ran and why it failed.
type Attempt struct {
	GPU   int // −1: synthesis
	Stage Stage
	Err   error
}

// Error names the job, the partition and the stage, and every attempt.
func (e *PartitionError) Error() string {
	if len(e.Attempts) <= 1 {
		return fmt.Sprintf("engine: job %s partition %d: %s: %v", e.Job, e.Partition, e.Stage, e.Err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "engine: job %s partition %d failed %d attempts:", e.Job, e.Partition, len(e.Attempts))
	for i, a := range e.Attempts {
		if i > 0 {
			b.WriteByte(';')
		}
		where := "synthesis"
		if a.GPU >= 0 {
			where = fmt.Sprintf("GPU %d", a.GPU)
		}
		fmt.Fprintf(&b, " attempt %d (%s, %s): %v", i+1, where, a.Stage, a.Err)
	}
	return b.String()
}

// Unwrap returns the stage's error.
func (e *PartitionError) Unwrap() error { return e.Err }

// BudgetError is the error of a job whose circuit and single partition do not
// fit in the whole memory budget, so it could never run; errors.Is matches it
// with ErrBudget.
type BudgetError struct {
	Job       JobID
	Circuit   int64 // bytes the job's circuit keeps resident
	Partition int64 // bytes one partition holds
	Budget    int64 // the whole budget
}

// Error gives the sizes and what to raise.
func (e *BudgetError) Error() string {
	return fmt.Sprintf("engine: job %s needs %v resident for its circuit plus %v for one partition, more than the whole memory budget %v: raise memory.budget",
		e.Job, ByteSize(e.Circuit), ByteSize(e.Partition), ByteSize(e.Budget))
}

// Is reports whether target is ErrBudget.
func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

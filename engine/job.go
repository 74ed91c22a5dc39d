package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/groth16"
)

// JobID names a job: the caller's request id.
type JobID string

// Priority orders jobs: higher first, FIFO within one priority. The zero
// value is PriorityNormal.
type Priority int

// The named priorities (any int works).
const (
	PriorityLow      Priority = -1
	PriorityNormal   Priority = 0
	PriorityHigh     Priority = 1
	PriorityCritical Priority = 2
)

// Request asks for one proof: a SealCommit2 (C1 or Commit1) or any kind's
// decoded Input (PoRep, PoSt).
type Request struct {
	// ID is the caller's request id and the job's id: submitting it again
	// returns the same job, with its first priority and deadline (a new job
	// only after that one failed, was canceled or expired, or was forgotten
	// after queue.retain_finished). Empty: a random id, not idempotent.
	ID string
	// ProofType, if its Name is set, must be the C1's registered_proof.
	ProofType abi.SealProof
	// C1 is the C1 output: raw SealCommitPhase1Output JSON or the lotus-bench
	// wrapper. Commit1 is the decoded alternative, Input any kind's decoded
	// input; set exactly one of the three.
	C1      []byte
	Commit1 *c1.Commit1Out
	Input   Input
	// Priority orders the job among the queued ones; a kind runs at least at
	// its Kind.Priority (WinningPoSt critical, WindowPoSt high).
	Priority Priority
	// Deadline, if not zero, fails the job with a *DeadlineError once passed
	// (zero: the configured queue.default_timeout from submission, if any).
	Deadline time.Time
}

// JobState is where a job is in its life.
type JobState int

// The job states; the last four are final.
const (
	JobQueued    JobState = iota // waiting for its first partition to start
	JobRunning                   // partitions in flight
	JobSucceeded                 // every partition proved and verified
	JobFailed                    // a partition or its circuit failed
	JobCanceled                  // Cancel was called
	JobExpired                   // its deadline passed
)

var jobStateNames = [...]string{"queued", "running", "succeeded", "failed", "canceled", "expired"}

// String returns the state's name, such as "running".
func (s JobState) String() string {
	if s >= 0 && int(s) < len(jobStateNames) {
		return jobStateNames[s]
	}
	return fmt.Sprintf("JobState(%d)", int(s))
}

// MarshalText implements encoding.TextMarshaler.
func (s JobState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler (Status travels as JSON).
func (s *JobState) UnmarshalText(b []byte) error {
	for i, n := range jobStateNames {
		if n == string(b) {
			*s = JobState(i)
			return nil
		}
	}
	return fmt.Errorf("engine: unknown job state %q", b)
}

// Final reports whether the job is over.
func (s JobState) Final() bool { return s >= JobSucceeded }

// Stage is one step of a partition's (or a job's) path through the engine.
type Stage string

// The stages, in the order a partition goes through them.
const (
	StageQueue      Stage = "queue"      // job submitted → partition dispatched to synthesis
	StageSynthesis  Stage = "synthesis"  // witness synthesis (CPU)
	StageGPUQueue   Stage = "gpu_queue"  // witness waits for a GPU worker
	StageLoad       Stage = "load"       // waiting for the circuit's prover on that GPU
	StagePrepare    Stage = "gpu_pre"    // PartitionProver.Prepare (CPU, outside the lock)
	StageLockWait   Stage = "lock_wait"  // waiting for the GPU's lock
	StageGPU        Stage = "gpu_locked" // PartitionProver.RunGPU (inside the lock)
	StageFinish     Stage = "gpu_post"   // PartitionProver.Finish (CPU, outside the lock)
	StageVerify     Stage = "verify"     // Circuit.Verify (CPU)
	StageCircuit    Stage = "circuit"    // loading the job's circuit
	StageJob        Stage = "job"        // the whole job, submission to result
	StageGPUHeld    Stage = "gpu_held"   // a GPU's lock held: when its kernels ran (TIMELINE only, from the lock's own clock)
	StageQuarantine Stage = "quarantine" // a GPU out of service (TIMELINE only)
)

// PartitionTiming is where one partition's time went.
type PartitionTiming struct {
	Partition int           `json:"partition"`
	GPU       int           `json:"gpu"`
	Worker    string        `json:"worker"`
	Queue     time.Duration `json:"queue_ns"`
	Synthesis time.Duration `json:"synthesis_ns"`
	GPUQueue  time.Duration `json:"gpu_queue_ns"`
	Load      time.Duration `json:"load_ns"`
	Prepare   time.Duration `json:"gpu_pre_ns"`
	LockWait  time.Duration `json:"lock_wait_ns"`
	GPUTime   time.Duration `json:"gpu_locked_ns"` // the kernel section, less what it lent
	// Lent is the time the kernel section lent the GPU to critical jobs at
	// its preemption points, Preempted how many times.
	Lent      time.Duration `json:"gpu_lent_ns,omitempty"`
	Preempted int           `json:"preempted,omitempty"`
	Finish    time.Duration `json:"gpu_post_ns"`
	Verify    time.Duration `json:"verify_ns"`
	// Completed is when the partition's proof was recorded (zero until then).
	// Throughput is measured from these: partitions completed per unit of time.
	Completed time.Time `json:"completed"`
	// Kernels is where the GPU section's time went, when the backend says
	// (its Raw has a KernelSplit method): SpMV, H, each MSM.
	Kernels []KernelTime `json:"kernels,omitempty"`
	// PrepareSteps is where gpu_pre went, when the backend says (its Raw has a
	// PrepareSplit method): a host SpMV, the wait for a device witness buffer, the upload.
	PrepareSteps []KernelTime `json:"gpu_pre_split,omitempty"`
	// Verified is whether the proof passed Circuit.Verify. Outside synthetic
	// mode it always did: a proof that does not fails its job.
	Verified bool `json:"verified"`
	// Retries counts the attempts made again after a failure (the timings
	// are the last attempt's).
	Retries int `json:"retries,omitempty"`
}

// KernelTime is one step of a GPU section.
type KernelTime struct {
	Name string        `json:"name"`
	Time time.Duration `json:"ns"`
}

// Result is a finished job.
type Result struct {
	ID         JobID             `json:"id"`
	Kind       Kind              `json:"kind"`
	ProofType  string            `json:"registered_proof"`
	State      JobState          `json:"state"`
	Proof      []byte            `json:"proof"` // 192 bytes per partition (one for a PoSt), in partition order; only when succeeded
	Err        error             `json:"-"`
	Submitted  time.Time         `json:"submitted"`
	Started    time.Time         `json:"started"` // first partition dispatched (zero if never)
	Finished   time.Time         `json:"finished"`
	Partitions []PartitionTiming `json:"partitions"` // the partitions proved, in partition order
	// Synthetic is set when the engine ran on a synthetic backend (random C1
	// and key, for benchmarks): its proofs do not verify, Unverified counts
	// the partitions whose proof failed Circuit.Verify, and Proof is withheld
	// unless every partition verified. Outside synthetic mode Unverified is
	// always 0: a partition that does not verify fails the job.
	Synthetic  bool `json:"synthetic,omitempty"`
	Unverified int  `json:"unverified,omitempty"`
}

// job is one request's state; the engine's mu guards its mutable fields.
type job struct {
	id          JobID
	seq         uint64 // submission order
	prio        Priority
	kind        Kind
	name        string      // the registered proof
	spec        CircuitSpec // the circuit it is proved with
	in          Input       // nil once final
	fingerprint [32]byte
	deadline    time.Time
	n           int   // partitions
	circuitEst  int64 // Backend.CircuitBytes, charged if the job loads the circuit

	ctx    context.Context
	cancel context.CancelCauseFunc
	stop   func() bool // the deadline watcher's AfterFunc

	state      JobState
	next       int             // next partition to dispatch
	proved     int             // partitions proved
	unverified int             // of those, partitions whose proof did not verify (synthetic mode only)
	synthetic  bool            // run on a synthetic backend
	inFlight   int             // partitions holding budget
	proofs     []groth16.Proof // per partition, until the job succeeds
	encoded    []byte          // the proof bytes, once it has
	timings    []PartitionTiming
	err        error
	res        *resident // its circuit once resident (a cache: partitions hold the references)
	submitted  time.Time
	started    time.Time
	finished   time.Time
	done       chan struct{} // closed when final
	heapIndex  int
}

// result snapshots the job (callers hold the engine's mu).
func (j *job) result() Result {
	r := Result{ID: j.id, Kind: j.kind, ProofType: j.name, State: j.state, Err: j.err,
		Submitted: j.submitted, Started: j.started, Finished: j.finished, Synthetic: j.synthetic, Unverified: j.unverified}
	for _, t := range j.timings {
		if t.Worker != "" {
			r.Partitions = append(r.Partitions, t)
		}
	}
	if j.state == JobSucceeded && j.unverified == 0 && j.encoded != nil {
		r.Proof = append([]byte(nil), j.encoded...)
	}
	return r
}

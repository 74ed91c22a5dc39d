package engine

import (
	"fmt"
	"sort"
	"time"

	"github.com/filc2/filc2/internal/fault"
)

// Status is a snapshot of the engine.
type Status struct {
	Backend   string          `json:"backend"`
	Synthetic bool            `json:"synthetic,omitempty"` // a synthetic backend: proofs do not verify
	Uptime    time.Duration   `json:"uptime_ns"`
	Queued    int             `json:"queued"`    // jobs waiting for their first partition
	Jobs      []JobStatus     `json:"jobs"`      // queued and running jobs, in the engine's order
	GPUQueue  int             `json:"gpu_queue"` // synthesised partitions waiting for a GPU
	Synthesis []WorkerStatus  `json:"synthesis"` // the synthesis workers
	GPUs      []GPUStatus     `json:"gpus"`
	Circuits  []CircuitStatus `json:"circuits"` // loaded and loading circuits
	Memory    MemoryStatus    `json:"memory"`
	Totals    Totals          `json:"totals"`
	// Faults is what each point of an injected fault spec did (tests and
	// soak runs only; absent otherwise).
	Faults map[fault.Point]fault.Count `json:"faults,omitempty"`
}

// JobStatus is one job's progress.
type JobStatus struct {
	ID         JobID     `json:"id"`
	Kind       Kind      `json:"kind"`
	ProofType  string    `json:"registered_proof"`
	State      JobState  `json:"state"`
	Priority   Priority  `json:"priority"`
	Partitions int       `json:"partitions"`
	Dispatched int       `json:"dispatched"` // partitions started
	Proved     int       `json:"proved"`     // partitions proved and verified
	InFlight   int       `json:"in_flight"`  // partitions holding memory now
	Submitted  time.Time `json:"submitted"`
	Started    time.Time `json:"started"`
	Finished   time.Time `json:"finished"`
	Deadline   time.Time `json:"deadline"`
	Error      string    `json:"error,omitempty"`
}

// WorkerStatus is what one worker is doing.
type WorkerStatus struct {
	Name      string    `json:"name"`
	GPU       int       `json:"gpu"`             // −1 for synthesis workers
	Stage     Stage     `json:"stage,omitempty"` // "" when idle
	Job       JobID     `json:"job,omitempty"`
	Partition int       `json:"partition"`
	Since     time.Time `json:"since"`
}

// GPUStatus is one GPU: its workers and its lock's accounting.
type GPUStatus struct {
	Device  int            `json:"device"`
	Workers []WorkerStatus `json:"workers"`
	Lock    LockStatus     `json:"lock"`
	Health  GPUHealth      `json:"health"`
}

// Totals count what the engine did since it started.
type Totals struct {
	Submitted        int64 `json:"submitted"`
	Succeeded        int64 `json:"succeeded"`
	Failed           int64 `json:"failed"`
	Canceled         int64 `json:"canceled"`
	Expired          int64 `json:"expired"`
	PartitionsProved int64 `json:"partitions_proved"`
	PartitionsFailed int64 `json:"partitions_failed"`
	// PartitionsRetried counts the attempts made again after a failure.
	PartitionsRetried int64 `json:"partitions_retried"`
	// PartitionsUnverified counts the partitions proved whose proof did not
	// verify: always 0 outside synthetic mode (see Result.Synthetic).
	PartitionsUnverified int64 `json:"partitions_unverified,omitempty"`
}

// Status returns a snapshot of the engine.
func (e *Engine) Status() Status {
	e.mu.Lock()
	e.forgetLocked()
	s := Status{Backend: e.backend.Name(), Synthetic: e.synthetic, Uptime: time.Since(e.start), Queued: e.queued, GPUQueue: e.ready.Len(), Totals: e.totals}
	if e.faults != nil {
		s.Faults = e.faults.Counts()
	}
	var live []*job
	for _, j := range e.jobs {
		if !j.state.Final() {
			live = append(live, j)
		}
	}
	sort.Slice(live, func(a, b int) bool { return jobBefore(live[a], live[b]) })
	for _, j := range live {
		s.Jobs = append(s.Jobs, j.status())
	}
	gpus := map[int]*GPUStatus{}
	for _, d := range e.cfg.GPU.Devices {
		s.GPUs = append(s.GPUs, GPUStatus{Device: d})
	}
	for i := range s.GPUs {
		gpus[s.GPUs[i].Device] = &s.GPUs[i]
	}
	inFlight := 0
	for _, j := range live {
		inFlight += j.inFlight
	}
	for _, w := range e.workers {
		ws := WorkerStatus{Name: w.name, GPU: w.gpu, Stage: w.stage, Job: w.job, Partition: w.partition, Since: w.since}
		if w.gpu < 0 {
			s.Synthesis = append(s.Synthesis, ws)
		} else {
			gpus[w.gpu].Workers = append(gpus[w.gpu].Workers, ws)
		}
	}
	e.mu.Unlock()

	hs := e.health.status()
	for i := range s.GPUs {
		s.GPUs[i].Lock = e.locks[s.GPUs[i].Device].status()
		s.GPUs[i].Health = hs[s.GPUs[i].Device]
	}
	s.Memory = e.budget.status()
	s.Circuits, s.Memory.Resident = e.res.status()
	s.Memory.Partitions = inFlight
	return s
}

// Job returns one job's progress; a finished job is known for
// queue.retain_finished.
func (e *Engine) Job(id JobID) (JobStatus, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	j := e.jobs[id]
	if j == nil {
		return JobStatus{ID: id}, fmt.Errorf("%w: %s", ErrUnknownJob, id)
	}
	return j.status(), nil
}

// status snapshots j (e.mu held).
func (j *job) status() JobStatus {
	return JobStatus{ID: j.id, Kind: j.kind, ProofType: j.name, State: j.state, Priority: j.prio, Partitions: j.n,
		Dispatched: j.next, Proved: j.proved, InFlight: j.inFlight, Submitted: j.submitted, Started: j.started,
		Finished: j.finished, Deadline: j.deadline, Error: errString(j.err)}
}

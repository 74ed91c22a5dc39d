// Package benchreport turns a benchmark run of the engine — its finished
// jobs and its status at the first and the last proof — into the figures
// filc2 bench c2 prints: steady-state throughput, the GPU bound, latency,
// per-stage and per-kernel medians, GPU utilisation, and the PoSt latencies
// measured beside the PoRep load. The CLI only drives the run and prints.
package benchreport

import (
	"slices"
	"time"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/proofs/post"
)

// Report is the result of a run, as --json prints it. Durations are
// nanoseconds.
type Report struct {
	ProofType        string `json:"registered_proof"`
	Backend          string `json:"backend"`
	Synthetic        bool   `json:"synthetic"`
	Verified         bool   `json:"verified"` // every partition of every proof verified
	Note             string `json:"note,omitempty"`
	C1               string `json:"c1"`  // where the C1 outputs came from
	Key              string `json:"key"` // where the proving key came from
	Params           string `json:"params"`
	Jobs             int    `json:"jobs"`
	Concurrency      int    `json:"concurrency"`
	GPUs             []int  `json:"gpus"`
	GPUWorkers       int    `json:"gpu_workers_per_gpu"`
	SynthesisWorkers int    `json:"synthesis_workers"`
	SynthesisCPUs    int    `json:"synthesis_cpus"` // threads synthesis and input checks share (synthesis.cpus)
	Partitions       int    `json:"partitions_per_proof"`

	Load        time.Duration   `json:"load_ns"` // circuit and keys, before the first job
	CircuitLoad time.Duration   `json:"circuit_load_ns"`
	ProverLoads []time.Duration `json:"key_load_ns"` // per GPU, in GPUs' order

	Wall         time.Duration `json:"wall_ns"`        // first submission to last proof
	FirstProof   time.Duration `json:"first_proof_ns"` // first submission to first proof: the warm-up
	Steady       time.Duration `json:"steady_state_per_proof_ns,omitempty"`
	SteadyProofs int           `json:"steady_state_proofs"`     // proofs finished in the steady-state window (jobs − 1)
	SteadyParts  int           `json:"steady_state_partitions"` // partitions completed in it, what the rate counts
	Overall      time.Duration `json:"overall_per_proof_ns"`
	// GPUBound is partitions per proof × the median kernel section ÷ GPUs:
	// the s/proof the GPU locks alone would allow.
	GPUBound time.Duration `json:"gpu_bound_per_proof_ns"`

	LatencyMedian time.Duration `json:"latency_median_ns"`
	LatencyMax    time.Duration `json:"latency_max_ns"`

	// PoSt is the --post-proof side: its latencies alone and under this load.
	PoSt *PoSt `json:"post,omitempty"`

	Stages     []Stage  `json:"stages"`
	Kernels    []Stage  `json:"kernels,omitempty"`       // the GPU section's split, when the backend reports it
	Prepare    []Stage  `json:"gpu_pre_split,omitempty"` // gpu_pre's split (buffer wait, upload), when the backend reports it
	GPUUse     []GPUUse `json:"gpu_utilisation"`
	Unverified int      `json:"unverified_partitions"`
	// Faults is what --inject-faults injected (hits/calls per point), Retried
	// the partitions proved again, Quarantines the GPUs taken out of service.
	Faults      string  `json:"faults,omitempty"`
	Retried     int64   `json:"partitions_retried,omitempty"`
	Quarantines int64   `json:"gpu_quarantines,omitempty"`
	Proofs      []Proof `json:"proofs"`
	// HostPeak is this process's peak resident memory (VmHWM); DevicePeaks
	// each GPU's peak memory in use, sampled every 200 ms from the load on.
	HostPeak    uint64   `json:"host_peak_bytes"`
	DevicePeaks []uint64 `json:"device_peak_bytes,omitempty"`
	Timeline    string   `json:"timeline_svg,omitempty"`
}

// Stage is one stage's per-partition statistics.
type Stage struct {
	Stage  string        `json:"stage"`
	What   string        `json:"what"`
	Median time.Duration `json:"median_ns"`
	Max    time.Duration `json:"max_ns"`
	Count  int           `json:"partitions"`
}

// GPUUse is one GPU's kernel time, from its lock's accounting.
type GPUUse struct {
	Device       int           `json:"device"`
	Busy         time.Duration `json:"busy_ns"` // lock held, over the whole run
	Acquisitions int64         `json:"kernel_sections"`
	Steady       float64       `json:"steady_state"` // busy ÷ wall between the first and the last proof
	Overall      float64       `json:"overall"`      // busy ÷ wall, first submission to last proof
}

// Proof is one job.
type Proof struct {
	ID         string        `json:"id"`
	Submitted  time.Duration `json:"submitted_ns"` // since the first submission
	Finished   time.Duration `json:"finished_ns"`
	Latency    time.Duration `json:"latency_ns"`
	Unverified int           `json:"unverified_partitions"`
}

// stages are the per-partition stages the report lists, in pipeline order.
var stages = []struct {
	stage engine.Stage
	what  string
	get   func(*engine.PartitionTiming) time.Duration
}{
	{engine.StageQueue, "job submitted → synthesis starts", func(t *engine.PartitionTiming) time.Duration { return t.Queue }},
	{engine.StageSynthesis, "witness synthesis (CPU)", func(t *engine.PartitionTiming) time.Duration { return t.Synthesis }},
	{engine.StageGPUQueue, "witness waits for a GPU worker", func(t *engine.PartitionTiming) time.Duration { return t.GPUQueue }},
	{engine.StageLoad, "waiting for the GPU's prover", func(t *engine.PartitionTiming) time.Duration { return t.Load }},
	{engine.StagePrepare, "prepare: SpMV, scalars, upload (CPU)", func(t *engine.PartitionTiming) time.Duration { return t.Prepare }},
	{engine.StageLockWait, "waiting for the GPU lock", func(t *engine.PartitionTiming) time.Duration { return t.LockWait }},
	{engine.StageGPU, "GPU kernels (lock held)", func(t *engine.PartitionTiming) time.Duration { return t.GPUTime }},
	{engine.StageFinish, "finish: proof assembly (CPU)", func(t *engine.PartitionTiming) time.Duration { return t.Finish }},
	{engine.StageVerify, "verify against the vk (CPU)", func(t *engine.PartitionTiming) time.Duration { return t.Verify }},
}

// Job is one finished job.
type Job struct {
	ID        string
	Result    engine.Result
	Submitted time.Time
	Finished  time.Time
}

// Mark is a moment of the run with the engine's status then.
type Mark struct {
	At        time.Time
	Submitted time.Time // the first submission
	Status    engine.Status
}

// PoSt is what the PoSt side measured: latency, submission to
// verified proof, alone and under the PoRep load.
type PoSt struct {
	ProofType string              `json:"registered_proof"`
	Sectors   int                 `json:"sectors"`
	Every     time.Duration       `json:"every_ns"`
	Alone     post.LatencySummary `json:"alone"`
	UnderLoad post.LatencySummary `json:"under_load"`
	AloneN    int                 `json:"alone_proofs"`
	LoadN     int                 `json:"under_load_proofs"`
	Latencies []time.Duration     `json:"under_load_latencies_ns"`
	// LockWait is the median time the PoSt's partitions waited for the GPU
	// lock under load: the kernel section they waited behind.
	LockWait time.Duration `json:"under_load_lock_wait_median_ns"`
}

// Summarize fills the report's measurements from the finished jobs.
func Summarize(rep *Report, jobs []Job, first, last Mark) {
	start := first.Submitted
	rep.Wall = last.At.Sub(start)
	rep.FirstProof = first.At.Sub(start)
	rep.Overall = rep.Wall / time.Duration(len(jobs))
	var lat []time.Duration
	var parts []engine.PartitionTiming
	verified := true
	for _, j := range jobs {
		l := j.Finished.Sub(j.Submitted)
		lat = append(lat, l)
		parts = append(parts, j.Result.Partitions...)
		rep.Unverified += j.Result.Unverified
		verified = verified && j.Result.Unverified == 0 && j.Result.Proof != nil
		rep.Proofs = append(rep.Proofs, Proof{ID: j.ID, Submitted: j.Submitted.Sub(start), Finished: j.Finished.Sub(start),
			Latency: l, Unverified: j.Result.Unverified})
	}
	rep.Verified = verified
	if n := len(jobs) - 1; n > 0 {
		completed := make([]time.Time, len(parts))
		for i := range parts {
			completed[i] = parts[i].Completed
		}
		rep.SteadyProofs = n
		rep.Steady, rep.SteadyParts = SteadyState(completed, first.At, last.At, rep.Partitions)
	}
	rep.LatencyMedian, rep.LatencyMax = Median(lat), slices.Max(lat)
	for _, s := range stages {
		var ds []time.Duration
		for i := range parts {
			ds = append(ds, s.get(&parts[i]))
		}
		st := Stage{Stage: string(s.stage), What: s.what, Count: len(ds)}
		if len(ds) > 0 {
			st.Median, st.Max = Median(ds), slices.Max(ds)
		}
		rep.Stages = append(rep.Stages, st)
		if s.stage == engine.StageGPU && len(ds) > 0 && len(rep.GPUs) > 0 {
			rep.GPUBound = st.Median * time.Duration(rep.Partitions) / time.Duration(len(rep.GPUs))
		}
	}
	rep.Kernels = splitStages(parts, func(p *engine.PartitionTiming) []engine.KernelTime { return p.Kernels }, "in the GPU section")
	rep.Prepare = splitStages(parts, func(p *engine.PartitionTiming) []engine.KernelTime { return p.PrepareSteps }, "in gpu_pre")
	busyAt := func(m Mark, dev int) engine.LockStatus {
		for _, g := range m.Status.GPUs {
			if g.Device == dev {
				return g.Lock
			}
		}
		return engine.LockStatus{}
	}
	for _, dev := range rep.GPUs {
		l0, l1 := busyAt(first, dev), busyAt(last, dev)
		u := GPUUse{Device: dev, Busy: l1.Busy, Acquisitions: l1.Acquisitions, Overall: Ratio(l1.Busy, rep.Wall)}
		if rep.SteadyProofs > 0 {
			u.Steady = Ratio(l1.Busy-l0.Busy, last.At.Sub(first.At))
		}
		rep.GPUUse = append(rep.GPUUse, u)
	}
}

// SteadyState is the throughput between two moments (the first and the
// last proof's finish): the partitions completed after from and by to,
// as time per proof of perProof partitions, and how many it counted. A job
// that ran beside the first proof is credited only with the partitions it
// completed inside the window, so overlapping jobs do not inflate the rate.
func SteadyState(completed []time.Time, from, to time.Time, perProof int) (time.Duration, int) {
	n := 0
	for _, t := range completed {
		if t.After(from) && !t.After(to) {
			n++
		}
	}
	if n == 0 || !to.After(from) {
		return 0, n
	}
	return to.Sub(from) * time.Duration(perProof) / time.Duration(n), n
}

// Median is the median of ds (not empty).
func Median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// Ratio is a ÷ b, 0 when b is not positive.
func Ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// splitStages is the median and max of each named step of the partitions' splits
// (kernel section, gpu_pre), in the order the steps first appear.
func splitStages(parts []engine.PartitionTiming, steps func(*engine.PartitionTiming) []engine.KernelTime, what string) []Stage {
	var order []string
	times := map[string][]time.Duration{}
	for i := range parts {
		for _, k := range steps(&parts[i]) {
			if _, ok := times[k.Name]; !ok {
				order = append(order, k.Name)
			}
			times[k.Name] = append(times[k.Name], k.Time)
		}
	}
	var out []Stage
	for _, name := range order {
		ds := times[name]
		out = append(out, Stage{Stage: name, What: what, Count: len(ds), Median: Median(ds), Max: slices.Max(ds)})
	}
	return out
}

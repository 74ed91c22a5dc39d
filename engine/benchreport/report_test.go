package benchreport

import (
	"testing"
	"time"

	"github.com/filc2/filc2/engine"
)

// Summarize over two jobs of two partitions on one GPU: the steady state
// counts only the partitions completed between the first and the last
// proof, the GPU bound is partitions × the median kernel section, and the
// utilisation comes from the lock's busy time.
func TestSummarize(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	part := func(k int, done float64, gpu time.Duration) engine.PartitionTiming {
		return engine.PartitionTiming{Partition: k, GPUTime: gpu, Completed: at(done), Kernels: []engine.KernelTime{{Name: "msm_h", Time: gpu / 2}},
			PrepareSteps: []engine.KernelTime{{Name: "buffer_wait", Time: gpu}, {Name: "upload", Time: time.Duration(k+1) * time.Millisecond}}}
	}
	jobs := []Job{
		{ID: "a", Submitted: at(0), Finished: at(4), Result: engine.Result{Proof: []byte{1}, Partitions: []engine.PartitionTiming{part(0, 3, time.Second), part(1, 4, 2*time.Second)}}},
		{ID: "b", Submitted: at(0), Finished: at(8), Result: engine.Result{Proof: []byte{1}, Partitions: []engine.PartitionTiming{part(0, 6, time.Second), part(1, 8, time.Second)}}},
	}
	lock := func(busy time.Duration) engine.Status {
		return engine.Status{GPUs: []engine.GPUStatus{{Device: 0, Lock: engine.LockStatus{Busy: busy, Acquisitions: 4}}}}
	}
	first := Mark{At: at(4), Submitted: at(0), Status: lock(3 * time.Second)}
	last := Mark{At: at(8), Submitted: at(0), Status: lock(5 * time.Second)}
	rep := &Report{Partitions: 2, GPUs: []int{0}}
	Summarize(rep, jobs, first, last)
	if rep.Wall != 8*time.Second || rep.FirstProof != 4*time.Second || rep.Overall != 4*time.Second {
		t.Fatalf("wall %v, first %v, overall %v", rep.Wall, rep.FirstProof, rep.Overall)
	}
	// Partitions completed in (4 s, 8 s]: two, so 4 s × 2 per proof ÷ 2 = 4 s/proof.
	if rep.SteadyParts != 2 || rep.Steady != 4*time.Second || rep.SteadyProofs != 1 {
		t.Fatalf("steady %v over %d partitions, %d proofs", rep.Steady, rep.SteadyParts, rep.SteadyProofs)
	}
	if rep.GPUBound != 2*time.Second || !rep.Verified || rep.LatencyMedian != 8*time.Second || rep.LatencyMax != 8*time.Second {
		t.Fatalf("GPU bound %v, verified %v, latency %v/%v", rep.GPUBound, rep.Verified, rep.LatencyMedian, rep.LatencyMax)
	}
	if len(rep.Kernels) != 1 || rep.Kernels[0].Stage != "msm_h" || rep.Kernels[0].Median != 500*time.Millisecond {
		t.Fatalf("kernels %+v", rep.Kernels)
	}
	// gpu_pre's split: buffer_wait over 1, 2, 1, 1 s; upload 1, 2, 1, 2 ms (the upper median).
	if len(rep.Prepare) != 2 || rep.Prepare[0].Stage != "buffer_wait" || rep.Prepare[0].Median != time.Second ||
		rep.Prepare[0].Max != 2*time.Second || rep.Prepare[1].Stage != "upload" || rep.Prepare[1].Median != 2*time.Millisecond {
		t.Fatalf("gpu_pre split %+v", rep.Prepare)
	}
	if u := rep.GPUUse[0]; u.Overall != 5.0/8 || u.Steady != 0.5 {
		t.Fatalf("utilisation %+v", u)
	}
}

// The steady state counts partitions completed inside the window, so a job
// that ran beside the first one is credited only with what it did after the
// first proof finished. The case the old measure got wrong: two jobs of 10
// partitions in flight, job 2 at 7 of 10 when job 1 finishes at 10 s; job 2
// finishes at 13 s, job 3 at 23 s (1 s per partition throughout). The old
// measure, (23 − 10) / 2 proofs = 6.5 s/proof; the rate is 13 partitions in
// 13 s, 10 s/proof.
func TestSteadyState(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	var done []time.Time
	for i := 0; i < 10; i++ { // job 1, interleaved with job 2's first 7
		done = append(done, at(float64(i+1)*10/17))
	}
	for i := 0; i < 7; i++ {
		done = append(done, at(float64(i+1)*10/17-0.01))
	}
	for i := 0; i < 13; i++ { // job 2's last 3, then job 3
		done = append(done, at(11+float64(i)))
	}
	got, n := SteadyState(done, at(10), at(23), 10)
	if n != 13 || got != 10*time.Second {
		t.Errorf("steady state %v over %d partitions, want 10s over 13", got, n)
	}
	// A partition completed exactly at the first proof's finish belongs to the warm-up.
	if _, n := SteadyState([]time.Time{at(10), at(12)}, at(10), at(12), 1); n != 1 {
		t.Errorf("counted %d partitions, want 1 (the window is open at its start)", n)
	}
	if got, n := SteadyState(nil, at(10), at(12), 10); got != 0 || n != 0 {
		t.Errorf("no partitions: %v, %d", got, n)
	}
}

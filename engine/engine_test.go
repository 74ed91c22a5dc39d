package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/groth16"
)

func TestOneJobOnTwoGPUs(t *testing.T) {
	f := newFake()
	f.gpuDelay = 10 * time.Millisecond
	e := newTestEngine(t, testConfig(0, 1), f)
	id := submit(t, e, "one", proof32G, PriorityNormal)
	if id != "one" {
		t.Fatalf("job id %q, want the request id", id)
	}
	r, err := await(t, e, id)
	if err != nil {
		t.Fatal(err)
	}
	checkProof(t, r, "one", proof32G)
	gpus := map[int]bool{}
	for _, pt := range r.Partitions {
		if pt.Worker == "" || pt.GPUTime < f.gpuDelay || pt.Queue < 0 {
			t.Errorf("partition %d timing %+v", pt.Partition, pt)
		}
		if want := []KernelTime{{"fake", time.Millisecond}, {fmt.Sprintf("k%d", pt.Partition), time.Duration(pt.Partition)}}; !slices.Equal(pt.Kernels, want) {
			t.Errorf("partition %d kernel split %+v, want %+v", pt.Partition, pt.Kernels, want)
		}
		if want := []KernelTime{{"buffer_wait", time.Duration(pt.Partition)}, {"upload", time.Microsecond}}; !slices.Equal(pt.PrepareSteps, want) {
			t.Errorf("partition %d gpu_pre split %+v, want %+v", pt.Partition, pt.PrepareSteps, want)
		}
		gpus[pt.GPU] = true
	}
	if !gpus[0] || !gpus[1] || len(gpus) != 2 {
		t.Errorf("partitions ran on GPUs %v, want both 0 and 1", gpus)
	}
	for k, pt := range r.Partitions {
		if got := f.kernelGPU[fmt.Sprintf("one/%d", k)]; got != pt.GPU {
			t.Errorf("partition %d: timing says GPU %d, its kernel ran on GPU %d", k, pt.GPU, got)
		}
	}
	st := e.Status()
	if st.Totals.Succeeded != 1 || st.Totals.PartitionsProved != 10 || st.Queued != 0 || len(st.Jobs) != 0 {
		t.Errorf("status after one job: %+v", st)
	}
	if st.Memory.InUse != f.circuitBytes || st.Memory.Resident != f.circuitBytes || st.Memory.Partitions != 0 {
		t.Errorf("memory after the job: %+v, want only the circuit's %d bytes", st.Memory, f.circuitBytes)
	}
	// Each GPU: its two workers and the critical lane's; synthesis: the
	// configured workers and the critical lane's.
	if len(st.GPUs) != 2 || len(st.GPUs[0].Workers) != 3 || len(st.Synthesis) != 4+1 {
		t.Errorf("workers: %+v", st.GPUs)
	}
	if len(st.Circuits) != 1 || st.Circuits[0].State != "ready" || len(st.Circuits[0].Provers) != 2 {
		t.Errorf("circuits: %+v", st.Circuits)
	}
}

func TestPriorityThenFIFO(t *testing.T) {
	f := newFake()
	gate := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	f.onSynth = func(job string, k int) {
		if job == "first" {
			<-gate
		}
	}
	cfg := testConfig(0)
	cfg.Synthesis.Workers = 1
	cfg.GPU.WorkersPerGPU = 1
	cfg.Memory.Budget = ByteSize(f.circuitBytes + f.partBytes) // one partition at a time
	e := newTestEngine(t, cfg, f)
	t.Cleanup(open)

	submit(t, e, "first", proof2K, PriorityNormal)
	eventually(t, "the first job to start", func() bool { return e.Status().Queued == 0 })
	jobs := []struct {
		name string
		prio Priority
	}{{"low1", PriorityLow}, {"n1", PriorityNormal}, {"h1", PriorityHigh}, {"h2", PriorityHigh},
		{"n2", PriorityNormal}, {"crit", PriorityCritical}, {"low2", PriorityLow}, {"n3", PriorityNormal}}
	for _, j := range jobs {
		submit(t, e, j.name, proof2K, j.prio)
	}
	if st := e.Status(); st.Queued != len(jobs) || st.Jobs[0].ID != "crit" || st.Jobs[3].ID != "first" || st.Jobs[len(jobs)].ID != "low2" {
		t.Fatalf("status before the gate opens: queued %d, jobs %+v", st.Queued, st.Jobs)
	}
	open()
	for _, j := range append(jobs, struct {
		name string
		prio Priority
	}{"first", 0}) {
		if _, err := await(t, e, JobID(j.name)); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"first/0", "crit/0", "h1/0", "h2/0", "n1/0", "n2/0", "n3/0", "low1/0", "low2/0"}
	if got := strings.Join(f.synthOrder, " "); got != strings.Join(want, " ") {
		t.Fatalf("synthesis order\n got %s\nwant %s", got, strings.Join(want, " "))
	}
}

func TestIdempotentRequestIDs(t *testing.T) {
	f := newFake()
	f.gpuDelay = 5 * time.Millisecond
	e := newTestEngine(t, testConfig(0, 1), f)
	ctx := context.Background()

	// Concurrent submissions of one id make one job.
	var wg sync.WaitGroup
	ids := make([]JobID, 8)
	errs := make([]error, 8)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = e.Submit(ctx, Request{ID: "dup", Commit1: fakeC1("dup", proof32G)})
		}()
	}
	wg.Wait()
	for i := range ids {
		if errs[i] != nil || ids[i] != "dup" {
			t.Fatalf("submission %d: %q, %v", i, ids[i], errs[i])
		}
	}
	// Another C1 under that id is a conflict, not the same job.
	if _, err := e.Submit(ctx, Request{ID: "dup", Commit1: fakeC1("other", proof32G)}); !errors.Is(err, ErrIDConflict) {
		t.Fatalf("same id, another C1: %v", err)
	}
	r, err := await(t, e, "dup")
	if err != nil {
		t.Fatal(err)
	}
	checkProof(t, r, "dup", proof32G)
	// After success, the id still answers with the same proof and no new work.
	if id, err := e.Submit(ctx, Request{ID: "dup", Commit1: fakeC1("dup", proof32G)}); err != nil || id != "dup" {
		t.Fatalf("resubmission after success: %q, %v", id, err)
	}
	r2, err := await(t, e, "dup")
	if err != nil || string(r2.Proof) != string(r.Proof) {
		t.Fatalf("resubmission's result differs: %v", err)
	}
	if n := countPrefix(f.synthOrder, "dup/"); n != 10 {
		t.Fatalf("%d partitions synthesised for one id, want 10", n)
	}
	if st := e.Status(); st.Totals.Submitted != 1 {
		t.Fatalf("%d jobs submitted, want 1", st.Totals.Submitted)
	}
	// The key is the caller's id, not the sector: two ids of one C1 are two jobs.
	if _, err := e.Submit(ctx, Request{ID: "dup-again", Commit1: fakeC1("dup", proof32G)}); err != nil {
		t.Fatal(err)
	}
	if _, err := await(t, e, "dup-again"); err != nil {
		t.Fatal(err)
	}
	if n := countPrefix(f.synthOrder, "dup/"); n != 20 {
		t.Fatalf("%d partitions synthesised for two ids, want 20", n)
	}
	// A failed job's id starts a new attempt.
	f.mu.Lock()
	f.fail["retry/4"] = StageGPU
	f.mu.Unlock()
	submit(t, e, "retry", proof32G, PriorityNormal)
	if _, err := await(t, e, "retry"); err == nil {
		t.Fatal("the failing job succeeded")
	}
	f.mu.Lock()
	delete(f.fail, "retry/4")
	f.mu.Unlock()
	submit(t, e, "retry", proof32G, PriorityNormal)
	r, err = await(t, e, "retry")
	if err != nil {
		t.Fatalf("retry after failure: %v", err)
	}
	checkProof(t, r, "retry", proof32G)
	// An empty id gets a fresh one.
	id, err := e.Submit(ctx, Request{Commit1: fakeC1("anon", proof2K)})
	if err != nil || len(id) != 36 {
		t.Fatalf("empty id: %q, %v", id, err)
	}
	if _, err := await(t, e, id); err != nil {
		t.Fatal(err)
	}
}

func countPrefix(s []string, prefix string) int {
	n := 0
	for _, x := range s {
		if strings.HasPrefix(x, prefix) {
			n++
		}
	}
	return n
}

func TestCancelRunningJobFreesBudget(t *testing.T) {
	f := newFake()
	f.gpuDelay = 20 * time.Millisecond
	e := newTestEngine(t, testConfig(0), f)
	id := submit(t, e, "cx", proof32G, PriorityNormal)
	eventually(t, "two partitions proved", func() bool {
		js, _ := e.Job(id)
		return js.Proved >= 2
	})
	if st := e.Status(); st.Memory.InUse <= f.circuitBytes {
		t.Fatalf("nothing in flight before the cancel: %+v", st.Memory)
	}
	if err := e.Cancel(id); err != nil {
		t.Fatal(err)
	}
	r, err := await(t, e, id)
	if !errors.Is(err, ErrCanceled) || r.State != JobCanceled || r.Proof != nil {
		t.Fatalf("canceled job: state %v, err %v, %d proof bytes", r.State, err, len(r.Proof))
	}
	eventually(t, "the budget to return", func() bool {
		m := e.Status().Memory
		return m.InUse == f.circuitBytes && m.Partitions == 0
	})
	js, _ := e.Job(id)
	if js.InFlight != 0 || js.Proved == 10 {
		t.Fatalf("after cancel: %+v", js)
	}
	if err := e.Cancel(id); err != nil {
		t.Fatalf("canceling a finished job: %v", err)
	}
	if err := e.Cancel("nope"); !errors.Is(err, ErrUnknownJob) {
		t.Fatalf("canceling an unknown job: %v", err)
	}
	// The engine goes on.
	r, err = await(t, e, submit(t, e, "next", proof32G, PriorityNormal))
	if err != nil {
		t.Fatal(err)
	}
	checkProof(t, r, "next", proof32G)
}

func TestCancelQueuedJob(t *testing.T) {
	f := newFake()
	gate := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	f.onSynth = func(job string, k int) {
		if job == "first" {
			<-gate
		}
	}
	cfg := testConfig(0)
	cfg.Memory.Budget = ByteSize(f.circuitBytes + f.partBytes)
	e := newTestEngine(t, cfg, f)
	t.Cleanup(open)
	submit(t, e, "first", proof2K, PriorityNormal)
	submit(t, e, "queued", proof2K, PriorityNormal)
	eventually(t, "one queued job", func() bool { return e.Status().Queued == 1 })
	if err := e.Cancel("queued"); err != nil {
		t.Fatal(err)
	}
	if st := e.Status(); st.Queued != 0 || len(st.Jobs) != 1 {
		t.Fatalf("after canceling the queued job: %+v", st)
	}
	if _, err := await(t, e, "queued"); !errors.Is(err, ErrCanceled) {
		t.Fatalf("queued job: %v", err)
	}
	open()
	if _, err := await(t, e, "first"); err != nil {
		t.Fatal(err)
	}
	if n := countPrefix(f.synthOrder, "queued/"); n != 0 {
		t.Fatalf("the canceled queued job was synthesised %d times", n)
	}
}

func TestDeadlineWhileRunning(t *testing.T) {
	f := newFake()
	f.gpuDelay = 20 * time.Millisecond
	e := newTestEngine(t, testConfig(0), f)
	id, err := e.Submit(context.Background(), Request{ID: "late", Commit1: fakeC1("late", proof32G), Deadline: time.Now().Add(60 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	r, err := await(t, e, id)
	var de *DeadlineError
	if !errors.As(err, &de) || !errors.Is(err, context.DeadlineExceeded) || r.State != JobExpired {
		t.Fatalf("expired job: state %v, err %v", r.State, err)
	}
	if de.Job != "late" || de.Of != 10 || de.Done >= 10 || r.Proof != nil {
		t.Fatalf("deadline error %+v", de)
	}
	eventually(t, "the budget to return", func() bool { return e.Status().Memory.InUse == f.circuitBytes })
	if st := e.Status(); st.Totals.Expired != 1 {
		t.Fatalf("totals %+v", st.Totals)
	}
}

func TestDeadlineWhileQueued(t *testing.T) {
	f := newFake()
	gate := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	f.onSynth = func(job string, k int) {
		if job == "first" {
			<-gate
		}
	}
	cfg := testConfig(0)
	cfg.Memory.Budget = ByteSize(f.circuitBytes + f.partBytes)
	cfg.Queue.DefaultTimeout = 30 * time.Millisecond // for a request without a deadline
	e := newTestEngine(t, cfg, f)
	t.Cleanup(open)
	if _, err := e.Submit(context.Background(), Request{ID: "first", Commit1: fakeC1("first", proof2K), Deadline: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the first job to start", func() bool { return e.Status().Queued == 0 })
	t0 := time.Now()
	submit(t, e, "waits", proof2K, PriorityNormal)
	_, err := await(t, e, "waits")
	var de *DeadlineError
	if !errors.As(err, &de) || de.Done != 0 {
		t.Fatalf("queued job past its deadline: %v", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("the queued job expired after %v", d)
	}
	if st := e.Status(); st.Queued != 0 {
		t.Fatalf("expired job still queued: %+v", st)
	}
	open()
	if _, err := await(t, e, "first"); err != nil {
		t.Fatal(err)
	}
	if n := countPrefix(f.synthOrder, "waits/"); n != 0 {
		t.Fatal("the expired job was synthesised")
	}
}

func TestBudgetNeverExceededUnder20Jobs(t *testing.T) {
	f := newFake()
	f.synthDelay, f.prepDelay, f.gpuDelay, f.finishDelay = 2*time.Millisecond, time.Millisecond, 2*time.Millisecond, time.Millisecond
	cfg := testConfig(0, 1)
	cfg.Synthesis.Workers = 8
	cfg.Memory.Budget = ByteSize(2*f.circuitBytes + 3*f.partBytes) // both circuits and three partitions
	e := newTestEngine(t, cfg, f)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name, p := fmt.Sprintf("j%02d", i), proof32G
			if i%2 == 1 {
				p = proof2K
			}
			id, err := e.Submit(context.Background(), Request{ID: name, Commit1: fakeC1(name, p)})
			if err != nil {
				errs <- err
				return
			}
			r, err := await(t, e, id)
			if err != nil {
				errs <- err
				return
			}
			checkProof(t, r, name, p)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	m := e.Status().Memory
	if m.HighWater > m.Budget {
		t.Fatalf("memory high-water %d over the budget %d", m.HighWater, m.Budget)
	}
	if m.HighWater < 2*f.circuitBytes+2*f.partBytes {
		t.Errorf("high-water %d: the budget was never filled", m.HighWater)
	}
	if m.InUse != 2*f.circuitBytes || m.Reservations != 2+10*10+10*1 {
		t.Errorf("memory after 20 jobs: %+v", m)
	}
}

func TestLowMemoryRunsOnePartitionAtATime(t *testing.T) {
	f := newFake()
	f.gpuDelay = time.Millisecond
	cfg := testConfig(0, 1)
	cfg.Memory.Budget = ByteSize(f.circuitBytes + f.partBytes)
	e := newTestEngine(t, cfg, f)
	for i := range 3 {
		submit(t, e, fmt.Sprintf("lm%d", i), proof32G, PriorityNormal)
	}
	for i := range 3 {
		name := fmt.Sprintf("lm%d", i)
		r, err := await(t, e, JobID(name))
		if err != nil {
			t.Fatal(err)
		}
		checkProof(t, r, name, proof32G)
	}
	if m := e.Status().Memory; m.HighWater != f.circuitBytes+f.partBytes {
		t.Fatalf("high-water %d, want the circuit and one partition, %d", m.HighWater, f.circuitBytes+f.partBytes)
	}
}

func TestPartitionLargerThanBudget(t *testing.T) {
	f := newFake()
	f.partBytes = 800 // with the circuit's 300, more than 1000
	e := newTestEngine(t, testConfig(0), f)
	// The circuit is not loaded yet: the job fails as soon as it is.
	_, err := await(t, e, submit(t, e, "big", proof32G, PriorityNormal))
	var be *BudgetError
	if !errors.As(err, &be) || !errors.Is(err, ErrBudget) || be.Partition != 800 || be.Circuit != 300 || be.Budget != 1000 {
		t.Fatalf("too big a partition: %v", err)
	}
	// Now it is: Submit refuses at once.
	if _, err := e.Submit(context.Background(), Request{ID: "big2", Commit1: fakeC1("big2", proof32G)}); !errors.Is(err, ErrBudget) {
		t.Fatalf("too big a partition, circuit resident: %v", err)
	}
	// A circuit larger than the budget is refused before anything loads.
	g := newFake()
	g.circuitBytes = 5000
	e2 := newTestEngine(t, testConfig(0), g)
	if _, err := e2.Submit(context.Background(), Request{ID: "huge", Commit1: fakeC1("huge", proof2K)}); !errors.Is(err, ErrBudget) {
		t.Fatalf("circuit larger than the budget: %v", err)
	}
	if len(g.circuitLoads) != 0 {
		t.Fatal("a circuit larger than the budget was loaded")
	}
}

func TestPartitionFailureNamesPartition(t *testing.T) {
	for _, s := range []Stage{StageSynthesis, StagePrepare, StageGPU, StageFinish, StageVerify} {
		t.Run(string(s), func(t *testing.T) {
			f := newFake()
			f.gpuDelay = 2 * time.Millisecond
			f.fail["bad/3"] = s
			e := newTestEngine(t, testConfig(0, 1), f)
			r, err := await(t, e, submit(t, e, "bad", proof32G, PriorityNormal))
			var pe *PartitionError
			if !errors.As(err, &pe) || pe.Partition != 3 || pe.Stage != s || pe.Job != "bad" {
				t.Fatalf("failed job's error: %v", err)
			}
			if !strings.Contains(err.Error(), "partition 3") || (s == StageVerify && !strings.Contains(err.Error(), "does not verify")) {
				t.Fatalf("error message: %v", err)
			}
			if r.State != JobFailed || r.Proof != nil {
				t.Fatalf("failed job: %v, %d bytes", r.State, len(r.Proof))
			}
			eventually(t, "the budget to return", func() bool {
				m := e.Status().Memory
				return m.InUse == f.circuitBytes && m.Partitions == 0
			})
			r, err = await(t, e, submit(t, e, "good", proof32G, PriorityNormal))
			if err != nil {
				t.Fatal(err)
			}
			checkProof(t, r, "good", proof32G)
			if st := e.Status(); st.Totals.Failed != 1 || st.Totals.PartitionsFailed != 1 {
				t.Fatalf("totals %+v", st.Totals)
			}
		})
	}
}

func TestJobsFinishInSubmissionOrder(t *testing.T) {
	f := newFake()
	f.synthDelay, f.gpuDelay = time.Millisecond, 5*time.Millisecond
	cfg := testConfig(0, 1)
	cfg.Memory.Budget = ByteSize(f.circuitBytes + 8*f.partBytes)
	var tl bytes.Buffer
	e := newTestEngine(t, cfg, f, WithTimeline(&tl))
	const n = 6
	for i := range n {
		submit(t, e, fmt.Sprintf("o%d", i), proof32G, PriorityNormal)
	}
	var prev time.Time
	for i := range n {
		r, err := await(t, e, JobID(fmt.Sprintf("o%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		if !r.Finished.After(prev) {
			t.Fatalf("job o%d finished at %v, before job o%d (%v)", i, r.Finished, i-1, prev)
		}
		prev = r.Finished
	}
	// Oldest job first, lowest partition first: the dispatch order (the
	// timeline's queue ends, written under the scheduler's lock).
	e.Close()
	var got []string
	for _, ev := range readTimeline(t, &tl) {
		if ev.Stage == StageQueue && ev.Event == "end" {
			got = append(got, fmt.Sprintf("%s/%d", ev.Job, ev.Partition))
		}
	}
	var want []string
	for i := range n {
		for k := range 10 {
			want = append(want, fmt.Sprintf("o%d/%d", i, k))
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("dispatch order\n got %v\nwant %v", got, want)
	}
}

func readTimeline(t *testing.T, r io.Reader) []TimelineEvent {
	t.Helper()
	var evs []TimelineEvent
	dec := json.NewDecoder(r)
	for {
		var ev TimelineEvent
		if err := dec.Decode(&ev); err == io.EOF {
			return evs
		} else if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
}

func TestAwaitHonoursContext(t *testing.T) {
	f := newFake()
	f.gpuDelay = 20 * time.Millisecond
	e := newTestEngine(t, testConfig(0), f)
	id := submit(t, e, "slow", proof32G, PriorityNormal)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	r, err := e.Await(ctx, id)
	if !errors.Is(err, context.DeadlineExceeded) || r.State.Final() {
		t.Fatalf("await with a short context: %v, %v", r.State, err)
	}
	if _, err := await(t, e, id); err != nil {
		t.Fatalf("the job after the caller stopped waiting: %v", err)
	}
	if _, err := e.Await(context.Background(), "unknown"); !errors.Is(err, ErrUnknownJob) {
		t.Fatalf("await unknown: %v", err)
	}
}

func TestQueueFull(t *testing.T) {
	f := newFake()
	gate := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	f.onSynth = func(job string, k int) {
		if job == "first" {
			<-gate
		}
	}
	cfg := testConfig(0)
	cfg.Queue.MaxQueued = 2
	cfg.Memory.Budget = ByteSize(f.circuitBytes + f.partBytes)
	e := newTestEngine(t, cfg, f)
	t.Cleanup(open)
	submit(t, e, "first", proof2K, PriorityNormal)
	eventually(t, "the first job to start", func() bool { return e.Status().Queued == 0 })
	submit(t, e, "q1", proof2K, PriorityNormal)
	submit(t, e, "q2", proof2K, PriorityNormal)
	if _, err := e.Submit(context.Background(), Request{ID: "q3", Commit1: fakeC1("q3", proof2K)}); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("third queued job: %v", err)
	}
	// A resubmission of a queued id is not a new job, so not refused.
	if _, err := e.Submit(context.Background(), Request{ID: "q1", Commit1: fakeC1("q1", proof2K)}); err != nil {
		t.Fatalf("resubmitting a queued job with the queue full: %v", err)
	}
	open()
	for _, id := range []JobID{"first", "q1", "q2"} {
		if _, err := await(t, e, id); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBadRequests(t *testing.T) {
	f := newFake()
	e := newTestEngine(t, testConfig(0), f)
	ctx := context.Background()
	var se *c1.SyntaxError
	if _, err := e.Submit(ctx, Request{ID: "junk", C1: []byte("{not json")}); !errors.Is(err, ErrBadRequest) || !errors.As(err, &se) {
		t.Fatalf("junk bytes: %v", err)
	}
	if _, err := e.Submit(ctx, Request{ID: "none"}); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("no C1: %v", err)
	}
	if _, err := e.Submit(ctx, Request{ID: "both", C1: []byte("{}"), Commit1: fakeC1("both", proof2K)}); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("both C1s: %v", err)
	}
	if _, err := e.Submit(ctx, Request{ID: "type", Commit1: fakeC1("type", proof2K), ProofType: proof32G}); !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "StackedDrg32GiBV1_1") {
		t.Fatalf("proof type mismatch: %v", err)
	}
	short := fakeC1("short", proof32G)
	short.VanillaProofs.Partitions = short.VanillaProofs.Partitions[:9]
	if _, err := e.Submit(ctx, Request{ID: "short", Commit1: short}); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("9 partitions of 10: %v", err)
	}
	f.checkErr = errors.New("vanilla proof broken")
	if _, err := e.Submit(ctx, Request{ID: "vanilla", Commit1: fakeC1("vanilla", proof2K)}); !errors.Is(err, ErrBadRequest) || !errors.Is(err, f.checkErr) {
		t.Fatalf("check failure: %v", err)
	}
	if st := e.Status(); st.Totals.Submitted != 0 {
		t.Fatalf("bad requests were queued: %+v", st.Totals)
	}
}

func TestCircuitLoadFailureThenRetry(t *testing.T) {
	f := newFake()
	f.loadErr = errors.New("no parameters here")
	e := newTestEngine(t, testConfig(0), f)
	_, err := await(t, e, submit(t, e, "nop", proof2K, PriorityNormal))
	if !errors.Is(err, f.loadErr) || !strings.Contains(err.Error(), "StackedDrg2KiBV1_1") {
		t.Fatalf("job with a failing circuit load: %v", err)
	}
	eventually(t, "the failed load to be forgotten", func() bool {
		st := e.Status()
		return len(st.Circuits) == 0 && st.Memory.InUse == 0
	})
	f.mu.Lock()
	f.loadErr = nil
	f.mu.Unlock()
	if _, err := await(t, e, submit(t, e, "yes", proof2K, PriorityNormal)); err != nil {
		t.Fatalf("after the parameters appeared: %v", err)
	}
}

func TestCloseEndsJobs(t *testing.T) {
	f := newFake()
	f.gpuDelay = 10 * time.Second // a kernel that honours its context
	cfg := testConfig(0)
	cfg.Memory.Budget = ByteSize(f.circuitBytes + 2*f.partBytes)
	e, err := New(cfg, f, WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	submit(t, e, "run", proof32G, PriorityNormal)
	submit(t, e, "wait", proof32G, PriorityNormal)
	eventually(t, "a kernel to start", func() bool { return e.Status().GPUs[0].Lock.Holders == 1 })
	t0 := time.Now()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("Close took %v", d)
	}
	for _, id := range []JobID{"run", "wait"} {
		if _, err := e.Await(context.Background(), id); !errors.Is(err, ErrClosed) {
			t.Fatalf("%s after Close: %v", id, err)
		}
	}
	if _, err := e.Submit(context.Background(), Request{ID: "late", Commit1: fakeC1("late", proof2K)}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Submit after Close: %v", err)
	}
	if m := e.Status().Memory; m.InUse != 0 {
		t.Fatalf("memory after Close: %+v", m)
	}
	if strings.Join(f.closed, ",") != "prover 0/34359738368,circuit 34359738368" {
		t.Fatalf("closed: %v", f.closed)
	}
	if f.prepared != 0 || len(f.errs) != 0 {
		t.Fatalf("fake: %d prepared left, %v", f.prepared, f.errs)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// A Status taken mid-job survives a JSON round trip (it travels over the
// Prover API), job states included.
func TestStatusJSONRoundTrip(t *testing.T) {
	f := newFake()
	f.gpuDelay = 50 * time.Millisecond
	e := newTestEngine(t, testConfig(0), f)
	submit(t, e, "rt", proof2K, PriorityHigh)
	eventually(t, "the job to run", func() bool {
		st := e.Status()
		return len(st.Jobs) == 1 && st.Jobs[0].State == JobRunning
	})
	st := e.Status()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back Status
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	if len(back.Jobs) != 1 || back.Jobs[0].State != JobRunning || back.Jobs[0].Priority != PriorityHigh || back.Backend != st.Backend {
		t.Fatalf("round trip: %+v", back)
	}
	var s JobState
	if err := s.UnmarshalText([]byte("bogus")); err == nil {
		t.Fatal("an unknown state decoded")
	}
	if _, err := await(t, e, "rt"); err != nil {
		t.Fatal(err)
	}
}

// Witnesses go back to their circuit for reuse once the prover has copied
// them (right after Prepare), and only then; the pool keeps a bounded number.
func TestWitnessRecycling(t *testing.T) {
	for _, copies := range []bool{false, true} {
		f := newFake()
		f.copies = copies
		e := newTestEngine(t, testConfig(0), f)
		submit(t, e, "w", proof32G, PriorityNormal)
		if _, err := await(t, e, "w"); err != nil {
			t.Fatal(err)
		}
		f.mu.Lock()
		got := len(f.recycled)
		f.mu.Unlock()
		if want := map[bool]int{false: 0, true: 10}[copies]; got != want {
			t.Errorf("copies=%v: %d witnesses recycled (%v), want %d", copies, got, f.recycled, want)
		}
	}
	var wp witnessPool
	for i := 0; i < 2*maxPooledWitnesses; i++ {
		wp.Recycle(&groth16.Assignment{})
	}
	wp.Recycle(nil)
	if wp.pooled() != maxPooledWitnesses || len(wp.options()) != 1 || wp.pooled() != maxPooledWitnesses-1 {
		t.Fatalf("pool holds %d", wp.pooled())
	}
}

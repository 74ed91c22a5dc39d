package engine

import (
	"runtime"
	"strings"
	"testing"
)

// synthesis.cpus: auto is a thread per core less one per GPU worker (at least
// one), a set value is kept, a negative one refused.
func TestSynthesisCPUsResolved(t *testing.T) {
	c := DefaultConfig()
	c.GPU.Devices, c.GPU.WorkersPerGPU = []int{0, 1}, 2
	r, err := c.resolved()
	if err != nil {
		t.Fatal(err)
	}
	if n := runtime.GOMAXPROCS(0); r.Synthesis.CPUs != max(n-4, n/2, 1) {
		t.Fatalf("auto synthesis.cpus = %d, want GOMAXPROCS %d less 4 GPU workers, at least half of it and 1", r.Synthesis.CPUs, n)
	}
	for _, c := range []struct{ procs, workers, want int }{{16, 2, 14}, {128, 16, 112}, {4, 2, 2}, {6, 8, 3}, {2, 2, 1}, {1, 2, 1}} {
		old := runtime.GOMAXPROCS(c.procs)
		got := autoCPUs(c.workers)
		runtime.GOMAXPROCS(old)
		if got != c.want {
			t.Errorf("%d cores, %d GPU workers: auto synthesis.cpus %d, want %d", c.procs, c.workers, got, c.want)
		}
	}
	c.Synthesis.CPUs = 7
	if r, err = c.resolved(); err != nil || r.Synthesis.CPUs != 7 {
		t.Fatalf("synthesis.cpus = 7 resolved to %d (%v)", r.Synthesis.CPUs, err)
	}
	c.Synthesis.CPUs = -1
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "synthesis.cpus") {
		t.Fatalf("synthesis.cpus = -1: %v", err)
	}
	p, err := ParseConfig("[synthesis]\ncpus = 5\n")
	if err != nil || p.Synthesis.CPUs != 5 {
		t.Fatalf("parsing cpus = 5: %+v, %v", p.Synthesis, err)
	}
}

// Every job's Check and synthesis run under the engine's one CPU gate, of
// synthesis.cpus slots; a critical job's run outside it.
func TestCPUGateReachesTheBackend(t *testing.T) {
	f := newFake()
	cfg := testConfig(0)
	cfg.Synthesis.CPUs = 3
	cfg.Memory.Budget = ByteSize(f.circuitBytes + 4*f.partBytes)
	e := newTestEngine(t, cfg, f)
	for _, j := range []struct {
		name string
		prio Priority
	}{{"norm", PriorityNormal}, {"low", PriorityLow}, {"crit", PriorityCritical}} {
		if _, err := await(t, e, submit(t, e, j.name, proof2K, j.prio)); err != nil {
			t.Fatal(err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.synthGates["norm/0"]
	if g == nil || g.Size() != 3 {
		t.Fatalf("a normal job's synthesis got gate %v (size %d), want the engine's gate of 3", g, g.Size())
	}
	for _, k := range []string{"low/0"} {
		if f.synthGates[k] != g {
			t.Errorf("synthesis of %s got gate %p, want the engine's one gate %p", k, f.synthGates[k], g)
		}
	}
	for _, name := range []string{"norm", "low"} {
		if f.checkGates[name] != g {
			t.Errorf("Check of %s got gate %p, want the engine's %p", name, f.checkGates[name], g)
		}
	}
	if f.synthGates["crit/0"] != nil || f.checkGates["crit"] != nil {
		t.Errorf("the critical job ran inside the gate (synthesis %p, check %p)", f.synthGates["crit/0"], f.checkGates["crit"])
	}
}

package cli

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/filc2/filc2/engine/benchreport"
	"github.com/filc2/filc2/ffi"
	"github.com/filc2/filc2/internal/testparams"
	"github.com/filc2/filc2/proofs/abi"
)

// Bad flags are usage errors (exit 2) that say what is wrong, before any work.
func TestBenchC2BadFlags(t *testing.T) {
	empty := t.TempDir()
	p2k := []string{"bench", "c2", "-p", "StackedDrg2KiBV1_1", "--params", empty}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "c2"}, "--registered-proof is required"},
		{[]string{"bench", "c2", "-p", "StackedDrg3KiBV1"}, "--registered-proof"},
		{append(p2k, "--jobs", "0"), "--jobs 0"},
		{append(p2k, "--concurrency", "0"), "--concurrency 0"},
		{append(p2k, "--gpu-workers", "0"), "--gpu-workers 0"},
		{append(p2k, "--synthesis-workers", "-1"), "--synthesis-workers -1"},
		{append(p2k, "--synthesis-cpus", "-2"), "--synthesis-cpus -2"},
		{append(p2k, "--backend", "tpu"), `--backend "tpu"`},
		{append(p2k, "--gpus", "0,0"), "--gpus"},
		{append(p2k, "--gpus", "x"), "--gpus"},
		{append(p2k, "--memory-budget", "lots"), "--memory-budget"},
		{append(p2k, "--timeline", "a", "--timeline-log", "a"), "same file"},
		{append(p2k, "--jobs", "two"), "jobs"},
		{append(p2k, "extra"), "unexpected arguments"},
		{append(p2k, "--c1", filepath.Join(empty, "none.json")), "none.json"},
		{[]string{"bench", "c2", "-p", "StackedDrg32GiBV1_1", "--synthetic", "--backend", "cpu", "--params", empty}, "--backend cuda"},
		{[]string{"bench", "c2", "-p", "StackedDrg32GiBV1_1", "--sparse", "--setup-key", "--backend", "cpu", "--params", empty}, "--backend cuda"},
		{append(p2k, "--synthetic", "--sparse"), "does not go with"},
		{append(p2k, "--synthetic", "--setup-key"), "does not go with"},
		{append(p2k, "--sparse", "--c1", "x.json"), "give one"},
		{append(p2k, "--post-proof", "StackedDrgWinning3KiBV1"), "--post-proof"},
		{append(p2k, "--post-proof", "StackedDrgWinning2KiBV1", "--post-sectors", "2"), "proves one sector"},
		{append(p2k, "--post-proof", "StackedDrgWindow2KiBV1_1", "--post-every", "0s"), "--post-every"},
		{append(p2k, "--synthetic", "--post-proof", "StackedDrgWinning2KiBV1"), "needs real keys"},
		{append(p2k, "--update-proof", "StackedDrg2KiBV1"), "does not go with"},
		{[]string{"bench", "c2", "--update-proof", "StackedDrg2KiBV1", "--sparse"}, "does not go with"},
		{[]string{"bench", "c2", "--update-proof", "StackedDrg3KiBV1"}, "--update-proof"},
		{[]string{"bench", "c2", "--update-proof", "StackedDrg32GiBV1", "--setup-key", "--backend", "cpu", "--params", empty}, "--backend cuda"},
	} {
		out, err := run(t, tc.args...)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v (want exit 2 with %q)\n%s", tc.args[2:], err, tc.want, out)
		}
	}
	// Missing parameters: say how to make or fetch them.
	_, err := run(t, p2k...)
	if err == nil || !strings.Contains(err.Error(), "filc2 setup -p StackedDrg2KiBV1_1") || !strings.Contains(err.Error(), "filc2 params fetch") ||
		!strings.Contains(err.Error(), "--synthetic") {
		t.Errorf("missing parameters: %v", err)
	}
	if _, err := run(t, "bench", "c2", "--update-proof", "StackedDrg2KiBV1", "--params", empty); err == nil ||
		!strings.Contains(err.Error(), "filc2 setup --update-proof StackedDrg2KiBV1") {
		t.Errorf("missing update parameters: %v", err)
	}
	if !ffi.Compiled() {
		if _, err := run(t, append(p2k, "--synthetic", "--backend", "cuda")...); err == nil || !strings.Contains(err.Error(), "without CUDA") {
			t.Errorf("--backend cuda without CUDA: %v", err)
		}
	}
}

// Two real 2KiB proofs on the CPU, both in flight: every proof verified, a
// steady state measured over the second, per-stage medians over both
// partitions, the GPU lock's use, and a well-formed timeline picture.
func TestBenchC2RealCPU2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("two real 2KiB proofs take about a minute on 2 cores")
	}
	p, _ := abi.ParseName("StackedDrg2KiBV1_1")
	params := testparams.Dir(t, p)
	svg := filepath.Join(t.TempDir(), "timeline.svg")
	out, progress, err := runSplit(t, context.Background(), "bench", "c2", "-p", p.Name, "--backend", "cpu", "--jobs", "2",
		"--concurrency", "2", "--params", params, "--timeline", svg, "--json")
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, progress)
	}
	t.Logf("progress:\n%s", progress)
	var rep benchreport.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !rep.Verified || rep.Synthetic || rep.Unverified != 0 || rep.Note != "" || rep.Jobs != 2 || rep.Concurrency != 2 || len(rep.Proofs) != 2 {
		t.Fatalf("report %+v", rep)
	}
	if rep.SteadyProofs != 1 || rep.SteadyParts < 1 || rep.Steady <= 0 || rep.GPUBound <= 0 || rep.Overall <= 0 || rep.FirstProof <= 0 || rep.LatencyMax < rep.LatencyMedian || rep.Load <= 0 {
		t.Fatalf("timings %+v", rep)
	}
	if len(rep.Stages) != 9 || rep.Stages[1].Stage != "synthesis" || rep.Stages[1].Count != 2 || rep.Stages[1].Median <= 0 ||
		rep.Stages[6].Stage != "gpu_locked" || rep.Stages[6].Median <= 0 || rep.Stages[8].Stage != "verify" || rep.Stages[8].Median <= 0 {
		t.Fatalf("stages %+v", rep.Stages)
	}
	if len(rep.GPUUse) != 1 || rep.GPUUse[0].Acquisitions != 2 || rep.GPUUse[0].Overall <= 0 || rep.GPUUse[0].Overall > 1 ||
		rep.GPUUse[0].Steady <= 0 || rep.GPUUse[0].Steady > 1 {
		t.Fatalf("GPU use %+v", rep.GPUUse)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name
	}
	if err := xml.Unmarshal(b, &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Fatalf("the timeline is not SVG (%v)", err)
	}
	for _, row := range []string{`data-row="gpu0/w0"`, `data-row="gpu0/w1"`, `data-row="gpu0 kernels"`, `data-stage="gpu_held"`, `data-stage="synthesis"`} {
		if !strings.Contains(string(b), row) {
			t.Errorf("the timeline has no %s", row)
		}
	}
}

// --sparse --setup-key at 2KiB on the CPU: two sparse sectors proved with a
// key the engine made itself (no .params anywhere), every partition verified.
func TestBenchC2SparseSetupKeyCPU2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2KiB setup, two proofs and WinningPoSt beside them take about two minutes on 2 cores")
	}
	dir := t.TempDir()
	out, progress, err := runSplit(t, context.Background(), "bench", "c2", "-p", "StackedDrg2KiBV1_1", "--sparse", "--setup-key",
		"--backend", "cpu", "--jobs", "2", "--concurrency", "1", "--params", dir, "--seed", "5", "--json",
		"--post-proof", "StackedDrgWinning2KiBV1", "--post-alone", "1", "--post-every", "3s",
		"--inject-faults", "section=1,corrupt=2")
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, progress)
	}
	var rep benchreport.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// The injected failed section and corrupted proof were retried; every
	// proof returned still verified.
	if !strings.HasPrefix(rep.Faults, "section 1/") || !strings.Contains(rep.Faults, "corrupt 1/") || rep.Retried != 2 {
		t.Fatalf("faults %q, %d retried", rep.Faults, rep.Retried)
	}
	if !rep.Verified || rep.Synthetic || rep.Unverified != 0 || len(rep.Proofs) != 2 || !strings.HasPrefix(rep.Backend, "setup-key/") ||
		!strings.Contains(rep.C1, "sparse") || !strings.Contains(rep.Key, "setup") || len(rep.ProverLoads) != 1 || rep.ProverLoads[0] <= 0 || rep.HostPeak == 0 {
		t.Fatalf("report %+v", rep)
	}
	// The WinningPoSt beside it: one alone, at least one under the PoRep load.
	if ps := rep.PoSt; ps == nil || ps.ProofType != "StackedDrgWinning2KiBV1" || ps.AloneN != 1 || ps.Alone.Median <= 0 || ps.LoadN < 1 ||
		ps.UnderLoad.Max < ps.UnderLoad.Median || len(ps.Latencies) != ps.LoadN {
		t.Fatalf("PoSt report %+v", rep.PoSt)
	}
	if ms, _ := filepath.Glob(filepath.Join(dir, "*.params")); len(ms) != 0 {
		t.Fatalf("a .params file was written: %v", ms)
	}
}

// --synthetic at 2KiB on the CPU: one proof through every stage with a
// random C1 and key; the report says the proofs do not verify, and the
// command succeeds.
func TestBenchC2SyntheticCPU2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2KiB proof takes about 30 s on 2 cores")
	}
	p, _ := abi.ParseName("StackedDrg2KiBV1_1")
	params := testparams.Dir(t, p) // for its recorded circuit: no .params are read
	out, progress, err := runSplit(t, context.Background(), "bench", "c2", "-p", p.Name, "--synthetic", "--backend", "cpu",
		"--jobs", "1", "--params", params)
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, progress)
	}
	t.Logf("%s", out)
	for _, want := range []string{
		"Synthetic: proofs do not verify",
		"synthetic: proofs do not verify: 1 of 1 partition unverified",
		"one proof has no steady state",
		"on synthetic/cpu",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, stage := range []string{"synthesis", "gpu_pre", "gpu_locked", "gpu_post", "verify"} {
		if !regexp.MustCompile(`(?m)^  ` + stage + `\s+[0-9.]+s\s+[0-9.]+s`).MatchString(out) {
			t.Errorf("no %s row in\n%s", stage, out)
		}
	}
	if strings.Contains(out, "every proof verified") {
		t.Errorf("a synthetic run claims verified proofs:\n%s", out)
	}
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/filc2/filc2/ffi"
	"github.com/filc2/filc2/proofs/groth16"
)

// runSplit executes the app with args and returns stdout, stderr and the error.
func runSplit(t *testing.T, ctx context.Context, args ...string) (string, string, error) {
	t.Helper()
	app := App()
	var out, errw bytes.Buffer
	app.Writer = &out
	app.ErrWriter = &errw
	err := app.RunContext(ctx, append([]string{"filc2"}, args...))
	return out.String(), errw.String(), err
}

func TestBenchKernelsCPU(t *testing.T) {
	out, progress, err := runSplit(t, context.Background(), "bench", "kernels", "--backend", "cpu", "--sizes", "10,12",
		"--reps", "3")
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, progress)
	}
	if !regexp.MustCompile(`(?m)^kernel\s+size\s+cpu ms\s+notes$`).MatchString(out) {
		t.Errorf("no table header in\n%s", out)
	}
	if strings.Contains(out, "cuda") {
		t.Errorf("a CPU-only table mentions cuda:\n%s", out)
	}
	for _, k := range groth16.BenchKernels() {
		for _, size := range []string{"10", "12"} {
			row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(k) + `\s+2\^` + size + `\s+[0-9]+\.[0-9]+\s+\S`)
			if !row.MatchString(out) {
				t.Errorf("no timed row for %s 2^%s in\n%s", k, size, out)
			}
			if !strings.Contains(progress, fmt.Sprintf("cpu  %-10s 2^%-2s ...", k, size)) {
				t.Errorf("no progress line for %s 2^%s in\n%s", k, size, progress)
			}
		}
	}
	if !regexp.MustCompile(`batch-add\s+2\^12 .*GB/s`).MatchString(out) {
		t.Errorf("batch-add has no GB/s note:\n%s", out)
	}
}

func TestBenchKernelsJSON(t *testing.T) {
	out, progress, err := runSplit(t, context.Background(), "bench", "kernels", "--backend", "cpu", "--sizes", "8, 9",
		"--kernels", "ntt,batch-add", "--reps", "2", "--cpu-max-size", "8", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, progress)
	}
	var rep kernelReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if rep.CPU == nil || rep.CUDA != nil || rep.Reps != 2 || len(rep.Rows) != 4 {
		t.Fatalf("report %+v", rep)
	}
	for _, r := range rep.Rows {
		switch {
		case r.LogN == 8 && (!r.CPU.measured() || r.CPU.MedianMs <= 0 || len(r.CPU.RunsMs) != 2):
			t.Errorf("%s 2^8 not measured: %+v", r.Kernel, r.CPU)
		case r.LogN == 9 && (r.CPU == nil || r.CPU.Skipped == ""):
			t.Errorf("%s 2^9 above --cpu-max-size not skipped: %+v", r.Kernel, r.CPU)
		}
	}
	if r := rep.Rows[2]; r.Kernel != groth16.KernelBatchAdd || r.CPU.Points == 0 || r.CPU.GBps <= 0 {
		t.Errorf("batch-add row %+v", r.CPU)
	}

	// --json-out: the table on stdout, the same results in the file.
	path := filepath.Join(t.TempDir(), "bench.json")
	out, progress, err = runSplit(t, context.Background(), "bench", "kernels", "--backend", "cpu", "--sizes", "8",
		"--kernels", "ntt", "--reps", "1", "--json-out", path)
	if err != nil || !strings.Contains(out, "kernel  size") {
		t.Fatalf("%v\n%s%s", err, out, progress)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file kernelReport
	if err := json.Unmarshal(b, &file); err != nil || len(file.Rows) != 1 || !file.Rows[0].CPU.measured() {
		t.Errorf("--json-out file: %v\n%s", err, b)
	}
}

func TestBenchKernelsBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sizes", "0"}, "--sizes: 2^0 is out of range: each log2 size must be in 1..28"},
		{[]string{"--sizes", "16,29"}, "--sizes: 2^29 is out of range"},
		{[]string{"--sizes", "sixteen"}, `--sizes: "sixteen" is not a log2 size`},
		{[]string{"--sizes", " , "}, "--sizes: no size given"},
		{[]string{"--kernels", "g1-msm,fft"}, `--kernels: unknown kernel "fft" (want all or some of g1-msm, g2-msm, ntt, batch-add, h-pipeline)`},
		{[]string{"--kernels", ""}, "--kernels: no kernel given"},
		{[]string{"--backend", "tpu"}, `--backend: unknown backend "tpu" (want cpu, cuda, cpu,cuda or auto)`},
		{[]string{"--backend", ""}, "--backend: no backend given"},
		{[]string{"--reps", "0"}, "--reps 0: want 1..1000"},
		{[]string{"--reps", "1001"}, "--reps 1001: want 1..1000"},
		{[]string{"--cpu-reps", "-2"}, "--cpu-reps -2: want 1..1000"},
		{[]string{"--cpu-max-size", "-1"}, "--cpu-max-size -1: want 0..28"},
		{[]string{"--device", "-1"}, "--device -1: want a device ordinal"},
		{[]string{"--reps", "many"}, "invalid value"},
		{[]string{"extra"}, `unexpected arguments ["extra"]`},
		{[]string{"--backend", "cpu", "--sizes", "20", "--cpu-max-size", "16"}, "nothing to time"},
	} {
		args := append([]string{"bench", "kernels", "--backend", "cpu"}, c.args...)
		out, progress, err := runSplit(t, context.Background(), args...)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want exit 2 with %q", c.args, err, c.want)
		}
		if out != "" || strings.Contains(progress, "bench: cpu") {
			t.Errorf("%v: measured or printed despite the bad flag:\n%s%s", c.args, out, progress)
		}
	}
}

// fakeBackends answers every cell at once: CUDA 100 times faster than the CPU, one
// CUDA cell failing.
func fakeBackends(failKernel string, failLog int) kernelBackends {
	return kernelBackends{
		cpu: func(_ context.Context, kernel string, logN, reps int, _ uint64) (groth16.CPUBench, error) {
			b := groth16.CPUBench{Kernel: kernel, LogN: logN}
			for i := range reps {
				b.Runs = append(b.Runs, time.Duration(logN*(10+i%2))*time.Millisecond)
			}
			if kernel == groth16.KernelBatchAdd {
				b.Points = 1000
			}
			return b, nil
		},
		cuda: func(kernel string, logN, reps, _ int, _ uint64) (ffi.KernelBench, error) {
			if kernel == failKernel && logN == failLog {
				return ffi.KernelBench{}, fmt.Errorf("ffi: %s benchmark at 2^%d: %w", kernel, logN, ffi.ErrOutOfMemory)
			}
			b := ffi.KernelBench{Kernel: kernel, LogN: logN}
			for range reps {
				b.Ms = append(b.Ms, float32(logN)/10)
			}
			switch kernel {
			case groth16.KernelG1MSM, groth16.KernelG2MSM:
				b.WindowBits = 13
			case groth16.KernelBatchAdd:
				b.Points, b.Bytes = 1000000, 104000000
			case groth16.KernelNTT:
				// a floor of half the median: 25e6 products at 50 G/s is 0.5 ms at 2^10 (1 ms)
				b.Floor = &ffi.Floor{Field: "Fr", Products: 25e6 * float64(logN) / 10, PerElement: 13.25, MulRate: 50e9,
					Model: "13.25 products an element"}
			}
			return b, nil
		},
	}
}

func TestBenchKernelsTable(t *testing.T) {
	plan := kernelBenchPlan{Sizes: []int{10, 20}, Kernels: groth16.BenchKernels(), CPU: true, CUDA: true, Reps: 3,
		CPUReps: 3, CPUMax: 10}
	var progress bytes.Buffer
	rep, err := runKernelBench(context.Background(), plan, &benchDevice{Ordinal: 0, Name: "Fake GPU"},
		fakeBackends(groth16.KernelG2MSM, 20), &progress)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(err.Error(), "1 of 15 measurements failed") {
		t.Fatalf("error %v", err)
	}
	if len(rep.Rows) != 10 {
		t.Fatalf("%d rows", len(rep.Rows))
	}
	var out bytes.Buffer
	printKernelTable(&out, &rep, plan)
	s := out.String()
	for _, re := range []string{
		`(?m)^cpu: \d+ threads .* median of 3 after 1 warm-up$`,
		`(?m)^cuda: device 0 \(Fake GPU\), device events, median of 3 after 2 warm-ups$`,
		`(?m)^kernel\s+size\s+cpu ms\s+cuda ms\s+cpu/cuda\s+notes$`,
		`(?m)^g1-msm\s+2\^10\s+100\.0\s+1\.000\s+100×\s+uniform scalars, cuda window 13 bits$`,
		`(?m)^g1-msm\s+2\^20\s+—\s+2\.000\s+—\s+uniform scalars`,
		`(?m)^g2-msm\s+2\^20\s+—\s+failed\s+—\s+uniform scalars; cuda failed: .*out of device memory`,
		`(?m)^batch-add\s+2\^10\s+100\.0\s+1\.000\s+100×\s+G1, 47% of bits set, cuda 104 GB/s, cpu 0\.00096 GB/s$`,
		`(?m)^h-pipeline\s+2\^20\s+—\s+2\.000\s+—\s+3 iNTT`,
		`(?m)^ntt\s+2\^10\s+100\.0\s+1\.000\s+100×\s+forward, natural in, bit-reversed out; multiply floor 0\.500 ms, 50% of the median \(13\.25 products an element at 50\.0 G Fr products/s\)$`,
		`(?m)^—: not timed on the CPU above 2\^10 \(--cpu-max-size\)$`,
	} {
		if !regexp.MustCompile(re).MatchString(s) {
			t.Errorf("no match for %s in\n%s", re, s)
		}
	}
	// Columns line up: every row's size column starts where the header's does.
	lines := strings.Split(strings.TrimSpace(s), "\n")
	col := strings.Index(lines[2], "size")
	for _, l := range lines[3 : len(lines)-1] {
		if i := strings.Index(l, "2^"); i != col {
			t.Errorf("misaligned row %q (size at %d, header at %d)", l, i, col)
		}
	}
	if !strings.Contains(progress.String(), "bench: cuda g2-msm     2^20 ... failed: ") {
		t.Errorf("progress:\n%s", progress.String())
	}
	if b, err := json.Marshal(rep); err != nil || !strings.Contains(string(b), `"cpu_over_cuda":100`) ||
		!strings.Contains(string(b), `"multiply_floor":{"field":"Fr","products_per_element":13.25,"products_g_per_s":50,"floor_ms":0.5,"floor_over_median_pct":50,`) {
		t.Errorf("JSON %v: %s", err, b)
	}
}

func TestBenchKernelsCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	plan := kernelBenchPlan{Sizes: []int{8}, Kernels: groth16.BenchKernels(), CPU: true, Reps: 1, CPUReps: 1, CPUMax: 8}
	var progress bytes.Buffer
	if _, err := runKernelBench(ctx, plan, nil, realKernelBackends(), &progress); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
}

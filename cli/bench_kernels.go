package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/ffi"
	"github.com/filc2/filc2/internal/atomicfile"
	"github.com/filc2/filc2/proofs/groth16"
)

// filc2 bench kernels: the proving kernels timed on each backend, in one table.

const (
	defaultBenchSizes = "16,20,22,24,26"
	maxBenchReps      = 1000
)

func benchKernelsCommand() *ucli.Command {
	kernels := strings.Join(groth16.BenchKernels(), ",")
	return &ucli.Command{
		Name:  "kernels",
		Usage: "time the proving kernels (G1/G2 MSM, NTT, batch-add, H pipeline) on the CPU and the GPU in one table",
		UsageText: "filc2 bench kernels [--sizes 16,20,22,24,26] [--backend cpu,cuda] [--reps N] [--kernels LIST]\n" +
			"                   [--cpu-max-size K] [--cpu-reps N] [--device N] [--seed N] [--json | --json-out FILE]",
		Description: "Measures, in one run, each kernel at each size 2^k on each backend and prints one table: the\n" +
			"median time per backend, the CPU/GPU ratio and notes. The kernels (--kernels, default all):\n" +
			"  g1-msm      G1 multi-scalar multiplication, uniform random scalars (Pippenger)\n" +
			"  g2-msm      the same over G2\n" +
			"  ntt         one forward Fr NTT: natural order in, bit-reversed out, in place\n" +
			"  batch-add   the sum of the G1 points whose bit is set in a bitmap with 47% of the bits set (the\n" +
			"              ones of a PoRep witness, which the split MSM adds without Pippenger); notes give GB/s\n" +
			"  h-pipeline  H = (a·b − c)/Z on the coset: 3 inverse NTTs, 2 coset NTTs, a·b pointwise, a coset\n" +
			"              inverse NTT less c's coefficients (bellperson takes c to the coset too: same values)\n" +
			"Inputs are pseudo-random (from --seed) and never zero; bases are distinct points (k + j)·G. They are\n" +
			"made before the timing and stay resident (on the GPU: made on the device, no host transfers timed).\n" +
			"CUDA times are device time between CUDA events after two warm-up runs; CPU times are wall clock after\n" +
			"one warm-up run on every core (gnark-crypto, as the CPU prover runs them). Each cell is the median of\n" +
			"--reps runs (--cpu-reps for the CPU).\n" +
			"\n" +
			"For the NTT and the MSMs the notes give the CUDA cell's multiply floor: the field products its\n" +
			"arithmetic cannot do without (the NTT's by its plan; an MSM's mixed additions, one a point and\n" +
			"window, sort and reduction not counted) at the rates of the field's product and squaring measured\n" +
			"on the same device just after, and that floor as a share of the median: how far the kernel is\n" +
			"from its arithmetic.\n" +
			"\n" +
			"The CPU is slow at large sizes (a G1 MSM of 2^20 takes about 3 s on 2 cores, G2 2–3 times more), so\n" +
			"above --cpu-max-size it is skipped and the table shows —. --backend auto (the default) is cpu plus\n" +
			"cuda when this binary has CUDA support and sees a device; --backend cuda needs a binary built with\n" +
			"./build.sh --cuda. Progress goes to stderr, the table (or JSON with --json) to stdout.\n" +
			"\n" +
			"Examples:\n" +
			"  filc2 bench kernels --backend cpu --sizes 16,18 --reps 3\n" +
			"  filc2 bench kernels --backend cpu,cuda --sizes 16,20,22,24,26 --reps 7 --cpu-max-size 20\n" +
			"  filc2 bench kernels --backend cuda --kernels g1-msm,batch-add --sizes 24,26 --json\n" +
			"  filc2 bench kernels --sizes 16,20,22,24,26 --reps 7 --cpu-reps 3 --json-out bench.json",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "sizes", Usage: fmt.Sprintf("comma-separated log2 sizes k (2^k elements), each in 1..%d",
				groth16.MaxKernelBenchLog), Value: defaultBenchSizes},
			&ucli.StringFlag{Name: "backend", Usage: "comma-separated backends: cpu, cuda, or auto (cpu, and cuda when available)",
				Value: "auto"},
			&ucli.StringFlag{Name: "kernels", Usage: "comma-separated kernels among " + kernels + ", or all", Value: "all"},
			&ucli.IntFlag{Name: "reps", Usage: fmt.Sprintf("timed runs per cell after the warm-up (1..%d); the cell is their median",
				maxBenchReps), Value: 5},
			&ucli.IntFlag{Name: "cpu-reps", Usage: "timed CPU runs per cell", DefaultText: "--reps"},
			&ucli.IntFlag{Name: "cpu-max-size", Usage: "largest log2 size timed on the CPU (0: none); larger cells show —",
				Value: 22},
			&ucli.IntFlag{Name: "device", Usage: "CUDA device ordinal", Value: 0},
			&ucli.Uint64Flag{Name: "seed", Usage: "seed of the pseudo-random inputs", Value: 1},
			&ucli.BoolFlag{Name: "json", Usage: "print the results as JSON instead of the table"},
			&ucli.StringFlag{Name: "json-out", Usage: "also write the results as JSON to `FILE` (with the table on stdout)"},
		},
		OnUsageError: onUsageError,
		Action:       benchKernelsAction,
	}
}

// kernelBenchPlan is what the flags ask for.
type kernelBenchPlan struct {
	Sizes   []int
	Kernels []string
	CPU     bool
	CUDA    bool
	// CUDAAuto: cuda came from --backend auto, so a missing device drops it quietly.
	CUDAAuto bool
	Reps     int
	CPUReps  int
	CPUMax   int
	Device   int
	Seed     uint64
}

// kernelBackends measures one cell per backend; the command uses groth16 and ffi, tests
// may substitute.
type kernelBackends struct {
	cpu  func(ctx context.Context, kernel string, logN, reps int, seed uint64) (groth16.CPUBench, error)
	cuda func(kernel string, logN, reps, device int, seed uint64) (ffi.KernelBench, error)
}

func realKernelBackends() kernelBackends {
	return kernelBackends{
		cpu: func(ctx context.Context, kernel string, logN, reps int, seed uint64) (groth16.CPUBench, error) {
			return groth16.BenchKernelCPU(ctx, kernel, logN, groth16.KernelBenchOptions{Reps: reps, Seed: seed})
		},
		cuda: cudaKernelBench,
	}
}

// cudaKernelBench runs one kernel benchmark of package ffi.
func cudaKernelBench(kernel string, logN, reps, device int, seed uint64) (ffi.KernelBench, error) {
	switch kernel {
	case groth16.KernelG1MSM:
		return ffi.BenchMSMG1(device, logN, reps, seed)
	case groth16.KernelG2MSM:
		return ffi.BenchMSMG2(device, logN, reps, seed)
	case groth16.KernelNTT:
		return ffi.BenchNTT(device, logN, reps)
	case groth16.KernelBatchAdd:
		return ffi.BenchBatchAddG1(device, logN, reps, seed)
	case groth16.KernelH:
		return ffi.BenchH(device, logN, reps)
	}
	return ffi.KernelBench{}, fmt.Errorf("no CUDA benchmark of kernel %q", kernel)
}

// kernelReport is the result of a run, as --json prints it.
type kernelReport struct {
	Method string       `json:"method"`
	Reps   int          `json:"reps"`
	CPU    *benchCPU    `json:"cpu,omitempty"`
	CUDA   *benchDevice `json:"cuda,omitempty"`
	Seed   uint64       `json:"seed"`
	Rows   []kernelRow  `json:"results"`
}

type benchCPU struct {
	Threads int    `json:"threads"`
	Reps    int    `json:"reps"`
	MaxLog2 int    `json:"max_log2_size"`
	Arch    string `json:"arch"`
}

type benchDevice struct {
	Ordinal int    `json:"ordinal"`
	Name    string `json:"name,omitempty"`
}

// kernelRow is one kernel at one size.
type kernelRow struct {
	Kernel string       `json:"kernel"`
	LogN   int          `json:"log2_size"`
	CPU    *benchTiming `json:"cpu,omitempty"`
	CUDA   *benchTiming `json:"cuda,omitempty"`
	// Ratio is the CPU median over the CUDA median (0: not both measured).
	Ratio float64 `json:"cpu_over_cuda,omitempty"`
	Notes string  `json:"notes,omitempty"`
}

// benchTiming is one backend's cell.
type benchTiming struct {
	MedianMs   float64     `json:"median_ms,omitempty"`
	RunsMs     []float64   `json:"runs_ms,omitempty"`
	WindowBits int         `json:"window_bits,omitempty"`
	Points     uint64      `json:"points_added,omitempty"`
	GBps       float64     `json:"gb_per_s,omitempty"`
	Floor      *benchFloor `json:"multiply_floor,omitempty"`
	Skipped    string      `json:"skipped,omitempty"`
	Error      string      `json:"error,omitempty"`
}

// benchFloor is a CUDA cell's multiply floor (ffi.Floor): the field products the kernel
// cannot do without, at the rates of that field's product and squaring on the same device.
type benchFloor struct {
	Field       string  `json:"field"`
	PerElement  float64 `json:"products_per_element"`
	MulGps      float64 `json:"products_g_per_s"`
	SqrGps      float64 `json:"squarings_g_per_s,omitempty"`
	Ms          float64 `json:"floor_ms"`
	OfMedianPct float64 `json:"floor_over_median_pct"`
	Model       string  `json:"model"`
}

func (t *benchTiming) measured() bool { return t != nil && t.Skipped == "" && t.Error == "" }

func benchKernelsAction(c *ucli.Context) error {
	if c.Args().Present() {
		return usageErrorf("unexpected arguments %q (see %s --help)", c.Args().Slice(), c.Command.HelpName)
	}
	plan, err := parseKernelBenchFlags(c)
	if err != nil {
		return usageError(err)
	}
	progress := c.App.ErrWriter
	var dev *benchDevice
	if plan.CUDA {
		dev, err = benchDeviceInfo(plan.Device)
		switch {
		case err == nil:
		case plan.CUDAAuto:
			fmt.Fprintf(progress, "bench: no usable CUDA device (%v): timing the CPU only\n", err)
			plan.CUDA = false
		default:
			return fmt.Errorf("--backend cuda: %w", err)
		}
	}
	if !plan.CUDA && (!plan.CPU || slices.Min(plan.Sizes) > plan.CPUMax) {
		return usageErrorf("nothing to time: CUDA is not used and every size is above --cpu-max-size %d", plan.CPUMax)
	}
	rep, err := runKernelBench(c.Context, plan, dev, realKernelBackends(), progress)
	if err != nil && len(rep.Rows) == 0 {
		return err
	}
	if path := c.String("json-out"); path != "" {
		if jerr := atomicfile.Write(path, 0o644, func(w io.Writer) error { return writeKernelJSON(w, &rep) }); jerr != nil {
			return fmt.Errorf("--json-out: writing the results: %w", jerr)
		}
	}
	if c.Bool("json") {
		if jerr := writeKernelJSON(c.App.Writer, &rep); jerr != nil {
			return fmt.Errorf("writing the results: %w", jerr)
		}
	} else {
		printKernelTable(c.App.Writer, &rep, plan)
	}
	return err
}

func writeKernelJSON(w io.Writer, rep *kernelReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// benchDeviceInfo checks that the CUDA device exists and returns its name.
func benchDeviceInfo(ordinal int) (*benchDevice, error) {
	devs, err := ffi.Devices() // without CUDA: ffi.ErrUnavailable, saying how to rebuild
	if err != nil {
		return nil, err
	}
	for _, d := range devs {
		if d.Ordinal == ordinal {
			return &benchDevice{Ordinal: ordinal, Name: d.Name}, nil
		}
	}
	return nil, fmt.Errorf("--device %d: this machine has %d CUDA devices", ordinal, len(devs))
}

// parseKernelBenchFlags checks every flag before anything runs.
func parseKernelBenchFlags(c *ucli.Context) (kernelBenchPlan, error) {
	p := kernelBenchPlan{Reps: c.Int("reps"), CPUReps: c.Int("cpu-reps"), CPUMax: c.Int("cpu-max-size"),
		Device: c.Int("device"), Seed: c.Uint64("seed")}
	var err error
	if p.Sizes, err = parseBenchSizes(c.String("sizes")); err != nil {
		return p, err
	}
	if p.Kernels, err = parseBenchKernels(c.String("kernels")); err != nil {
		return p, err
	}
	if p.CPU, p.CUDA, p.CUDAAuto, err = parseBenchBackends(c.String("backend")); err != nil {
		return p, err
	}
	if p.Reps < 1 || p.Reps > maxBenchReps {
		return p, fmt.Errorf("--reps %d: want 1..%d", p.Reps, maxBenchReps)
	}
	if p.CPUReps == 0 {
		p.CPUReps = p.Reps
	}
	if p.CPUReps < 1 || p.CPUReps > maxBenchReps {
		return p, fmt.Errorf("--cpu-reps %d: want 1..%d", p.CPUReps, maxBenchReps)
	}
	if p.CPUMax < 0 || p.CPUMax > groth16.MaxKernelBenchLog {
		return p, fmt.Errorf("--cpu-max-size %d: want 0..%d", p.CPUMax, groth16.MaxKernelBenchLog)
	}
	if p.Device < 0 {
		return p, fmt.Errorf("--device %d: want a device ordinal ≥ 0", p.Device)
	}
	return p, nil
}

// splitList splits a comma-separated flag value, dropping spaces and empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func parseBenchSizes(s string) ([]int, error) {
	items := splitList(s)
	if len(items) == 0 {
		return nil, fmt.Errorf("--sizes: no size given (log2 sizes such as %s)", defaultBenchSizes)
	}
	var out []int
	for _, f := range items {
		k, err := strconv.Atoi(strings.TrimPrefix(f, "2^"))
		if err != nil {
			return nil, fmt.Errorf("--sizes: %q is not a log2 size (such as 20 for 2^20 elements)", f)
		}
		if k < 1 || k > groth16.MaxKernelBenchLog {
			return nil, fmt.Errorf("--sizes: 2^%d is out of range: each log2 size must be in 1..%d", k,
				groth16.MaxKernelBenchLog)
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out, nil
}

func parseBenchKernels(s string) ([]string, error) {
	all := groth16.BenchKernels()
	items := splitList(s)
	if len(items) == 0 {
		return nil, fmt.Errorf("--kernels: no kernel given (want all or some of %s)", strings.Join(all, ", "))
	}
	want := map[string]bool{}
	for _, f := range items {
		f = strings.ToLower(f)
		switch {
		case f == "all":
			for _, k := range all {
				want[k] = true
			}
		case slices.Contains(all, f):
			want[f] = true
		default:
			return nil, fmt.Errorf("--kernels: unknown kernel %q (want all or some of %s)", f, strings.Join(all, ", "))
		}
	}
	var out []string // in table order
	for _, k := range all {
		if want[k] {
			out = append(out, k)
		}
	}
	return out, nil
}

// parseBenchBackends reads --backend: cpu, cuda, both, or auto (cpu, and cuda when the
// binary has it: auto reports that cuda is optional).
func parseBenchBackends(s string) (cpu, cuda, auto bool, err error) {
	items := splitList(s)
	if len(items) == 0 {
		return false, false, false, errors.New("--backend: no backend given (want cpu, cuda, cpu,cuda or auto)")
	}
	explicit := false
	for _, f := range items {
		switch strings.ToLower(f) {
		case "cpu":
			cpu = true
		case "cuda", "gpu":
			if !ffi.Compiled() {
				_, err := ffi.Devices() // ffi.ErrUnavailable (only built without CUDA), saying how to rebuild
				return false, false, false, fmt.Errorf("--backend cuda: %w", err)
			}
			cuda, explicit = true, true
		case "auto":
			cpu = true
			if ffi.Compiled() {
				cuda, auto = true, true
			}
		default:
			return false, false, false, fmt.Errorf("--backend: unknown backend %q (want cpu, cuda, cpu,cuda or auto)", f)
		}
	}
	return cpu, cuda, auto && !explicit, nil
}

// runKernelBench measures every cell of the plan, kernel by kernel and size by size,
// reporting each on progress. A failed cell is recorded and the run goes on; the error
// returned then says how many failed. Cancellation stops the run.
func runKernelBench(ctx context.Context, p kernelBenchPlan, dev *benchDevice, be kernelBackends,
	progress io.Writer) (kernelReport, error) {
	rep := kernelReport{Reps: p.Reps, Seed: p.Seed, CUDA: dev,
		Method: "median of the timed runs; cuda: device time between CUDA events after 2 warm-up runs; " +
			"cpu: wall clock after 1 warm-up run, inputs made before the timing"}
	if p.CPU {
		rep.CPU = &benchCPU{Threads: runtime.GOMAXPROCS(0), Reps: p.CPUReps, MaxLog2: p.CPUMax,
			Arch: runtime.GOOS + "/" + runtime.GOARCH}
	}
	if !p.CUDA {
		rep.CUDA = nil
	}
	failed, cells := 0, 0
	for _, kernel := range p.Kernels {
		for _, k := range p.Sizes {
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			row := kernelRow{Kernel: kernel, LogN: k}
			if p.CUDA {
				cells++
				fmt.Fprintf(progress, "bench: cuda %-10s 2^%-2d ...", kernel, k)
				t0 := time.Now()
				kb, err := be.cuda(kernel, k, p.Reps, p.Device, p.Seed)
				row.CUDA = cudaTiming(kb, err)
				if err != nil {
					failed++
					fmt.Fprintf(progress, " failed: %v\n", err)
				} else {
					fmt.Fprintf(progress, " %s ms (%.1f s with setup)\n", fmtMs(row.CUDA.MedianMs), time.Since(t0).Seconds())
				}
			}
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			if p.CPU {
				if k > p.CPUMax {
					row.CPU = &benchTiming{Skipped: fmt.Sprintf("above --cpu-max-size %d", p.CPUMax)}
				} else {
					cells++
					fmt.Fprintf(progress, "bench: cpu  %-10s 2^%-2d ...", kernel, k)
					t0 := time.Now()
					cb, err := be.cpu(ctx, kernel, k, p.CPUReps, p.Seed)
					if err != nil && ctx.Err() != nil {
						fmt.Fprintln(progress, " interrupted")
						return rep, ctx.Err()
					}
					row.CPU = cpuTiming(cb, err)
					if err != nil {
						failed++
						fmt.Fprintf(progress, " failed: %v\n", err)
					} else {
						fmt.Fprintf(progress, " %s ms (%.1f s with setup)\n", fmtMs(row.CPU.MedianMs), time.Since(t0).Seconds())
					}
				}
			}
			if row.CPU.measured() && row.CUDA.measured() && row.CUDA.MedianMs > 0 {
				row.Ratio = row.CPU.MedianMs / row.CUDA.MedianMs
			}
			row.Notes = kernelNotes(&row)
			rep.Rows = append(rep.Rows, row)
		}
	}
	if failed > 0 {
		return rep, &ExitError{Code: 1, Err: fmt.Errorf("%d of %d measurements failed (see the notes)", failed, cells)}
	}
	return rep, nil
}

func cudaTiming(kb ffi.KernelBench, err error) *benchTiming {
	if err != nil {
		return &benchTiming{Error: err.Error()}
	}
	t := &benchTiming{MedianMs: kb.MedianMs(), WindowBits: kb.WindowBits, Points: kb.Points}
	for _, ms := range kb.Ms {
		t.RunsMs = append(t.RunsMs, float64(ms))
	}
	if kb.Bytes > 0 && t.MedianMs > 0 {
		t.GBps = float64(kb.Bytes) / (t.MedianMs / 1e3) / 1e9
	}
	if f := kb.Floor; f != nil && f.Ms() > 0 && t.MedianMs > 0 {
		t.Floor = &benchFloor{Field: f.Field, PerElement: f.PerElement, MulGps: f.MulRate / 1e9, SqrGps: f.SqrRate / 1e9,
			Ms: f.Ms(), OfMedianPct: 100 * f.Ms() / t.MedianMs, Model: f.Model}
	}
	return t
}

// cpuBatchAddBytes is what the CPU batch addition reads per point summed: one G1Affine.
const cpuBatchAddBytes = 96

func cpuTiming(cb groth16.CPUBench, err error) *benchTiming {
	if err != nil {
		return &benchTiming{Error: err.Error()}
	}
	t := &benchTiming{MedianMs: durationMs(cb.Median()), Points: uint64(cb.Points)}
	for _, d := range cb.Runs {
		t.RunsMs = append(t.RunsMs, durationMs(d))
	}
	if cb.Points > 0 && t.MedianMs > 0 {
		t.GBps = float64(cb.Points*cpuBatchAddBytes) / (t.MedianMs / 1e3) / 1e9
	}
	return t
}

func durationMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// kernelNotes says what the row measured, and any failure.
func kernelNotes(r *kernelRow) string {
	var notes []string
	switch r.Kernel {
	case groth16.KernelG1MSM, groth16.KernelG2MSM:
		n := "uniform scalars"
		if r.CUDA.measured() && r.CUDA.WindowBits > 0 {
			n += fmt.Sprintf(", cuda window %d bits", r.CUDA.WindowBits)
		}
		notes = append(notes, n)
	case groth16.KernelNTT:
		notes = append(notes, "forward, natural in, bit-reversed out")
	case groth16.KernelBatchAdd:
		n := "G1, 47% of bits set"
		for _, b := range []struct {
			name string
			t    *benchTiming
		}{{"cuda", r.CUDA}, {"cpu", r.CPU}} {
			if b.t.measured() && b.t.GBps > 0 {
				n += fmt.Sprintf(", %s %s GB/s", b.name, fmtGBps(b.t.GBps))
			}
		}
		notes = append(notes, n)
	case groth16.KernelH:
		notes = append(notes, "3 iNTT + 2 coset NTT + pointwise + coset iNTT")
	}
	if r.CUDA.measured() && r.CUDA.Floor != nil {
		notes = append(notes, floorNote(r.CUDA.Floor))
	}
	if r.CUDA != nil && r.CUDA.Error != "" {
		notes = append(notes, "cuda failed: "+r.CUDA.Error)
	}
	if r.CPU != nil && r.CPU.Error != "" {
		notes = append(notes, "cpu failed: "+r.CPU.Error)
	}
	return strings.Join(notes, "; ")
}

// floorNote says how far a cell is from its multiply floor: the floor's time as a share of
// the median (100 % would be a kernel doing nothing but its products at the probe's rate),
// what it counts and at what rates.
func floorNote(f *benchFloor) string {
	rate := fmt.Sprintf("%.1f G %s products/s", f.MulGps, f.Field)
	if f.SqrGps > 0 {
		rate += fmt.Sprintf(", %.1f G squarings/s", f.SqrGps)
	}
	return fmt.Sprintf("multiply floor %s ms, %.0f%% of the median (%s at %s)", fmtMs(f.Ms), f.OfMedianPct, f.Model, rate)
}

// fmtMs prints a time in ms with about four significant digits.
func fmtMs(ms float64) string {
	switch {
	case ms >= 1000:
		return strconv.FormatFloat(ms, 'f', 0, 64)
	case ms >= 100:
		return strconv.FormatFloat(ms, 'f', 1, 64)
	case ms >= 10:
		return strconv.FormatFloat(ms, 'f', 2, 64)
	case ms >= 0.001:
		return strconv.FormatFloat(ms, 'f', 3, 64)
	}
	return strconv.FormatFloat(ms, 'g', 2, 64)
}

func fmtRatio(r float64) string {
	switch {
	case r >= 100:
		return strconv.FormatFloat(r, 'f', 0, 64) + "×"
	case r >= 10:
		return strconv.FormatFloat(r, 'f', 1, 64) + "×"
	}
	return strconv.FormatFloat(r, 'f', 2, 64) + "×"
}

func fmtGBps(g float64) string {
	if g >= 10 {
		return strconv.FormatFloat(g, 'f', 0, 64)
	}
	return strconv.FormatFloat(g, 'g', 3, 64)
}

// cell is a table cell for t: the median, — when skipped, "failed" on an error.
func (t *benchTiming) cell() string {
	switch {
	case t == nil || t.Skipped != "":
		return "—"
	case t.Error != "":
		return "failed"
	}
	return fmtMs(t.MedianMs)
}

// printKernelTable prints the report as one aligned table with a short header.
func printKernelTable(w io.Writer, rep *kernelReport, p kernelBenchPlan) {
	var head []string
	if rep.CPU != nil {
		head = append(head, fmt.Sprintf("cpu: %d threads (%s), wall clock, median of %d after 1 warm-up",
			rep.CPU.Threads, rep.CPU.Arch, rep.CPU.Reps))
	}
	if rep.CUDA != nil {
		name := rep.CUDA.Name
		if name == "" {
			name = "CUDA device"
		}
		head = append(head, fmt.Sprintf("cuda: device %d (%s), device events, median of %d after 2 warm-ups",
			rep.CUDA.Ordinal, name, rep.Reps))
	}
	for _, h := range head {
		fmt.Fprintln(w, h)
	}
	hdr := []string{"kernel", "size"}
	right := []bool{false, true}
	if rep.CPU != nil {
		hdr, right = append(hdr, "cpu ms"), append(right, true)
	}
	if rep.CUDA != nil {
		hdr, right = append(hdr, "cuda ms"), append(right, true)
	}
	both := rep.CPU != nil && rep.CUDA != nil
	if both {
		hdr, right = append(hdr, "cpu/cuda"), append(right, true)
	}
	hdr, right = append(hdr, "notes"), append(right, false)
	rows := [][]string{hdr}
	skipped := false
	for _, r := range rep.Rows {
		line := []string{r.Kernel, fmt.Sprintf("2^%d", r.LogN)}
		if rep.CPU != nil {
			line = append(line, r.CPU.cell())
			skipped = skipped || (r.CPU != nil && r.CPU.Skipped != "")
		}
		if rep.CUDA != nil {
			line = append(line, r.CUDA.cell())
		}
		if both {
			ratio := "—"
			if r.Ratio > 0 {
				ratio = fmtRatio(r.Ratio)
			}
			line = append(line, ratio)
		}
		rows = append(rows, append(line, r.Notes))
	}
	writeAligned(w, rows, right)
	if skipped {
		fmt.Fprintf(w, "—: not timed on the CPU above 2^%d (--cpu-max-size)\n", p.CPUMax)
	}
}

// writeAligned prints rows as columns two spaces apart, right-aligned where right says
// so; the last column is not padded.
func writeAligned(w io.Writer, rows [][]string, right []bool) {
	width := make([]int, len(right))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		b.Reset()
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			switch {
			case right[i]:
				b.WriteString(pad + c)
			case i == len(r)-1:
				b.WriteString(c)
			default:
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

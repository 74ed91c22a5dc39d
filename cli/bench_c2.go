package cli

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/engine/benchreport"
	"github.com/filc2/filc2/ffi"
	"github.com/filc2/filc2/internal/atomicfile"
	"github.com/filc2/filc2/internal/fault"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/paramcache"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/snap"
)

// filc2 bench c2: whole SealCommit2 proofs through the engine, as a server runs them.

const syntheticNote = "synthetic: proofs do not verify"

func benchC2Command() *ucli.Command {
	return &ucli.Command{
		Name:  "c2",
		Usage: "run SealCommit2 (or SnapDeals update) proofs through the proving engine: throughput, latency, per-stage times, GPU utilisation",
		UsageText: "filc2 bench c2 (--registered-proof NAME | --update-proof NAME) [--jobs N] [--concurrency C] [--gpu-workers W] [--synthesis-workers S]\n" +
			"               [--backend auto|cpu|cuda] [--gpus LIST] [--params DIR] [--c1 FILE | --sparse | --synthetic] [--setup-key]\n" +
			"               [--seed N]\n" +
			"               [--memory-budget SIZE] [--timeline FILE.svg] [--timeline-log FILE.jsonl] [--json]",
		Description: "Proves --jobs sectors through the engine that `filc2 serve` runs (synthesis workers feeding --gpu-workers\n" +
			"workers per GPU under the GPU interlock, the memory budget as backpressure), keeping --concurrency jobs\n" +
			"in flight, and prints one report (JSON with --json; progress goes to stderr):\n" +
			"  load         the circuit and the keys on every GPU, loaded before the first job (not counted below)\n" +
			"  throughput   steady state: from the first proof's finish to the last's, the partitions completed in\n" +
			"               that window per unit of time, in proofs (partitions per proof ÷ rate), so the first proof's\n" +
			"               warm-up (pipeline fill, first allocations) is excluded and jobs that overlap the first are\n" +
			"               counted only for the work done inside the window; overall, first submission to last finish\n" +
			"               over all jobs; and the GPU bound, partitions per proof × the median kernel section ÷ GPUs\n" +
			"  latency      per job, submission to proof: median and max\n" +
			"  stages       per partition, median and max: queue, synthesis, GPU queue, prover wait, gpu_pre\n" +
			"               (prepare: SpMV and upload), lock_wait, gpu_locked (the kernels), gpu_post (finish), verify\n" +
			"  GPU          per GPU, the time its lock was held (the interlock's own accounting) over the wall time,\n" +
			"               in the steady state and overall\n" +
			"Every partition is verified by the engine before its job succeeds; a job that fails fails the bench.\n" +
			"\n" +
			"C1 outputs: --c1 FILE (every job proves it, under its own job id), else a sector sealed here (2KiB, 8MiB\n" +
			"and 512MiB; 512MiB takes minutes), reused the same way. Parameters: the .params and .vk in --params\n" +
			"(`filc2 setup` makes test ones, `filc2 params fetch` downloads the official ones).\n" +
			"\n" +
			"--synthetic needs neither (for 32GiB, whose C1 and 45 GB of parameters are rarely at hand): every job\n" +
			"gets a structurally valid random C1 of the proof type (a distinct sector per job, from --seed; with\n" +
			"--c1, that file), the real circuit is recorded once and cached in --params (at 32GiB: ~30 s on 16 cores,\n" +
			"the challenges recorded in parallel, about 20 GB of memory and a 7.4 GB file; later runs read the file), and\n" +
			"the key is a synthetic one with the circuit's exact lengths, made on the GPU with --backend cuda (on the\n" +
			"host with --backend cpu, which only works up to 512MiB). Every stage runs at full size, but the proofs\n" +
			"do not verify; the report says so and the command still exits 0.\n" +
			"\n" +
			"--sparse gives every job its own sparse TEST FIXTURE sector (porep.SparseC1, as `filc2 seal --sparse` writes:\n" +
			"any size, 32GiB and 64GiB included, built in about a second; sector ids --seed, --seed+1, …): real C1\n" +
			"outputs that pass every vanilla check and satisfy the circuit. --setup-key makes the key by a real Groth16\n" +
			"setup of the recorded circuit when each GPU's prover loads (on the GPU with --backend cuda: minutes at\n" +
			"32GiB; on the host with --backend cpu, for small sizes), from toxic waste seeded by --seed, and keeps it\n" +
			"resident: no .params file is read or written. With both, every partition of every proof is verified by\n" +
			"the engine as in production, at sizes whose official parameters are not at hand; the key is a test key\n" +
			"(its toxic waste is public), so the proofs verify under it alone.\n" +
			"\n" +
			"--update-proof TYPE proves SnapDeals updates (ProveReplicaUpdate2) instead: every job gets its own periodic\n" +
			"TEST FIXTURE update (snap.PeriodicRequest, seeds --seed, --seed+1, …: a sector key and new data that each\n" +
			"repeat one block, encoded as rust-fil-proofs encodes, any size, 32GiB included, built in seconds) whose\n" +
			"vanilla proofs pass every check; with --setup-key (or the update's parameters in --params) every partition\n" +
			"is verified.\n" +
			"\n" +
			"--timeline FILE.svg draws the run as a Gantt chart: a row per synthesis and GPU worker with a bar per\n" +
			"partition stage, and per GPU a track of when its kernels ran. --timeline-log writes the engine's\n" +
			"TIMELINE events as JSON lines.\n" +
			"\n" +
			"Examples:\n" +
			"  filc2 bench c2 -p StackedDrg2KiBV1_1 --backend cpu --jobs 2 --params DIR\n" +
			"  filc2 bench c2 -p StackedDrg32GiBV1_1 --sparse --setup-key --backend cuda --jobs 4 --params /data/pce --timeline t.svg\n" +
			"  filc2 bench c2 --update-proof StackedDrg32GiBV1 --setup-key --backend cuda --jobs 4 --params /data/pce\n" +
			"  filc2 bench c2 -p StackedDrg32GiBV1_1 --synthetic --backend cuda --jobs 6 --concurrency 3 --params /data/pce\n" +
			"  filc2 bench c2 --c1 c1-32g.json --backend cuda --jobs 10 --concurrency 3 --synthesis-workers 10 --json",
		Flags: []ucli.Flag{
			registeredProofFlag(false),
			&ucli.StringFlag{Name: "update-proof", Usage: "prove SnapDeals updates of this `TYPE` (StackedDrg32GiBV1 … or 0-4) instead of PoRep: a periodic TEST FIXTURE update per job"},
			&ucli.IntFlag{Name: "jobs", Usage: "proofs to run (the first is the warm-up)", Value: 4},
			&ucli.IntFlag{Name: "concurrency", Usage: "jobs in flight at once", Value: 2},
			&ucli.IntFlag{Name: "gpu-workers", Usage: "workers per GPU sharing its lock (the interlock)", Value: 2},
			&ucli.IntFlag{Name: "synthesis-workers", Usage: "partitions synthesised at once (0: one per core)", Value: 0},
			&ucli.IntFlag{Name: "synthesis-cpus", Usage: "threads synthesis and input checks take at once (synthesis.cpus; 0: one per core less one per GPU worker, at least half the cores; the rest drive the GPUs)", Value: 0},
			&ucli.BoolFlag{Name: "ramp", Usage: "start partitions no faster than the GPU takes them (synthesis.ramp; --ramp=false: every worker at once)", Value: true},
			&ucli.StringFlag{Name: "backend", Usage: "auto, cpu or cuda", Value: "auto"},
			&ucli.StringFlag{Name: "gpus", Usage: "comma-separated device ordinals (default: every CUDA device; 0 for the cpu backend)"},
			&ucli.StringFlag{Name: "params", Usage: "parameter directory (.params, .vk, recorded circuits)", Value: paramcache.DefaultDir,
				EnvVars: []string{paramcache.EnvDir}},
			&ucli.StringFlag{Name: "c1", Usage: "C1 output file every job proves (default: seal a sector here, or synthetic ones)"},
			&ucli.BoolFlag{Name: "synthetic", Usage: "random C1 outputs and a synthetic key: every stage at full size, proofs that do not verify"},
			&ucli.BoolFlag{Name: "sparse", Usage: "a sparse TEST FIXTURE sector per job (any size; real, verifying C1 outputs)"},
			&ucli.BoolFlag{Name: "setup-key", Usage: "make the key by a setup at load (on the GPU for cuda), resident; no .params needed"},
			&ucli.Uint64Flag{Name: "seed", Usage: "seed of the synthetic or sparse C1 outputs and of the synthetic or setup key", Value: 1},
			&ucli.StringFlag{Name: "memory-budget", Usage: "host memory budget, such as 100GiB (default: the machine's memory less 4GiB)"},
			&ucli.StringFlag{Name: "timeline", Usage: "write a Gantt chart of the run to `FILE.svg`"},
			&ucli.StringFlag{Name: "timeline-log", Usage: "write the engine's TIMELINE events (JSON lines) to `FILE`"},
			&ucli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&ucli.StringFlag{Name: "post-proof", Usage: "also prove this PoSt type on the same engine (with --setup-key or its params): alone first, then every --post-every under the PoRep load"},
			&ucli.DurationFlag{Name: "post-every", Usage: "the gap between PoSt submissions under load", Value: 3 * time.Second},
			&ucli.IntFlag{Name: "post-alone", Usage: "PoSt proofs before the PoRep jobs start", Value: 3},
			&ucli.IntFlag{Name: "post-sectors", Usage: "sectors of each Window partition (default: a full partition)"},
			injectFaultsFlag(),
		},
		OnUsageError: onUsageError,
		Action:       benchC2Action,
	}
}

// benchC2Plan is what the flags ask for.
type benchC2Plan struct {
	Proof       abi.SealProof
	Update      *abi.UpdateProof // --update-proof: SnapDeals jobs instead of PoRep
	Jobs        int
	Concurrency int
	GPUWorkers  int
	SynthWorker int
	SynthCPUs   int // --synthesis-cpus (synthesis.cpus; 0: auto)
	Ramp        bool
	Backend     string
	GPUs        []int // nil: the backend's default
	Params      string
	C1File      string
	Synthetic   bool
	Sparse      bool
	SetupKey    bool
	Seed        uint64
	Budget      engine.ByteSize
	SVG         string
	Log         string
	PoSt        *benchPoStPlan  // --post-proof
	Faults      *fault.Injector // --inject-faults
}

func parseBenchC2Flags(c *ucli.Context) (benchC2Plan, error) {
	pl := benchC2Plan{Jobs: c.Int("jobs"), Concurrency: c.Int("concurrency"), GPUWorkers: c.Int("gpu-workers"),
		SynthWorker: c.Int("synthesis-workers"), SynthCPUs: c.Int("synthesis-cpus"), Ramp: c.Bool("ramp"), Backend: c.String("backend"), Params: c.String("params"),
		C1File: c.String("c1"), Synthetic: c.Bool("synthetic"), Sparse: c.Bool("sparse"), SetupKey: c.Bool("setup-key"),
		Seed: c.Uint64("seed"), SVG: c.String("timeline"), Log: c.String("timeline-log")}
	switch {
	case pl.Jobs < 1:
		return pl, fmt.Errorf("--jobs %d: want at least 1 (2 or more for a steady-state throughput)", pl.Jobs)
	case pl.Concurrency < 1:
		return pl, fmt.Errorf("--concurrency %d: want at least 1", pl.Concurrency)
	case pl.GPUWorkers < 1:
		return pl, fmt.Errorf("--gpu-workers %d: want at least 1 (2 overlaps one worker's CPU stages with the other's kernels)", pl.GPUWorkers)
	case pl.SynthWorker < 0:
		return pl, fmt.Errorf("--synthesis-workers %d: want 0 (one per core) or more", pl.SynthWorker)
	case pl.SynthCPUs < 0:
		return pl, fmt.Errorf("--synthesis-cpus %d: want 0 (auto: one per core less one per GPU worker, at least half the cores) or more", pl.SynthCPUs)
	case pl.Backend != "auto" && pl.Backend != "cpu" && pl.Backend != "cuda":
		return pl, fmt.Errorf("--backend %q: want auto, cpu or cuda", pl.Backend)
	case pl.Params == "":
		return pl, errors.New("--params is empty: give the parameter directory")
	case c.IsSet("update-proof") && (c.IsSet("registered-proof") || pl.C1File != "" || pl.Synthetic || pl.Sparse):
		return pl, errors.New("--update-proof proves updates on periodic fixtures: it does not go with --registered-proof, --c1, --synthetic or --sparse")
	case !c.IsSet("registered-proof") && pl.C1File == "" && !c.IsSet("update-proof"):
		return pl, errors.New("--registered-proof is required (or --c1 FILE, whose proof type is used, or --update-proof TYPE)")
	case pl.SVG != "" && pl.SVG == pl.Log:
		return pl, errors.New("--timeline and --timeline-log name the same file")
	case pl.Synthetic && (pl.Sparse || pl.SetupKey):
		return pl, errors.New("--synthetic makes its own C1 outputs and key: it does not go with --sparse or --setup-key")
	case pl.Sparse && pl.C1File != "":
		return pl, errors.New("--sparse and --c1 both name the C1 outputs: give one")
	}
	pl.Concurrency = min(pl.Concurrency, pl.Jobs)
	var err error
	if pl.Faults, err = parseFaults("--inject-faults", c.String("inject-faults")); err != nil {
		return pl, err
	}
	if name := c.String("post-proof"); name != "" {
		pp, err := abi.ParsePoStName(name)
		if err != nil {
			return pl, fmt.Errorf("--post-proof: %w", err)
		}
		ps := &benchPoStPlan{Proof: pp, Sectors: pp.SectorCount, Alone: c.Int("post-alone"), Every: c.Duration("post-every")}
		if pp.Kind == abi.Winning {
			ps.Sectors = 1
		}
		if c.IsSet("post-sectors") {
			ps.Sectors = c.Int("post-sectors")
		}
		switch {
		case pp.Kind == abi.Winning && ps.Sectors != 1:
			return pl, fmt.Errorf("--post-sectors %d: a %s proves one sector (its 66 challenges are blocks of the circuit)", ps.Sectors, pp.Name)
		case ps.Sectors < 1 || ps.Sectors > pp.SectorCount:
			return pl, fmt.Errorf("--post-sectors %d: a %s partition holds 1 to %d", ps.Sectors, pp.Name, pp.SectorCount)
		case ps.Alone < 0 || ps.Every <= 0:
			return pl, errors.New("--post-alone must be ≥ 0 and --post-every > 0")
		case pl.Synthetic:
			return pl, errors.New("--post-proof needs real keys: --setup-key or the parameters, not --synthetic")
		}
		pl.PoSt = ps
	}
	if name := c.String("update-proof"); name != "" {
		up, err := abi.ParseUpdateName(name)
		if err != nil {
			return pl, fmt.Errorf("--update-proof: %w", err)
		}
		pl.Update = &up
	}
	if c.IsSet("registered-proof") {
		p, err := parseProof(c)
		if err != nil {
			return pl, err
		}
		pl.Proof = p
	}
	if s := c.String("gpus"); s != "" {
		for _, f := range strings.Split(s, ",") {
			d, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || d < 0 || slices.Contains(pl.GPUs, d) {
				return pl, fmt.Errorf("--gpus %q: want distinct device ordinals ≥ 0, such as 0,1", s)
			}
			pl.GPUs = append(pl.GPUs, d)
		}
	}
	if s := c.String("memory-budget"); s != "" {
		if err := pl.Budget.UnmarshalText([]byte(s)); err != nil {
			return pl, fmt.Errorf("--memory-budget: %w", err)
		}
	}
	return pl, nil
}

func benchC2Action(c *ucli.Context) error {
	if c.Args().Present() {
		return usageErrorf("unexpected arguments %q (see %s --help)", c.Args().Slice(), c.Command.HelpName)
	}
	pl, err := parseBenchC2Flags(c)
	if err != nil {
		return usageError(err)
	}
	rep, err := runBenchC2(c.Context, pl, c.App.ErrWriter)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printBenchC2(c.App.Writer, rep)
	return nil
}

// runBenchC2 runs the plan and reports on it; progress goes to log.
func runBenchC2(ctx context.Context, pl benchC2Plan, log io.Writer) (*benchreport.Report, error) {
	say := func(format string, args ...any) { fmt.Fprintf(log, "bench: "+format+"\n", args...) }
	var fileC1 *c1.Commit1Out
	if pl.C1File != "" {
		out, _, err := readC1(pl.C1File)
		if err != nil {
			return nil, usageError(err)
		}
		p, err := out.ProofType()
		if err != nil {
			return nil, usageError(fmt.Errorf("%s: %w", pl.C1File, err))
		}
		if pl.Proof.Name != "" && pl.Proof.Name != p.Name {
			return nil, usageErrorf("--registered-proof %s, but %s is a %s C1 output", pl.Proof.Name, pl.C1File, p.Name)
		}
		pl.Proof, fileC1 = p, out
	}
	p := pl.Proof
	t := benchTarget{name: p.Name, partitions: p.Partitions, nodes: p.Nodes, spec: (&engine.PoRep{Proof: p}).Circuit()}
	if pl.Update != nil {
		u := *pl.Update
		t = benchTarget{name: u.Name, partitions: u.Partitions, nodes: u.Nodes, spec: (&engine.Snap{Request: &snap.Request{Proof: u}}).Circuit()}
	}
	if !pl.Synthetic && !pl.SetupKey {
		f, flag := c2.FilesIn(pl.Params, p), "-p "+p.Name
		if pl.Update != nil {
			f, flag = snap.FilesIn(pl.Params, *pl.Update), "--update-proof "+t.name
		}
		for _, path := range []string{f.Params, f.VK} {
			if _, err := os.Stat(path); err != nil {
				return nil, fmt.Errorf("bench c2: no %s parameters in %s (%w): run `filc2 setup %s --out %s` for test parameters "+
					"or `filc2 params fetch %s --dir %s` for the official ones, or measure with --setup-key (or --synthetic, for PoRep)",
					t.name, pl.Params, err, flag, pl.Params, flag, pl.Params)
			}
		}
	}
	gb, err := gpuBackend(pl.Backend, 0)
	if err != nil {
		return nil, usageError(err)
	}
	if _, host := gb.(engine.WholeProof); host && (pl.Synthetic || pl.SetupKey) && t.nodes > porep.MaxSealNodes {
		return nil, usageErrorf("--synthetic and --setup-key on the %s backend make the key on the host, which is feasible up to 512MiB; "+
			"%s needs --backend cuda (the key is then made on the GPU)", gb.Name(), t.name)
	}
	gpus := pl.GPUs
	if gpus == nil {
		gpus = []int{0}
		if gb.Name() == "cuda" {
			devs, err := ffi.Devices()
			if err != nil {
				return nil, fmt.Errorf("bench c2: listing CUDA devices: %w", err)
			}
			gpus = gpus[:0]
			for _, d := range devs {
				gpus = append(gpus, d.Ordinal)
			}
		}
	}

	// The C1 output of each job.
	c1For := func(i int) (*c1.Commit1Out, error) { return fileC1, nil }
	source := pl.C1File
	switch {
	case pl.Update != nil:
		source = fmt.Sprintf("periodic test-fixture updates (snap.PeriodicRequest, seeds %d…%d)", pl.Seed, pl.Seed+uint64(pl.Jobs)-1)
		t.input = func(i int) (engine.Input, error) {
			req, _, err := snap.PeriodicRequest(*pl.Update, pl.Seed+uint64(i))
			if err != nil {
				return nil, fmt.Errorf("bench c2: update fixture %d: %w", i+1, err)
			}
			return &engine.Snap{Request: req}, nil
		}
	case fileC1 != nil:
	case pl.Synthetic:
		source = fmt.Sprintf("synthetic (porep.SyntheticC1, seeds %d…%d)", pl.Seed, pl.Seed+uint64(pl.Jobs)-1)
		c1For = func(i int) (*c1.Commit1Out, error) { return porep.SyntheticC1(p, pl.Seed+uint64(i)) }
	case pl.Sparse:
		source = fmt.Sprintf("sparse test-fixture sectors (porep.SparseC1, sectors %d…%d of miner 1000)", pl.Seed, pl.Seed+uint64(pl.Jobs)-1)
		c1For = func(i int) (*c1.Commit1Out, error) { return benchSparse(ctx, p, pl.Seed+uint64(i)) }
	default:
		if p.Nodes > porep.MaxSealNodes {
			return nil, usageErrorf("cannot seal a %s sector here (this sealer stops at 512MiB): pass --c1 FILE or --synthetic", p.Name)
		}
		say("sealing a %s sector", p.Name)
		t0 := time.Now()
		sealed, err := benchSeal(ctx, p)
		if err != nil {
			return nil, err
		}
		say("sealed in %v", time.Since(t0).Round(time.Millisecond))
		source = "sealed here (one sector, proved by every job)"
		c1For = func(int) (*c1.Commit1Out, error) { return sealed, nil }
	}

	if t.input == nil {
		t.input = func(i int) (engine.Input, error) {
			out, err := c1For(i)
			if err != nil {
				return nil, err
			}
			return &engine.PoRep{Proof: p, C1: out}, nil
		}
	}

	// The engine.
	cfg := engine.DefaultConfig()
	cfg.GPU.Devices = gpus
	cfg.GPU.WorkersPerGPU = pl.GPUWorkers
	cfg.Synthesis.Workers = pl.SynthWorker
	cfg.Synthesis.CPUs = pl.SynthCPUs
	cfg.Synthesis.Ramp = pl.Ramp
	cfg.Params.Dir = pl.Params
	cfg.Memory.Budget = pl.Budget
	cfg.Queue.MaxQueued = max(cfg.Queue.MaxQueued, pl.Jobs)
	if pl.Faults != nil {
		cfg.Recovery.ProbeInterval = time.Second // a GPU quarantined by an injected fault comes back within the run
	}
	var be engine.Backend = &engine.Proofs{ParamsDir: pl.Params, GPU: gb}
	prog := newProgress()
	switch {
	case pl.Synthetic:
		be = &engine.Synthetic{GPU: gb, PCEDir: pl.Params, Seed: pl.Seed, Progress: prog.Update}
	case pl.SetupKey:
		be = &engine.SetupKey{GPU: gb, PCEDir: pl.Params, Seed: pl.Seed, Progress: prog.Update}
	}
	opts := []engine.Option{
		engine.WithLogger(slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelWarn}))),
		engine.WithTimelineMemory(max(engine.DefaultTimelineMemory, pl.Jobs*t.partitions*32+1024)),
		engine.WithFaults(pl.Faults),
	}
	if pl.Log != "" {
		lf, err := os.Create(pl.Log)
		if err != nil {
			return nil, fmt.Errorf("bench c2: --timeline-log: %w", err)
		}
		defer lf.Close()
		opts = append(opts, engine.WithTimeline(lf))
	}
	e, err := engine.New(cfg, be, opts...)
	if err != nil {
		return nil, fmt.Errorf("bench c2: %w", err)
	}
	defer e.Close()
	cfg = e.Config()

	key := "the .params and .vk in " + pl.Params
	switch {
	case pl.Synthetic:
		key = fmt.Sprintf("synthetic (random points of the circuit's lengths, seed %d)", pl.Seed)
	case pl.SetupKey:
		key = fmt.Sprintf("a Groth16 setup of the recorded circuit at load, on each GPU (test key: toxic waste seeded by %d)", pl.Seed)
	}
	rep := &benchreport.Report{ProofType: t.name, Backend: be.Name(), Synthetic: pl.Synthetic, C1: source, Key: key, Params: pl.Params,
		Jobs: pl.Jobs, Concurrency: pl.Concurrency, GPUs: cfg.GPU.Devices, GPUWorkers: cfg.GPU.WorkersPerGPU,
		SynthesisWorkers: cfg.Synthesis.Workers, SynthesisCPUs: cfg.Synthesis.CPUs, Partitions: t.partitions}
	say("%s on %s: %s, %d in flight, GPUs %v × %d workers, %d synthesis workers, memory budget %.1f GiB",
		t.name, be.Name(), plural(pl.Jobs, "job"), pl.Concurrency, cfg.GPU.Devices, cfg.GPU.WorkersPerGPU, cfg.Synthesis.Workers,
		float64(cfg.Memory.Budget)/float64(engine.GiB))
	say("loading the %s circuit and its keys on %d GPU(s)", t.name, len(cfg.GPU.Devices))
	mem := startMemPeaks(cfg.GPU.Devices, gb.Name() == "cuda", 200*time.Millisecond)
	t0 := time.Now()
	err = e.PreloadCircuit(ctx, t.spec)
	prog.Done()
	if err != nil {
		mem.finish(nil)
		return nil, fmt.Errorf("bench c2: loading %s: %w", t.name, err)
	}
	rep.Load = time.Since(t0)
	for _, cs := range e.Status().Circuits {
		if cs.Kind == t.spec.Kind && cs.SectorSize == t.spec.SectorSize {
			rep.CircuitLoad = cs.LoadTime
			for _, pr := range cs.Provers {
				rep.ProverLoads = append(rep.ProverLoads, pr.LoadTime)
			}
		}
	}
	say("loaded in %v", rep.Load.Round(time.Millisecond))

	var postIn *engine.PoSt
	var postDone func() error
	stopPoSt := make(chan struct{})
	if pl.PoSt != nil {
		say("preparing %s over %s and loading its circuit", pl.PoSt.Proof.Name, plural(pl.PoSt.Sectors, "sparse sector"))
		if postIn, err = pl.PoSt.input(); err != nil {
			return nil, fmt.Errorf("bench c2: %s input: %w", pl.PoSt.Proof.Name, err)
		}
		if err := e.PreloadPoSt(ctx, pl.PoSt.Proof); err != nil {
			return nil, fmt.Errorf("bench c2: loading %s: %w", pl.PoSt.Proof.Name, err)
		}
		rep.PoSt = &benchreport.PoSt{ProofType: pl.PoSt.Proof.Name, Sectors: pl.PoSt.Sectors, Every: pl.PoSt.Every}
		if err := runPoStAlone(ctx, e, *pl.PoSt, postIn, rep.PoSt, say); err != nil {
			return nil, err
		}
		postDone = postUnderLoad(ctx, e, *pl.PoSt, postIn, rep.PoSt, stopPoSt, say)
	}
	results, first, last, err := runBenchJobs(ctx, e, pl, t.input, say)
	close(stopPoSt)
	if postDone != nil {
		if perr := postDone(); perr != nil && err == nil {
			err = perr
		}
	}
	rep.HostPeak, rep.DevicePeaks = mem.finish(cfg.GPU.Devices)
	if err != nil {
		return nil, err
	}
	benchreport.Summarize(rep, results, first, last)
	if pl.Faults != nil {
		st := e.Status()
		rep.Faults, rep.Retried = pl.Faults.Report(), st.Totals.PartitionsRetried
		for _, g := range st.GPUs {
			rep.Quarantines += g.Health.Quarantines
		}
	}
	if pl.Synthetic {
		rep.Note = fmt.Sprintf("%s: random C1 outputs and a synthetic key with the circuit's exact lengths; %d of %d partitions unverified",
			syntheticNote, rep.Unverified, pl.Jobs*t.partitions)
	}
	if pl.SVG != "" {
		opts := engine.TimelineSVGOptions{From: first.Submitted, To: last.At,
			Title: fmt.Sprintf("filc2 bench c2: %s on %s, %d proofs, %d in flight", t.name, be.Name(), pl.Jobs, pl.Concurrency),
			GPUs:  cfg.GPU.Devices}
		for _, ws := range first.Status.Synthesis {
			opts.Workers = append(opts.Workers, engine.TimelineWorker{Name: ws.Name, GPU: ws.GPU})
		}
		for _, g := range first.Status.GPUs {
			for _, ws := range g.Workers {
				opts.Workers = append(opts.Workers, engine.TimelineWorker{Name: ws.Name, GPU: ws.GPU})
			}
		}
		if pl.Synthetic {
			opts.Title += " (" + syntheticNote + ")"
		}
		evs := e.TimelineEvents(0)
		if err := atomicfile.Write(pl.SVG, 0o644, func(w io.Writer) error { return engine.WriteTimelineSVG(w, evs, opts) }); err != nil {
			return nil, fmt.Errorf("bench c2: --timeline: %w", err)
		}
		rep.Timeline = pl.SVG
		say("timeline written to %s", pl.SVG)
	}
	return rep, nil
}

// benchSparse builds sparse sector n of miner 1000 and returns its C1 output.
func benchSparse(ctx context.Context, p abi.SealProof, n uint64) (*c1.Commit1Out, error) {
	in := porep.SparseInput{Proof: p, ProverID: porep.ProverID(1000), SectorID: n}
	in.Ticket[0], in.Seed[0] = 0xbe, 0xc2
	binary.LittleEndian.PutUint64(in.Ticket[8:], n)
	out, _, err := porep.SparseC1(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("bench c2: sparse sector %d: %w", n, err)
	}
	return out, nil
}

// benchSeal seals one small sector and returns its C1 output.
func benchSeal(ctx context.Context, p abi.SealProof) (*c1.Commit1Out, error) {
	var ticket, seed [32]byte
	ticket[0], seed[0] = 0xbe, 0xc2
	sec, err := porep.Seal(ctx, porep.SealInput{Proof: p, ProverID: porep.ProverID(1000), SectorID: 1, Ticket: ticket}, nil)
	if err != nil {
		return nil, fmt.Errorf("bench c2: sealing a %s sector: %w", p.Name, err)
	}
	out, err := sec.Commit1(seed)
	if err != nil {
		return nil, fmt.Errorf("bench c2: C1 of the sealed sector: %w", err)
	}
	return out, nil
}

// runBenchJobs proves pl.Jobs sectors, pl.Concurrency at a time, and
// returns the jobs in the order they finished, the status at the first
// proof and at the last. The first failure cancels the rest and is returned.
// The inputs are made in order on a goroutine of their own, up to
// pl.Concurrency ahead, so that a job is submitted as soon as a slot frees (a
// sealing host hands over C1 outputs it already has): the time a sparse
// sector takes to build is not GPU idle time at every job boundary.
func runBenchJobs(ctx context.Context, e *engine.Engine, pl benchC2Plan, inputFor func(int) (engine.Input, error),
	say func(string, ...any)) ([]benchreport.Job, benchreport.Mark, benchreport.Mark, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		mu      sync.Mutex
		done    []benchreport.Job
		first   benchreport.Mark
		start   = time.Now()
		wg      sync.WaitGroup
		failure error
	)
	fail := func(err error) {
		mu.Lock()
		if failure == nil {
			failure = err
		}
		mu.Unlock()
		cancel(err)
	}
	inputs, maker := makeInputs(ctx, pl.Jobs, pl.Concurrency, inputFor)
	defer func() { cancel(nil); <-maker }()
	for range pl.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range inputs {
				if ctx.Err() != nil {
					return
				}
				i, in, err := m.i, m.in, m.err
				if err != nil {
					fail(fmt.Errorf("bench c2: input of job %d: %w", i+1, err))
					return
				}
				id := fmt.Sprintf("bench-%d", i+1)
				submitted := time.Now()
				if _, err := e.Submit(ctx, engine.Request{ID: id, Input: in}); err != nil {
					fail(fmt.Errorf("bench c2: submitting %s: %w", id, err))
					return
				}
				res, err := e.Await(ctx, engine.JobID(id))
				finished := time.Now()
				if err == nil && res.Proof == nil && !res.Synthetic {
					err = errors.New("no proof bytes") // the engine's invariant, checked again
				}
				if err != nil {
					fail(fmt.Errorf("bench c2: job %s: %w", id, err))
					return
				}
				mu.Lock()
				done = append(done, benchreport.Job{ID: id, Result: res, Submitted: submitted, Finished: finished})
				n := len(done)
				if n == 1 {
					first = benchreport.Mark{At: finished, Submitted: start, Status: e.Status()}
				}
				mu.Unlock()
				say("%s: proof %d of %d in %v", id, n, pl.Jobs, finished.Sub(submitted).Round(time.Millisecond))
			}
		}()
	}
	wg.Wait()
	if failure != nil {
		return nil, first, first, failure
	}
	if err := ctx.Err(); err != nil {
		return nil, first, first, err
	}
	last := benchreport.Mark{At: done[len(done)-1].Finished, Submitted: start, Status: e.Status()}
	return done, first, last, nil
}

// madeInput is job i's input, or the error of making it.
type madeInput struct {
	i   int
	in  engine.Input
	err error
}

// makeInputs makes the inputs of jobs 0 … n−1 in order on a goroutine of its
// own and sends them on the returned channel, keeping up to ahead of them
// made and not yet taken. It stops after the first error (sent like an
// input) or when ctx ends, then closes the channel and, once inputFor has
// returned for the last time, done.
func makeInputs(ctx context.Context, n, ahead int, inputFor func(int) (engine.Input, error)) (<-chan madeInput, <-chan struct{}) {
	inputs := make(chan madeInput, max(ahead, 0))
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(inputs)
		for i := range n {
			if ctx.Err() != nil {
				return
			}
			in, err := inputFor(i)
			select {
			case inputs <- madeInput{i, in, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return inputs, done
}

// plural writes "1 proof" or "n proofs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// secs writes a duration in seconds with three significant decimals.
func secs(d time.Duration) string {
	switch s := d.Seconds(); {
	case s >= 100:
		return fmt.Sprintf("%.1fs", s)
	case s >= 1:
		return fmt.Sprintf("%.2fs", s)
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}

// printBenchC2 writes the report as text.
func printBenchC2(w io.Writer, r *benchreport.Report) {
	fmt.Fprintf(w, "bench c2: %s on %s: %s, %d in flight, GPUs %v × %d workers, %d synthesis workers on %d threads\n",
		r.ProofType, r.Backend, plural(r.Jobs, "proof"), r.Concurrency, r.GPUs, r.GPUWorkers, r.SynthesisWorkers, r.SynthesisCPUs)
	fmt.Fprintf(w, "inputs: %s\nkey: %s; recorded circuits in %s\n", r.C1, r.Key, r.Params)
	if r.Synthetic {
		fmt.Fprintf(w, "%s (random C1 outputs, synthetic key with the real circuit's lengths; the timings are a real proof's)\n", strings.ToUpper(syntheticNote[:1])+syntheticNote[1:])
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	keys := make([]string, len(r.ProverLoads))
	for i, d := range r.ProverLoads {
		dev := i
		if i < len(r.GPUs) {
			dev = r.GPUs[i]
		}
		keys[i] = fmt.Sprintf("gpu%d key %s", dev, secs(d))
	}
	fmt.Fprintf(tw, "load\t%s\t(circuit %s; %s; before the first job, not counted)\n", secs(r.Load), secs(r.CircuitLoad), strings.Join(keys, ", "))
	fmt.Fprintf(tw, "first proof\t%s\t(warm-up: submission to the first proof, excluded from the steady state)\n", secs(r.FirstProof))
	if r.SteadyProofs > 0 {
		fmt.Fprintf(tw, "throughput\t%s/proof\tsteady state: %s completed between the first and the last proof's finish; %s/proof overall (%s in %s)\n",
			secs(r.Steady), plural(r.SteadyParts, "partition"), secs(r.Overall), plural(r.Jobs, "proof"), secs(r.Wall))
	} else {
		fmt.Fprintf(tw, "throughput\t%s/proof\toverall, warm-up included: one proof has no steady state (use --jobs 2 or more)\n", secs(r.Overall))
	}
	if r.GPUBound > 0 {
		fmt.Fprintf(tw, "GPU bound\t%s/proof\t%d partitions × the median kernel section ÷ %s: the rate if only the GPU locks limited it\n",
			secs(r.GPUBound), r.Partitions, plural(len(r.GPUs), "GPU"))
	}
	fmt.Fprintf(tw, "latency\t%s\tmedian, %s max (submission to proof)\n", secs(r.LatencyMedian), secs(r.LatencyMax))
	if ps := r.PoSt; ps != nil {
		fmt.Fprintf(tw, "%s alone\t%s\tmedian, %s p99, %s max of %s over %s (submission to verified proof, idle engine)\n",
			ps.ProofType, secs(ps.Alone.Median), secs(ps.Alone.P99), secs(ps.Alone.Max), plural(ps.AloneN, "proof"), plural(ps.Sectors, "sector"))
		fmt.Fprintf(tw, "%s under load\t%s\tmedian, %s p99, %s max of %s, one every %s while the PoRep jobs ran; lock wait %s median\n",
			ps.ProofType, secs(ps.UnderLoad.Median), secs(ps.UnderLoad.P99), secs(ps.UnderLoad.Max), plural(ps.LoadN, "proof"), ps.Every, secs(ps.LockWait))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nper partition (medians of %s):\n", plural(r.Stages[0].Count, "partition"))
	tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintf(tw, "  stage\tmedian\tmax\t\n")
	for _, s := range r.Stages {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", s.Stage, secs(s.Median), secs(s.Max), s.What)
	}
	tw.Flush()
	for _, split := range []struct {
		title  string
		stages []benchreport.Stage
	}{{"gpu_pre split", r.Prepare}, {"GPU section split", r.Kernels}} {
		if len(split.stages) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (medians of %s):\n", split.title, plural(split.stages[0].Count, "partition"))
		tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		for _, s := range split.stages {
			fmt.Fprintf(tw, "  %s\t%s\t%s max\t\n", s.Stage, secs(s.Median), secs(s.Max))
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\nGPU kernel utilisation (GPU lock held ÷ wall time):\n")
	tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	for _, g := range r.GPUUse {
		steady := "—"
		if r.SteadyProofs > 0 {
			steady = fmt.Sprintf("%.1f%%", 100*g.Steady)
		}
		fmt.Fprintf(tw, "  gpu%d\t%s steady state\t%.1f%% overall\t(%s held in %s)\n", g.Device, steady, 100*g.Overall, secs(g.Busy),
			plural(int(g.Acquisitions), "kernel section"))
	}
	tw.Flush()
	peaks := []string{fmt.Sprintf("host %.1f GiB (this process's high-water mark)", float64(r.HostPeak)/(1<<30))}
	for i, b := range r.DevicePeaks {
		peaks = append(peaks, fmt.Sprintf("gpu%d %.1f GiB in use", r.GPUs[i], float64(b)/(1<<30)))
	}
	fmt.Fprintf(w, "\nmemory peak: %s\n", strings.Join(peaks, ", "))
	fmt.Fprintln(w)
	switch {
	case r.Synthetic:
		fmt.Fprintf(w, "%s: %d of %s unverified (expected: the key is synthetic)\n", syntheticNote, r.Unverified, plural(r.Jobs*r.Partitions, "partition"))
	case r.Verified:
		fmt.Fprintf(w, "every proof verified: %s, %s\n", plural(r.Jobs, "proof"), plural(r.Jobs*r.Partitions, "partition"))
	}
	if r.Faults != "" {
		fmt.Fprintf(w, "faults injected (hits/calls): %s; %s retried, %s\n", r.Faults, plural(int(r.Retried), "partition"), plural(int(r.Quarantines), "GPU quarantine"))
	}
	if r.Timeline != "" {
		fmt.Fprintf(w, "timeline: %s\n", r.Timeline)
	}
}

// benchTarget is what bench c2 proves: a PoRep type or an update type, its
// circuit and each job's input.
type benchTarget struct {
	name       string
	partitions int
	nodes      uint64
	spec       engine.CircuitSpec
	input      func(i int) (engine.Input, error)
}

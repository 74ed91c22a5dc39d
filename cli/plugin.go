package cli

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/ffi"
	"github.com/filc2/filc2/plugin"
)

// proverFlags are the proving settings of `filc2 plugin`, which `filc2
// serve` passes on to the plugin it runs.
func proverFlags() []ucli.Flag {
	return []ucli.Flag{
		paramsDirFlag(),
		&ucli.IntFlag{Name: "slots", Usage: "jobs proved at once with --engine=false; with the engine, jobs handed to it at once", Value: 1, DefaultText: "1; with the engine, its queue limit"},
		&ucli.IntFlag{Name: "queue", Usage: "jobs that may wait; more are answered busy", Value: 64},
		&ucli.StringFlag{Name: "backend", Usage: "auto, cpu or cuda", Value: "auto"},
		&ucli.StringFlag{Name: "log-level", Usage: "trace, debug, info, warn or error", Value: "info"},
		&ucli.BoolFlag{Name: "engine", Usage: "prove through the pipelined engine (partitions of all jobs over every GPU, the dual-worker interlock, the memory budget); false: --slots whole jobs at a time", Value: true},
		&ucli.StringFlag{Name: "config", Usage: "engine configuration `FILE` (TOML; `filc2 config default` prints every knob); the flags below override it"},
		&ucli.StringFlag{Name: "gpus", Usage: "comma-separated GPU ordinals the engine proves on", DefaultText: "the config's, else 0"},
		&ucli.IntFlag{Name: "gpu-workers", Usage: "engine workers sharing each GPU's lock", DefaultText: "the config's, else 2"},
		&ucli.IntFlag{Name: "synthesis-workers", Usage: "partitions synthesised at once", DefaultText: "the config's, else one per core"},
		&ucli.StringFlag{Name: "memory-budget", Usage: "host memory the engine may use, such as 96GiB", DefaultText: "the config's, else all but 4 GiB"},
	}
}

// engineConfig reads --config and applies the engine flags over it.
func engineConfig(c *ucli.Context) (engine.Config, error) {
	cfg := engine.DefaultConfig()
	if path := c.String("config"); path != "" {
		var err error
		if cfg, err = engine.LoadConfig(path); err != nil {
			return cfg, err
		}
	}
	if c.IsSet("params-dir") || cfg.Params.Dir == "" {
		cfg.Params.Dir = c.String("params-dir")
	}
	if c.IsSet("gpus") {
		devs, err := parseGPUs(c.String("gpus"))
		if err != nil {
			return cfg, err
		}
		cfg.GPU.Devices = devs
	}
	if c.IsSet("gpu-workers") {
		cfg.GPU.WorkersPerGPU = c.Int("gpu-workers")
	}
	if c.IsSet("synthesis-workers") {
		cfg.Synthesis.Workers = c.Int("synthesis-workers")
	}
	if c.IsSet("memory-budget") {
		if err := cfg.Memory.Budget.UnmarshalText([]byte(c.String("memory-budget"))); err != nil {
			return cfg, fmt.Errorf("--memory-budget: %w", err)
		}
	}
	if c.IsSet("queue") {
		cfg.Queue.MaxQueued = c.Int("queue")
	}
	return cfg, nil
}

// parseGPUs parses "0,1,3".
func parseGPUs(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("--gpus %q: want comma-separated device ordinals such as 0,1", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func pluginCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "plugin",
		Usage: "the go-plugin prover subprocess that filc2 serve (or plugin.Launch) runs; not for direct use",
		Description: "Serves the Prover API to the host that started it: a go-plugin handshake (magic cookie, protocol\n" +
			"version, AutoMTLS) over which it hands the host a private unix socket and a token, where it answers\n" +
			"go-jsonrpc calls. Jobs queue (--queue) for --slots workers proving with the parameters in --params-dir,\n" +
			"each proof verified before it is returned. Logs are hclog JSON on stderr, which the host forwards;\n" +
			"nothing but the handshake is written to stdout. SIGTERM and SIGINT are ignored: the host decides when it\n" +
			"stops (it drains the jobs, then closes it), and it exits by itself when the host dies. Started by hand, it\n" +
			"refuses to run.",
		Flags:        append(proverFlags(), &ucli.StringFlag{Name: "socket-dir", Usage: "where to make the socket's private directory (default: $TMPDIR)"}),
		OnUsageError: onUsageError,
		Action:       pluginAction,
	}
}

func pluginAction(c *ucli.Context) error {
	// Until the handshake, stdout is go-plugin's alone.
	restore, err := plugin.GuardStdout()
	if err != nil {
		return err
	}
	defer restore()
	log := hclog.New(&hclog.LoggerOptions{
		Name:       "filc2-plugin",
		Level:      hclog.LevelFromString(c.String("log-level")),
		Output:     os.Stderr, // the real stderr: go-plugin swaps os.Stderr once serving
		JSONFormat: true,
	})
	if c.Int("slots") < 1 || c.Int("queue") < 1 {
		return usageErrorf("--slots and --queue must be at least 1")
	}
	be, err := backendFor(c.String("backend"))
	if err != nil {
		return usageError(err)
	}
	var gpus []plugin.GPU
	if devs, err := ffi.Devices(); err == nil {
		for _, d := range devs {
			gpus = append(gpus, plugin.GPU{Ordinal: d.Ordinal, Name: d.Name, Memory: d.Memory})
		}
	}
	lc := plugin.LocalConfig{
		ParamsDir: c.String("params-dir"),
		Backend:   be,
		Slots:     c.Int("slots"),
		QueueSize: c.Int("queue"),
		GPUs:      gpus,
		Logger:    log,
	}
	var svc *plugin.LocalService
	if c.Bool("engine") {
		cfg, err := engineConfig(c)
		if err != nil {
			return usageError(err)
		}
		gb, err := gpuBackend(c.String("backend"), 0)
		if err != nil {
			return usageError(err)
		}
		faults, err := faultsFromEnv()
		if err != nil {
			return usageError(err)
		}
		if faults != nil {
			log.Warn("injecting faults (tests only): proofs are retried and verified as after real faults", "spec", faults.String())
		}
		e, err := engine.New(cfg, &engine.Proofs{ParamsDir: cfg.Params.Dir, GPU: gb},
			engine.WithLogger(slog.New(plugin.SlogHandler(log.Named("engine")))), engine.WithTimelineMemory(20000), engine.WithFaults(faults))
		if err != nil {
			return err
		}
		defer closeEngine(e, log)
		lc.ParamsDir = cfg.Params.Dir
		if !c.IsSet("slots") {
			lc.Slots = 0 // the engine's queue limit
		}
		svc = plugin.NewEngineService(e, lc)
	} else {
		svc = plugin.NewLocalService(lc)
	}
	if err := restore(); err != nil {
		return err
	}
	return plugin.Serve(plugin.ServeConfig{
		Service:   svc,
		Version:   Version,
		Logger:    log,
		SocketDir: c.String("socket-dir"),
	})
}

// engineCloseWait bounds how long the plugin waits for its engine to close
// when the host closed it: with Serve's own wind-down, less than the 2 s
// go-plugin gives the plugin to exit before it kills it. The host drained the jobs first; what may be
// left is a parameter load, which the process exit ends as well.
const engineCloseWait = time.Second

// closeEngine closes e, waiting at most engineCloseWait.
func closeEngine(e *engine.Engine, log hclog.Logger) {
	done := make(chan struct{})
	go func() {
		e.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(engineCloseWait):
		log.Warn("the engine is still closing (a parameter load?); exiting without waiting", "waited", engineCloseWait)
	}
}

package engine

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/filc2/filc2/proofs/paramcache"
)

// Config is the engine's configuration, one TOML table per concern. The zero
// value of a knob marked "0: auto" is resolved when the engine starts.
type Config struct {
	GPU       GPUConfig       `toml:"gpu"`
	Synthesis SynthesisConfig `toml:"synthesis"`
	Memory    MemoryConfig    `toml:"memory"`
	Params    ParamsConfig    `toml:"params"`
	Queue     QueueConfig     `toml:"queue"`
	Timeline  TimelineConfig  `toml:"timeline"`
	Recovery  RecoveryConfig  `toml:"recovery"`
	Serve     ServeConfig     `toml:"serve"`
}

// GPUConfig picks the GPUs and the workers that share each one.
type GPUConfig struct {
	Devices       []int `toml:"devices"`         // device ordinals the engine proves on
	WorkersPerGPU int   `toml:"workers_per_gpu"` // workers sharing one GPU's lock (the interlock)
}

// SynthesisConfig sizes the CPU witness synthesis.
type SynthesisConfig struct {
	Workers int `toml:"workers"` // partitions synthesised at once (0: auto, GOMAXPROCS)
	// Ramp starts partitions no faster than the GPU takes them: at most one
	// more in synthesis than are synthesised and waiting for or on a GPU. A
	// lone job's first partition then has every core to itself and the GPU
	// starts within about that partition's synthesis; once the GPU has work
	// ahead, as many start as Workers and the budget allow.
	Ramp bool `toml:"ramp"`
	// CPUs is how many threads synthesis and the PoRep input check may take
	// at once, between all partitions and jobs (0: auto, GOMAXPROCS less one
	// per GPU worker, at least half of it): the rest stay free for the threads
	// that drive the GPUs. Critical jobs (WinningPoSt) are not counted.
	CPUs int `toml:"cpus"`
}

// MemoryConfig is the host-RAM byte budget: resident circuits and partitions
// in flight together never exceed it.
type MemoryConfig struct {
	Budget       ByteSize      `toml:"budget"`        // 0: auto, MemTotal − SafetyMargin
	SafetyMargin ByteSize      `toml:"safety_margin"` // left to the system when Budget is auto
	EvictIdle    time.Duration `toml:"evict_idle"`    // least idle time before pressure may evict a circuit
	// CriticalReserve is budget only critical jobs (WinningPoSt) may take, so
	// that one never waits for memory behind queued work; it applies when the
	// budget is at least 8 times it (else 0).
	CriticalReserve ByteSize `toml:"critical_reserve"`
}

// ParamsConfig says where the parameter files are.
type ParamsConfig struct {
	Dir    string `toml:"dir"`     // .params, .vk and recorded circuits
	PCEDir string `toml:"pce_dir"` // recorded circuits ("": beside the params; nothing else yet)
}

// QueueConfig bounds the queues and the jobs' lifetimes.
type QueueConfig struct {
	MaxQueued      int           `toml:"max_queued"`      // jobs waiting to start; more are refused (ErrQueueFull)
	GPUQueueDepth  int           `toml:"gpu_queue_depth"` // synthesised partitions waiting for a GPU (0: auto, one per GPU worker)
	DefaultTimeout time.Duration `toml:"default_timeout"` // deadline of a job that sets none (0: none)
	RetainFinished time.Duration `toml:"retain_finished"` // how long a finished job answers Await and resubmissions
	// CriticalLane runs one more synthesis worker and one more worker per GPU
	// that take critical jobs only, and lets those jump the GPU queue's depth
	// and the lock's waiters: a WinningPoSt waits for at most the one kernel
	// section running when it is ready.
	CriticalLane bool `toml:"critical_lane"`
}

// RecoveryConfig says how the engine recovers from a failed partition and
// from a GPU that keeps failing.
type RecoveryConfig struct {
	// PartitionRetries is how many more attempts a partition gets when a GPU
	// stage fails or its proof does not verify, on another GPU when there is
	// one in service; its job fails only when they are spent.
	PartitionRetries int `toml:"partition_retries"`
	// QuarantineAfter failures of one GPU within QuarantineWindow take it out
	// of service (0: never); a lost device is taken out at once.
	QuarantineAfter  int           `toml:"quarantine_after"`
	QuarantineWindow time.Duration `toml:"quarantine_window"`
	// ProbeInterval is how often a quarantined GPU is probed; it returns to
	// service after a probe that passes.
	ProbeInterval time.Duration `toml:"probe_interval"`
}

// TimelineConfig turns on the TIMELINE event log.
type TimelineConfig struct {
	Path string `toml:"path"` // JSON lines appended here ("": off)
}

// ServeConfig holds the addresses and limits of `filc2 serve` (its flags,
// when given, override these).
type ServeConfig struct {
	Listen        string `toml:"listen"`         // the Prover API (JSON-RPC), HOST:PORT or unix:///PATH
	MetricsListen string `toml:"metrics_listen"` // /metrics, /debug/timeline.svg, /healthz ("": on the API listener)
	GRPCListen    string `toml:"grpc_listen"`    // curio's cuzk gRPC service ("": off)
	// GRPCAllowRemote lets the unauthenticated gRPC service listen beyond
	// loopback (refused otherwise).
	GRPCAllowRemote bool          `toml:"grpc_allow_remote"`
	ShutdownGrace   time.Duration `toml:"shutdown_grace"` // jobs in flight may finish this long on SIGTERM
	// MaxConnections caps the API listener's open connections, MaxWebsockets
	// its websockets; BodyTimeout is the time a request body may take beyond
	// one second per MiB; IdleTimeout closes idle keep-alive connections.
	MaxConnections int           `toml:"max_connections"`
	MaxWebsockets  int           `toml:"max_websockets"`
	BodyTimeout    time.Duration `toml:"body_timeout"`
	IdleTimeout    time.Duration `toml:"idle_timeout"`
}

// DefaultConfig returns the configuration of a one-GPU machine.
func DefaultConfig() Config {
	return Config{
		GPU:       GPUConfig{Devices: []int{0}, WorkersPerGPU: 2},
		Synthesis: SynthesisConfig{Workers: 0, Ramp: true},
		Memory:    MemoryConfig{Budget: 0, SafetyMargin: 4 * GiB, EvictIdle: 0, CriticalReserve: 1 * GiB},
		Params:    ParamsConfig{Dir: paramcache.DefaultDir},
		Queue:     QueueConfig{MaxQueued: 64, GPUQueueDepth: 0, RetainFinished: 30 * time.Minute, CriticalLane: true},
		Recovery:  RecoveryConfig{PartitionRetries: 2, QuarantineAfter: 3, QuarantineWindow: 10 * time.Minute, ProbeInterval: 30 * time.Second},
		Serve: ServeConfig{Listen: "127.0.0.1:9830", ShutdownGrace: 30 * time.Second,
			MaxConnections: 256, MaxWebsockets: 64, BodyTimeout: time.Minute, IdleTimeout: 2 * time.Minute},
	}
}

// ParseConfig reads a TOML configuration over DefaultConfig: knobs the text
// leaves out keep their defaults; unknown knobs are an error.
func ParseConfig(text string) (Config, error) {
	cfg := DefaultConfig()
	md, err := toml.Decode(text, &cfg)
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return cfg, fmt.Errorf("config: unknown keys %s", strings.Join(keys, ", "))
	}
	return cfg, cfg.Validate()
}

// LoadConfig reads the TOML configuration file at path (see ParseConfig).
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return DefaultConfig(), err
	}
	cfg, err := ParseConfig(string(b))
	if err != nil {
		return cfg, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// Validate reports the first knob out of range.
func (c *Config) Validate() error {
	if len(c.GPU.Devices) == 0 {
		return errors.New("config: gpu.devices is empty: list at least one device ordinal")
	}
	seen := map[int]bool{}
	for _, d := range c.GPU.Devices {
		if d < 0 || seen[d] {
			return fmt.Errorf("config: gpu.devices %v: want distinct ordinals ≥ 0", c.GPU.Devices)
		}
		seen[d] = true
	}
	switch {
	case c.GPU.WorkersPerGPU < 1:
		return fmt.Errorf("config: gpu.workers_per_gpu = %d: want ≥ 1 (2 overlaps one worker's CPU stages with the other's kernels)", c.GPU.WorkersPerGPU)
	case c.Synthesis.Workers < 0:
		return fmt.Errorf("config: synthesis.workers = %d: want ≥ 0 (0: one per core less one per GPU)", c.Synthesis.Workers)
	case c.Synthesis.CPUs < 0:
		return fmt.Errorf("config: synthesis.cpus = %d: want ≥ 0 (0: one per core less one per GPU worker, at least half the cores)", c.Synthesis.CPUs)
	case c.Memory.Budget < 0 || c.Memory.SafetyMargin < 0:
		return errors.New("config: memory.budget and memory.safety_margin must be ≥ 0")
	case c.Memory.EvictIdle < 0:
		return errors.New("config: memory.evict_idle must be ≥ 0")
	case c.Memory.CriticalReserve < 0:
		return errors.New("config: memory.critical_reserve must be ≥ 0")
	case c.Params.Dir == "":
		return errors.New("config: params.dir is empty")
	case c.Params.PCEDir != "" && c.Params.PCEDir != c.Params.Dir:
		return fmt.Errorf("config: params.pce_dir = %q: the recorded circuits are read beside the params (params.dir) until c2's loader takes a separate directory; leave it empty", c.Params.PCEDir)
	case c.Queue.MaxQueued < 1:
		return fmt.Errorf("config: queue.max_queued = %d: want ≥ 1", c.Queue.MaxQueued)
	case c.Queue.GPUQueueDepth < 0:
		return fmt.Errorf("config: queue.gpu_queue_depth = %d: want ≥ 0 (0: one per GPU worker)", c.Queue.GPUQueueDepth)
	case c.Queue.DefaultTimeout < 0 || c.Queue.RetainFinished < 0:
		return errors.New("config: queue.default_timeout and queue.retain_finished must be ≥ 0")
	case c.Recovery.PartitionRetries < 0 || c.Recovery.PartitionRetries > 100:
		return fmt.Errorf("config: recovery.partition_retries = %d: want 0 … 100", c.Recovery.PartitionRetries)
	case c.Recovery.QuarantineAfter < 0:
		return fmt.Errorf("config: recovery.quarantine_after = %d: want ≥ 0 (0: never quarantine)", c.Recovery.QuarantineAfter)
	case c.Recovery.QuarantineAfter > 0 && c.Recovery.QuarantineWindow <= 0:
		return errors.New("config: recovery.quarantine_window must be > 0 while quarantine_after is set")
	case c.Recovery.ProbeInterval <= 0:
		return errors.New("config: recovery.probe_interval must be > 0")
	case c.Serve.Listen == "":
		return errors.New("config: serve.listen is empty: give HOST:PORT or unix:///PATH")
	case c.Serve.ShutdownGrace < 0:
		return errors.New("config: serve.shutdown_grace must be ≥ 0 (0: cancel the jobs in flight at once)")
	case c.Serve.MaxConnections < 1 || c.Serve.MaxWebsockets < 1:
		return fmt.Errorf("config: serve.max_connections = %d and serve.max_websockets = %d: want ≥ 1", c.Serve.MaxConnections, c.Serve.MaxWebsockets)
	case c.Serve.BodyTimeout <= 0 || c.Serve.IdleTimeout <= 0:
		return errors.New("config: serve.body_timeout and serve.idle_timeout must be > 0")
	}
	return nil
}

// resolved returns c with its "auto" knobs made concrete for this machine.
func (c Config) resolved() (Config, error) {
	if err := c.Validate(); err != nil {
		return c, err
	}
	c.GPU.Devices = append([]int(nil), c.GPU.Devices...)
	if c.Synthesis.Workers == 0 {
		// One per core, less one per GPU: the thread driving a GPU's kernel section
		// spins while it waits, and a starved one leaves the GPU idle between launches
		// (32GiB on the H200: 2.2 s kernel sections with every core synthesising,
		// 1.7 s with cores to spare).
		c.Synthesis.Workers = max(runtime.GOMAXPROCS(0)-len(c.GPU.Devices), 1)
	}
	if c.Synthesis.CPUs == 0 {
		c.Synthesis.CPUs = autoCPUs(len(c.GPU.Devices) * c.GPU.WorkersPerGPU)
	}
	if c.Queue.GPUQueueDepth == 0 {
		c.Queue.GPUQueueDepth = len(c.GPU.Devices) * c.GPU.WorkersPerGPU
	}
	if c.Memory.Budget == 0 {
		total, err := memTotal()
		if err != nil {
			return c, fmt.Errorf("config: memory.budget is auto but %w: set it", err)
		}
		if total <= c.Memory.SafetyMargin {
			return c, fmt.Errorf("config: memory.budget is auto but the machine's %v is not more than memory.safety_margin %v", total, c.Memory.SafetyMargin)
		}
		c.Memory.Budget = total - c.Memory.SafetyMargin
	}
	if c.Memory.CriticalReserve > c.Memory.Budget/8 {
		c.Memory.CriticalReserve = 0
	}
	return c, nil
}

// memTotal reads MemTotal from /proc/meminfo.
func memTotal() (ByteSize, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && fields[0] == "MemTotal:" && fields[2] == "kB" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/meminfo: %w", err)
			}
			return ByteSize(kb) * KiB, nil
		}
	}
	return 0, errors.New("/proc/meminfo has no MemTotal")
}

// ByteSize is a number of bytes; in TOML an integer or a string with a unit
// ("64GiB", "512 MiB", "2GB").
type ByteSize int64

// Byte size units.
const (
	KiB ByteSize = 1 << (10 * (iota + 1))
	MiB
	GiB
	TiB
)

var byteUnits = []struct {
	name string
	n    ByteSize
}{
	{"TiB", TiB}, {"GiB", GiB}, {"MiB", MiB}, {"KiB", KiB},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"kB", 1e3}, {"B", 1},
}

// String writes the size in the largest binary unit that divides it.
func (b ByteSize) String() string {
	for _, u := range byteUnits[:4] {
		if b != 0 && b%u.n == 0 {
			return strconv.FormatInt(int64(b/u.n), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(b), 10)
}

// MarshalText implements encoding.TextMarshaler.
func (b ByteSize) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: bytes, or a number with
// a unit; "auto" is 0.
func (b *ByteSize) UnmarshalText(text []byte) error {
	s := strings.TrimSpace(string(text))
	if s == "auto" {
		*b = 0
		return nil
	}
	mult := ByteSize(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(s, u.name) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.name)), u.n
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || (mult > 1 && n > int64((1<<63-1)/mult)) {
		return fmt.Errorf("byte size %q: want a non-negative integer, optionally with a unit (KiB, MiB, GiB, TiB, KB, MB, GB, TB)", string(text))
	}
	*b = ByteSize(n) * mult
	return nil
}

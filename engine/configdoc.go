package engine

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// WriteExampleConfig writes c as a TOML file in which every knob is set to
// its value in c and explained: `filc2 config default` prints DefaultConfig
// this way. ParseConfig reads it back to c.
func WriteExampleConfig(w io.Writer, c Config) error {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	comment := func(text string) {
		for _, l := range strings.Split(text, "\n") {
			line("# %s", l)
		}
	}
	knob := func(doc, key, value string) {
		comment(doc)
		line("%s = %s", key, value)
		line("")
	}
	str := strconv.Quote
	dur := func(d time.Duration) string { return str(formatDuration(d)) }
	ints := func(v []int) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.Itoa(x)
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	size := func(n ByteSize) string {
		if n == 0 {
			return str("auto")
		}
		return str(n.String())
	}

	comment("filc2 proving engine configuration (TOML). Every knob is shown with its default;\n" +
		"delete the ones you do not change. Sizes take a unit (\"64GiB\", \"512MiB\") or a number of\n" +
		"bytes; durations are Go durations (\"90s\", \"30m\", \"0s\").")
	line("")
	line("[gpu]")
	knob("Device ordinals (as CUDA numbers them) the engine proves on. Each GPU keeps its own\n"+
		"resident keys; partitions of one job spread over all of them.", "devices", ints(c.GPU.Devices))
	knob("Workers sharing one GPU. They take turns on the GPU's lock, which is held only around\n"+
		"the kernel section; one worker's CPU work (staging, bitmaps, finalisation, verification)\n"+
		"overlaps the other's kernels. 2 keeps the GPU busy; more only add memory.", "workers_per_gpu", strconv.Itoa(c.GPU.WorkersPerGPU))
	line("[synthesis]")
	knob("Partitions whose witness is synthesised at once on the CPU (0: one per core, less one per\n"+
		"GPU for the thread that drives its kernels). The memory\n"+
		"budget bounds them too: a worker starts a partition only when its bytes fit.", "workers", strconv.Itoa(c.Synthesis.Workers))
	knob("Start partitions no faster than the GPUs take them: at most one more in synthesis than\n"+
		"are synthesised and waiting for or on a GPU. A lone job's first partition gets every core\n"+
		"(its challenges are synthesised in parallel) and the kernels start after its synthesis,\n"+
		"not after all of them; once the GPUs have work ahead, workers and budget are the only\n"+
		"bounds. false: every worker starts a partition at once.", "ramp", strconv.FormatBool(c.Synthesis.Ramp))
	knob("Threads that witness synthesis and the PoRep input check take at once, between every\n"+
		"partition and job (0: one per core less one per GPU worker, at least half the cores). The\n"+
		"threads left over drive the GPUs: a kernel section whose thread waits behind synthesis for\n"+
		"a core leaves the GPU idle between kernels. WinningPoSt is not counted.", "cpus", strconv.Itoa(c.Synthesis.CPUs))
	line("[memory]")
	knob("The host-RAM byte budget. Resident circuits (keys and recorded circuits) and every\n"+
		"partition in flight (its witness and working memory, reserved before synthesis starts and\n"+
		"released after its proof) together never exceed it. With little memory jobs run slower,\n"+
		"one partition at a time; a job whose circuit and single partition exceed the whole budget\n"+
		"is refused. \"auto\": the machine's MemTotal less safety_margin.", "budget", size(c.Memory.Budget))
	knob("What \"auto\" leaves to the system and everything else on the machine.", "safety_margin", str(c.Memory.SafetyMargin.String()))
	knob("A circuit no job uses is evicted only when the budget needs its bytes and it has been\n"+
		"idle at least this long (\"0s\": as soon as it is needed).", "evict_idle", dur(c.Memory.EvictIdle))
	knob("Budget only critical jobs (WinningPoSt) may take: other work leaves it free, so a\n"+
		"WinningPoSt never waits for memory behind queued PoRep. It applies when the budget is at\n"+
		"least 8 times it (0: none).", "critical_reserve", str(c.Memory.CriticalReserve.String()))
	line("[params]")
	knob("The Groth16 parameter directory: .params, .vk and filc2's recorded circuits (PCE).\n"+
		"The same directory lotus and curio use (FIL_PROOFS_PARAMETER_CACHE).", "dir", str(c.Params.Dir))
	knob("Where the recorded circuits are. Empty: beside the params, the only place supported now.", "pce_dir", str(c.Params.PCEDir))
	line("[queue]")
	knob("Jobs that may wait for their first partition to start; Submit refuses more (queue full),\n"+
		"so a flood of requests waits at the caller, not in this process's memory.", "max_queued", strconv.Itoa(c.Queue.MaxQueued))
	knob("Synthesised partitions that may wait for a GPU worker (0: one per GPU worker).", "gpu_queue_depth", strconv.Itoa(c.Queue.GPUQueueDepth))
	knob("Deadline of a job whose request sets none, counted from submission (\"0s\": none). A job\n"+
		"past its deadline fails with a deadline error and frees its memory.", "default_timeout", dur(c.Queue.DefaultTimeout))
	knob("How long a finished job's result stays for Await and for resubmissions of its id.", "retain_finished", dur(c.Queue.RetainFinished))
	knob("One more synthesis worker, and one more worker per GPU, that take critical jobs\n"+
		"(WinningPoSt) only; those also pass the GPU queue's depth and go first among the lock's\n"+
		"waiters, so a WinningPoSt waits for at most the kernel section running when it is ready.\n"+
		"Jobs of every kind share the budget and the GPUs; priorities order them: WinningPoSt\n"+
		"critical, WindowPoSt high, PoRep normal.", "critical_lane", strconv.FormatBool(c.Queue.CriticalLane))
	line("[timeline]")
	knob("Append a TIMELINE of events here: JSON lines of time, job, partition, GPU, worker, stage\n"+
		"and start/end, for every stage of every partition (\"\": off).", "path", str(c.Timeline.Path))
	line("[recovery]")
	knob("More attempts of a partition whose GPU section, finalisation or prover load fails, or\n"+
		"whose proof does not verify (a proof that does not verify is never returned). A retry\n"+
		"goes to another GPU when one is in service and synthesises the witness again when the\n"+
		"failed attempt consumed it. The job fails, naming every attempt, when they are spent.", "partition_retries", strconv.Itoa(c.Recovery.PartitionRetries))
	knob("Failures of one GPU within quarantine_window that take it out of service (0: never):\n"+
		"it takes no work, its resident provers are dropped, and it is probed every probe_interval\n"+
		"until a probe passes. A lost device (a sticky CUDA error) is quarantined at once.", "quarantine_after", strconv.Itoa(c.Recovery.QuarantineAfter))
	knob("The window of quarantine_after.", "quarantine_window", dur(c.Recovery.QuarantineWindow))
	knob("How often a quarantined GPU is probed (a device reset, where the driver allows, then a\n"+
		"small allocation and kernel).", "probe_interval", dur(c.Recovery.ProbeInterval))
	line("[serve]")
	knob("Address of the Prover API (JSON-RPC, /remote-commit2, /healthz) of `filc2 serve`:\n"+
		"HOST:PORT or unix:///PATH (the socket is made owner and group only). Beyond loopback, tokens\n"+
		"and C1 data travel unencrypted: put a TLS proxy in front. --listen overrides it.", "listen", str(c.Serve.Listen))
	knob("Address of /metrics, /debug/timeline.svg and /healthz, which need no token (\"\": on the\n"+
		"API's address). --metrics-listen overrides it.", "metrics_listen", str(c.Serve.MetricsListen))
	knob("Address of curio's cuzk ProvingEngine gRPC service (\"\": off). It has no authentication\n"+
		"(curio's client sends none). --grpc-listen overrides it.", "grpc_listen", str(c.Serve.GRPCListen))
	knob("Let the gRPC service listen beyond loopback (firewall it to the curio hosts); without it\n"+
		"a non-loopback grpc_listen is refused. --grpc-allow-remote overrides it.", "grpc_allow_remote", strconv.FormatBool(c.Serve.GRPCAllowRemote))
	knob("On SIGTERM or SIGINT, how long jobs in flight may still finish before they are cancelled\n"+
		"(keep it under systemd's TimeoutStopSec). --shutdown-grace overrides it.", "shutdown_grace", dur(c.Serve.ShutdownGrace))
	knob("Open connections the API's address accepts (websockets included); one more waits a\n"+
		"second for a slot, then is closed.", "max_connections", strconv.Itoa(c.Serve.MaxConnections))
	knob("Open websockets on /rpc/v0 (a quarter of them, at least one, for callers without a write\n"+
		"token); one more is answered 503.", "max_websockets", strconv.Itoa(c.Serve.MaxWebsockets))
	knob("Time a request body may take to arrive, plus one second per MiB (a slow or stalled\n"+
		"client is cut off).", "body_timeout", dur(c.Serve.BodyTimeout))
	knob("Keep-alive connections idle this long are closed.", "idle_timeout", dur(c.Serve.IdleTimeout))
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// formatDuration writes d as time.ParseDuration reads it, without the
// trailing zero units of Duration.String ("30m", not "30m0s").
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

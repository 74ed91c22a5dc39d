package engine

import (
	"context"
	"runtime"

	"github.com/filc2/filc2/internal/par"
)

// The CPU gate (Synthesis.CPUs). Witness synthesis and the PoRep vanilla
// check split into many short tasks (a challenge, a block) on many goroutines:
// fifteen partitions synthesising at once on sixteen cores put hundreds of
// runnable goroutines on the scheduler. A GPU worker returning from a cgo call
// (a kernel section is a few dozen of them) then waits for a P behind that
// work, for tens of milliseconds at a time, and the GPU idles between its
// kernels: on the H200, 32GiB kernel sections run 1.35–1.6 s while a job's
// partitions synthesise against 1.28 s without. Every such task goes through
// one engine-wide par.Gate of Synthesis.CPUs slots, fewer than GOMAXPROCS, so
// a P is always free for the GPU workers. Critical jobs (WinningPoSt) bypass it.

// cpuGateKey is the context key of the gate a Backend's CPU work goes through.
type cpuGateKey struct{}

// withCPUGate returns ctx carrying g (nil: none).
func withCPUGate(ctx context.Context, g *par.Gate) context.Context {
	if g == nil {
		return ctx
	}
	return context.WithValue(ctx, cpuGateKey{}, g)
}

// cpuGateOf is the gate ctx carries, nil if none: the engine puts its gate on
// the context of Backend.Check and Circuit.Synthesize for every job that is
// not critical, and the Backends here run their parallel CPU work inside it.
func cpuGateOf(ctx context.Context) *par.Gate {
	g, _ := ctx.Value(cpuGateKey{}).(*par.Gate)
	return g
}

// gated returns ctx with the engine's CPU gate for a job of priority prio.
func (e *Engine) gated(ctx context.Context, prio Priority) context.Context {
	if prio >= PriorityCritical {
		return ctx
	}
	return withCPUGate(ctx, e.cpu)
}

// autoCPUs is Synthesis.CPUs' "auto": every core less one for each GPU worker,
// but never less than half the cores (a small machine with many workers) nor 1.
func autoCPUs(gpuWorkers int) int {
	n := runtime.GOMAXPROCS(0)
	return max(n-gpuWorkers, n/2, 1)
}

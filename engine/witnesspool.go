package engine

import (
	"context"
	"sync"

	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/r1cs"
)

// maxPooledWitnesses bounds the witnesses a circuit keeps for reuse. Every
// pooled witness belonged to a partition the memory budget admitted, and the
// next partitions take from the pool before allocating, so the pool never
// holds more than the budget's partitions did at their peak.
const maxPooledWitnesses = 8

// witnessPool keeps witnesses' storage for the next synthesis of the same
// circuit (c2.WithReuse).
type witnessPool struct {
	mu   sync.Mutex
	free []*groth16.Assignment
}

// options returns the Witness option that reuses a pooled witness, if any.
func (wp *witnessPool) options() []c2.WitnessOption {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	n := len(wp.free)
	if n == 0 {
		return nil
	}
	w := wp.free[n-1]
	wp.free[n-1] = nil
	wp.free = wp.free[:n-1]
	return []c2.WitnessOption{c2.WithReuse(w)}
}

// Recycle implements WitnessRecycler.
func (wp *witnessPool) Recycle(w *groth16.Assignment) {
	if w == nil {
		return
	}
	wp.mu.Lock()
	defer wp.mu.Unlock()
	if len(wp.free) < maxPooledWitnesses {
		wp.free = append(wp.free, w)
	}
}

// pooled is the number of witnesses kept (tests).
func (wp *witnessPool) pooled() int {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	return len(wp.free)
}

// partitionSynth is the CPU half every PoRep circuit of the engine shares:
// a partition's witness from its C1 output, into recycled storage.
type partitionSynth struct {
	witnessPool
	circuit   *r1cs.Circuit
	shape     porep.CircuitShape
	partBytes int64
}

func newPartitionSynth(c *r1cs.Circuit, shape porep.CircuitShape, gpu GPUBackend) partitionSynth {
	return partitionSynth{circuit: c, shape: shape, partBytes: witnessBytes(c) + gpu.WorkingBytes(c)}
}

// PartitionBytes implements Circuit: a witness and the GPU backend's working memory.
func (s *partitionSynth) PartitionBytes() int64 { return s.partBytes }

// Synthesize implements Circuit with c2.Witness.
func (s *partitionSynth) Synthesize(ctx context.Context, in Input, k int) (*groth16.Assignment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pr, err := poRepInput(in)
	if err != nil {
		return nil, err
	}
	pin, err := porep.PartitionInputFromC1(pr.C1, k)
	if err != nil {
		return nil, err
	}
	return c2.Witness(s.shape, pin, s.circuit, append(s.options(), c2.WithGate(cpuGateOf(ctx)))...)
}

package engine

import (
	"context"

	"github.com/filc2/filc2/proofs/groth16"
)

// Backend is the engine's seam to the proof system and the GPUs, one for
// every kind: it checks a job's decoded input (an Input: PoRep, PoSt), loads
// the host side of a circuit once per (kind, sector size), and makes that
// circuit resident on one GPU. Proofs is the implementation on packages c2
// and post; a backend that does not prove a kind says so from Check.
type Backend interface {
	// Name is a short identifier for logs and status ("proofs/cpu").
	Name() string
	// Check validates a job's input before it is queued: structure and
	// vanilla proofs. Its error is the caller's.
	Check(ctx context.Context, in Input) error
	// CircuitBytes estimates the host memory the circuit keeps resident,
	// charged to the memory budget before LoadCircuit runs.
	CircuitBytes(c CircuitSpec) (int64, error)
	// LoadCircuit loads the host side of a circuit (recorded circuit, keys).
	// progress, never nil, may be called with the load's advance.
	LoadCircuit(ctx context.Context, c CircuitSpec, progress func(done, total int64)) (Circuit, error)
	// LoadProver makes c resident on GPU gpu (a device ordinal) and returns
	// the prover that runs there. It is called once per (GPU, circuit).
	LoadProver(ctx context.Context, gpu int, c Circuit) (PartitionProver, error)
}

// Circuit is the host side of one circuit: the CPU stages of a partition
// that come before and after the GPU (synthesis, verification).
type Circuit interface {
	// PartitionBytes is the host memory one partition holds from the start
	// of its synthesis to the end of its proof: the budget it reserves.
	PartitionBytes() int64
	// Synthesize computes partition k's witness from the job's input.
	Synthesize(ctx context.Context, in Input, k int) (*groth16.Assignment, error)
	// Verify checks partition k's proof against its public inputs; the
	// engine hands out no proof that did not pass.
	Verify(in Input, k int, proof *groth16.Proof) error
	// Close releases the circuit (the engine closes its provers first).
	Close() error
}

// WitnessRecycler is a Circuit that reuses the storage of witnesses the
// engine is done with (a 32GiB witness is 4 GiB, whose first touch costs more
// than its synthesis). The engine hands a witness back when the partition is
// dropped before Prepare, or right after Prepare when the prover copies it
// (WitnessCopier).
type WitnessRecycler interface {
	Recycle(w *groth16.Assignment)
}

// WitnessCopier is a PartitionProver whose Prepare copies the witness (to
// the GPU), so that the witness is free again once Prepare returns.
type WitnessCopier interface {
	CopiesWitness() bool
}

// Prepared is a partition staged on the CPU for its GPU section: whatever the
// backend's Prepare returns and its RunGPU takes.
type Prepared = any

// Raw is the output of a GPU section before its CPU finalisation: whatever the
// backend's RunGPU returns and its Finish takes.
type Raw = any

// PartitionProver proves partitions of one circuit on one GPU in three
// stages, so that two workers can share the GPU: Prepare and Finish run
// outside the GPU's lock, RunGPU inside it. Each stage takes ownership of its
// input and frees it whether or not it succeeds; a stage whose ctx ends
// returns early with ctx's error. When the job ends between two stages the
// engine drops the Prepared or Raw it holds, calling its Release method if it
// has one (for pinned buffers and the like). Stages of different partitions
// run concurrently, at most one RunGPU per GPU at a time.
type PartitionProver interface {
	// Prepare does the CPU work before the kernels: blinding, upload
	// staging, density bitmaps and scalar classification.
	Prepare(ctx context.Context, w *groth16.Assignment) (Prepared, error)
	// RunGPU runs the kernel section; the engine holds the GPU's lock
	// throughout.
	RunGPU(ctx context.Context, p Prepared) (Raw, error)
	// Finish does the CPU work after the kernels (remaining MSMs on the CPU,
	// proof assembly) and returns the proof.
	Finish(ctx context.Context, r Raw) (*groth16.Proof, error)
	// Close releases the prover's GPU state.
	Close() error
}

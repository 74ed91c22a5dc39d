// Package engine schedules proving jobs of every kind — SealCommit2,
// WindowPoSt partitions, WinningPoSt — over the machine's GPUs: a priority
// queue of jobs (FIFO within a priority, keyed by the caller's request id;
// WinningPoSt critical and WindowPoSt high at least) fanned out into
// partitions; synthesis workers on the CPU feeding GPU
// workers through a bounded queue, with a host-RAM byte budget as the
// backpressure; the dual-worker GPU interlock (one lock per GPU held only
// around the kernel section); circuit and SRS residency per (GPU, kind, sector size);
// cancellation, deadlines, per-stage timings, a TIMELINE of events (an opt-in
// JSON log, the recent ones kept in memory and drawn as a Gantt chart by
// TimelineSVG) and Prometheus metrics on the engine's own registry.
//
// The flow of one job is visible in the code in this order:
//
//	Submit (decode, check the input) → queue → reserve budget → synthesize (CPU)
//	→ GPU queue → Prepare (CPU) → lock → RunGPU → unlock → Finish (CPU)
//	→ verify → release budget → … every partition … → encode → Await
//
// A job's input is an Input (kind.go: PoRep, PoSt) and the engine looks no
// further into it than its kind, circuit, partition count and fingerprint.
// Critical jobs have a lane of their own (a synthesis worker and a worker per
// GPU, past the GPU queue's depth, first among the lock's waiters, and the
// budget's critical reserve), and a running kernel section lends them the GPU
// at its preemption points (internal/preempt).
//
// The engine reaches the proof system and the hardware only through Backend,
// Circuit and PartitionProver (backend.go); Proofs implements them on
// packages c2 and post and a GPUBackend, and WholeProof adapts today's
// whole-proof groth16.Backend.
// Synthetic is the benchmark backend (random C1 outputs, synthetic keys): the
// only one whose proofs may fail verification without failing their job, and
// then no proof bytes are handed out.
// The engine knows no wire protocol (package plugin serves it) and no CUDA
// (package ffi).
package engine

// Package engine schedules SealCommit2 jobs over the machine's GPUs: a
// priority queue of jobs (FIFO within a priority, keyed by the caller's request
// id) fanned out into partitions; synthesis workers on the CPU feeding GPU
// workers through a bounded queue, with a host-RAM byte budget as the
// backpressure; the dual-worker GPU interlock (one lock per GPU held only
// around the kernel section); circuit and SRS residency per (GPU, sector size);
// cancellation, deadlines, per-stage timings, a TIMELINE of events (an opt-in
// JSON log, the recent ones kept in memory and drawn as a Gantt chart by
// TimelineSVG) and Prometheus metrics on the engine's own registry.
//
// The flow of one job is visible in the code in this order:
//
//	Submit (decode, check C1) → queue → reserve budget → synthesize (CPU)
//	→ GPU queue → Prepare (CPU) → lock → RunGPU → unlock → Finish (CPU)
//	→ verify → release budget → … every partition … → encode → Await
//
// The engine reaches the proof system and the hardware only through Backend,
// Circuit and PartitionProver (backend.go); C2 implements them on package c2
// and a GPUBackend, and WholeProof adapts today's whole-proof groth16.Backend.
// Synthetic is the benchmark backend (random C1 outputs, synthetic keys): the
// only one whose proofs may fail verification without failing their job, and
// then no proof bytes are handed out.
// The engine knows no wire protocol (package plugin serves it) and no CUDA
// (package ffi).
package engine

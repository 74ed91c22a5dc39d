// Package c2 is SealCommit2 on one Groth16 backend: it turns a decoded C1
// output into the proof bytes lotus puts on chain, one partition at a time, in
// stages that can be called and tested alone:
//
//	decode (package c1) → vanilla check → per partition: synthesize the
//	witness → prove → verify → encode
//
// It also makes test parameters (Setup) and records the circuit (PCE files).
// Scheduling many jobs and partitions over GPUs is package engine's; this
// package runs the stages in order.
package c2

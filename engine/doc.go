// Package engine will schedule SealCommit2 jobs over the machine: a priority
// queue of jobs fanned out into partitions, synthesis workers feeding GPU
// workers through a byte-budgeted queue, the dual-worker GPU interlock, SRS and
// PCE residency, cancellation, deadlines, per-stage timings and metrics. It
// builds on package c2's stages (synthesize, prove, verify, encode) and knows
// no wire protocol. Until it lands, `filc2 prove` runs c2's stages in order.
package engine

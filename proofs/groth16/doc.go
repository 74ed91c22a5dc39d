// Package groth16 is bellperson-compatible Groth16 over BLS12-381: the proving
// and verifying keys with their .params/.vk file formats, proof bytes, a test
// setup from a recorded R1CS, the CPU prover and the verifier, and the Backend
// seam through which other provers (the CUDA one in package ffi) plug in.
//
// Keys follow bellperson's layout exactly (h: m−1 points; l: every aux; a, b_g1,
// b_g2 compacted by the circuit's densities), so files written here load in
// bellperson and the official Filecoin parameters load here. The package knows
// R1CS only through package r1cs, and nothing of Filecoin.
package groth16

// Package post proves and verifies WindowPoSt partitions and WinningPoSt
// proofs: the FallbackPoSt circuit of package fallback under Groth16, with
// its parameter files, as rust-fil-proofs' generate_single_window_post_with_vanilla,
// generate_winning_post_with_vanilla and their verifiers do. Every proof is
// verified before it is returned.
package post

// Package porep is the StackedDRG PoRep: graphs, challenges, replica id,
// public inputs, circuit and sealer.
//
// The graph half follows rust-fil-proofs (storage-proofs-core drgraph.rs and
// crypto/feistel.rs, storage-proofs-porep stacked/vanilla/graph.rs): Graph
// gives each node's 6 DRG (bucket graph) parents, drawn with rand_chacha's
// ChaCha8Rng, and its 8 expander parents, drawn with a 3-round Feistel
// permutation over BLAKE2b-512, both in the reference's slot order and for
// every proofs-API version. Challenges derives the per-partition challenges
// (interactive, synthetic, non-interactive; stacked/vanilla/challenges.rs),
// ReplicaID and ProverID the sector identity, and PublicInputs the Groth16
// input vector of one partition (StackedCompound::generate_public_inputs),
// which a verifier needs and a prover never does.
//
// The package owns these derivations and their vectors. It does not own the
// proof-type table (package abi), hashing of labels or trees, Poseidon
// (package poseidon), the constraint system (package r1cs) or the gadgets
// (package gadgets).
package porep

// Package c1 owns the C1 output that SealCommit2 consumes: the
// SealCommitPhase1Output JSON of rust-filecoin-proofs-api (types mirroring its
// Rust structs, a fast strict decoder, a serde_json byte-identical encoder)
// and the lotus-bench Commit2In / curio cuzk wrapper
// {"SectorNum","Phase1Out","SectorSize"} around it.
//
// Decode (through Validate) checks a file against its proof type (package
// abi) and names the JSON path of the first violation:
//   - registered_proof is a proof-type name and vanilla_proofs its variant;
//   - abi's partition count and challenges per partition;
//   - comm_r and comm_d nonzero and below r, replica_id below r, seed nonzero;
//   - per challenge, the challenge labeling_proofs[0].node in 1..nodes−1;
//   - comm_d_proofs: Single, TreeDLevels binary levels, SHA-256 values
//     trimmed to 254 bits, root comm_d, opening the challenge;
//   - comm_r_last_proof and every column's inclusion_proof: Single, Sub or
//     Top as the tree shape has it, arity−1 siblings and index < arity per
//     level, field elements below r; comm_r_last_proof and c_x open the
//     challenge, every column proof opens its column's index;
//   - c_x and the 6 DRG and 8 expander parent columns: layers rows below r;
//   - labeling_proofs[l] with layer_index l+1 for each layer and an
//     encoding_proof with layer_index layers, each with 37 parent labels
//     below r and node the challenge;
//   - every challenge proof of the sector opens the same comm_r_last and
//     comm_c (rust-fil-proofs checks this per partition).
//
// The accessors (access.go) expose what the circuit takes per challenge and
// per partition (porep-c2-spec.md §1.4).
//
// The package knows nothing of circuits, R1CS, Poseidon or Groth16: it neither
// hashes nor recomputes roots, challenges or graph parents.
package c1

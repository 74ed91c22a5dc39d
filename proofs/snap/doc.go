// Package snap proves and verifies SnapDeals update proofs
// (ProveReplicaUpdate2): the EmptySectorUpdate circuit of package update
// under Groth16, one partition proof per partition concatenated in
// partition order, with its parameter files, as rust-fil-proofs'
// generate_empty_sector_update_proof_with_vanilla and its verifier do.
// Every proof is verified before it is returned.
package snap

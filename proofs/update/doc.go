// Package update is SnapDeals' EmptySectorUpdate proof (ProveReplicaUpdate2)
// as storage-proofs-update defines it: the randomness (phi, rho and the
// partition challenges, from the custom-tag Poseidon of package poseidon)
// and, as they land, the vanilla proofs, the circuit in the reference's
// synthesis order and its public inputs.
//
// The per-size constants live in package abi (abi.UpdateProof). Commitments
// are Fr elements: comm_r_old and comm_r_new as tree R (Poseidon) roots,
// comm_d_new as the tree D (SHA-256) root read as a little-endian Fr, as
// the reference converts it.
package update

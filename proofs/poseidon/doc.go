// Package poseidon is Filecoin's Poseidon hash over BLS12-381 Fr, compatible with
// neptune v11 at Strength::Standard: the parameters (Grain LFSR round constants,
// Cauchy MDS matrix, their compressed and sparse forms) for arities 2, 4, 8, 11,
// 16, 24 and 36, the native hash for HashType::MerkleTree and
// HashType::ConstantLength, and the R1CS gadget with exactly the constraint shape
// of neptune's legacy circuit (circuit.rs poseidon_hash), which Filecoin's
// trusted setups fix.
//
// The package owns the constants, the native permutation (optimised and plain)
// and the gadget. It does not own Merkle trees, column layouts or any other
// Filecoin structure built from the hash, and knows the constraint system only
// through package r1cs.
package poseidon

// Package vanilla holds the pieces of rust-fil-proofs' vanilla proofs that
// several proof kinds share, in the bincode 1.x encoding the proofs API
// gives them (snap-post-spec §2.1: little-endian fixed-width integers, u32
// enum variant indices, u64 lengths, [u8; 32] as 32 raw bytes): 32-byte
// domains, inclusion-path levels and the MerkleProof enum (Single, Sub,
// Top), with a strict Reader that names the byte offset of what it refuses
// and the Append functions that re-encode byte for byte.
//
// The kinds' own structures (FallbackPoSt's sector proofs in package
// fallback, SnapDeals' partition proofs in package update) are built from
// these.
package vanilla

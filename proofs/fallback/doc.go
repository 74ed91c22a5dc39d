// Package fallback is FallbackPoSt, the proof both WindowPoSt and WinningPoSt
// put on chain (rust-fil-proofs storage-proofs-post fallback): the vanilla
// proofs a storage node reads from its sectors, their bincode encoding, the
// leaf challenges, the vanilla check the reference runs before proving, the
// Groth16 circuit in the reference's synthesis order, and its public inputs
// (snap-post-spec §1.2, §2.2, §3.1).
//
// The data flow of one partition is
//
//	Decode (bincode) → Check (paths, comm_r, challenges) → PartitionInput →
//	Synthesize → (Groth16, package post) → PublicInputs → verify.
//
// A Window partition proves up to SectorCount sectors of 10 challenges each,
// padding a short partition by repeating its last sector; a Winning proof
// proves one sector's 66 challenges as 66 one-challenge blocks.
package fallback

package porep

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
)

// niChallengeTag is the domain separator of NI-PoRep challenges.
const niChallengeTag = "filecoin.io|PoRep|1|NonInteractive|1"

// Challenges returns the ChallengesPerPartition challenges of partition k of a
// sector of proof type p, derived as p.ChallengeKind says
// (PublicInputs::challenges, stacked/vanilla/params.rs): interactive ones
// from replicaID and seed, synthetic ones from replicaID, commR and seed,
// non-interactive ones from replicaID and commR. Inputs a kind does not use
// are ignored. Each challenge is in [1, p.Nodes).
//
// It fails if k is not in [0, p.Partitions) or, for the synthetic and
// non-interactive kinds, if commR is not a canonical little-endian Fr (upstream
// rejects such a commitment before deriving anything).
func Challenges(p abi.SealProof, replicaID, seed, commR [32]byte, k int) ([]uint64, error) {
	if k < 0 || k >= p.Partitions {
		return nil, fmt.Errorf("porep: partition %d of %v: want 0 to %d", k, p, p.Partitions-1)
	}
	if p.Nodes < 2 || p.Nodes >= 1<<32 {
		return nil, fmt.Errorf("porep: %v has %d nodes: want 2 to 2^32−1", p, p.Nodes)
	}
	n := p.ChallengesPerPartition
	switch p.ChallengeKind {
	case abi.Interactive:
		return InteractiveChallenges(p.Nodes, replicaID, seed, k, n), nil
	case abi.Synthetic:
		if err := checkFr("comm_r", commR); err != nil {
			return nil, err
		}
		return SyntheticChallenges(p.Nodes, replicaID, commR, seed, k, n), nil
	case abi.NonInteractive:
		if err := checkFr("comm_r", commR); err != nil {
			return nil, err
		}
		return NonInteractiveChallenges(p.Nodes, replicaID, commR, k, n), nil
	}
	return nil, fmt.Errorf("porep: %v has unknown challenge kind %v", p, p.ChallengeKind)
}

// InteractiveChallenges returns the count challenges of partition k
// (InteractiveChallenges::derive, stacked/vanilla/challenges.rs): for i in
// [0, count), with j = count·k + i as u32,
//
//	c = SHA-256(replica_id ‖ seed ‖ j as u32 little-endian) mod (nodes − 1) + 1,
//
// the digest read as a little-endian integer. Upstream passes k as a u8, so k
// must be in [0, 256); nodes must be in [2, 2^32).
func InteractiveChallenges(nodes uint64, replicaID, seed [32]byte, k, count int) []uint64 {
	checkChallengeArgs(nodes, k, count)
	var pre [68]byte
	copy(pre[0:32], replicaID[:])
	copy(pre[32:64], seed[:])
	out := make([]uint64, count)
	for i := range out {
		binary.LittleEndian.PutUint32(pre[64:], uint32(count*k+i))
		h := sha256.Sum256(pre[:])
		out[i] = bigintToChallenge(&h, nodes)
	}
	return out
}

// NonInteractiveChallenges returns the count challenges of partition k of
// NI-PoRep (NiChallenges::derive): as InteractiveChallenges, with the digest
//
//	SHA-256("filecoin.io|PoRep|1|NonInteractive|1" ‖ replica_id ‖ comm_r ‖ j as u32 little-endian)
//
// and no seed. k must be in [0, 256); nodes must be in [2, 2^32).
func NonInteractiveChallenges(nodes uint64, replicaID, commR [32]byte, k, count int) []uint64 {
	checkChallengeArgs(nodes, k, count)
	const tag = len(niChallengeTag)
	var pre [tag + 68]byte
	copy(pre[:tag], niChallengeTag)
	copy(pre[tag:tag+32], replicaID[:])
	copy(pre[tag+32:tag+64], commR[:])
	out := make([]uint64, count)
	for i := range out {
		binary.LittleEndian.PutUint32(pre[tag+64:], uint32(count*k+i))
		h := sha256.Sum256(pre[:])
		out[i] = bigintToChallenge(&h, nodes)
	}
	return out
}

// bigintToChallenge is bigint_to_challenge: the 32 bytes b as a little-endian
// integer, mod (nodes − 1), plus 1, so that node 0 is never challenged.
func bigintToChallenge(b *[32]byte, nodes uint64) uint64 {
	m := nodes - 1
	var r uint64
	for i := 3; i >= 0; i-- { // Horner over the 64-bit limbs, most significant first
		r = bits.Rem64(r, binary.LittleEndian.Uint64(b[8*i:]), m)
	}
	return r + 1
}

// checkChallengeArgs panics on arguments no proof type has.
func checkChallengeArgs(nodes uint64, k, count int) {
	if nodes < 2 || nodes >= 1<<32 {
		panic(fmt.Sprintf("porep: challenges of %d nodes: want 2 to 2^32−1", nodes))
	}
	if k < 0 || k > 255 {
		panic(fmt.Sprintf("porep: partition %d: the reference takes it as u8", k))
	}
	if count < 0 {
		panic(fmt.Sprintf("porep: %d challenges", count))
	}
}

// checkFr returns an error if b is not the canonical little-endian encoding
// of an Fr (bytes_into_fr, as_safe_commitment).
func checkFr(name string, b [32]byte) error {
	if _, err := fr.LittleEndian.Element(&b); err != nil {
		return fmt.Errorf("porep: %s %x is not a canonical Fr: %w", name, b, err)
	}
	return nil
}

package porep

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/chacha20"
)

// Synthetic PoRep (stacked/vanilla/challenges.rs, mod synthetic).
const (
	// MaxSyntheticChallenges is DEFAULT_SYNTH_CHALLENGE_COUNT, the number of
	// synthetic challenges of a production sector (2^18); smaller sectors have
	// one per node.
	MaxSyntheticChallenges = 1 << 18

	synthChallengeSize = 32 // keystream bytes per synthetic challenge
	synthIndexSize     = 4  // keystream bytes per selected index
	synthGenerationKey = "filecoin.io|PoRep|1|Synthetic|1|Generation"
	synthSelectionKey  = "filecoin.io|PoRep|1|Synthetic|1|Selection"
	synthNonce         = "synth-porep\x00"
)

// SyntheticChallengeCount returns the number of synthetic challenges of a
// sector of the given number of nodes: min(nodes, 2^18).
func SyntheticChallengeCount(nodes uint64) uint64 { return min(nodes, MaxSyntheticChallenges) }

// SyntheticChallenge returns synthetic challenge i (SynthChallengeGenerator::
// gen_synth_challenge): bytes 32·i to 32·i+31 of the RFC 8439 ChaCha20
// keystream with nonce "synth-porep\0" and key
// BLAKE2b-256(key = "filecoin.io|PoRep|1|Synthetic|1|Generation")(replica_id ‖ comm_r),
// as a little-endian integer mod (nodes − 1), plus 1. i must be below
// SyntheticChallengeCount(nodes); nodes must be in [2, 2^32).
func SyntheticChallenge(nodes uint64, replicaID, commR [32]byte, i uint64) uint64 {
	checkChallengeArgs(nodes, 0, 0)
	if i >= SyntheticChallengeCount(nodes) {
		panic(fmt.Sprintf("porep: synthetic challenge %d of %d", i, SyntheticChallengeCount(nodes)))
	}
	key := synthKey(synthGenerationKey, &replicaID, &commR)
	return syntheticChallenge(&key, nodes, i)
}

// SyntheticChallengeSet returns all SyntheticChallengeCount(nodes) synthetic
// challenges of a sector in order (SynthChallenges::derive_synthetic), the set
// a synthetic-PoRep sealer proves before the seed is known. nodes must be in
// [2, 2^32).
func SyntheticChallengeSet(nodes uint64, replicaID, commR [32]byte) []uint64 {
	checkChallengeArgs(nodes, 0, 0)
	key := synthKey(synthGenerationKey, &replicaID, &commR)
	c := chacha20At(&key, 0)
	out := make([]uint64, SyntheticChallengeCount(nodes))
	var buf [synthChallengeSize]byte
	for i := range out {
		clear(buf[:])
		c.XORKeyStream(buf[:], buf[:])
		out[i] = bigintToChallenge(&buf, nodes)
	}
	return out
}

// SyntheticIndexes returns which of numSynth synthetic challenges are the
// count porep challenges of partition k (gen_partition_synth_indexes): with
// first = k·count, index i is the little-endian u32 at byte 4·(first + i) of
// the RFC 8439 ChaCha20 keystream with nonce "synth-porep\0" and key
// BLAKE2b-256(key = "filecoin.io|PoRep|1|Synthetic|1|Selection")(replica_id ‖ seed),
// mod numSynth. Indexes may repeat. k must be in [0, 256).
func SyntheticIndexes(numSynth uint64, replicaID, seed [32]byte, k, count int) []uint64 {
	if numSynth == 0 || numSynth >= 1<<32 {
		panic(fmt.Sprintf("porep: %d synthetic challenges: want 1 to 2^32−1", numSynth))
	}
	checkChallengeArgs(2, k, count)
	key := synthKey(synthSelectionKey, &replicaID, &seed)
	c := chacha20At(&key, uint32(k*count*synthIndexSize))
	buf := make([]byte, count*synthIndexSize)
	c.XORKeyStream(buf, buf)
	out := make([]uint64, count)
	for i := range out {
		out[i] = uint64(binary.LittleEndian.Uint32(buf[synthIndexSize*i:])) % numSynth
	}
	return out
}

// SyntheticChallenges returns the count porep challenges of partition k of a
// synthetic-PoRep sector (SynthChallenges::derive): the synthetic challenges
// that SyntheticIndexes(SyntheticChallengeCount(nodes), replicaID, seed, k,
// count) selects. k must be in [0, 256); nodes must be in [2, 2^32).
func SyntheticChallenges(nodes uint64, replicaID, commR, seed [32]byte, k, count int) []uint64 {
	return syntheticChallenges(nodes, SyntheticChallengeCount(nodes), replicaID, commR, seed, k, count)
}

// syntheticChallenges is SyntheticChallenges over a set of numSynth synthetic
// challenges (SynthChallengeGenerator::new rather than ::default).
func syntheticChallenges(nodes, numSynth uint64, replicaID, commR, seed [32]byte, k, count int) []uint64 {
	checkChallengeArgs(nodes, k, count)
	out := SyntheticIndexes(numSynth, replicaID, seed, k, count)
	key := synthKey(synthGenerationKey, &replicaID, &commR)
	for i, idx := range out {
		out[i] = syntheticChallenge(&key, nodes, idx)
	}
	return out
}

// syntheticChallenge is synthetic challenge i under the generation key.
func syntheticChallenge(key *[32]byte, nodes, i uint64) uint64 {
	var buf [synthChallengeSize]byte
	chacha20At(key, uint32(i*synthChallengeSize)).XORKeyStream(buf[:], buf[:])
	return bigintToChallenge(&buf, nodes)
}

// synthKey is the ChaCha20 key of a synthetic-PoRep PRF: BLAKE2b with a
// 32-byte digest, keyed by tag, over a ‖ b.
func synthKey(tag string, a, b *[32]byte) [32]byte {
	h, err := blake2b.New256([]byte(tag))
	if err != nil {
		panic(err) // the tags are shorter than BLAKE2b's 64-byte key limit
	}
	h.Write(a[:])
	h.Write(b[:])
	var key [32]byte
	h.Sum(key[:0])
	return key
}

// chacha20At returns the RFC 8439 ChaCha20 cipher (32-bit block counter from
// 0) with the synthetic-PoRep nonce, positioned at keystream byte off, as the
// chacha20 crate's try_seek does.
func chacha20At(key *[32]byte, off uint32) *chacha20.Cipher {
	c, err := chacha20.NewUnauthenticatedCipher(key[:], []byte(synthNonce))
	if err != nil {
		panic(err) // key and nonce have the fixed sizes
	}
	c.SetCounter(off / 64)
	if r := off % 64; r != 0 {
		var skip [64]byte
		c.XORKeyStream(skip[:r], skip[:r])
	}
	return c
}

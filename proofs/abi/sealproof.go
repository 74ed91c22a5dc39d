// Package abi is the proof-type table of the SealCommit2 prover. For every
// go-state-types abi.RegisteredSealProof (0–19) it gives the sector geometry,
// partition and challenge counts, tree shape, proofs-API version, porep_id,
// C1 JSON names and the v28 Groth16 parameter files.
package abi

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"

	"github.com/filecoin-project/go-state-types/abi"
)

// Protocol constants shared by every seal proof type.
const (
	BaseDegree                = 6   // DRG (bucket graph) parents per node
	ExpansionDegree           = 8   // expander parents per node
	PartitionProofLen         = 192 // bytes of one compressed Groth16 proof (A ‖ B ‖ C)
	MaxChallengesPerPartition = 18  // the most challenges one partition circuit holds
)

// APIVersion is a rust-filecoin-proofs-api ApiVersion. It selects graph and
// challenge rules and is independent of the porep_id.
type APIVersion uint8

// The proofs-API versions.
const (
	APIVersion1_0_0 APIVersion = iota + 1 // V1 proof types
	APIVersion1_1_0                       // V1_1 proof types
	APIVersion1_2_0                       // SyntheticPoRep and NI-PoRep proof types
)

// String returns the version as "major.minor.patch".
func (v APIVersion) String() string {
	switch v {
	case APIVersion1_0_0:
		return "1.0.0"
	case APIVersion1_1_0:
		return "1.1.0"
	case APIVersion1_2_0:
		return "1.2.0"
	}
	return fmt.Sprintf("APIVersion(%d)", uint8(v))
}

// ChallengeKind is how a proof type derives its challenges (spec §3.2). It
// follows from the proof type's API features, not from its API version.
type ChallengeKind uint8

// The challenge kinds.
const (
	Interactive    ChallengeKind = iota + 1 // from replica_id and the seed
	Synthetic                               // selected by the seed from synthetic challenges
	NonInteractive                          // from replica_id and comm_r; no seed
)

// String returns the kind's name, such as "NonInteractive".
func (k ChallengeKind) String() string {
	switch k {
	case Interactive:
		return "Interactive"
	case Synthetic:
		return "Synthetic"
	case NonInteractive:
		return "NonInteractive"
	}
	return fmt.Sprintf("ChallengeKind(%d)", uint8(k))
}

// TreeShape holds the arities of the Poseidon trees R and C: Base for the
// base trees, Sub and Top for the optional upper levels (0 when absent).
type TreeShape struct{ Base, Sub, Top int }

// String returns Tree::display(), such as "merkletree-poseidon_hasher-8-8-0".
func (t TreeShape) String() string {
	return fmt.Sprintf("merkletree-poseidon_hasher-%d-%d-%d", t.Base, t.Sub, t.Top)
}

// SealProof describes one registered seal proof type. Values come from
// Lookup, ParseName, BySectorSize or All.
type SealProof struct {
	Proof                  abi.RegisteredSealProof // go-state-types value, also the registered proof id
	SectorSize             abi.SectorSize          // sector size in bytes
	Name                   string                  // C1 JSON registered_proof, e.g. "StackedDrg32GiBV1_1"
	APIVersion             APIVersion              // proofs-API version
	ChallengeKind          ChallengeKind           // how challenges are derived
	Nodes                  uint64                  // 32-byte nodes per sector
	Layers                 int                     // SDR layers
	Partitions             int                     // Groth16 partition proofs per sector
	ChallengesPerPartition int                     // challenges per partition circuit
	Tree                   TreeShape               // shape of trees R and C (tree D is binary SHA-256)

	params, vk ParamsFile
}

// numProofs is the number of registered seal proof types, 0 to numProofs−1.
const numProofs = 20

// table is the proof-type table, indexed by abi.RegisteredSealProof.
var table = sync.OnceValue(func() [numProofs]SealProof {
	type size struct {
		bytes uint64
		tree  TreeShape
	}
	sizes := [...]size{
		{2 << 10, TreeShape{8, 0, 0}},
		{8 << 20, TreeShape{8, 0, 0}},
		{512 << 20, TreeShape{8, 0, 0}},
		{32 << 30, TreeShape{8, 8, 0}},
		{64 << 30, TreeShape{8, 8, 2}},
	}
	// Proof ids run variant-major: id = 5·variant + size index.
	variants := [...]struct {
		suffix  string
		version APIVersion
		kind    ChallengeKind // from the variant's API features
	}{
		{"V1", APIVersion1_0_0, Interactive},
		{"V1_1", APIVersion1_1_0, Interactive},
		{"V1_1_Feat_SyntheticPoRep", APIVersion1_2_0, Synthetic},
		{"V1_2_Feat_NonInteractivePoRep", APIVersion1_2_0, NonInteractive},
	}
	pf := files()
	var t [numProofs]SealProof
	for vi, v := range variants {
		for si, s := range sizes {
			big := s.bytes >= 32<<30
			layers, partitions, minimum := 2, 1, 2
			switch {
			case big && v.kind == NonInteractive:
				layers, partitions, minimum = 11, 126, 2253
			case big:
				layers, partitions, minimum = 11, 10, 176
			case v.kind == NonInteractive:
				partitions, minimum = 13, 26
			}
			challenges := (minimum + partitions - 1) / partitions
			if challenges > MaxChallengesPerPartition {
				panic("abi: too many challenges per partition") // an assert upstream too
			}
			p := SealProof{
				Proof:                  abi.RegisteredSealProof(len(sizes)*vi + si),
				SectorSize:             abi.SectorSize(s.bytes),
				Name:                   "StackedDrg" + sizeLabel(s.bytes) + v.suffix,
				APIVersion:             v.version,
				ChallengeKind:          v.kind,
				Nodes:                  s.bytes / 32,
				Layers:                 layers,
				Partitions:             partitions,
				ChallengesPerPartition: challenges,
				Tree:                   s.tree,
			}
			p.params, p.vk = pf.lookup(p)
			t[p.Proof] = p
		}
	}
	return t
})

// Lookup returns the proof type with the go-state-types value p.
func Lookup(p abi.RegisteredSealProof) (SealProof, error) {
	if p < 0 || p >= numProofs {
		return SealProof{}, fmt.Errorf("abi: unknown RegisteredSealProof %d: want 0-%d", p, numProofs-1)
	}
	return table()[p], nil
}

// All returns every proof type in RegisteredSealProof order, in a new slice.
func All() []SealProof {
	t := table()
	return t[:]
}

// BySectorSize returns the current proof type of a sector size for the given
// challenge kind: V1_1 for Interactive (what lotus-bench and lotus pick for
// new sectors), V1_1_Feat_SyntheticPoRep for Synthetic and
// V1_2_Feat_NonInteractivePoRep for NonInteractive.
func BySectorSize(size uint64, kind ChallengeKind) (SealProof, error) {
	for _, p := range table() {
		if uint64(p.SectorSize) == size && p.ChallengeKind == kind && p.APIVersion != APIVersion1_0_0 {
			return p, nil
		}
	}
	if kind < Interactive || kind > NonInteractive {
		return SealProof{}, fmt.Errorf("abi: unknown challenge kind %v: want Interactive, Synthetic or NonInteractive", kind)
	}
	return SealProof{}, fmt.Errorf("abi: unsupported sector size %d: want 2048 (2KiB), 8388608 (8MiB), 536870912 (512MiB), 34359738368 (32GiB) or 68719476736 (64GiB)", size)
}

// String returns the C1 name, such as "StackedDrg32GiBV1_1".
func (p SealProof) String() string { return p.Name }

// PoRepID returns the porep_id the proofs API uses for this type: the
// registered proof id as u64 little-endian, then nonce 0, then zeros.
func (p SealProof) PoRepID() [32]byte { return MakePoRepID(uint64(p.Proof), 0) }

// MakePoRepID returns id as u64 little-endian ‖ nonce as u64 little-endian ‖
// 16 zero bytes. Verification takes the porep_id and the API version as
// separate inputs; other chains pair other porep_ids with the same versions.
func MakePoRepID(id, nonce uint64) [32]byte {
	var b [32]byte
	binary.LittleEndian.PutUint64(b[0:], id)
	binary.LittleEndian.PutUint64(b[8:], nonce)
	return b
}

// TreeDLevels returns the height of the binary tree D, log2(Nodes).
func (p SealProof) TreeDLevels() int { return bits.Len64(p.Nodes) - 1 }

// TreeRLevels returns the path length of a tree R or C inclusion proof:
// the base-tree levels plus one each for a sub and a top level.
func (p SealProof) TreeRLevels() int {
	leaves, levels := p.Nodes, 0
	for _, a := range []int{p.Tree.Sub, p.Tree.Top} {
		if a > 0 {
			leaves /= uint64(a)
			levels++
		}
	}
	for ; leaves > 1; leaves /= uint64(p.Tree.Base) {
		levels++
	}
	return levels
}

// ProofLen returns the length in bytes of the C2 output, the concatenated
// partition proofs: PartitionProofLen × Partitions. For interactive and
// synthetic types that is the proof on chain. NI-PoRep proofs go on chain
// SnarkPack-aggregated (go-state-types ProofSize), which this module does
// not produce: ProofLen is then the raw length before aggregation.
func (p SealProof) ProofLen() int { return PartitionProofLen * p.Partitions }

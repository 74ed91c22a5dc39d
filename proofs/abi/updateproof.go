package abi

import (
	"crypto/sha256"
	"fmt"
	"math/bits"
	"strconv"
	"sync"

	"github.com/filecoin-project/go-state-types/abi"
)

// UpdateProof describes one registered SnapDeals (EmptySectorUpdate) proof
// type: the circuit's per-size constants of storage-proofs-update's
// constants.rs. Values come from LookupUpdate, ParseUpdateName or AllUpdate.
type UpdateProof struct {
	Proof      abi.RegisteredUpdateProof // go-state-types value
	Name       string                    // go-state-types spelling, e.g. "StackedDrg32GiBV1"
	SectorSize abi.SectorSize
	Nodes      uint64    // 32-byte nodes per sector
	Tree       TreeShape // shape of trees R-old and R-new (tree D is binary SHA-256)
	// Partitions is the number of Groth16 partition proofs, Challenges the
	// challenges of each.
	Partitions, Challenges int
	// HS are the six high-bit counts h a proof may select (the circuit's
	// h_select is one-hot over them); H is the one provers use (hs[3]).
	HS [6]int
	H  int
	// ApexLeaves is the number of leaves of each partition's apex tree.
	ApexLeaves int

	params, vk ParamsFile
}

const numUpdateProofs = 5

var updateTable = sync.OnceValue(func() [numUpdateProofs]UpdateProof {
	seal := table()
	pf := files()
	var t [numUpdateProofs]UpdateProof
	for si := range numUpdateProofs {
		s := seal[si] // the V1 seal proof of the same size: same nodes and tree R
		n := s.Nodes
		p := UpdateProof{
			Proof:      abi.RegisteredUpdateProof(si),
			Name:       "StackedDrg" + sizeLabel(uint64(s.SectorSize)) + "V1",
			SectorSize: s.SectorSize,
			Nodes:      n,
			Tree:       s.Tree,
			Partitions: 16,
			Challenges: 86,
			HS:         [6]int{7, 8, 9, 10, 11, 12},
			ApexLeaves: 128,
		}
		// The thresholds of constants.rs, in nodes (1<<8: 8KiB, 1<<10: 32KiB,
		// 1<<19: 16MiB); the registered sizes fall on either side of them.
		switch {
		case n <= 1<<8:
			p.Partitions = 1
		case n <= 1<<10:
			p.Partitions = 2
		case n <= 1<<19:
			p.Partitions = 4
		}
		if n <= 1<<19 {
			p.Challenges = 10
		}
		if n <= 1<<10 {
			p.HS = [6]int{1, 1, 1, 1, 1, 1}
		}
		if n <= 1<<8 {
			p.ApexLeaves = 8
		}
		p.H = p.HS[3]
		p.params, p.vk = pf.lookupFile(p.paramsFileStem(), uint64(p.SectorSize), p.Name)
		t[si] = p
	}
	return t
})

// LookupUpdate returns the update proof type with the go-state-types value p.
func LookupUpdate(p abi.RegisteredUpdateProof) (UpdateProof, error) {
	if p < 0 || p >= numUpdateProofs {
		return UpdateProof{}, fmt.Errorf("abi: unknown RegisteredUpdateProof %d: want 0-%d", p, numUpdateProofs-1)
	}
	return updateTable()[p], nil
}

// AllUpdate returns every update proof type in RegisteredUpdateProof order.
func AllUpdate() []UpdateProof {
	t := updateTable()
	return t[:]
}

// ParseUpdateName returns the update proof type named s, as go-state-types
// spells it ("StackedDrg32GiBV1") or as its number in decimal ("3").
func ParseUpdateName(s string) (UpdateProof, error) {
	t := updateTable()
	for _, p := range t {
		if p.Name == s {
			return p, nil
		}
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil && n < numUpdateProofs {
		return t[n], nil
	}
	return UpdateProof{}, fmt.Errorf("abi: unknown update proof %q: want StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1 "+
		"or a number 0-%d", s, numUpdateProofs-1)
}

// UpdateForSeal returns the update proof type of sectors sealed with p (of
// any seal variant), as go-state-types' SealProofInfo maps them.
func UpdateForSeal(p abi.RegisteredSealProof) (UpdateProof, error) {
	s, err := Lookup(p)
	if err != nil {
		return UpdateProof{}, err
	}
	for _, u := range updateTable() {
		if u.SectorSize == s.SectorSize {
			return u, nil
		}
	}
	return UpdateProof{}, fmt.Errorf("abi: no update proof for %s", s.Name)
}

// String returns the go-state-types name.
func (p UpdateProof) String() string { return p.Name }

// ParamsFile returns the Groth16 parameter (.params) file of the proof type.
func (p UpdateProof) ParamsFile() ParamsFile { return p.params }

// VKFile returns the verifying key (.vk) file of the proof type.
func (p UpdateProof) VKFile() ParamsFile { return p.vk }

// CircuitKey names the circuit of p.
func (p UpdateProof) CircuitKey() string {
	return "EmptySectorUpdate" + sizeLabel(uint64(p.SectorSize))
}

// TreeRLevels returns the path length of a tree R inclusion proof.
func (p UpdateProof) TreeRLevels() int {
	return SealProof{Nodes: p.Nodes, Tree: p.Tree}.TreeRLevels()
}

// NodeBits is log2 of the sector's nodes.
func (p UpdateProof) NodeBits() int { return bits.TrailingZeros64(p.Nodes) }

// PartitionBits is log2 of the partitions: the high bits of every challenge
// of a partition, which are its index.
func (p UpdateProof) PartitionBits() int { return bits.TrailingZeros(uint(p.Partitions)) }

// ChallengeBits is the number of random bits of a challenge (the rest are
// the partition's index): log2(nodes) − log2(partitions).
func (p UpdateProof) ChallengeBits() int { return p.NodeBits() - p.PartitionBits() }

// ChallengesPerDigest is how many challenges one Poseidon digest yields:
// Fr's 254-bit capacity over ChallengeBits.
func (p UpdateProof) ChallengesPerDigest() int { return 254 / p.ChallengeBits() }

// DigestsPerPartition is the number of digests a partition's challenges take.
func (p UpdateProof) DigestsPerPartition() int {
	per := p.ChallengesPerDigest()
	return (p.Challenges + per - 1) / per
}

// ApexBits is log2 of ApexLeaves.
func (p UpdateProof) ApexBits() int { return bits.TrailingZeros(uint(p.ApexLeaves)) }

// TreeDLeafLevels is the number of tree D levels from a leaf up to an apex
// leaf: log2(nodes) − log2(partitions) − log2(apex leaves).
func (p UpdateProof) TreeDLeafLevels() int { return p.ChallengeBits() - p.ApexBits() }

// HSelect is the one-hot selector of H among HS: 1 << (the first index of H).
func (p UpdateProof) HSelect() uint64 {
	for i, h := range p.HS {
		if h == p.H {
			return 1 << i
		}
	}
	panic("abi: H is not among HS") // the table is built so that it is
}

// KAndHSelect is public input 0 of partition k: k | h_select << PartitionBits.
func (p UpdateProof) KAndHSelect(k int) uint64 {
	return uint64(k) | p.HSelect()<<p.PartitionBits()
}

// paramsIdentifier is EmptySectorUpdate PublicParams' parameter-cache
// identifier (snap-post-spec §4).
func (p UpdateProof) paramsIdentifier() string {
	return fmt.Sprintf("empty_sector_update::PublicParams{ sector_nodes: %d }", p.Nodes)
}

func (p UpdateProof) paramsFileStem() string {
	return fmt.Sprintf("v28-empty-sector-update-%s-%x", p.Tree, sha256.Sum256([]byte(p.paramsIdentifier())))
}

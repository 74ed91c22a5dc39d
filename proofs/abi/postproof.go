package abi

import (
	"crypto/sha256"
	"fmt"
	"strconv"
	"sync"

	"github.com/filecoin-project/go-state-types/abi"
)

// PoStKind tells WindowPoSt from WinningPoSt. Both share the FallbackPoSt
// circuit; they differ in its sector and challenge counts.
type PoStKind uint8

// The PoSt kinds.
const (
	Winning PoStKind = iota + 1 // one sector, 66 challenges, every epoch a miner may win
	Window                      // up to sector_count sectors of 10 challenges per partition, every deadline
)

// String returns "Winning" or "Window".
func (k PoStKind) String() string {
	switch k {
	case Winning:
		return "Winning"
	case Window:
		return "Window"
	}
	return fmt.Sprintf("PoStKind(%d)", uint8(k))
}

// Fallback PoSt protocol constants (filecoin-proofs constants.rs).
const (
	WindowChallengesPerSector = 10 // WINDOW_POST_CHALLENGE_COUNT
	WinningChallenges         = 66 // WINNING_POST_CHALLENGE_COUNT, all on one sector
	WinningSectors            = 1  // WINNING_POST_SECTOR_COUNT
)

// PoStProof describes one registered PoSt proof type. Values come from
// LookupPoSt, ParsePoStName or AllPoSt.
//
// SectorCount and ChallengeCount are the circuit's: Window proves
// SectorCount sectors of ChallengeCount challenges per partition; Winning's
// circuit has 66 one-challenge blocks, each a copy of the one sector, so that
// its SectorCount is 66 and its ChallengeCount 1 (filecoin-proofs'
// winning_post_setup_params).
type PoStProof struct {
	Proof      abi.RegisteredPoStProof // go-state-types value
	Name       string                  // go-state-types spelling, e.g. "StackedDrgWindow32GiBV1_1"
	Kind       PoStKind
	SectorSize abi.SectorSize
	Nodes      uint64     // 32-byte nodes per sector
	Tree       TreeShape  // shape of tree R-last, the one the proofs open
	APIVersion APIVersion // the proofs-API version: it picks the challenge-index rule
	// SectorCount and ChallengeCount shape the circuit (see above).
	SectorCount, ChallengeCount int
	// VanillaChallenges is the number of inclusion proofs in one sector's
	// vanilla proof: 10 for Window, 66 for Winning.
	VanillaChallenges int

	params, vk ParamsFile
}

const numPoStProofs = 15

// windowSectors is filecoin-proofs' WINDOW_POST_SECTOR_COUNT by sector size.
func windowSectors(size uint64) int {
	switch size {
	case 32 << 30:
		return 2349
	case 64 << 30:
		return 2300
	}
	return 2
}

var postTable = sync.OnceValue(func() [numPoStProofs]PoStProof {
	seal := table()
	pf := files()
	var t [numPoStProofs]PoStProof
	// go-state-types numbers them variant-major like seal proofs: Winning
	// 0–4, Window V1 5–9, Window V1_1 10–14, each over the five sizes.
	variants := [...]struct {
		kind    PoStKind
		infix   string
		suffix  string
		version APIVersion
	}{
		{Winning, "Winning", "V1", APIVersion1_0_0},
		{Window, "Window", "V1", APIVersion1_0_0},
		// FIP-0061: the V1_1 Window types are the proofs API's V1_2 ones,
		// whose challenge index does not depend on the sector's position.
		{Window, "Window", "V1_1", APIVersion1_2_0},
	}
	for vi, v := range variants {
		for si := range 5 {
			s := seal[si]
			p := PoStProof{
				Proof:      abi.RegisteredPoStProof(5*vi + si),
				Name:       "StackedDrg" + v.infix + sizeLabel(uint64(s.SectorSize)) + v.suffix,
				Kind:       v.kind,
				SectorSize: s.SectorSize,
				Nodes:      s.Nodes,
				Tree:       s.Tree,
				APIVersion: v.version,
			}
			if v.kind == Winning {
				p.SectorCount, p.ChallengeCount, p.VanillaChallenges = WinningChallenges/WinningSectors, WinningSectors, WinningChallenges
			} else {
				p.SectorCount, p.ChallengeCount, p.VanillaChallenges = windowSectors(uint64(s.SectorSize)), WindowChallengesPerSector, WindowChallengesPerSector
			}
			p.params, p.vk = pf.lookupFile(p.paramsFileStem(), uint64(p.SectorSize), p.Name)
			t[p.Proof] = p
		}
	}
	return t
})

// LookupPoSt returns the PoSt proof type with the go-state-types value p.
func LookupPoSt(p abi.RegisteredPoStProof) (PoStProof, error) {
	if p < 0 || p >= numPoStProofs {
		return PoStProof{}, fmt.Errorf("abi: unknown RegisteredPoStProof %d: want 0-%d", p, numPoStProofs-1)
	}
	return postTable()[p], nil
}

// AllPoSt returns every PoSt proof type in RegisteredPoStProof order.
func AllPoSt() []PoStProof {
	t := postTable()
	return t[:]
}

// ParsePoStName returns the PoSt proof type named s, as go-state-types spells
// it ("StackedDrgWindow32GiBV1_1", "StackedDrgWinning2KiBV1") or as its
// number in decimal ("13").
func ParsePoStName(s string) (PoStProof, error) {
	t := postTable()
	for _, p := range t {
		if p.Name == s {
			return p, nil
		}
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil && n < numPoStProofs {
		return t[n], nil
	}
	return PoStProof{}, fmt.Errorf("abi: unknown PoSt proof %q: want StackedDrgWinning{2KiB,8MiB,512MiB,32GiB,64GiB}V1, "+
		"StackedDrgWindow{…}V1 or StackedDrgWindow{…}V1_1, or a number 0-%d", s, numPoStProofs-1)
}

// String returns the go-state-types name.
func (p PoStProof) String() string { return p.Name }

// ParamsFile returns the Groth16 parameter (.params) file of the proof type.
// Window V1 and V1_1 of one size share their files: the circuit is the same.
func (p PoStProof) ParamsFile() ParamsFile { return p.params }

// VKFile returns the verifying key (.vk) file of the proof type.
func (p PoStProof) VKFile() ParamsFile { return p.vk }

// CircuitKey names the circuit of p; types sharing it share parameters.
func (p PoStProof) CircuitKey() string {
	return fmt.Sprintf("FallbackPoSt%s%s", p.Kind, sizeLabel(uint64(p.SectorSize)))
}

// TreeRLevels returns the path length of a tree R-last inclusion proof.
func (p PoStProof) TreeRLevels() int {
	return SealProof{Nodes: p.Nodes, Tree: p.Tree}.TreeRLevels()
}

// Partitions returns the number of Window partitions that sectors sectors
// take (at least one); a Winning proof is always one partition.
func (p PoStProof) Partitions(sectors int) int {
	if p.Kind == Winning || sectors <= p.SectorCount {
		return 1
	}
	return (sectors + p.SectorCount - 1) / p.SectorCount
}

// paramsIdentifier is FallbackPoSt PublicParams' parameter-cache identifier
// (snap-post-spec §4).
func (p PoStProof) paramsIdentifier() string {
	return fmt.Sprintf("FallbackPoSt::PublicParams{sector_size: %d, challenge_count: %d, sector_count: %d}",
		uint64(p.SectorSize), p.ChallengeCount, p.SectorCount)
}

func (p PoStProof) paramsFileStem() string {
	return fmt.Sprintf("v28-proof-of-spacetime-fallback-%s-%x", p.Tree, sha256.Sum256([]byte(p.paramsIdentifier())))
}

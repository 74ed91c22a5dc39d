package fallback

import (
	"fmt"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/poseidon"
)

// CheckError is a vanilla proof that fails the check: the sector it belongs
// to, its block in the partition, the inclusion proof (−1 for the sector as a
// whole) and what is wrong.
type CheckError struct {
	SectorID uint64
	Block    int // position in the partition (for Winning, the challenge)
	Proof    int // inclusion proof within the block, −1 for none
	What     string
}

func (e *CheckError) Error() string {
	if e.Proof < 0 {
		return fmt.Sprintf("fallback: vanilla proof of sector %d (block %d): %s", e.SectorID, e.Block, e.What)
	}
	return fmt.Sprintf("fallback: vanilla proof of sector %d (block %d), inclusion proof %d: %s", e.SectorID, e.Block, e.Proof, e.What)
}

// Partition is one circuit's vanilla input: a public sector and a sector
// proof per circuit block (SectorCount of each), a short Window partition
// already padded by repeating its last sector, a Winning proof unrolled into
// 66 one-challenge blocks of its sector. Real is the number of blocks that
// are not padding.
type Partition struct {
	Proof   abi.PoStProof
	Index   int // the partition's index k among the proof's partitions
	Sectors []PublicSector
	Proofs  []SectorProof
	Real    int
}

// NewPartition arranges the vanilla proofs of partition k as the reference's
// single_partition_vanilla_proofs does: for Window the sectors in the order
// given (at most SectorCount, each vanilla proof of exactly one sector, no
// sector twice), padded with copies of the last; for Winning the one
// sector's 66 inclusion proofs as 66 blocks (k must be 0). It checks the
// shape of the input, not the proofs: Check does that.
func NewPartition(p abi.PoStProof, vanillas []*SectorVanilla, k int) (*Partition, error) {
	if p.Name == "" {
		return nil, fmt.Errorf("fallback: no PoSt proof type")
	}
	if len(vanillas) == 0 {
		return nil, fmt.Errorf("fallback: no vanilla proofs: a %s partition needs 1 to %d", p.Name, p.SectorCount)
	}
	for i, v := range vanillas {
		if len(v.Sectors) != 1 {
			return nil, fmt.Errorf("fallback: vanilla proof %d (sector %d) holds %d sector proofs, want 1 (one generate_single_vanilla_proof output per sector)", i, v.SectorID, len(v.Sectors))
		}
	}
	pt := &Partition{Proof: p, Index: k}
	switch p.Kind {
	case abi.Winning:
		if k != 0 {
			return nil, fmt.Errorf("fallback: %s has one partition, not %d", p.Name, k+1)
		}
		if len(vanillas) != abi.WinningSectors {
			return nil, fmt.Errorf("fallback: %s proves one sector, got %d vanilla proofs", p.Name, len(vanillas))
		}
		v := vanillas[0]
		sp := &v.Sectors[0]
		if len(sp.InclusionProofs) != p.VanillaChallenges {
			return nil, fmt.Errorf("fallback: vanilla proof of sector %d has %d inclusion proofs, %s wants %d", v.SectorID, len(sp.InclusionProofs), p.Name, p.VanillaChallenges)
		}
		for i := range sp.InclusionProofs {
			pt.Sectors = append(pt.Sectors, PublicSector{ID: v.SectorID, CommR: v.CommR})
			pt.Proofs = append(pt.Proofs, SectorProof{InclusionProofs: sp.InclusionProofs[i : i+1], CommC: sp.CommC, CommRLast: sp.CommRLast})
		}
		pt.Real = len(pt.Proofs)
	case abi.Window:
		if k < 0 {
			return nil, fmt.Errorf("fallback: partition %d", k)
		}
		if len(vanillas) > p.SectorCount {
			return nil, fmt.Errorf("fallback: %d vanilla proofs, a %s partition holds at most %d sectors: split them into partitions", len(vanillas), p.Name, p.SectorCount)
		}
		seen := make(map[uint64]int, len(vanillas))
		for i, v := range vanillas {
			if j, dup := seen[v.SectorID]; dup {
				return nil, fmt.Errorf("fallback: vanilla proofs %d and %d are both of sector %d", j, i, v.SectorID)
			}
			seen[v.SectorID] = i
			pt.Sectors = append(pt.Sectors, PublicSector{ID: v.SectorID, CommR: v.CommR})
			pt.Proofs = append(pt.Proofs, v.Sectors[0])
		}
		pt.Real = len(pt.Proofs)
		for len(pt.Proofs) < p.SectorCount {
			pt.Sectors = append(pt.Sectors, pt.Sectors[pt.Real-1])
			pt.Proofs = append(pt.Proofs, pt.Proofs[pt.Real-1])
		}
	default:
		return nil, fmt.Errorf("fallback: %s: unknown PoSt kind %v", p.Name, p.Kind)
	}
	return pt, nil
}

// Check runs the vanilla verification the reference runs before proving
// (FallbackPoSt::verify), on every real block: comm_r = Poseidon2(comm_c,
// comm_r_last), the challenge count, every inclusion proof's shape against
// the tree, its root equal to comm_r_last, its path hashing to that root and
// its leaf index equal to the challenge derived from r. It is stricter than
// the reference in two places that would only make an invalid proof: every
// root must equal the sector proof's comm_r_last (the circuit's root), and
// for Winning every one of the 66 challenges is checked, not only the first.
// Groups of blocks are checked in parallel, the paths of a group hashed
// together (merkle.PoseidonRoots); the error is that of the first failing
// block.
func (pt *Partition) Check(r Randomness) error {
	if err := CheckRandomness(r); err != nil {
		return err
	}
	errs := make([]error, pt.Real)
	g := checkGroup(pt.Real, pt.Proof.ChallengeCount)
	par.Each((pt.Real+g-1)/g, 0, func(q int) {
		lo := q * g
		pt.checkBlocks(r, lo, min(lo+g, pt.Real), errs)
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkGroup is how many blocks (of challenges paths each) Check hashes the
// paths of together: about 128 paths, enough for the vector kernels, but at
// least four groups a core, so that a small partition (Winning's 66 one-path
// blocks) still spreads over the cores.
func checkGroup(blocks, challenges int) int {
	g := max(1, 128/max(1, challenges))
	return max(1, min(g, blocks/(4*runtime.GOMAXPROCS(0))))
}

// checkBlocks checks blocks [lo, hi) into errs[lo:hi]: each block's
// commitments, shapes and indices, then the paths of the blocks that pass,
// hashed together.
func (pt *Partition) checkBlocks(r Randomness, lo, hi int, errs []error) {
	var (
		ops []merkle.Opening
		at  [][2]int // block, inclusion proof of each opening
	)
	for i := lo; i < hi; i++ {
		if errs[i] = pt.checkBlock(r, i); errs[i] != nil {
			continue
		}
		for j := range pt.Proofs[i].InclusionProofs {
			m := &pt.Proofs[i].InclusionProofs[j]
			ops, at = append(ops, merkle.Opening{Leaf: m.Leaf, Path: merklePath(m)}), append(at, [2]int{i, j})
		}
	}
	roots, perrs := merkle.PoseidonRoots(ops)
	for q, ij := range at {
		i, j := ij[0], ij[1]
		switch m := &pt.Proofs[i].InclusionProofs[j]; {
		case errs[i] != nil:
		case perrs != nil && perrs[q] != nil:
			errs[i] = pt.fail(i, j, "%v", perrs[q])
		case roots[q] != m.Root:
			errs[i] = pt.fail(i, j, "the path of leaf %d hashes to %x, not to its root %x: a sibling or the leaf is wrong", ops[q].Path.LeafIndex(), roots[q], m.Root)
		}
	}
}

// fail is a *CheckError of block i, inclusion proof j (−1: the block).
func (pt *Partition) fail(i, j int, format string, args ...any) error {
	return &CheckError{SectorID: pt.Sectors[i].ID, Block: i, Proof: j, What: fmt.Sprintf(format, args...)}
}

// PublicSectors returns the sectors as the verifier lists them (the input of
// PublicInputs): the partition's real sectors for Window, the one sector for
// Winning (whose 66 blocks are copies of it).
func (pt *Partition) PublicSectors() []PublicSector {
	if pt.Proof.Kind == abi.Winning {
		return pt.Sectors[:abi.WinningSectors]
	}
	return pt.Sectors[:pt.Real]
}

// sectorIndex is the block's sector_index in the challenge derivation.
func (pt *Partition) sectorIndex(i int) int { return pt.Index*pt.Proof.SectorCount + i }

// checkBlock checks block i but for its paths' hashes: comm_r, the count of
// inclusion proofs, their shapes, roots and leaf indices.
func (pt *Partition) checkBlock(r Randomness, i int) error {
	p, pub, sp := pt.Proof, pt.Sectors[i], &pt.Proofs[i]
	commC, err1 := fr.LittleEndian.Element(&sp.CommC)
	commRLast, err2 := fr.LittleEndian.Element(&sp.CommRLast)
	if err1 != nil || err2 != nil {
		return pt.fail(i, -1, "comm_c or comm_r_last is not a field element")
	}
	h := poseidon.Hash2(commC, commRLast)
	if got := nodeOf(&h); got != pub.CommR {
		return pt.fail(i, -1, "Poseidon2(comm_c, comm_r_last) = %x, comm_r is %x: comm_c, comm_r_last or comm_r is wrong", got, pub.CommR)
	}
	if len(sp.InclusionProofs) != p.ChallengeCount {
		return pt.fail(i, -1, "%d inclusion proofs, %s wants %d", len(sp.InclusionProofs), p.Name, p.ChallengeCount)
	}
	chs := CircuitChallenges(p, r, pub.ID, pt.sectorIndex(i))
	for j := range sp.InclusionProofs {
		m := &sp.InclusionProofs[j]
		if err := checkShape(p, m); err != nil {
			return pt.fail(i, j, "%v", err)
		}
		if m.Root != sp.CommRLast {
			return pt.fail(i, j, "root %x is not the sector's comm_r_last %x", m.Root, sp.CommRLast)
		}
		if got := merklePath(m).LeafIndex(); got != chs[j] {
			return pt.fail(i, j, "opens leaf %d, the challenge is leaf %d (another randomness, sector or partition?)", got, chs[j])
		}
	}
	return nil
}

// checkShape checks that m has the variant and level arities of p's tree R-last.
func checkShape(p abi.PoStProof, m *MerkleProof) error {
	return m.CheckShape(p.Tree, p.TreeRLevels())
}

// merklePath converts m's levels to a merkle.Path (shape already checked).
func merklePath(m *MerkleProof) merkle.Path { return m.Path() }

func nodeOf(e *fr.Element) Domain {
	var d Domain
	fr.LittleEndian.PutElement(&d, *e)
	return d
}

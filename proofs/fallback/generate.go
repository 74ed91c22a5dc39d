package fallback

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/poseidon"
)

// SectorTree is what a vanilla proof reads of a sealed sector: comm_c, and
// tree R-last (the replica's tree), by its root, leaves and paths.
type SectorTree struct {
	CommC     Domain
	CommRLast Domain
	Leaf      func(i uint64) Domain
	Path      func(i uint64) (merkle.Path, error)
}

// CommR returns Poseidon2(comm_c, comm_r_last), or an error when either is
// not a field element.
func (t *SectorTree) CommR() (Domain, error) {
	c, err1 := fr.LittleEndian.Element(&t.CommC)
	r, err2 := fr.LittleEndian.Element(&t.CommRLast)
	if err1 != nil || err2 != nil {
		return Domain{}, fmt.Errorf("fallback: comm_c or comm_r_last is not a field element")
	}
	h := poseidon.Hash2(c, r)
	return nodeOf(&h), nil
}

// GenerateSectorVanilla is generate_single_vanilla_proof: the vanilla proof
// of one sector for the given challenges (VanillaChallenges), one inclusion
// proof of tree R-last per challenge, each checked as the reference checks
// it (the path proves the challenged leaf and hashes to comm_r_last).
func GenerateSectorVanilla(p abi.PoStProof, sectorID uint64, t *SectorTree, challenges []uint64) (*SectorVanilla, error) {
	commR, err := t.CommR()
	if err != nil {
		return nil, err
	}
	sp := SectorProof{CommC: t.CommC, CommRLast: t.CommRLast, InclusionProofs: make([]MerkleProof, len(challenges))}
	for j, c := range challenges {
		if c >= p.Nodes {
			return nil, fmt.Errorf("fallback: challenge %d is leaf %d, %s sectors have %d", j, c, p.Name, p.Nodes)
		}
		path, err := t.Path(c)
		if err != nil {
			return nil, fmt.Errorf("fallback: sector %d leaf %d: %w", sectorID, c, err)
		}
		leaf := t.Leaf(c)
		root, err := merkle.PoseidonRoot(leaf, path)
		if err != nil || root != t.CommRLast || path.LeafIndex() != c {
			return nil, fmt.Errorf("fallback: generated vanilla proof for sector %d is invalid (leaf %d): the tree does not match comm_r_last", sectorID, c)
		}
		m, err := splitPath(p, path)
		if err != nil {
			return nil, err
		}
		m.Leaf, m.Root = leaf, t.CommRLast
		sp.InclusionProofs[j] = m
	}
	return &SectorVanilla{SectorID: sectorID, CommR: commR, Sectors: []SectorProof{sp}}, nil
}

// splitPath arranges a path as p's MerkleProof variant.
func splitPath(p abi.PoStProof, path merkle.Path) (MerkleProof, error) {
	ar := pathArities(p)
	if len(path) != len(ar) {
		return MerkleProof{}, fmt.Errorf("fallback: a path of %d levels, %s's tree has %d", len(path), p.Name, len(ar))
	}
	el := make([]PathElement, len(path))
	for i, l := range path {
		el[i] = PathElement{Hashes: l.Siblings, Index: uint64(l.Index)}
	}
	var m MerkleProof
	n := len(el)
	switch {
	case p.Tree.Top > 0:
		m.Variant, m.Base, m.Sub, m.Top = Top, el[:n-2], el[n-2:n-1], el[n-1:]
	case p.Tree.Sub > 0:
		m.Variant, m.Base, m.Sub = Sub, el[:n-1], el[n-1:]
	default:
		m.Variant, m.Base = Single, el
	}
	return m, nil
}

package vanilla

import (
	"fmt"
	"strconv"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/merkle"
)

// Domain is one 32-byte tree node or commitment: a Poseidon domain element
// (the little-endian canonical encoding of an Fr) or a SHA-256 tree D node
// (trimmed to 254 bits, so canonical too).
type Domain = [32]byte

// PathElement is one level of an inclusion path as rust-fil-proofs stores it:
// the arity−1 sibling hashes in child order and the position (0..arity−1) of
// the path's node among the level's children.
type PathElement struct {
	Hashes []Domain
	Index  uint64
}

// ProofVariant is the MerkleProof enum variant: which levels a proof holds.
type ProofVariant uint32

// The MerkleProof variants (storage-proofs-core merkle/proof.rs), by tree
// shape: 8-0-0 trees and tree D give Single, 8-8-0 Sub, 8-8-2 Top.
const (
	Single ProofVariant = 0 // root, leaf, path
	Sub    ProofVariant = 1 // base_path, sub_path, root, leaf
	Top    ProofVariant = 2 // base_path, sub_path, top_path, root, leaf
)

// String returns the variant's Rust name.
func (v ProofVariant) String() string {
	switch v {
	case Single:
		return "Single"
	case Sub:
		return "Sub"
	case Top:
		return "Top"
	}
	return "ProofVariant(" + strconv.FormatUint(uint64(v), 10) + ")"
}

// MerkleProof is an inclusion proof of one leaf. Base holds the base-tree
// levels (Single's whole path); Sub and Top hold the sub and top levels of
// the Sub and Top variants (one element each).
type MerkleProof struct {
	Variant    ProofVariant
	Base       []PathElement
	Sub, Top   []PathElement
	Root, Leaf Domain
}

// Levels returns the proof's path, leaf to root: base, then sub, then top.
func (m *MerkleProof) Levels() []PathElement {
	out := make([]PathElement, 0, len(m.Base)+len(m.Sub)+len(m.Top))
	out = append(out, m.Base...)
	out = append(out, m.Sub...)
	return append(out, m.Top...)
}

// LeafIndex returns the leaf position the path proves: Σ index_l ·
// Π_{k<l} arity_k.
func (m *MerkleProof) LeafIndex() uint64 {
	var idx, mul uint64 = 0, 1
	for _, l := range m.Levels() {
		idx += l.Index * mul
		mul *= uint64(len(l.Hashes) + 1)
	}
	return idx
}

// CheckShape checks that m is a proof of a tree of the given shape with
// levels levels in all: the variant the shape gives (Single for base-only
// trees, Sub with a sub-tree, Top with a top tree), the number of base, sub
// and top levels, and each level's siblings and index within its arity.
func (m *MerkleProof) CheckShape(tree abi.TreeShape, levels int) error {
	want := Single
	switch {
	case tree.Top > 0:
		want = Top
	case tree.Sub > 0:
		want = Sub
	}
	if m.Variant != want {
		return fmt.Errorf("a %v MerkleProof, a %d-%d-%d tree gives %v proofs", m.Variant, tree.Base, tree.Sub, tree.Top, want)
	}
	base := levels - min(1, tree.Sub) - min(1, tree.Top)
	for _, l := range []struct {
		name  string
		path  []PathElement
		n     int
		arity int
	}{{"base", m.Base, base, tree.Base}, {"sub", m.Sub, min(1, tree.Sub), tree.Sub}, {"top", m.Top, min(1, tree.Top), tree.Top}} {
		if len(l.path) != l.n {
			return fmt.Errorf("%d %s levels, the tree has %d", len(l.path), l.name, l.n)
		}
		for k, e := range l.path {
			if len(e.Hashes) != l.arity-1 || e.Index >= uint64(l.arity) {
				return fmt.Errorf("%s level %d: %d siblings and index %d, the level has arity %d", l.name, k, len(e.Hashes), e.Index, l.arity)
			}
		}
	}
	return nil
}

// Path converts m's levels to a merkle.Path, leaf to root.
func (m *MerkleProof) Path() merkle.Path {
	lv := m.Levels()
	p := make(merkle.Path, len(lv))
	for i, e := range lv {
		p[i] = merkle.Level{Siblings: e.Hashes, Index: int(e.Index)}
	}
	return p
}

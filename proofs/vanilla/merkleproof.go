package vanilla

import "strconv"

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

// Package merkle builds Filecoin's PoRep Merkle trees and their inclusion
// paths: tree D, a binary SHA-256 tree whose nodes are trimmed to 254 bits, and
// the Poseidon trees C and R-last with merkletree's base/sub/top shapes. Paths run
// leaf to root; each level holds the arity−1 siblings in order and the index of
// the current node among its siblings, as rust-fil-proofs' InclusionPath does.
// Nodes are 32-byte little-endian field elements throughout.
package merkle

// Node is one tree node: 32 bytes, little-endian.
type Node = [32]byte

// Level is one step of an inclusion path.
type Level struct {
	Siblings []Node // the other arity−1 children, in child order
	Index    int    // position of the path's node among the arity children
}

// Path is an inclusion path, leaf to root.
type Path []Level

// LeafIndex returns Σ index_l · Π_{k<l} arity_k, the leaf index the path proves.
func (p Path) LeafIndex() uint64 {
	var idx, mul uint64 = 0, 1
	for _, l := range p {
		idx += uint64(l.Index) * mul
		mul *= uint64(len(l.Siblings) + 1)
	}
	return idx
}

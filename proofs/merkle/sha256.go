package merkle

import (
	"crypto/sha256"
	"fmt"
	"math/bits"
)

// TrimmedSHA256 hashes the concatenation of its arguments and clears the two top
// bits of the last byte (fr32 trimming), as filecoin-hashers' Sha256Domain does.
func TrimmedSHA256(parts ...[]byte) Node {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	var out Node
	h.Sum(out[:0])
	out[31] &= 0x3f
	return out
}

// hashPair is tree D's node hash: SHA-256(left ‖ right), trimmed.
func hashPair(l, r *Node) Node {
	var buf [64]byte
	copy(buf[:32], l[:])
	copy(buf[32:], r[:])
	out := sha256.Sum256(buf[:])
	out[31] &= 0x3f
	return out
}

// SHA256Tree is tree D: a binary SHA-256 tree over the raw data nodes.
type SHA256Tree struct {
	levels [][]Node // levels[0] = leaves, last = [root]
}

// BuildSHA256 builds the tree over leaves (a power of two, at least 1).
func BuildSHA256(leaves []Node) (*SHA256Tree, error) {
	n := len(leaves)
	if n == 0 || n&(n-1) != 0 {
		return nil, fmt.Errorf("merkle: %d leaves, want a power of two", n)
	}
	t := &SHA256Tree{levels: [][]Node{leaves}}
	for cur := leaves; len(cur) > 1; {
		next := make([]Node, len(cur)/2)
		for i := range next {
			next[i] = hashPair(&cur[2*i], &cur[2*i+1])
		}
		t.levels = append(t.levels, next)
		cur = next
	}
	return t, nil
}

// Root is comm_d.
func (t *SHA256Tree) Root() Node { return t.levels[len(t.levels)-1][0] }

// Leaves returns the number of leaves.
func (t *SHA256Tree) Leaves() int { return len(t.levels[0]) }

// Path returns the inclusion path of leaf i.
func (t *SHA256Tree) Path(i int) (Path, error) {
	if i < 0 || i >= t.Leaves() {
		return nil, fmt.Errorf("merkle: leaf %d of %d", i, t.Leaves())
	}
	p := make(Path, 0, bits.Len(uint(t.Leaves()))-1)
	for _, lv := range t.levels[:len(t.levels)-1] {
		p = append(p, Level{Siblings: []Node{lv[i^1]}, Index: i & 1})
		i >>= 1
	}
	return p, nil
}

// SHA256Root recomputes the root from a leaf and its path; paths of other
// arities than 2 are an error.
func SHA256Root(leaf Node, p Path) (Node, error) {
	cur := leaf
	for k, l := range p {
		if len(l.Siblings) != 1 || l.Index > 1 || l.Index < 0 {
			return Node{}, fmt.Errorf("merkle: level %d is not a binary step", k)
		}
		if l.Index == 0 {
			cur = hashPair(&cur, &l.Siblings[0])
		} else {
			cur = hashPair(&l.Siblings[0], &cur)
		}
	}
	return cur, nil
}

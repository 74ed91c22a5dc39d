package merkle

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// SparsePoseidonTree is a Poseidon tree (C or R-last) of which only some
// leaves are known: every node on a known leaf's path to the root is hashed
// from its children, and every other node is whatever Fill says. It has the
// roots and paths of a real tree whose unknown leaves nobody can name, which
// is all a vanilla proof shows of a tree. For test fixtures at sector sizes
// too large to build (a 32GiB tree C has 2^30 leaves): a tree built this way
// after its challenges were known is worthless as a commitment.
type SparsePoseidonTree struct {
	arities []int                   // per level, leaf to root
	levels  []map[uint64]fr.Element // levels[0]: the known leaves; last: {0: root}
	fill    func(level int, index uint64) fr.Element
}

// Fill gives the value of a node of a sparse tree that no known leaf's path
// goes through: level 0 is the leaves. It must be a deterministic function of
// its arguments.
type Fill func(level int, index uint64) fr.Element

// Arities returns the arity of each level of an inclusion path in a tree of
// shape s over n leaves, leaf to root: the base levels, then sub and top.
func (s Shape) Arities(n uint64) ([]int, error) {
	if s.Base != 2 && s.Base != 8 || (s.Top > 0 && s.Sub == 0) {
		return nil, fmt.Errorf("merkle: bad shape %v", s)
	}
	nt := uint64(s.BaseTrees())
	per := n / nt
	if n%nt != 0 || per < uint64(s.Base) || !isPow64(per, uint64(s.Base)) {
		return nil, fmt.Errorf("merkle: %d leaves do not fill %d base trees of arity %d", n, nt, s.Base)
	}
	var a []int
	for l := per; l > 1; l /= uint64(s.Base) {
		a = append(a, s.Base)
	}
	for _, x := range []int{s.Sub, s.Top} {
		switch {
		case x == 0:
		case x != 2 && x != 8:
			return nil, fmt.Errorf("merkle: arity %d not supported (2 or 8)", x)
		default:
			a = append(a, x)
		}
	}
	return a, nil
}

func isPow64(n, base uint64) bool {
	for n > 1 && n%base == 0 {
		n /= base
	}
	return n == 1
}

// BuildSparsePoseidon builds the sparse tree of shape s over n leaves of which
// known holds the known ones (index → value), the rest of the tree from fill.
func BuildSparsePoseidon(s Shape, n uint64, known map[uint64]fr.Element, fill Fill) (*SparsePoseidonTree, error) {
	arities, err := s.Arities(n)
	if err != nil {
		return nil, err
	}
	if len(known) == 0 {
		return nil, fmt.Errorf("merkle: a sparse tree needs at least one known leaf")
	}
	t := &SparsePoseidonTree{arities: arities, fill: fill, levels: make([]map[uint64]fr.Element, 1, len(arities)+1)}
	t.levels[0] = make(map[uint64]fr.Element, len(known))
	for i, v := range known {
		if i >= n {
			return nil, fmt.Errorf("merkle: known leaf %d of a tree of %d leaves", i, n)
		}
		t.levels[0][i] = v
	}
	in := make([]fr.Element, 8)
	for h, a := range arities {
		cur := t.levels[h]
		parents := make([]uint64, 0, len(cur))
		for i := range cur {
			parents = append(parents, i/uint64(a))
		}
		slices.Sort(parents)
		parents = slices.Compact(parents)
		next := make(map[uint64]fr.Element, len(parents))
		for _, p := range parents {
			for c := range a {
				in[c] = t.node(h, p*uint64(a)+uint64(c))
			}
			next[p] = hashChildren(a, in[:a])
		}
		t.levels = append(t.levels, next)
	}
	if _, ok := t.levels[len(arities)][0]; !ok || len(t.levels[len(arities)]) != 1 {
		return nil, fmt.Errorf("merkle: sparse tree of shape %v over %d leaves did not end in one root", s, n)
	}
	return t, nil
}

// node is the value of node index of level h: computed if on a known path,
// else the fill.
func (t *SparsePoseidonTree) node(h int, index uint64) fr.Element {
	if v, ok := t.levels[h][index]; ok {
		return v
	}
	return t.fill(h, index)
}

// Root is the tree's root.
func (t *SparsePoseidonTree) Root() fr.Element { return t.levels[len(t.levels)-1][0] }

// Leaf returns leaf i, known or filled.
func (t *SparsePoseidonTree) Leaf(i uint64) fr.Element { return t.node(0, i) }

// Path returns the inclusion path of known leaf i: base levels, then sub and
// top.
func (t *SparsePoseidonTree) Path(i uint64) (Path, error) {
	if _, ok := t.levels[0][i]; !ok {
		return nil, fmt.Errorf("merkle: leaf %d is not a known leaf of the sparse tree", i)
	}
	return pathOf(t.arities, i, t.node), nil
}

// pathOf is the inclusion path of leaf i in a tree of the given arities (leaf
// to root) whose node index of level h is node(h, index).
func pathOf(arities []int, i uint64, node func(h int, index uint64) fr.Element) Path {
	p := make(Path, len(arities))
	for h, a := range arities {
		g, pos := i/uint64(a), int(i%uint64(a))
		l := Level{Index: pos, Siblings: make([]Node, 0, a-1)}
		for c := range a {
			if c != pos {
				v := node(h, g*uint64(a)+uint64(c))
				l.Siblings = append(l.Siblings, nodeOf(&v))
			}
		}
		p[h] = l
		i = g
	}
	return p
}

// PeriodicSHA256Tree is tree D over a sector whose data is one block of nodes
// repeated: the nodes above the block's root are all equal level by level, so
// the tree of 2^30 leaves costs a block's tree and 30 hashes, and its root does
// not depend on which leaves are later opened. For test fixtures.
type PeriodicSHA256Tree struct {
	block *SHA256Tree
	above []Node // above[k]: the node of level log2(len(block))+k, every one alike
	n     uint64
}

// BuildPeriodicSHA256 builds tree D over n leaves (a power of two) that repeat
// block (a power of two, at most n).
func BuildPeriodicSHA256(block []Node, n uint64) (*PeriodicSHA256Tree, error) {
	b := uint64(len(block))
	if n == 0 || n&(n-1) != 0 || b == 0 || b&(b-1) != 0 || b > n {
		return nil, fmt.Errorf("merkle: a periodic tree of %d leaves over a block of %d: want powers of two, the block no larger", n, b)
	}
	bt, err := BuildSHA256(block)
	if err != nil {
		return nil, err
	}
	t := &PeriodicSHA256Tree{block: bt, n: n, above: []Node{bt.Root()}}
	for k := bits.Len64(b); k < bits.Len64(n); k++ {
		z := &t.above[len(t.above)-1]
		t.above = append(t.above, hashPair(z, z))
	}
	return t, nil
}

// Root is comm_d.
func (t *PeriodicSHA256Tree) Root() Node { return t.above[len(t.above)-1] }

// Leaf returns leaf i.
func (t *PeriodicSHA256Tree) Leaf(i uint64) Node {
	return t.block.levels[0][i%uint64(t.block.Leaves())]
}

// Path returns the inclusion path of leaf i.
func (t *PeriodicSHA256Tree) Path(i uint64) (Path, error) {
	if i >= t.n {
		return nil, fmt.Errorf("merkle: leaf %d of %d", i, t.n)
	}
	b := uint64(t.block.Leaves())
	p, err := t.block.Path(int(i % b))
	if err != nil {
		return nil, err
	}
	i /= b
	for _, z := range t.above[:len(t.above)-1] {
		p = append(p, Level{Siblings: []Node{z}, Index: int(i & 1)})
		i >>= 1
	}
	return p, nil
}

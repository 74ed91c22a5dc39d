package merkle

import (
	"fmt"
	"sort"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/par"
)

// A Run is a block of leaves (or of a level's nodes) repeated Count times.
type Run struct {
	Block []fr.Element
	Count uint64
}

// PeriodicPoseidonTree is a Poseidon tree (shape base/sub/top, as
// PoseidonTree) over leaves given as runs: a few blocks, each repeated. Every
// leaf exists and every node is hashed from its children, so it is a real
// tree of its leaves, but a level's nodes are kept as runs too, and a tree of
// 2^30 leaves in 1024 runs of one 512-leaf block costs about 1024 blocks'
// trees. For test fixtures of sectors too large to hold (a 32GiB sector key
// or replica whose content repeats).
type PeriodicPoseidonTree struct {
	arities []int
	n       uint64
	levels  [][]Run    // levels[0]: the leaves; last: the root
	starts  [][]uint64 // starts[h][r]: index of run r's first node in level h
}

// maxExpanded bounds the nodes a level may hold outside of repeating runs
// (where a run's block is shorter than a parent's children and its count does
// not divide among them).
const maxExpanded = 1 << 22

// BuildPeriodicPoseidon builds the tree of shape s over the leaves runs
// spell, in order.
func BuildPeriodicPoseidon(s Shape, runs []Run) (*PeriodicPoseidonTree, error) {
	var n uint64
	for i, r := range runs {
		if len(r.Block) == 0 || r.Count == 0 {
			return nil, fmt.Errorf("merkle: run %d of a periodic tree is empty", i)
		}
		n += uint64(len(r.Block)) * r.Count
	}
	arities, err := s.Arities(n)
	if err != nil {
		return nil, err
	}
	t := &PeriodicPoseidonTree{arities: arities, n: n}
	t.push(runs)
	for _, a := range arities {
		next, err := hashRuns(t.levels[len(t.levels)-1], a)
		if err != nil {
			return nil, err
		}
		t.push(next)
	}
	if top := t.levels[len(t.levels)-1]; len(top) != 1 || len(top[0].Block) != 1 || top[0].Count != 1 {
		return nil, fmt.Errorf("merkle: periodic tree of shape %v over %d leaves did not end in one root", s, n)
	}
	return t, nil
}

func (t *PeriodicPoseidonTree) push(runs []Run) {
	starts := make([]uint64, len(runs))
	var at uint64
	for i, r := range runs {
		starts[i] = at
		at += uint64(len(r.Block)) * r.Count
	}
	t.levels = append(t.levels, runs)
	t.starts = append(t.starts, starts)
}

// hashRuns hashes a level of runs into its parents of arity a: a run whose
// block divides into groups of a keeps its count; a block shorter than a whose
// repeats fill whole groups becomes one parent repeated; anything else is
// spelled out and hashed with its neighbours.
func hashRuns(level []Run, a int) ([]Run, error) {
	var out []Run
	var pend []fr.Element // spelled-out nodes, starting at a group boundary
	flush := func() {
		if len(pend) > 0 && len(pend)%a == 0 {
			out = append(out, Run{Block: hashGroups(pend, a), Count: 1})
			pend = nil
		}
	}
	for _, r := range level {
		b := uint64(len(r.Block))
		switch {
		case len(pend) == 0 && b%uint64(a) == 0:
			out = append(out, Run{Block: hashGroups(r.Block, a), Count: r.Count})
			continue
		case len(pend) == 0 && uint64(a)%b == 0 && r.Count%(uint64(a)/b) == 0:
			g := make([]fr.Element, 0, a)
			for len(g) < a {
				g = append(g, r.Block...)
			}
			out = append(out, Run{Block: []fr.Element{hashChildren(a, g)}, Count: r.Count / (uint64(a) / b)})
			continue
		}
		if uint64(len(pend))+b*r.Count > maxExpanded {
			return nil, fmt.Errorf("merkle: a periodic tree's runs (block %d × %d) do not align with arity %d", b, r.Count, a)
		}
		for range r.Count {
			pend = append(pend, r.Block...)
		}
		flush()
	}
	if len(pend) != 0 {
		return nil, fmt.Errorf("merkle: %d nodes left over at arity %d", len(pend), a)
	}
	return out, nil
}

// hashGroups hashes nodes in groups of a, on all cores.
func hashGroups(nodes []fr.Element, a int) []fr.Element {
	out := make([]fr.Element, len(nodes)/a)
	par.Range(len(out), 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = hashChildren(a, nodes[i*a:(i+1)*a])
		}
	})
	return out
}

// node returns node i of level h.
func (t *PeriodicPoseidonTree) node(h int, i uint64) fr.Element {
	st := t.starts[h]
	r := sort.Search(len(st), func(k int) bool { return st[k] > i }) - 1
	b := t.levels[h][r].Block
	return b[(i-st[r])%uint64(len(b))]
}

// Root is the tree's root.
func (t *PeriodicPoseidonTree) Root() fr.Element { return t.levels[len(t.levels)-1][0].Block[0] }

// Leaves returns the number of leaves.
func (t *PeriodicPoseidonTree) Leaves() uint64 { return t.n }

// Leaf returns leaf i (i < Leaves()).
func (t *PeriodicPoseidonTree) Leaf(i uint64) fr.Element { return t.node(0, i) }

// Path returns the inclusion path of leaf i: base levels, then sub and top.
func (t *PeriodicPoseidonTree) Path(i uint64) (Path, error) {
	if i >= t.n {
		return nil, fmt.Errorf("merkle: leaf %d of %d", i, t.n)
	}
	return pathOf(t.arities, i, t.node), nil
}

// Node returns node i of level h of tree D (level 0: the leaves), h at most
// log2 of its leaves.
func (t *PeriodicSHA256Tree) Node(h int, i uint64) (Node, error) {
	bl := len(t.block.levels) - 1 // the block tree's height
	if h < 0 || h >= bl+len(t.above) || i >= t.n>>uint(h) {
		return Node{}, fmt.Errorf("merkle: no node %d at level %d of a tree of %d leaves", i, h, t.n)
	}
	if h >= bl {
		return t.above[h-bl], nil
	}
	lv := t.block.levels[h]
	return lv[i%uint64(len(lv))], nil
}

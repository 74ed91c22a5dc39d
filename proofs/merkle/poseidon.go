package merkle

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/poseidon"
)

// Shape is an LCTree shape: base arity, then the sub and top arities (0 when absent).
type Shape struct{ Base, Sub, Top int }

// BaseTrees is the number of base trees: 1, Sub, or Sub·Top.
func (s Shape) BaseTrees() int {
	switch {
	case s.Top > 0:
		return s.Sub * s.Top
	case s.Sub > 0:
		return s.Sub
	}
	return 1
}

// PoseidonTree is tree C or tree R-last: base trees of arity Base over
// contiguous ranges of the leaves (no leaf hashing), sub and top levels over
// the base roots, every node a Poseidon MerkleTree hash of its children.
type PoseidonTree struct {
	shape Shape
	base  [][][]fr.Element // base[t][level][i]; level 0 = leaves
	sub   []fr.Element     // sub roots (Top > 0) or nil
	root  fr.Element
}

// hashChildren is the node hash: Poseidon MerkleTree of arity 2 or 8.
func hashChildren(arity int, in []fr.Element) fr.Element {
	if arity == 2 {
		return poseidon.Hash2(in[0], in[1])
	}
	return poseidon.Hash8((*[8]fr.Element)(in))
}

func nodeOf(e *fr.Element) Node {
	var n Node
	fr.LittleEndian.PutElement(&n, *e)
	return n
}

func isPow(n, base int) bool {
	for n > 1 && n%base == 0 {
		n /= base
	}
	return n == 1
}

// BuildPoseidon builds the tree over leaves, hashing levels on all cores.
func BuildPoseidon(leaves []fr.Element, s Shape) (*PoseidonTree, error) {
	for _, a := range []int{s.Base, s.Sub, s.Top} {
		if a != 0 && a != 2 && a != 8 {
			return nil, fmt.Errorf("merkle: arity %d not supported (2 or 8)", a)
		}
	}
	if s.Base == 0 || (s.Top > 0 && s.Sub == 0) {
		return nil, fmt.Errorf("merkle: bad shape %v", s)
	}
	nt := s.BaseTrees()
	if len(leaves)%nt != 0 || !isPow(len(leaves)/nt, s.Base) || len(leaves)/nt < s.Base {
		return nil, fmt.Errorf("merkle: %d leaves do not fill %d base trees of arity %d", len(leaves), nt, s.Base)
	}
	per := len(leaves) / nt
	t := &PoseidonTree{shape: s, base: make([][][]fr.Element, nt)}
	roots := make([]fr.Element, nt)
	for k := range nt {
		lv := [][]fr.Element{leaves[k*per : (k+1)*per]}
		for cur := lv[0]; len(cur) > 1; {
			next := make([]fr.Element, len(cur)/s.Base)
			par.Range(len(next), 0, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					next[i] = hashChildren(s.Base, cur[i*s.Base:(i+1)*s.Base])
				}
			})
			lv = append(lv, next)
			cur = next
		}
		t.base[k] = lv
		roots[k] = lv[len(lv)-1][0]
	}
	switch {
	case s.Top > 0:
		t.sub = make([]fr.Element, s.Top)
		for i := range t.sub {
			t.sub[i] = hashChildren(s.Sub, roots[i*s.Sub:(i+1)*s.Sub])
		}
		t.root = hashChildren(s.Top, t.sub)
	case s.Sub > 0:
		t.root = hashChildren(s.Sub, roots)
	default:
		t.root = roots[0]
	}
	return t, nil
}

// Root is the tree's root (comm_c or comm_r_last).
func (t *PoseidonTree) Root() fr.Element { return t.root }

// Leaves returns the number of leaves.
func (t *PoseidonTree) Leaves() int { return len(t.base) * len(t.base[0][0]) }

// Leaf returns leaf i.
func (t *PoseidonTree) Leaf(i int) fr.Element {
	per := len(t.base[0][0])
	return t.base[i/per][0][i%per]
}

// Path returns the inclusion path of leaf i: base levels, then sub, then top.
func (t *PoseidonTree) Path(i int) (Path, error) {
	if i < 0 || i >= t.Leaves() {
		return nil, fmt.Errorf("merkle: leaf %d of %d", i, t.Leaves())
	}
	per := len(t.base[0][0])
	k, j := i/per, i%per
	var p Path
	step := func(children []fr.Element, pos int) {
		l := Level{Index: pos}
		for c := range children {
			if c != pos {
				l.Siblings = append(l.Siblings, nodeOf(&children[c]))
			}
		}
		p = append(p, l)
	}
	a := t.shape.Base
	for _, lv := range t.base[k][:len(t.base[k])-1] {
		g := j / a
		step(lv[g*a:(g+1)*a], j%a)
		j = g
	}
	if t.shape.Sub > 0 {
		roots := make([]fr.Element, len(t.base))
		for q := range t.base {
			roots[q] = t.base[q][len(t.base[q])-1][0]
		}
		g := k / t.shape.Sub
		step(roots[g*t.shape.Sub:(g+1)*t.shape.Sub], k%t.shape.Sub)
		if t.shape.Top > 0 {
			step(t.sub, g)
		}
	}
	return p, nil
}

// PoseidonRoot recomputes a root from a leaf and its path. Each level's arity is
// its sibling count + 1. Nodes must be canonical field elements.
func PoseidonRoot(leaf Node, p Path) (Node, error) {
	var cur fr.Element
	if err := checkPoseidonPath(&leaf, p, &cur); err != nil {
		return Node{}, err
	}
	var in [8]fr.Element
	for k := range p {
		a := len(p[k].Siblings) + 1
		fillChildren(in[:a], cur, &p[k])
		cur = hashChildren(a, in[:a])
	}
	return nodeOf(&cur), nil
}

// Levels returns the path length for n leaves in shape s.
func (s Shape) Levels(n int) int {
	per := n / s.BaseTrees()
	l := (bits.Len(uint(per)) - 1) / (bits.Len(uint(s.Base)) - 1)
	if s.Sub > 0 {
		l++
	}
	if s.Top > 0 {
		l++
	}
	return l
}

package merkle

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/poseidon"
)

// rootsChunk is how many paths PoseidonRoots hashes together: vectors of
// this length keep a batch's state (9 × rootsChunk elements) in the core's
// cache.
const rootsChunk = 256

// PathError is the first path PoseidonRoots could not hash.
type PathError struct {
	Path int   // its index in the paths given
	Err  error // why, as PoseidonRoot says it
}

func (e *PathError) Error() string { return fmt.Sprintf("merkle: path %d: %v", e.Path, e.Err) }
func (e *PathError) Unwrap() error { return e.Err }

// PoseidonRoots is PoseidonRoot of (leaves[i], paths[i]) for every i,
// hashing level by level in poseidon.Batch batches: about three times the
// hashes a second on a CPU with AVX-512 IFMA. The paths may differ in
// length and arities. A path PoseidonRoot would refuse (an arity other than
// 2 or 8, an index outside it, a node that is not a canonical field
// element) gets a zero root, and the first of them (by index) is returned
// as a *PathError beside the roots of all the others.
func PoseidonRoots(leaves []Node, paths []Path) ([]Node, error) {
	if len(leaves) != len(paths) {
		return nil, fmt.Errorf("merkle: %d leaves and %d paths", len(leaves), len(paths))
	}
	roots := make([]Node, len(paths))
	var first error
	var b2, b8 *poseidon.Batch
	for lo := 0; lo < len(paths); lo += rootsChunk {
		hi := min(lo+rootsChunk, len(paths))
		if b2 == nil {
			c2, err2 := poseidon.ConstantsFor(2)
			c8, err8 := poseidon.ConstantsFor(8)
			if err2 != nil || err8 != nil {
				return nil, fmt.Errorf("merkle: Poseidon constants: %v %v", err2, err8)
			}
			b2, b8 = poseidon.NewBatch(c2, hi-lo), poseidon.NewBatch(c8, hi-lo)
		}
		err := rootsChunkOf(leaves[lo:hi], paths[lo:hi], roots[lo:hi], b2, b8)
		if pe, ok := err.(*PathError); ok && first == nil {
			pe.Path += lo
			first = pe
		}
	}
	return roots, first
}

// rootsChunkOf computes the roots of one chunk (at most the batches' length).
func rootsChunkOf(leaves []Node, paths []Path, roots []Node, b2, b8 *poseidon.Batch) error {
	n := len(paths)
	cur := make([]fr.Element, n)
	ok := make([]bool, n)
	var first error
	depth := 0
	for i := range paths {
		if err := checkPoseidonPath(&leaves[i], paths[i], &cur[i]); err != nil {
			if first == nil {
				first = &PathError{Path: i, Err: err}
			}
			continue
		}
		ok[i] = true
		depth = max(depth, len(paths[i]))
	}
	at := make([]int, 0, n)
	out := make([]fr.Element, n)
	for k := range depth {
		for _, b := range []*poseidon.Batch{b2, b8} {
			a := b.Arity()
			at = at[:0]
			for i, p := range paths {
				if ok[i] && len(p) > k && len(p[k].Siblings)+1 == a {
					fillChildren(b.Input(len(at)), cur[i], &p[k])
					at = append(at, i)
				}
			}
			if len(at) == 0 {
				continue
			}
			b.Hash(out[:len(at)])
			for q, i := range at {
				cur[i] = out[q]
			}
		}
	}
	for i := range paths {
		if ok[i] {
			roots[i] = nodeOf(&cur[i])
		}
	}
	return first
}

// checkPoseidonPath refuses what PoseidonRoot refuses and sets leaf's element.
func checkPoseidonPath(leaf *Node, p Path, e *fr.Element) error {
	var err error
	if *e, err = fr.LittleEndian.Element(leaf); err != nil {
		return fmt.Errorf("merkle: leaf: %w", err)
	}
	for k, l := range p {
		a := len(l.Siblings) + 1
		if (a != 2 && a != 8) || l.Index < 0 || l.Index >= a {
			return fmt.Errorf("merkle: level %d: arity %d, index %d", k, a, l.Index)
		}
		for s := range l.Siblings {
			if _, err := fr.LittleEndian.Element(&l.Siblings[s]); err != nil {
				return fmt.Errorf("merkle: level %d sibling %d: %w", k, s, err)
			}
		}
	}
	return nil
}

// fillChildren writes the children of one level (cur at l.Index, the
// siblings around it) to in; the siblings were checked canonical.
func fillChildren(in []fr.Element, cur fr.Element, l *Level) {
	s := 0
	for c := range in {
		if c == l.Index {
			in[c] = cur
			continue
		}
		in[c], _ = fr.LittleEndian.Element(&l.Siblings[s])
		s++
	}
}

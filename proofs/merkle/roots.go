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

// Opening is a leaf and its inclusion path.
type Opening struct {
	Leaf Node
	Path Path
}

// PoseidonRoots is PoseidonRoot of every opening, hashing level by level in
// poseidon.Batch batches: about three times the hashes a second on a CPU
// with AVX-512 IFMA. The paths may differ in length and arities. errs is nil
// when every opening was hashed; else errs[i] says why opening i was not
// (what PoseidonRoot says: an arity other than 2 or 8, an index outside it,
// a node that is not a canonical field element) and its root is zero.
func PoseidonRoots(ops []Opening) (roots []Node, errs []error) {
	roots = make([]Node, len(ops))
	var b2, b8 *poseidon.Batch
	for lo := 0; lo < len(ops); lo += rootsChunk {
		hi := min(lo+rootsChunk, len(ops))
		if b2 == nil {
			c2, err2 := poseidon.ConstantsFor(2)
			c8, err8 := poseidon.ConstantsFor(8)
			if err2 != nil || err8 != nil { // never: both arities are built in
				errs = make([]error, len(ops))
				for i := range errs {
					errs[i] = fmt.Errorf("merkle: Poseidon constants: %v %v", err2, err8)
				}
				return roots, errs
			}
			b2, b8 = poseidon.NewBatch(c2, hi-lo), poseidon.NewBatch(c8, hi-lo)
		}
		rootsChunkOf(ops[lo:hi], roots[lo:hi], b2, b8, func(i int, err error) {
			if errs == nil {
				errs = make([]error, len(ops))
			}
			errs[lo+i] = err
		})
	}
	return roots, errs
}

// rootsChunkOf computes the roots of one chunk (at most the batches'
// length), reporting each refused opening to refuse.
func rootsChunkOf(ops []Opening, roots []Node, b2, b8 *poseidon.Batch, refuse func(i int, err error)) {
	n := len(ops)
	cur := make([]fr.Element, n)
	ok := make([]bool, n)
	depth := 0
	for i := range ops {
		if err := checkPoseidonPath(&ops[i].Leaf, ops[i].Path, &cur[i]); err != nil {
			refuse(i, err)
			continue
		}
		ok[i] = true
		depth = max(depth, len(ops[i].Path))
	}
	at := make([]int, 0, n)
	out := make([]fr.Element, n)
	for k := range depth {
		for _, b := range []*poseidon.Batch{b2, b8} {
			a := b.Arity()
			at = at[:0]
			for i := range ops {
				if p := ops[i].Path; ok[i] && len(p) > k && len(p[k].Siblings)+1 == a {
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
	for i := range ops {
		if ok[i] {
			roots[i] = nodeOf(&cur[i])
		}
	}
}

// checkPoseidonPath refuses a path PoseidonRoot cannot hash (an arity other
// than 2 or 8, an index outside it, a node that is not a canonical field
// element) and sets e to the leaf's element.
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

package gadgets

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/poseidon"
	"github.com/filc2/filc2/proofs/r1cs"
)

// HashTrace is one Poseidon gadget call computed ahead of synthesis: the
// children it hashes and the values it allocates (poseidon.Constants.Trace).
type HashTrace struct {
	In    []fr.Element
	Trace []fr.Element
}

// PathTrace is the hashes of one PoR path, leaf to root.
type PathTrace []HashTrace

// PoRTracer computes the Poseidon witness of PoRPoseidon over many paths at
// once (poseidon.Batch: about three times the hashes a second of one hash at
// a time on a CPU with AVX-512 IFMA), keeping its buffers between calls. The
// zero value is ready; it is not safe for concurrent use.
type PoRTracer struct {
	buf     []fr.Element
	traces  []PathTrace
	levels  []HashTrace
	batches map[int]*poseidon.Batch
	cur     []fr.Element
	at      []int
	arities []int
	hashes  []fr.Element
	dst     [][]fr.Element
}

// Trace returns the Poseidon witness of PoRPoseidon over each (leaves[i],
// paths[i]), the paths hashed together level by level; the result is valid
// until the next call. The paths may differ in shape; their levels' arities
// must be those PoRPoseidon takes.
func (t *PoRTracer) Trace(leaves []fr.Element, paths [][]AuthLevel) ([]PathTrace, error) {
	if len(leaves) != len(paths) {
		return nil, fmt.Errorf("gadgets: %d leaves and %d paths", len(leaves), len(paths))
	}
	total, depth, levels := 0, 0, 0
	for i, p := range paths {
		for k, lv := range p {
			a := len(lv.Siblings) + 1
			c, err := poseidon.ConstantsFor(a)
			if err != nil || a&(a-1) != 0 || lv.Index < 0 || lv.Index >= a {
				return nil, fmt.Errorf("gadgets: path %d level %d: arity %d, index %d", i, k, a, lv.Index)
			}
			total += a + c.GadgetConstraints()
		}
		depth, levels = max(depth, len(p)), levels+len(p)
	}
	// One flat buffer for every level's children and trace.
	t.buf = slices.Grow(t.buf[:0], total)[:total]
	t.levels = slices.Grow(t.levels[:0], levels)[:levels]
	t.traces = slices.Grow(t.traces[:0], len(paths))[:len(paths)]
	buf, lv := t.buf, t.levels
	for i, p := range paths {
		t.traces[i] = lv[:len(p):len(p)]
		lv = lv[len(p):]
		for k, l := range p {
			a := len(l.Siblings) + 1
			c, _ := poseidon.ConstantsFor(a)
			g := c.GadgetConstraints()
			t.traces[i][k] = HashTrace{In: buf[:a:a], Trace: buf[a : a+g : a+g]}
			buf = buf[a+g:]
		}
	}
	if t.batches == nil {
		t.batches = make(map[int]*poseidon.Batch)
	}
	t.cur = append(t.cur[:0], leaves...)
	for k := range depth {
		t.arities = t.arities[:0]
		for _, p := range paths {
			if len(p) > k && !slices.Contains(t.arities, len(p[k].Siblings)+1) {
				t.arities = append(t.arities, len(p[k].Siblings)+1)
			}
		}
		for _, a := range t.arities {
			t.at = t.at[:0]
			for i, p := range paths {
				if len(p) > k && len(p[k].Siblings)+1 == a {
					t.at = append(t.at, i)
				}
			}
			if err := t.level(k, a, paths); err != nil {
				return nil, err
			}
		}
	}
	return t.traces, nil
}

// level hashes level k of the paths t.at, all of arity a.
func (t *PoRTracer) level(k, a int, paths [][]AuthLevel) error {
	b := t.batches[a]
	if b == nil {
		c, err := poseidon.ConstantsFor(a)
		if err != nil {
			return err
		}
		b = poseidon.NewBatch(c, traceBatch)
		t.batches[a] = b
	}
	for lo := 0; lo < len(t.at); lo += b.Len() {
		part := t.at[lo:min(lo+b.Len(), len(t.at))]
		t.dst = t.dst[:0]
		for q, i := range part {
			h := &t.traces[i][k]
			l := &paths[i][k]
			s := 0
			for c := range h.In {
				if c == l.Index {
					h.In[c] = t.cur[i]
				} else {
					h.In[c] = l.Siblings[s]
					s++
				}
			}
			copy(b.Input(q), h.In)
			t.dst = append(t.dst, h.Trace)
		}
		t.hashes = slices.Grow(t.hashes[:0], len(part))[:len(part)]
		b.HashTrace(t.hashes, t.dst)
		for q, i := range part {
			t.cur[i] = t.hashes[q]
		}
	}
	return nil
}

// traceBatch is the most hashes a PoRTracer computes at once.
const traceBatch = 128

// PoRPoseidonTraced is PoRPoseidon with each level's hash replayed from tr
// (PoRTracer.Trace of the same leaf and path) instead of computed: the same
// aux values and constraint count. Witness mode only; a level whose children
// differ from those the trace was computed from is an error.
func PoRPoseidonTraced(cs *r1cs.System, leaf, root AllocatedNum, path []AuthLevel, tr PathTrace) error {
	if len(tr) != len(path) {
		return fmt.Errorf("gadgets: a trace of %d levels for a path of %d", len(tr), len(path))
	}
	level := 0
	return por(cs, leaf, root, path, func(arity int) (nodeHash, error) {
		c, err := poseidon.ConstantsFor(arity)
		if err != nil {
			return nil, err
		}
		k := level
		level++
		h := &tr[k]
		return func(cs *r1cs.System, ch []AllocatedNum) (AllocatedNum, error) {
			if len(ch) != len(h.In) {
				return AllocatedNum{}, fmt.Errorf("gadgets: level %d: %d children, the trace has %d", k, len(ch), len(h.In))
			}
			for i := range ch {
				if !ch[i].Value.Equal(&h.In[i]) {
					return AllocatedNum{}, fmt.Errorf("gadgets: level %d: the traced hash was computed from another child %d", k, i)
				}
			}
			out, err := poseidon.ReplayCircuit(cs, c, h.Trace)
			return AllocatedNum{Var: out.Var, Value: out.Val}, err
		}, nil
	})
}

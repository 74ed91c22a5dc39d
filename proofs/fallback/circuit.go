package fallback

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/gadgets"
	"github.com/filc2/filc2/proofs/r1cs"
)

// Block is one sector block of the circuit (storage-proofs-post fallback
// circuit.rs Sector): the sector's three commitments and, per challenge, the
// challenged leaf of tree R-last and its path (base levels, then sub, then
// top).
type Block struct {
	CommR, CommC, CommRLast fr.Element
	Leaves                  []fr.Element
	Paths                   [][]gadgets.AuthLevel
}

// CircuitInput is one partition's witness: SectorCount blocks.
type CircuitInput struct {
	Blocks []Block
}

// pathArities returns the arity of each level of p's tree R-last, leaf to root.
func pathArities(p abi.PoStProof) []int {
	n := p.TreeRLevels()
	out := make([]int, 0, n)
	for range n - min(1, p.Tree.Sub) - min(1, p.Tree.Top) {
		out = append(out, p.Tree.Base)
	}
	if p.Tree.Sub > 0 {
		out = append(out, p.Tree.Sub)
	}
	if p.Tree.Top > 0 {
		out = append(out, p.Tree.Top)
	}
	return out
}

// Blank returns an input of p's shape with every value zero: what a
// parameter setup or a count synthesises (the circuit's structure does not
// depend on the values).
func Blank(p abi.PoStProof) *CircuitInput {
	ar := pathArities(p)
	path := make([]gadgets.AuthLevel, len(ar))
	for i, a := range ar {
		path[i] = gadgets.AuthLevel{Siblings: make([]fr.Element, a-1)}
	}
	b := Block{Leaves: make([]fr.Element, p.ChallengeCount), Paths: make([][]gadgets.AuthLevel, p.ChallengeCount)}
	for j := range b.Paths {
		b.Paths[j] = path
	}
	in := &CircuitInput{Blocks: make([]Block, p.SectorCount)}
	for i := range in.Blocks {
		in.Blocks[i] = b
	}
	return in
}

// CircuitInput converts the partition's blocks to the circuit's witness, as
// the reference's Sector::circuit does: comm_r from the public sector,
// comm_c and comm_r_last from the sector proof, the leaves and paths from its
// inclusion proofs. Run Check first: this only converts (and refuses
// values that are not field elements or a shape that is not p's).
func (pt *Partition) CircuitInput() (*CircuitInput, error) {
	p := pt.Proof
	if len(pt.Proofs) != p.SectorCount || len(pt.Sectors) != p.SectorCount {
		return nil, fmt.Errorf("fallback: partition of %d blocks, %s has %d", len(pt.Proofs), p.Name, p.SectorCount)
	}
	in := &CircuitInput{Blocks: make([]Block, p.SectorCount)}
	for i := range in.Blocks {
		if i > 0 && i >= pt.Real {
			in.Blocks[i] = in.Blocks[pt.Real-1] // padding: the same values, read-only
			continue
		}
		b, err := blockOf(p, &pt.Sectors[i], &pt.Proofs[i])
		if err != nil {
			return nil, fmt.Errorf("fallback: block %d (sector %d): %w", i, pt.Sectors[i].ID, err)
		}
		in.Blocks[i] = b
	}
	return in, nil
}

func blockOf(p abi.PoStProof, pub *PublicSector, sp *SectorProof) (Block, error) {
	var b Block
	var err error
	el := func(d *Domain, what string) fr.Element {
		if err != nil {
			return fr.Element{}
		}
		var e fr.Element
		if e, err = fr.LittleEndian.Element((*[32]byte)(d)); err != nil {
			err = fmt.Errorf("%s is not a field element", what)
		}
		return e
	}
	b.CommR, b.CommC, b.CommRLast = el(&pub.CommR, "comm_r"), el(&sp.CommC, "comm_c"), el(&sp.CommRLast, "comm_r_last")
	if len(sp.InclusionProofs) != p.ChallengeCount {
		return b, fmt.Errorf("%d inclusion proofs, %s wants %d", len(sp.InclusionProofs), p.Name, p.ChallengeCount)
	}
	b.Leaves = make([]fr.Element, p.ChallengeCount)
	b.Paths = make([][]gadgets.AuthLevel, p.ChallengeCount)
	for j := range sp.InclusionProofs {
		m := &sp.InclusionProofs[j]
		if e := checkShape(p, m); e != nil {
			return b, fmt.Errorf("inclusion proof %d: %w", j, e)
		}
		b.Leaves[j] = el(&m.Leaf, "a leaf")
		lv := m.Levels()
		b.Paths[j] = make([]gadgets.AuthLevel, len(lv))
		for k, e := range lv {
			s := make([]fr.Element, len(e.Hashes))
			for q := range e.Hashes {
				s[q] = el(&e.Hashes[q], "a sibling")
			}
			b.Paths[j][k] = gadgets.AuthLevel{Siblings: s, Index: int(e.Index)}
		}
	}
	return b, err
}

// SynthOption configures Synthesize.
type SynthOption func(*synthConfig)

type synthConfig struct {
	parallelism int
	progress    func(done, total int)
	gate        *par.Gate
}

// WithGate runs each block's synthesis inside g (par.Gate): the blocks take at
// most g.Size() threads at once, counting everything else that shares g. The
// result does not depend on it.
func WithGate(g *par.Gate) SynthOption { return func(c *synthConfig) { c.gate = g } }

// WithParallelism synthesises the blocks of a System that can fork on up to
// n goroutines: n < 1 (the default) means runtime.GOMAXPROCS(0), 1 the
// sequential synthesis. The result is the same for every n.
func WithParallelism(n int) SynthOption { return func(c *synthConfig) { c.parallelism = n } }

// WithProgress calls f after each block with the blocks done and their total,
// one call at a time.
func WithProgress(f func(done, total int)) SynthOption {
	return func(c *synthConfig) { c.progress = f }
}

// Synthesize runs FallbackPoStCircuit::synthesize for one partition into cs
// (which holds ONE; call cs.Finish afterwards), in the reference's order
// (snap-post-spec §1.2): for each block, allocate comm_r_last, comm_c and
// comm_r, inputize comm_r, enforce comm_r = Poseidon2(comm_c, comm_r_last),
// then per challenge the private PoR of its leaf against comm_r_last, whose
// packed path bits are the challenge's public input.
//
// The blocks are independent; when cs can fork they are synthesised in
// parallel, each into a child forked at its place in the sequential order,
// as bellperson's extensible ProvingAssignment merges them (the same
// variables and constraints in the same order). In Witness mode the blocks at
// the end equal to the block before them (a short partition's padding) are not
// synthesised: their values are the last distinct block's, copied
// (r1cs.System.RepeatLast).
func Synthesize(cs *r1cs.System, p abi.PoStProof, in *CircuitInput, opts ...SynthOption) error {
	var cfg synthConfig
	for _, o := range opts {
		o(&cfg)
	}
	if err := checkInput(p, in); err != nil {
		return err
	}
	blocks, copies := in.Blocks, 0
	if cs.Mode() == r1cs.Witness {
		copies = trailingCopies(blocks)
		blocks = blocks[:len(blocks)-copies]
	}
	before := r1cs.Layout{Inputs: cs.NumInputs(), Aux: cs.NumAux(), Constraints: cs.NumConstraints()}
	if err := synthesizeBlocks(cs, blocks, &cfg); err != nil {
		return err
	}
	if copies == 0 {
		return nil
	}
	// Witness synthesis is deterministic: a block equal to the one before it
	// adds the same values, which RepeatLast copies.
	per := r1cs.Layout{Inputs: cs.NumInputs() - before.Inputs, Aux: cs.NumAux() - before.Aux, Constraints: cs.NumConstraints() - before.Constraints}
	n := len(blocks)
	if per.Inputs%n != 0 || per.Aux%n != 0 || per.Constraints%n != 0 {
		return fmt.Errorf("fallback: %d blocks added %v, not a multiple of %d", n, per, n)
	}
	per = r1cs.Layout{Inputs: per.Inputs / n, Aux: per.Aux / n, Constraints: per.Constraints / n}
	if err := cs.RepeatLast(per, copies); err != nil {
		return fmt.Errorf("fallback: the %d padding blocks: %w", copies, err)
	}
	if cfg.progress != nil {
		cfg.progress(len(in.Blocks), len(in.Blocks))
	}
	return nil
}

// trailingCopies counts the blocks at the end of blocks equal to the block
// before them: a padded Window partition's copies of its last sector.
func trailingCopies(blocks []Block) int {
	n := len(blocks)
	for n > 1 && blocks[n-1].equal(&blocks[n-2]) {
		n--
	}
	return len(blocks) - n
}

// equal reports whether b and o hold the same values.
func (b *Block) equal(o *Block) bool {
	if b.CommR != o.CommR || b.CommC != o.CommC || b.CommRLast != o.CommRLast ||
		!slices.Equal(b.Leaves, o.Leaves) || len(b.Paths) != len(o.Paths) {
		return false
	}
	for j := range b.Paths {
		if !slices.EqualFunc(b.Paths[j], o.Paths[j], func(x, y gadgets.AuthLevel) bool {
			return x.Index == y.Index && slices.Equal(x.Siblings, y.Siblings)
		}) {
			return false
		}
	}
	return true
}

// synthesizeBlocks synthesises blocks into cs, in parallel when cs can fork.
func synthesizeBlocks(cs *r1cs.System, blocks []Block, cfg *synthConfig) error {
	workers := cfg.parallelism
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	if cs.CanFork() && workers > 1 && len(blocks) > 1 {
		return synthesizeParallel(cs, blocks, min(workers, len(blocks)), cfg)
	}
	tr := newBlockTracer(cs, blocks)
	for i := range blocks {
		var traces []gadgets.PathTrace
		var err error
		cfg.gate.Do(func() {
			if traces, err = tr.of(i); err == nil {
				cs.Pushf("sector_%d", i)
				err = synthesizeBlock(cs, &blocks[i], traces)
				cs.Pop()
			}
		})
		if err != nil {
			return fmt.Errorf("fallback: block %d: %w", i, err)
		}
		if cfg.progress != nil {
			cfg.progress(i+1, len(blocks))
		}
	}
	return nil
}

// checkInput checks that in has p's shape, so that every block adds the same.
func checkInput(p abi.PoStProof, in *CircuitInput) error {
	if len(in.Blocks) != p.SectorCount {
		return fmt.Errorf("fallback: %d blocks, %s has %d", len(in.Blocks), p.Name, p.SectorCount)
	}
	ar := pathArities(p)
	for i := range in.Blocks {
		b := &in.Blocks[i]
		if len(b.Leaves) != p.ChallengeCount || len(b.Paths) != p.ChallengeCount {
			return fmt.Errorf("fallback: block %d: %d leaves and %d paths, %s has %d challenges", i, len(b.Leaves), len(b.Paths), p.Name, p.ChallengeCount)
		}
		for j, path := range b.Paths {
			if len(path) != len(ar) {
				return fmt.Errorf("fallback: block %d challenge %d: %d levels, %s's tree has %d", i, j, len(path), p.Name, len(ar))
			}
			for k, l := range path {
				if len(l.Siblings) != ar[k]-1 || l.Index < 0 || l.Index >= ar[k] {
					return fmt.Errorf("fallback: block %d challenge %d level %d: %d siblings, index %d, the level has arity %d", i, j, k, len(l.Siblings), l.Index, ar[k])
				}
			}
		}
	}
	return nil
}

// synthesizeBlock is Sector::synthesize; traces, when not nil, are the
// Poseidon witness of the block's paths (blockTracer).
func synthesizeBlock(cs *r1cs.System, b *Block, traces []gadgets.PathTrace) error {
	commRLast := gadgets.AllocNum(cs, b.CommRLast)
	commC := gadgets.AllocNum(cs, b.CommC)
	commR := gadgets.AllocNum(cs, b.CommR)
	commR.Inputize(cs)
	cs.Push("H_comm_c_comm_r_last")
	h, err := gadgets.HashColumn(cs, []gadgets.AllocatedNum{commC, commRLast}) // Poseidon arity 2, MerkleTree constants
	cs.Pop()
	if err != nil {
		return err
	}
	gadgets.Equal(cs, commR, h)
	for j := range b.Leaves {
		cs.Pushf("challenge_inclusion_%d", j)
		leaf := gadgets.AllocNum(cs, b.Leaves[j])
		var err error
		if traces != nil {
			err = gadgets.PoRPoseidonTraced(cs, leaf, commRLast, b.Paths[j], traces[j])
		} else {
			err = gadgets.PoRPoseidon(cs, leaf, commRLast, b.Paths[j])
		}
		cs.Pop()
		if err != nil {
			return fmt.Errorf("challenge %d: %w", j, err)
		}
	}
	return nil
}

// synthesizeChunk runs blocks into cs on a worker goroutine, turning a
// gadget's panic (a broken invariant) into the chunk's error.
func synthesizeChunk(cs *r1cs.System, blocks []Block, first int, gate *par.Gate, tick func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("fallback: synthesis panicked: %v", r)
		}
	}()
	tr := newBlockTracer(cs, blocks)
	for i := range blocks {
		gate.Do(func() {
			var traces []gadgets.PathTrace
			if traces, err = tr.of(i); err == nil {
				err = synthesizeBlock(cs, &blocks[i], traces)
			}
		})
		if err != nil {
			return fmt.Errorf("fallback: block %d: %w", first+i, err)
		}
		tick()
	}
	return nil
}

// traceBlockPaths is about how many paths a blockTracer traces at once: long
// enough vectors for poseidon.Batch, a few MB of traces a goroutine.
const traceBlockPaths = 64

// blockTracer computes the Poseidon witness of the blocks' paths ahead of
// their synthesis (gadgets.PoRTracer), the paths of a group of blocks
// hashed together, when the System is in Witness mode: there the values are
// all that synthesis computes, and hashing many paths at once is about
// three times faster. In other modes it traces nothing.
type blockTracer struct {
	blocks []Block
	on     bool
	tracer gadgets.PoRTracer
	lo, hi int // the blocks traced
	traces []gadgets.PathTrace
}

func newBlockTracer(cs *r1cs.System, blocks []Block) *blockTracer {
	return &blockTracer{blocks: blocks, on: cs.Mode() == r1cs.Witness}
}

// of returns the traces of block i's challenges, nil when not tracing.
func (t *blockTracer) of(i int) ([]gadgets.PathTrace, error) {
	if !t.on {
		return nil, nil
	}
	if i < t.lo || i >= t.hi {
		t.lo, t.hi = i, min(len(t.blocks), i+max(1, traceBlockPaths/max(1, len(t.blocks[i].Leaves))))
		var leaves []fr.Element
		var paths [][]gadgets.AuthLevel
		for _, b := range t.blocks[t.lo:t.hi] {
			leaves, paths = append(leaves, b.Leaves...), append(paths, b.Paths...)
		}
		var err error
		if t.traces, err = t.tracer.Trace(leaves, paths); err != nil {
			t.lo, t.hi = 0, 0
			return nil, err
		}
	}
	per := len(t.blocks[i].Leaves) // every block has as many challenges (checkInput)
	return t.traces[(i-t.lo)*per : (i-t.lo+1)*per], nil
}

// synthesizeParallel splits the blocks into one contiguous chunk per worker,
// each forked at its place in the sequential order. Chunks, not a child per
// block: a Count or Record child keeps density sets as long as the circuit,
// so 2349 children would cost tens of GB.
func synthesizeParallel(cs *r1cs.System, blocks []Block, workers int, cfg *synthConfig) error {
	l, err := cs.Measure(func(m *r1cs.System) error { return synthesizeBlock(m, &blocks[0], nil) })
	if err != nil {
		return fmt.Errorf("fallback: block 0: %w", err)
	}
	per := (len(blocks) + workers - 1) / workers
	var bounds [][2]int
	var layouts []r1cs.Layout
	for lo := 0; lo < len(blocks); lo += per {
		hi := min(lo+per, len(blocks))
		n := hi - lo
		bounds = append(bounds, [2]int{lo, hi})
		layouts = append(layouts, r1cs.Layout{Inputs: n * l.Inputs, Aux: n * l.Aux, Constraints: n * l.Constraints})
	}
	children, err := cs.Fork(layouts...)
	if err != nil {
		return err
	}
	var (
		mu   sync.Mutex
		done int
	)
	tick := func() {
		if cfg.progress != nil {
			mu.Lock()
			done++
			cfg.progress(done, len(blocks))
			mu.Unlock()
		}
	}
	errs := make([]error, len(children))
	par.Each(len(children), len(children), func(c int) {
		lo, hi := bounds[c][0], bounds[c][1]
		errs[c] = synthesizeChunk(children[c], blocks[lo:hi], lo, cfg.gate, tick)
	})
	for _, err := range errs {
		if err != nil {
			cs.Join(children...)
			return err
		}
	}
	return cs.Join(children...)
}

package update

import (
	"fmt"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/gadgets"
	"github.com/filc2/filc2/proofs/poseidon"
	"github.com/filc2/filc2/proofs/r1cs"
	"github.com/filc2/filc2/proofs/vanilla"
)

// ChallengeInput is one challenge's witness: the old replica's and the new
// data's nodes, the siblings of the node's paths in tree R-old and tree
// R-new (per level, arity−1 each) and its tree D siblings up to the apex
// leaf (one per level).
type ChallengeInput struct {
	LeafROld, LeafDNew fr.Element
	PathROld, PathRNew [][]fr.Element
	PathDToApex        []fr.Element
}

// CircuitInput is one partition's witness and public inputs, as
// EmptySectorUpdateCircuit holds them.
type CircuitInput struct {
	K                            int
	CommROld, CommDNew, CommRNew fr.Element
	CommC, RootROld, RootRNew    fr.Element
	ApexLeaves                   []fr.Element
	PartitionPath                []fr.Element // tree D siblings above the apex root, one per partition bit
	Challenges                   []ChallengeInput
}

// Blank returns an input of p's shape with every value zero: what a
// parameter setup or a count synthesises (the circuit's structure does not
// depend on the values).
func Blank(p abi.UpdateProof) *CircuitInput {
	in := &CircuitInput{ApexLeaves: make([]fr.Element, p.ApexLeaves), PartitionPath: make([]fr.Element, p.PartitionBits()),
		Challenges: make([]ChallengeInput, p.Challenges)}
	ar := pathArities(p)
	for i := range in.Challenges {
		c := &in.Challenges[i]
		c.PathROld, c.PathRNew = make([][]fr.Element, len(ar)), make([][]fr.Element, len(ar))
		for l, a := range ar {
			c.PathROld[l], c.PathRNew[l] = make([]fr.Element, a-1), make([]fr.Element, a-1)
		}
		c.PathDToApex = make([]fr.Element, p.TreeDLeafLevels())
	}
	return in
}

// pathArities returns the arity of each level of p's tree R, leaf to root.
func pathArities(p abi.UpdateProof) []int {
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

// NewCircuitInput converts partition k's vanilla proof into the circuit's
// input. Run Check first: the conversion checks only what it reads.
func NewCircuitInput(p abi.UpdateProof, pub Commitments, k int, pp *PartitionProof) (*CircuitInput, error) {
	if len(pp.Challenges) != p.Challenges || len(pp.ApexLeaves) != p.ApexLeaves {
		return nil, fmt.Errorf("update: partition %d: %d challenges and %d apex leaves, %s has %d and %d",
			k, len(pp.Challenges), len(pp.ApexLeaves), p.Name, p.Challenges, p.ApexLeaves)
	}
	var errs []error
	el := func(d *vanilla.Domain) fr.Element {
		e, err := fr.LittleEndian.Element(d)
		if err != nil {
			errs = append(errs, err)
		}
		return e
	}
	in := &CircuitInput{K: k, CommROld: el(&pub.CommROld), CommDNew: el(&pub.CommDNew), CommRNew: el(&pub.CommRNew),
		CommC: el(&pp.CommC), RootROld: el(&pp.Challenges[0].ROld.Root), RootRNew: el(&pp.Challenges[0].RNew.Root)}
	for i := range pp.ApexLeaves {
		in.ApexLeaves = append(in.ApexLeaves, el(&pp.ApexLeaves[i]))
	}
	d0 := pp.Challenges[0].DNew.Base
	if len(d0) != p.NodeBits() {
		return nil, fmt.Errorf("update: partition %d: a tree D path of %d levels, want %d", k, len(d0), p.NodeBits())
	}
	for _, e := range d0[p.ChallengeBits():] {
		in.PartitionPath = append(in.PartitionPath, el(&e.Hashes[0]))
	}
	siblings := func(m *vanilla.MerkleProof) [][]fr.Element {
		lv := m.Levels()
		out := make([][]fr.Element, len(lv))
		for l := range lv {
			for h := range lv[l].Hashes {
				out[l] = append(out[l], el(&lv[l].Hashes[h]))
			}
		}
		return out
	}
	in.Challenges = make([]ChallengeInput, len(pp.Challenges))
	for i := range pp.Challenges {
		cp, c := &pp.Challenges[i], &in.Challenges[i]
		c.LeafROld, c.LeafDNew = el(&cp.ROld.Leaf), el(&cp.DNew.Leaf)
		c.PathROld, c.PathRNew = siblings(&cp.ROld), siblings(&cp.RNew)
		for _, e := range cp.DNew.Base[:p.TreeDLeafLevels()] {
			c.PathDToApex = append(c.PathDToApex, el(&e.Hashes[0]))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("update: partition %d: %v", k, errs[0])
	}
	return in, nil
}

// checkInput checks that in has p's shape.
func checkInput(p abi.UpdateProof, in *CircuitInput) error {
	ar := pathArities(p)
	switch {
	case in.K < 0 || in.K >= p.Partitions:
		return fmt.Errorf("update: partition %d of %s", in.K, p.Name)
	case len(in.ApexLeaves) != p.ApexLeaves || len(in.PartitionPath) != p.PartitionBits() || len(in.Challenges) != p.Challenges:
		return fmt.Errorf("update: an input of %d apex leaves, %d partition path levels and %d challenges; %s has %d, %d and %d",
			len(in.ApexLeaves), len(in.PartitionPath), len(in.Challenges), p.Name, p.ApexLeaves, p.PartitionBits(), p.Challenges)
	}
	for i := range in.Challenges {
		c := &in.Challenges[i]
		if len(c.PathROld) != len(ar) || len(c.PathRNew) != len(ar) || len(c.PathDToApex) != p.TreeDLeafLevels() {
			return fmt.Errorf("update: challenge %d's paths have %d, %d and %d levels, want %d, %d and %d",
				i, len(c.PathROld), len(c.PathRNew), len(c.PathDToApex), len(ar), len(ar), p.TreeDLeafLevels())
		}
		for l, a := range ar {
			if len(c.PathROld[l]) != a-1 || len(c.PathRNew[l]) != a-1 {
				return fmt.Errorf("update: challenge %d, tree R level %d: %d and %d siblings, want %d", i, l, len(c.PathROld[l]), len(c.PathRNew[l]), a-1)
			}
		}
	}
	return nil
}

// Synthesize runs EmptySectorUpdateCircuit::synthesize for partition in.K
// into cs, in the reference's order (snap-post-spec §1.1): public input
// k_and_h_select and its bits, the partition number, the public inputs
// comm_r_old, comm_d_new and comm_r_new, phi, the private values, comm_r_old
// and comm_r_new from comm_c, apex_por, gen_challenge_bits, then per
// challenge rho, the encoding, the two tree R proofs, the apex leaf's select
// and the tree D proof up to it.
//
// The challenges are independent sub-circuits once the challenge bits are
// generated; when cs can fork (Witness, Record, Count without a digest) they
// are synthesised in parallel (WithParallelism), each into a child forked at
// its place in the sequential order, so that the assignment or the recorded
// circuit is the sequential one.
func Synthesize(cs *r1cs.System, p abi.UpdateProof, in *CircuitInput, opts ...SynthOption) error {
	var cfg synthConfig
	for _, o := range opts {
		o(&cfg)
	}
	if err := checkInput(p, in); err != nil {
		return err
	}
	partBits := p.PartitionBits()
	alloc := gadgets.AllocNum

	// Public input 1: k_and_h_select, then its partition and h_select bits.
	var khv fr.Element
	khv.SetUint64(p.KAndHSelect(in.K))
	kh := alloc(cs, khv)
	kh.Inputize(cs)
	khBits := make([]gadgets.AllocatedBit, partBits+len(p.HS))
	v := p.KAndHSelect(in.K)
	for i := range khBits {
		khBits[i] = gadgets.AllocBit(cs, v>>i&1 == 1)
	}
	cs.Enforce(func(a, b, c *r1cs.LC) {
		packedLC(a, khBits)
		b.Add(r1cs.One)
		c.Add(kh.Var)
	})
	partitionBits, hSelect := khBits[:partBits], khBits[partBits:]
	partitionBools := make([]gadgets.Boolean, partBits)
	for i, b := range partitionBits {
		partitionBools[i] = gadgets.Is(b)
	}
	partition := gadgets.PackBits(cs, partitionBools)

	// Public inputs 2–4.
	commROld := alloc(cs, in.CommROld)
	commROld.Inputize(cs)
	commDNew := alloc(cs, in.CommDNew)
	commDNew.Inputize(cs)
	commRNew := alloc(cs, in.CommRNew)
	commRNew.Inputize(cs)

	phi, err := genRandomnessCircuit(cs, commDNew, commROld)
	if err != nil {
		return err
	}

	// The private values, the challenges' paths excepted.
	commC := alloc(cs, in.CommC)
	rootROld := alloc(cs, in.RootROld)
	rootRNew := alloc(cs, in.RootRNew)
	apex := make([]gadgets.AllocatedNum, len(in.ApexLeaves))
	for i, l := range in.ApexLeaves {
		apex[i] = alloc(cs, l)
	}
	partitionPath := make([][]gadgets.AllocatedNum, len(in.PartitionPath))
	for i, s := range in.PartitionPath {
		partitionPath[i] = []gadgets.AllocatedNum{alloc(cs, s)}
	}

	// comm_r = Poseidon2(comm_c, root_r), old and new.
	c2, err := poseidon.ConstantsFor(2)
	if err != nil {
		return err
	}
	for _, r := range []struct{ root, comm gadgets.AllocatedNum }{{rootROld, commROld}, {rootRNew, commRNew}} {
		calc, err := gadgets.PoseidonHash(cs, c2, []gadgets.AllocatedNum{commC, r.root})
		if err != nil {
			return err
		}
		gadgets.Equal(cs, calc, r.comm)
	}

	if err := apexPoR(cs, apex, partitionBools, partitionPath, commDNew); err != nil {
		return err
	}
	generated, err := genChallengeBits(cs, commRNew, partition, p.Challenges, p.ChallengeBits())
	if err != nil {
		return err
	}
	ch := func(cs *r1cs.System, i int) error {
		return synthesizeChallenge(cs, p, &in.Challenges[i], generated[i], partitionBits, hSelect, phi, apex, rootROld, rootRNew)
	}
	workers := cfg.parallelism
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	if cs.CanFork() && workers > 1 && len(generated) > 1 {
		return synthesizeParallel(cs, len(generated), min(workers, len(generated)), cfg.gate, ch)
	}
	for i := range generated {
		var err error
		cfg.gate.Do(func() { err = ch(cs, i) })
		if err != nil {
			return fmt.Errorf("update: challenge %d: %w", i, err)
		}
	}
	return nil
}

// SynthOption configures Synthesize.
type SynthOption func(*synthConfig)

type synthConfig struct {
	parallelism int
	gate        *par.Gate
}

// WithGate runs each challenge's synthesis inside g (par.Gate): the
// challenges take at most g.Size() threads at once, counting everything else
// that shares g. The result does not depend on it.
func WithGate(g *par.Gate) SynthOption { return func(c *synthConfig) { c.gate = g } }

// WithParallelism synthesises the challenges of a System that can fork on up
// to n goroutines: n < 1 (the default) means runtime.GOMAXPROCS(0), 1 the
// sequential synthesis. The result is the same for every n.
func WithParallelism(n int) SynthOption { return func(c *synthConfig) { c.parallelism = n } }

// synthesizeParallel synthesises challenges 0 … n−1 (ch) into children of cs
// forked in order, on workers goroutines; every challenge adds what the first
// does (the shape fixes it; Join checks it).
func synthesizeParallel(cs *r1cs.System, n, workers int, gate *par.Gate, ch func(*r1cs.System, int) error) error {
	l, err := cs.Measure(func(m *r1cs.System) error { return ch(m, 0) })
	if err != nil {
		return fmt.Errorf("update: challenge 0: %w", err)
	}
	layouts := make([]r1cs.Layout, n)
	for i := range layouts {
		layouts[i] = l
	}
	children, err := cs.Fork(layouts...)
	if err != nil {
		return err
	}
	errs := make([]error, n)
	par.EachGated(n, workers, gate, func(i int) { errs[i] = synthesizeChild(children[i], i, ch) })
	for i, err := range errs {
		if err != nil {
			cs.Join(children...) // release the children; the first challenge's error is reported
			return fmt.Errorf("update: challenge %d: %w", i, err)
		}
	}
	return cs.Join(children...)
}

// synthesizeChild synthesises challenge i on a worker goroutine, where a
// gadget's panic (a broken invariant) would end the process: it becomes the
// challenge's error instead.
func synthesizeChild(cs *r1cs.System, i int, ch func(*r1cs.System, int) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("synthesis panicked: %v", r)
		}
	}()
	return ch(cs, i)
}

// synthesizeChallenge is the loop body of synthesize for one challenge.
func synthesizeChallenge(cs *r1cs.System, p abi.UpdateProof, in *ChallengeInput, random, partitionBits, hSelect []gadgets.AllocatedBit,
	phi gadgets.AllocatedNum, apex []gadgets.AllocatedNum, rootROld, rootRNew gadgets.AllocatedNum) error {
	cBits := make([]gadgets.AllocatedBit, 0, len(random)+len(partitionBits))
	cBits = append(append(cBits, random...), partitionBits...)
	cBools := make([]gadgets.Boolean, len(cBits))
	for i, b := range cBits {
		cBools[i] = gadgets.Is(b)
	}
	cHigh := challengeHighBits(cs, cBits, hSelect, p.HS[:])
	rho, err := genRandomnessCircuit(cs, phi, cHigh)
	if err != nil {
		return err
	}
	leafROld := gadgets.AllocNum(cs, in.LeafROld)
	leafDNew := gadgets.AllocNum(cs, in.LeafDNew)
	leafRNew := labelRNew(cs, leafROld, leafDNew, rho)

	allocPath := func(levels [][]fr.Element) [][]gadgets.AllocatedNum {
		out := make([][]gadgets.AllocatedNum, len(levels))
		for l, sibs := range levels {
			out[l] = make([]gadgets.AllocatedNum, len(sibs))
			for s, v := range sibs {
				out[l][s] = gadgets.AllocNum(cs, v)
			}
		}
		return out
	}
	if err := gadgets.PoRNoChallengePoseidon(cs, cBools, leafROld, allocPath(in.PathROld), rootROld); err != nil {
		return err
	}
	if err := gadgets.PoRNoChallengePoseidon(cs, cBools, leafRNew, allocPath(in.PathRNew), rootRNew); err != nil {
		return err
	}
	lo := p.TreeDLeafLevels()
	apexLeaf := gadgets.Select(cs, apex, cBools[lo:lo+p.ApexBits()])
	toApex := make([][]gadgets.AllocatedNum, len(in.PathDToApex))
	for l, s := range in.PathDToApex {
		toApex[l] = []gadgets.AllocatedNum{gadgets.AllocNum(cs, s)}
	}
	return gadgets.PoRNoChallengeSHA256(cs, cBools[:lo], leafDNew, toApex, apexLeaf)
}

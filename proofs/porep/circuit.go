package porep

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/gadgets"
	"github.com/filc2/filc2/proofs/r1cs"
)

// PathLevel is one level of a Merkle inclusion path: the arity−1 siblings (as
// field elements) and the current node's position among the arity children.
type PathLevel = gadgets.AuthLevel

// Column is one node's column: its label in every layer, and its inclusion
// path in tree C.
type Column struct {
	Rows []fr.Element // Layers labels, layer 1 first
	Path []PathLevel
}

// ChallengeInput is what the circuit consumes of one challenge's vanilla proof
// (spec §1.4): the data leaf and its tree-D path, the challenged node, its tree
// R-last and tree C paths, and the 6 DRG and 8 expander parents' columns.
type ChallengeInput struct {
	Challenge     uint64
	DataLeaf      fr.Element
	CommDPath     []PathLevel // binary, TreeDLevels levels
	CommRLastPath []PathLevel
	CommCPath     []PathLevel
	DRGParents    [abi.BaseDegree]Column
	ExpParents    [abi.ExpansionDegree]Column
}

// PartitionInput is one partition's circuit input.
type PartitionInput struct {
	ReplicaID fr.Element
	CommD     fr.Element
	CommR     fr.Element
	CommRLast fr.Element
	CommC     fr.Element
	Proofs    []ChallengeInput // ChallengesPerPartition of them, challenge order
}

// CircuitShape fixes the structure of one proof type's circuit.
type CircuitShape struct {
	Layers      int
	Challenges  int
	TreeDLevels int
	TreeArities []int // arity of each tree R/C path level: base levels, then sub, then top
}

// ShapeOf returns the circuit shape of a proof type.
func ShapeOf(p abi.SealProof) CircuitShape {
	s := CircuitShape{Layers: p.Layers, Challenges: p.ChallengesPerPartition, TreeDLevels: p.TreeDLevels()}
	baseTrees := 1
	switch {
	case p.Tree.Top > 0:
		baseTrees = p.Tree.Sub * p.Tree.Top
	case p.Tree.Sub > 0:
		baseTrees = p.Tree.Sub
	}
	for n := p.Nodes / uint64(baseTrees); n > 1; n /= uint64(p.Tree.Base) {
		s.TreeArities = append(s.TreeArities, p.Tree.Base)
	}
	if p.Tree.Sub > 0 {
		s.TreeArities = append(s.TreeArities, p.Tree.Sub)
	}
	if p.Tree.Top > 0 {
		s.TreeArities = append(s.TreeArities, p.Tree.Top)
	}
	return s
}

// Blank returns an input of the right shape with every value zero, for
// counting and recording the circuit (its structure does not depend on values).
func (s CircuitShape) Blank() *PartitionInput {
	path := func(arities []int) []PathLevel {
		p := make([]PathLevel, len(arities))
		for i, a := range arities {
			p[i].Siblings = make([]fr.Element, a-1)
		}
		return p
	}
	dArities := make([]int, s.TreeDLevels)
	for i := range dArities {
		dArities[i] = 2
	}
	col := func() Column { return Column{Rows: make([]fr.Element, s.Layers), Path: path(s.TreeArities)} }
	in := &PartitionInput{Proofs: make([]ChallengeInput, s.Challenges)}
	for i := range in.Proofs {
		c := &in.Proofs[i]
		c.Challenge = 1
		c.CommDPath = path(dArities)
		c.CommRLastPath = path(s.TreeArities)
		c.CommCPath = path(s.TreeArities)
		for j := range c.DRGParents {
			c.DRGParents[j] = col()
		}
		for j := range c.ExpParents {
			c.ExpParents[j] = col()
		}
	}
	return in
}

// check reports an input whose shape differs from s.
func (s CircuitShape) check(in *PartitionInput) error {
	if len(in.Proofs) != s.Challenges {
		return fmt.Errorf("porep: %d challenge proofs, the circuit has %d", len(in.Proofs), s.Challenges)
	}
	pathOK := func(p []PathLevel, arities []int) bool {
		if len(p) != len(arities) {
			return false
		}
		for i := range p {
			if len(p[i].Siblings) != arities[i]-1 || p[i].Index < 0 || p[i].Index >= arities[i] {
				return false
			}
		}
		return true
	}
	dArities := make([]int, s.TreeDLevels)
	for i := range dArities {
		dArities[i] = 2
	}
	for i := range in.Proofs {
		c := &in.Proofs[i]
		switch {
		case !pathOK(c.CommDPath, dArities):
			return fmt.Errorf("porep: challenge %d: tree D path does not have %d binary levels", i, s.TreeDLevels)
		case !pathOK(c.CommRLastPath, s.TreeArities):
			return fmt.Errorf("porep: challenge %d: tree R-last path does not have arities %v", i, s.TreeArities)
		case !pathOK(c.CommCPath, s.TreeArities):
			return fmt.Errorf("porep: challenge %d: tree C path does not have arities %v", i, s.TreeArities)
		}
		for j, col := range append(c.DRGParents[:], c.ExpParents[:]...) {
			if len(col.Rows) != s.Layers || !pathOK(col.Path, s.TreeArities) {
				return fmt.Errorf("porep: challenge %d parent %d: column of %d rows or a path not of arities %v", i, j, len(col.Rows), s.TreeArities)
			}
		}
	}
	return nil
}

// SynthOption configures Synthesize.
type SynthOption func(*synthConfig)

type synthConfig struct {
	progress    func(done, total int)
	parallelism int
	totals      *r1cs.Header
	topLevel    *int
	gate        *par.Gate
}

// WithGate runs each challenge's synthesis inside g (par.Gate): the
// challenges of every partition that shares g take at most g.Size() threads
// at once, whatever their parallelism. The witness does not depend on it.
func WithGate(g *par.Gate) SynthOption {
	return func(c *synthConfig) { c.gate = g }
}

// WithProgress calls f after each challenge with the challenges done and their
// total. When the challenges are synthesised in parallel, f is called from the
// synthesising goroutines, one call at a time, with done increasing.
func WithProgress(f func(done, total int)) SynthOption {
	return func(c *synthConfig) { c.progress = f }
}

// WithParallelism sets how many goroutines synthesise the challenges of a
// System that can fork (Witness, Record, Count without a digest): n < 1 (the
// default) means runtime.GOMAXPROCS(0), 1 the sequential synthesis. Check mode
// and digests are always sequential. The assignment, the recorded matrices and
// the counts are the same either way.
func WithParallelism(n int) SynthOption {
	return func(c *synthConfig) { c.parallelism = n }
}

// WithTotals gives Synthesize the counts of the finished circuit (a recorded
// circuit's Header: ONE and bellperson's trailing input constraints included),
// from which parallel witness synthesis derives each challenge's layout instead
// of measuring one challenge first. Counts that do not fit the shape are an error.
func WithTotals(h r1cs.Header) SynthOption {
	return func(c *synthConfig) { c.totals = &h }
}

// withTopLevel makes Synthesize store the number of constraints of the top
// level (those before the first challenge's) in n.
func withTopLevel(n *int) SynthOption {
	return func(c *synthConfig) { c.topLevel = n }
}

// Synthesize runs StackedCircuit::synthesize (storage-proofs-porep
// stacked/circuit/proof.rs) for one partition into cs, in the reference's exact
// allocation and enforce order (spec §2.1–2.2). cs already holds ONE; call
// cs.Finish afterwards for bellperson's trailing input constraints.
//
// When cs can fork (Witness, Record, Count without a digest) the challenges,
// independent sub-circuits once the top level is allocated, are synthesised in
// parallel (WithParallelism): each into a child System forked from cs at the
// challenge's place in the sequential layout, so that the assignment, or the
// recorded circuit, is identical to the sequential one.
func Synthesize(cs *r1cs.System, s CircuitShape, in *PartitionInput, opts ...SynthOption) error {
	var cfg synthConfig
	for _, o := range opts {
		o(&cfg)
	}
	if err := s.check(in); err != nil {
		return err
	}
	g := gadgets.AllocNum
	replicaID := g(cs, in.ReplicaID)
	replicaID.Inputize(cs)
	cs.Push("replica_id_bits")
	replicaBits := gadgets.ReverseBitNumbering(replicaID.ToBitsLE(cs))
	cs.Pop()
	commD := g(cs, in.CommD)
	commD.Inputize(cs)
	commR := g(cs, in.CommR)
	commR.Inputize(cs)
	commRLast := g(cs, in.CommRLast)
	commC := g(cs, in.CommC)

	cs.Push("H_comm_c_comm_r_last")
	h, err := hash2(cs, commC, commRLast)
	cs.Pop()
	if err != nil {
		return err
	}
	gadgets.Equal(cs, commR, h)
	if cfg.topLevel != nil {
		*cfg.topLevel = cs.NumConstraints()
	}

	top := &challengeCommon{shape: s, commD: commD, commC: commC, commRLast: commRLast, replicaBits: replicaBits}
	workers := cfg.parallelism
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	if cs.CanFork() && workers > 1 && len(in.Proofs) > 1 {
		return synthesizeParallel(cs, top, in.Proofs, min(workers, len(in.Proofs)), &cfg)
	}
	for i := range in.Proofs {
		cs.Pushf("challenge_%d", i)
		var err error
		cfg.gate.Do(func() { err = top.synthesize(cs, &in.Proofs[i]) })
		cs.Pop()
		if err != nil {
			return fmt.Errorf("challenge %d: %w", i, err)
		}
		if cfg.progress != nil {
			cfg.progress(i+1, len(in.Proofs))
		}
	}
	return nil
}

// challengeCommon is what every challenge's sub-circuit shares: the shape and
// the top level's allocations it refers to (read only).
type challengeCommon struct {
	shape                   CircuitShape
	commD, commC, commRLast gadgets.AllocatedNum
	replicaBits             []gadgets.Boolean
}

func (t *challengeCommon) synthesize(cs *r1cs.System, c *ChallengeInput) error {
	return synthesizeChallenge(cs, t.shape, c, t.commD, t.commC, t.commRLast, t.replicaBits)
}

// challengeLayout is what one challenge adds: from the totals when given (the
// top level is in cs already), else measured on the first challenge. Every
// challenge adds the same, the shape fixing the structure; Join checks it.
func challengeLayout(cs *r1cs.System, top *challengeCommon, proofs []ChallengeInput, totals *r1cs.Header) (r1cs.Layout, error) {
	if totals == nil {
		l, err := cs.Measure(func(m *r1cs.System) error { return top.synthesize(m, &proofs[0]) })
		if err != nil {
			return l, fmt.Errorf("challenge 0: %w", err)
		}
		return l, nil
	}
	n := len(proofs)
	rest := r1cs.Layout{
		Inputs:      totals.NumInputs - cs.NumInputs(),
		Aux:         totals.NumAux - cs.NumAux(),
		Constraints: totals.NumConstraints - totals.NumInputs - cs.NumConstraints(),
	}
	if rest.Inputs < 0 || rest.Aux < 0 || rest.Constraints < 0 || rest.Inputs%n != 0 || rest.Aux%n != 0 || rest.Constraints%n != 0 {
		return r1cs.Layout{}, fmt.Errorf("porep: circuit totals %+v do not fit this shape: %v after the top level for %d challenges", *totals, rest, n)
	}
	return r1cs.Layout{Inputs: rest.Inputs / n, Aux: rest.Aux / n, Constraints: rest.Constraints / n}, nil
}

// synthesizeChild synthesises one challenge on a worker goroutine, where a
// gadget's panic (a broken invariant) would end the process: it becomes the
// challenge's error instead.
func synthesizeChild(top *challengeCommon, cs *r1cs.System, c *ChallengeInput) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("porep: synthesis panicked: %v", r)
		}
	}()
	return top.synthesize(cs, c)
}

// synthesizeParallel synthesises each challenge into its own child of cs on
// `workers` goroutines, challenges handed out in order.
func synthesizeParallel(cs *r1cs.System, top *challengeCommon, proofs []ChallengeInput, workers int, cfg *synthConfig) error {
	l, err := challengeLayout(cs, top, proofs, cfg.totals)
	if err != nil {
		return err
	}
	layouts := make([]r1cs.Layout, len(proofs))
	for i := range layouts {
		layouts[i] = l
	}
	children, err := cs.Fork(layouts...)
	if err != nil {
		return err
	}
	errs := make([]error, len(proofs))
	var (
		mu   sync.Mutex // serialises progress calls
		done int
	)
	par.EachGated(len(proofs), workers, cfg.gate, func(i int) {
		errs[i] = synthesizeChild(top, children[i], &proofs[i])
		if cfg.progress != nil {
			mu.Lock()
			done++
			cfg.progress(done, len(proofs))
			mu.Unlock()
		}
	})
	for i, err := range errs {
		if err != nil {
			cs.Join(children...) // release the children; the first challenge error is the one reported
			return fmt.Errorf("challenge %d: %w", i, err)
		}
	}
	return cs.Join(children...)
}

func hash2(cs *r1cs.System, a, b gadgets.AllocatedNum) (gadgets.AllocatedNum, error) {
	return gadgets.HashColumn(cs, []gadgets.AllocatedNum{a, b})
}

// allocColumn allocates a column's rows, hashes them and proves the hash in tree C.
func allocColumn(cs *r1cs.System, col *Column, commC gadgets.AllocatedNum) ([]gadgets.AllocatedNum, error) {
	rows := make([]gadgets.AllocatedNum, len(col.Rows))
	for i := range col.Rows {
		rows[i] = gadgets.AllocNum(cs, col.Rows[i])
	}
	h, err := gadgets.HashColumn(cs, rows)
	if err != nil {
		return nil, err
	}
	if err := gadgets.PoRPoseidon(cs, h, commC, col.Path); err != nil {
		return nil, err
	}
	return rows, nil
}

// synthesizeChallenge is stacked/circuit/params.rs Proof::synthesize.
func synthesizeChallenge(cs *r1cs.System, s CircuitShape, c *ChallengeInput,
	commD, commC, commRLast gadgets.AllocatedNum, replicaBits []gadgets.Boolean) error {
	dataLeaf := gadgets.AllocNum(cs, c.DataLeaf)
	cs.Push("comm_d_inclusion")
	err := gadgets.PoRSHA256(cs, dataLeaf, commD, c.CommDPath)
	cs.Pop()
	if err != nil {
		return err
	}

	var drg [abi.BaseDegree][]gadgets.AllocatedNum
	for i := range c.DRGParents {
		cs.Pushf("drg_parent_%d", i)
		drg[i], err = allocColumn(cs, &c.DRGParents[i], commC)
		cs.Pop()
		if err != nil {
			return err
		}
	}
	var exp [abi.ExpansionDegree][]gadgets.AllocatedNum
	for i := range c.ExpParents {
		cs.Pushf("exp_parent_%d", i)
		exp[i], err = allocColumn(cs, &c.ExpParents[i], commC)
		cs.Pop()
		if err != nil {
			return err
		}
	}

	challenge := gadgets.AllocUInt64(cs, c.Challenge)
	challenge.PackIntoInput(cs)

	labels := make([]gadgets.AllocatedNum, 0, s.Layers)
	parentBits := make([][]gadgets.Boolean, 0, abi.BaseDegree+abi.ExpansionDegree)
	expanded := make([][]gadgets.Boolean, 0, gadgets.LabelParents)
	for layer := 1; layer <= s.Layers; layer++ {
		cs.Pushf("labeling_%d", layer)
		parentBits = parentBits[:0]
		for i := range drg {
			parentBits = append(parentBits, gadgets.ReverseBitNumbering(drg[i][layer-1].ToBitsLE(cs)))
		}
		if layer > 1 {
			for i := range exp {
				parentBits = append(parentBits, gadgets.ReverseBitNumbering(exp[i][layer-2].ToBitsLE(cs)))
			}
		}
		expanded = expanded[:0]
		if layer > 1 {
			expanded = append(expanded, parentBits...)
			expanded = append(expanded, parentBits...)
			expanded = append(expanded, parentBits[:9]...)
		} else {
			for range 6 {
				expanded = append(expanded, parentBits...)
			}
			expanded = append(expanded, parentBits[0])
		}
		labels = append(labels, gadgets.CreateLabel(cs, replicaBits, expanded, gadgets.UInt32Constant(uint32(layer)), challenge))
		cs.Pop()
	}

	cs.Push("encode_node")
	encoded := gadgets.Encode(cs, labels[len(labels)-1], dataLeaf)
	cs.Pop()
	cs.Push("comm_r_last_data_inclusion")
	err = gadgets.PoRPoseidon(cs, encoded, commRLast, c.CommRLastPath)
	cs.Pop()
	if err != nil {
		return err
	}

	cs.Push("c_x_column_hash")
	colHash, err := gadgets.HashColumn(cs, labels)
	cs.Pop()
	if err != nil {
		return err
	}
	cs.Push("c_x_inclusion")
	defer cs.Pop()
	return gadgets.PoRPoseidon(cs, colHash, commC, c.CommCPath)
}

package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

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

type synthConfig struct{ progress func(done, total int) }

// WithProgress calls f after each challenge with the challenges done and their total.
func WithProgress(f func(done, total int)) SynthOption {
	return func(c *synthConfig) { c.progress = f }
}

// Synthesize runs StackedCircuit::synthesize (storage-proofs-porep
// stacked/circuit/proof.rs) for one partition into cs, in the reference's exact
// allocation and enforce order (spec §2.1–2.2). cs already holds ONE; call
// cs.Finish afterwards for bellperson's trailing input constraints.
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

	for i := range in.Proofs {
		cs.Pushf("challenge_%d", i)
		err := synthesizeChallenge(cs, s, &in.Proofs[i], commD, commC, commRLast, replicaBits)
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

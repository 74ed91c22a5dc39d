package porep

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
)

// SyntheticC1 returns a C1 output of proof type p that has the exact shape of
// a real one — p's partitions, challenges per partition, Merkle path lengths
// and arities (Single, Sub or Top as the trees are), 6 + 8 parent columns of
// p.Layers rows, p.Layers labeling proofs of 37 parents and the encoding
// proof — but random content: every hash, label, root and commitment is a
// pseudo-random value below 2^254 (a valid Fr and a trimmed SHA-256 digest)
// drawn from seed. The challenges are the ones p derives from the random
// replica_id, seed and comm_r, every path opens its node, and parent columns
// sit at the challenge's real graph parents, so the output passes c1.Validate
// and synthesises like a real C1 (porep.PartitionInputFromC1, witness
// synthesis), while VerifyVanilla fails: it is for benchmarks at sizes that
// cannot be sealed here, never for proofs anyone should accept.
//
// Different seeds give different sectors (replica_id, commitments); the same
// seed gives the same output.
func SyntheticC1(p abi.SealProof, seed uint64) (*c1.Commit1Out, error) {
	if p.Name == "" || p.Partitions < 1 || p.ChallengesPerPartition < 1 || p.Layers < 1 {
		return nil, fmt.Errorf("porep: synthetic C1: proof type %q is not a known seal proof", p.Name)
	}
	g, err := NewGraphFor(p)
	if err != nil {
		return nil, fmt.Errorf("porep: synthetic C1 of %s: %w", p.Name, err)
	}
	treeR, err := syntheticTreeR(p)
	if err != nil {
		return nil, err
	}
	sg := &synthGen{rng: rand.New(rand.NewPCG(seed, uint64(p.Proof)^0x73796e7468633121))}
	out := &c1.Commit1Out{
		RegisteredProof: p.Name,
		VanillaProofs:   c1.VanillaProofs{Key: p.VanillaKey(), Partitions: make([][]c1.Proof, p.Partitions)},
		CommR:           sg.domain(),
		CommD:           sg.domain(),
		ReplicaID:       sg.domain(),
		Seed:            sg.domain(),
		Ticket:          sg.domain(),
	}
	commRLast, commC := sg.domain(), sg.domain()
	treeD := synthTree{levels: make([]int, p.TreeDLevels()), base: p.TreeDLevels()}
	for i := range treeD.levels {
		treeD.levels[i] = 2
	}
	var parents [abi.BaseDegree + abi.ExpansionDegree]uint32
	for k := range p.Partitions {
		chs, err := Challenges(p, out.ReplicaID, out.Seed, out.CommR, k)
		if err != nil {
			return nil, fmt.Errorf("porep: synthetic C1 of %s, partition %d: %w", p.Name, k, err)
		}
		proofs := make([]c1.Proof, len(chs))
		for i, ch := range chs {
			pr := &proofs[i]
			pr.CommDProofs = sg.merkle(&treeD, out.CommD, ch)
			pr.CommRLastProof = sg.merkle(&treeR, commRLast, ch)
			pr.ReplicaColumnProofs.CX = sg.column(&treeR, commC, ch, p.Layers)
			g.Parents(ch, &parents)
			for j, q := range parents {
				cp := sg.column(&treeR, commC, uint64(q), p.Layers)
				if j < abi.BaseDegree {
					pr.ReplicaColumnProofs.DrgParents = append(pr.ReplicaColumnProofs.DrgParents, cp)
				} else {
					pr.ReplicaColumnProofs.ExpParents = append(pr.ReplicaColumnProofs.ExpParents, cp)
				}
			}
			pr.LabelingProofs = make([]c1.LabelingProof, p.Layers)
			for l := range pr.LabelingProofs {
				pr.LabelingProofs[l] = c1.LabelingProof{Parents: sg.domains(c1.LabelParents), LayerIndex: uint32(l + 1), Node: ch}
			}
			pr.EncodingProof = c1.EncodingProof{Parents: sg.domains(c1.LabelParents), LayerIndex: uint32(p.Layers), Node: ch}
		}
		out.VanillaProofs.Partitions[k] = proofs
	}
	return out, nil
}

// synthTree is the shape of a Merkle path: the arity of each level, leaf to
// root, of which the first base are the base tree's, then a sub and a top
// level when sub and top are set.
type synthTree struct {
	levels   []int
	base     int
	sub, top bool
}

// syntheticTreeR returns the shape of p's trees R and C.
func syntheticTreeR(p abi.SealProof) (synthTree, error) {
	t := p.Tree
	count := uint64(1)
	if t.Sub > 0 {
		count *= uint64(t.Sub)
	}
	if t.Top > 0 {
		count *= uint64(t.Top)
	}
	var s synthTree
	leaves := p.Nodes / count
	for l := leaves; l > 1; l /= uint64(t.Base) {
		if t.Base < 2 || l%uint64(t.Base) != 0 {
			return synthTree{}, fmt.Errorf("porep: synthetic C1 of %s: %d leaves per base tree is not a power of %d", p.Name, leaves, t.Base)
		}
		s.levels = append(s.levels, t.Base)
	}
	s.base = len(s.levels)
	if t.Sub > 0 {
		s.levels, s.sub = append(s.levels, t.Sub), true
	}
	if t.Top > 0 {
		s.levels, s.top = append(s.levels, t.Top), true
	}
	if len(s.levels) != p.TreeRLevels() {
		return synthTree{}, fmt.Errorf("porep: synthetic C1 of %s: %d tree R levels, abi says %d", p.Name, len(s.levels), p.TreeRLevels())
	}
	return s, nil
}

// synthGen draws the random content of a synthetic C1.
type synthGen struct{ rng *rand.Rand }

// domain returns a random non-zero value below 2^254: a canonical Fr and a
// trimmed SHA-256 digest at once.
func (g *synthGen) domain() c1.Domain {
	var d c1.Domain
	for d.IsZero() {
		for i := range 4 {
			binary.LittleEndian.PutUint64(d[8*i:], g.rng.Uint64())
		}
		d[31] &= 0x3f
	}
	return d
}

func (g *synthGen) domains(n int) []c1.Domain {
	out := make([]c1.Domain, n)
	for i := range out {
		out[i] = g.domain()
	}
	return out
}

// merkle returns a proof that opens leaf node of a tree of shape t with root
// root: each level's index is node's digit in the mixed radix of the levels'
// arities, its siblings are random.
func (g *synthGen) merkle(t *synthTree, root c1.Domain, node uint64) c1.MerkleProof {
	elems := make([]c1.PathElement, len(t.levels))
	rest := node
	for l, a := range t.levels {
		elems[l] = c1.PathElement{Hashes: g.domains(a - 1), Index: rest % uint64(a)}
		rest /= uint64(a)
	}
	leaf := g.domain()
	base := elems[:t.base]
	var d c1.ProofData
	switch {
	case t.top:
		d.Top = &c1.TopProof{BaseProof: c1.InclusionPath{Path: base}, SubProof: c1.InclusionPath{Path: elems[t.base : t.base+1]},
			TopProof: c1.InclusionPath{Path: elems[t.base+1:]}, Root: root, Leaf: leaf}
	case t.sub:
		d.Sub = &c1.SubProof{BaseProof: c1.InclusionPath{Path: base}, SubProof: c1.InclusionPath{Path: elems[t.base:]}, Root: root, Leaf: leaf}
	default:
		d.Single = &c1.SingleProof{Root: root, Leaf: leaf, Path: c1.InclusionPath{Path: elems}}
	}
	return c1.MerkleProof{Data: d}
}

// column returns node's column of layers random rows, opened in tree C.
func (g *synthGen) column(t *synthTree, commC c1.Domain, node uint64, layers int) c1.ColumnProof {
	return c1.ColumnProof{
		Column:         c1.Column{Index: uint32(node), Rows: g.domains(layers)},
		InclusionProof: g.merkle(t, commC, node),
	}
}

package porep

import (
	"fmt"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/merkle"
)

// Commit1 runs SealCommitPhase1 for the sealed sector with the interactive
// randomness seed (ignored by non-interactive proof types): for every partition
// it derives the challenges and opens each as rust-fil-proofs'
// prove_layers_generate does (spec §1.2–1.4).
func (s *Sector) Commit1(seed [32]byte) (*c1.Commit1Out, error) {
	p := s.Proof
	if seed == ([32]byte{}) && p.ChallengeKind != abi.NonInteractive {
		return nil, fmt.Errorf("porep: the seed is zero; C2 refuses a zero seed")
	}
	out := &c1.Commit1Out{
		RegisteredProof: p.Name,
		VanillaProofs:   c1.VanillaProofs{Key: p.VanillaKey(), Partitions: make([][]c1.Proof, p.Partitions)},
		CommR:           s.CommR, CommD: s.CommD, ReplicaID: s.ReplicaID, Seed: seed, Ticket: s.Ticket,
	}
	for k := range p.Partitions {
		chs, err := Challenges(p, s.ReplicaID, seed, s.CommR, k)
		if err != nil {
			return nil, fmt.Errorf("partition %d: %w", k, err)
		}
		proofs := make([]c1.Proof, len(chs))
		for i, ch := range chs {
			if err := s.openChallenge(&proofs[i], ch); err != nil {
				return nil, fmt.Errorf("partition %d challenge %d (node %d): %w", k, i, ch, err)
			}
		}
		out.VanillaProofs.Partitions[k] = proofs
	}
	return out, nil
}

// openChallenge fills one challenge's vanilla proof.
func (s *Sector) openChallenge(pr *c1.Proof, ch uint64) error {
	var err error
	v := int(ch)
	if pr.CommDProofs, err = s.merkleProof(abi.TreeShape{Base: 2}, s.treeD.Path, s.CommD, s.data[v], v); err != nil {
		return err
	}
	if pr.CommRLastProof, err = s.merkleProof(s.Proof.Tree, s.treeR.Path, s.CommRLast, merkle.Node(s.Replica[32*v:32*v+32]), v); err != nil {
		return err
	}
	if pr.ReplicaColumnProofs.CX, err = s.columnProof(v); err != nil {
		return err
	}
	var parents [abi.BaseDegree + abi.ExpansionDegree]uint32
	s.graph.Parents(ch, &parents)
	for i, q := range parents {
		cp, err := s.columnProof(int(q))
		if err != nil {
			return err
		}
		if i < abi.BaseDegree {
			pr.ReplicaColumnProofs.DrgParents = append(pr.ReplicaColumnProofs.DrgParents, cp)
		} else {
			pr.ReplicaColumnProofs.ExpParents = append(pr.ReplicaColumnProofs.ExpParents, cp)
		}
	}
	slots := make([]merkle.Node, 37)
	for layer := 1; layer <= s.Proof.Layers; layer++ {
		var prev []merkle.Node
		if layer > 1 {
			prev = s.labels[layer-2]
		}
		labelParents(slots, &parents, s.labels[layer-1], prev)
		ps := make([]c1.Domain, len(slots))
		for i := range slots {
			ps[i] = c1.Domain(slots[i])
		}
		pr.LabelingProofs = append(pr.LabelingProofs, c1.LabelingProof{Parents: ps, LayerIndex: uint32(layer), Node: ch})
		if layer == s.Proof.Layers {
			pr.EncodingProof = c1.EncodingProof{Parents: ps, LayerIndex: uint32(layer), Node: ch}
		}
	}
	return nil
}

func (s *Sector) columnProof(v int) (c1.ColumnProof, error) {
	col := c1.Column{Index: uint32(v), Rows: make([]c1.Domain, s.Proof.Layers)}
	for l := range col.Rows {
		col.Rows[l] = c1.Domain(s.labels[l][v])
	}
	leaf := s.treeC.Leaf(v)
	var n merkle.Node
	frPut(&n, &leaf)
	ip, err := s.merkleProof(s.Proof.Tree, s.treeC.Path, s.CommC, n, v)
	return c1.ColumnProof{Column: col, InclusionProof: ip}, err
}

// merkleProof opens leaf v of a tree of shape t in its C1 form: Single, or
// Sub / Top with the base path split from the sub and top levels.
func (s *Sector) merkleProof(t abi.TreeShape, path func(int) (merkle.Path, error), root [32]byte, leaf merkle.Node, v int) (c1.MerkleProof, error) {
	p, err := path(v)
	if err != nil {
		return c1.MerkleProof{}, err
	}
	elems := make([]c1.PathElement, len(p))
	for i, l := range p {
		hs := make([]c1.Domain, len(l.Siblings))
		for j := range l.Siblings {
			hs[j] = c1.Domain(l.Siblings[j])
		}
		elems[i] = c1.PathElement{Hashes: hs, Index: uint64(l.Index)}
	}
	up := 0
	if t.Sub > 0 {
		up++
	}
	if t.Top > 0 {
		up++
	}
	base := elems[:len(elems)-up]
	var d c1.ProofData
	switch {
	case t.Top > 0:
		d.Top = &c1.TopProof{BaseProof: c1.InclusionPath{Path: base}, SubProof: c1.InclusionPath{Path: elems[len(base) : len(base)+1]},
			TopProof: c1.InclusionPath{Path: elems[len(base)+1:]}, Root: root, Leaf: leaf}
	case t.Sub > 0:
		d.Sub = &c1.SubProof{BaseProof: c1.InclusionPath{Path: base}, SubProof: c1.InclusionPath{Path: elems[len(base):]}, Root: root, Leaf: leaf}
	default:
		d.Single = &c1.SingleProof{Root: root, Leaf: leaf, Path: c1.InclusionPath{Path: elems}}
	}
	return c1.MerkleProof{Data: d}, nil
}

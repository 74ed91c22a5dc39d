package porep

import (
	"fmt"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/merkle"
)

// sectorNodes is what opening a challenge reads of a sector: its nodes, labels
// and the paths of its three trees. A sealed Sector and a SparseSector provide
// it; commit1 opens the challenges of either the same way.
type sectorNodes interface {
	// label is node v's label in layer (1-based).
	label(layer int, v uint64) merkle.Node
	// dataNode and replicaNode are the unsealed and sealed node v.
	dataNode(v uint64) merkle.Node
	replicaNode(v uint64) merkle.Node
	// columnLeaf is tree C's leaf v, the hash of v's column.
	columnLeaf(v uint64) merkle.Node
	// pathD, pathR and pathC open leaf v of trees D, R-last and C.
	pathD(v uint64) (merkle.Path, error)
	pathR(v uint64) (merkle.Path, error)
	pathC(v uint64) (merkle.Path, error)
}

// sectorID is what names a sector's C1 output besides its nodes.
type sectorID struct {
	proof                          abi.SealProof
	graph                          *Graph
	ticket, replicaID              [32]byte
	commD, commC, commRLast, commR [32]byte
}

// Commit1 runs SealCommitPhase1 for the sealed sector with the interactive
// randomness seed (ignored by non-interactive proof types): for every partition
// it derives the challenges and opens each as rust-fil-proofs'
// prove_layers_generate does (spec §1.2–1.4).
func (s *Sector) Commit1(seed [32]byte) (*c1.Commit1Out, error) {
	id := sectorID{proof: s.Proof, graph: s.graph, ticket: s.Ticket, replicaID: s.ReplicaID,
		commD: s.CommD, commC: s.CommC, commRLast: s.CommRLast, commR: s.CommR}
	return commit1(&id, s, seed)
}

// commit1 derives every partition's challenges and opens them in nodes.
func commit1(id *sectorID, nodes sectorNodes, seed [32]byte) (*c1.Commit1Out, error) {
	p := id.proof
	if seed == ([32]byte{}) && p.ChallengeKind != abi.NonInteractive {
		return nil, fmt.Errorf("porep: the seed is zero; C2 refuses a zero seed")
	}
	out := &c1.Commit1Out{
		RegisteredProof: p.Name,
		VanillaProofs:   c1.VanillaProofs{Key: p.VanillaKey(), Partitions: make([][]c1.Proof, p.Partitions)},
		CommR:           id.commR, CommD: id.commD, ReplicaID: id.replicaID, Seed: seed, Ticket: id.ticket,
	}
	for k := range p.Partitions {
		chs, err := Challenges(p, id.replicaID, seed, id.commR, k)
		if err != nil {
			return nil, fmt.Errorf("partition %d: %w", k, err)
		}
		proofs := make([]c1.Proof, len(chs))
		for i, ch := range chs {
			if err := id.openChallenge(nodes, &proofs[i], ch); err != nil {
				return nil, fmt.Errorf("partition %d challenge %d (node %d): %w", k, i, ch, err)
			}
		}
		out.VanillaProofs.Partitions[k] = proofs
	}
	return out, nil
}

// openChallenge fills one challenge's vanilla proof.
func (id *sectorID) openChallenge(s sectorNodes, pr *c1.Proof, ch uint64) error {
	var err error
	if pr.CommDProofs, err = merkleProof(abi.TreeShape{Base: 2}, s.pathD, id.commD, s.dataNode(ch), ch); err != nil {
		return err
	}
	if pr.CommRLastProof, err = merkleProof(id.proof.Tree, s.pathR, id.commRLast, s.replicaNode(ch), ch); err != nil {
		return err
	}
	if pr.ReplicaColumnProofs.CX, err = id.columnProof(s, ch); err != nil {
		return err
	}
	var parents [abi.BaseDegree + abi.ExpansionDegree]uint32
	id.graph.Parents(ch, &parents)
	for i, q := range parents {
		cp, err := id.columnProof(s, uint64(q))
		if err != nil {
			return err
		}
		if i < abi.BaseDegree {
			pr.ReplicaColumnProofs.DrgParents = append(pr.ReplicaColumnProofs.DrgParents, cp)
		} else {
			pr.ReplicaColumnProofs.ExpParents = append(pr.ReplicaColumnProofs.ExpParents, cp)
		}
	}
	layers := id.proof.Layers
	var ps [abi.BaseDegree + abi.ExpansionDegree]merkle.Node
	slots := make([]merkle.Node, 37)
	for layer := 1; layer <= layers; layer++ {
		for i, q := range parents {
			if i < abi.BaseDegree {
				ps[i] = s.label(layer, uint64(q))
			} else if layer > 1 {
				ps[i] = s.label(layer-1, uint64(q))
			}
		}
		fillLabelSlots(slots, &ps, layer)
		dom := make([]c1.Domain, len(slots))
		for i := range slots {
			dom[i] = c1.Domain(slots[i])
		}
		pr.LabelingProofs = append(pr.LabelingProofs, c1.LabelingProof{Parents: dom, LayerIndex: uint32(layer), Node: ch})
		if layer == layers {
			pr.EncodingProof = c1.EncodingProof{Parents: dom, LayerIndex: uint32(layer), Node: ch}
		}
	}
	return nil
}

func (id *sectorID) columnProof(s sectorNodes, v uint64) (c1.ColumnProof, error) {
	col := c1.Column{Index: uint32(v), Rows: make([]c1.Domain, id.proof.Layers)}
	for l := range col.Rows {
		col.Rows[l] = c1.Domain(s.label(l+1, v))
	}
	ip, err := merkleProof(id.proof.Tree, s.pathC, id.commC, s.columnLeaf(v), v)
	return c1.ColumnProof{Column: col, InclusionProof: ip}, err
}

// merkleProof opens leaf v of a tree of shape t in its C1 form: Single, or
// Sub / Top with the base path split from the sub and top levels.
func merkleProof(t abi.TreeShape, path func(uint64) (merkle.Path, error), root [32]byte, leaf merkle.Node, v uint64) (c1.MerkleProof, error) {
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

// The sealed Sector's nodes.

func (s *Sector) label(layer int, v uint64) merkle.Node { return s.labels[layer-1][v] }
func (s *Sector) dataNode(v uint64) merkle.Node         { return s.data[v] }
func (s *Sector) replicaNode(v uint64) merkle.Node      { return merkle.Node(s.Replica[32*v : 32*v+32]) }
func (s *Sector) columnLeaf(v uint64) merkle.Node {
	leaf := s.treeC.Leaf(int(v))
	var n merkle.Node
	frPut(&n, &leaf)
	return n
}
func (s *Sector) pathD(v uint64) (merkle.Path, error) { return s.treeD.Path(int(v)) }
func (s *Sector) pathR(v uint64) (merkle.Path, error) { return s.treeR.Path(int(v)) }
func (s *Sector) pathC(v uint64) (merkle.Path, error) { return s.treeC.Path(int(v)) }

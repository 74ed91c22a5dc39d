package c1

import (
	"fmt"

	"github.com/filc2/filc2/proofs/abi"
)

// ProofType returns the proof type that RegisteredProof names.
func (c *Commit1Out) ProofType() (abi.SealProof, error) {
	p, err := abi.ParseName(c.RegisteredProof)
	if err == nil && p.Name != c.RegisteredProof {
		err = fmt.Errorf("c1: registered_proof %q is a number, not a proof name", c.RegisteredProof)
	}
	return p, err
}

// PartitionRoots returns comm_r_last and comm_c of partition k, the roots of
// its first proof's comm_r_last_proof and c_x inclusion proof, as
// rust-fil-proofs takes them, after checking that every challenge proof of
// the partition has the same two roots.
func (c *Commit1Out) PartitionRoots(k int) (commRLast, commC Domain, err error) {
	parts := c.VanillaProofs.Partitions
	if k < 0 || k >= len(parts) || len(parts[k]) == 0 {
		return Domain{}, Domain{}, fmt.Errorf("c1: no partition %d: the file has %d partitions", k, len(parts))
	}
	proofs := parts[k]
	commRLast, commC = proofs[0].CommRLast(), proofs[0].CommC()
	for j := range proofs {
		if proofs[j].CommRLast() != commRLast {
			return Domain{}, Domain{}, &ValidationError{Path: fmt.Sprintf("vanilla_proofs.%s[%d][%d].comm_r_last_proof", c.VanillaProofs.Key, k, j),
				Msg: "inconsistent comm_r_lasts: its root differs from the partition's first proof's"}
		}
		if proofs[j].CommC() != commC {
			return Domain{}, Domain{}, &ValidationError{Path: fmt.Sprintf("vanilla_proofs.%s[%d][%d].replica_column_proofs.c_x.inclusion_proof", c.VanillaProofs.Key, k, j),
				Msg: "inconsistent comm_cs: its root differs from the partition's first proof's"}
		}
	}
	return commRLast, commC, nil
}

// Challenge returns the challenged node, labeling_proofs[0].node, which the
// circuit takes as the challenge; 0 if there are no labeling proofs.
func (p *Proof) Challenge() uint64 {
	if len(p.LabelingProofs) == 0 {
		return 0
	}
	return p.LabelingProofs[0].Node
}

// DataLeaf returns the challenged data node, the leaf of comm_d_proofs.
func (p *Proof) DataLeaf() Domain { return p.CommDProofs.Leaf() }

// CommRLast returns the root of comm_r_last_proof.
func (p *Proof) CommRLast() Domain { return p.CommRLastProof.Root() }

// CommC returns the root of the c_x column's inclusion proof.
func (p *Proof) CommC() Domain { return p.ReplicaColumnProofs.CX.InclusionProof.Root() }

// Parent returns parent column i of the challenge, 0 ≤ i < ColumnParents:
// the DRG parents first, then the expander parents, the circuit's order.
// It returns nil for an i the proof does not hold.
func (r *ReplicaColumnProof) Parent(i int) *ColumnProof {
	switch {
	case i >= 0 && i < len(r.DrgParents):
		return &r.DrgParents[i]
	case i >= len(r.DrgParents) && i-len(r.DrgParents) < len(r.ExpParents):
		return &r.ExpParents[i-len(r.DrgParents)]
	}
	return nil
}

// Variant returns the name of the ProofData variant set: "Single", "Sub" or
// "Top", or "" unless exactly one is set.
func (m *MerkleProof) Variant() string {
	v, n := m.Data.variant()
	if n != 1 {
		return ""
	}
	return v
}

// Root returns the root of the tree the proof opens.
func (m *MerkleProof) Root() Domain {
	if pp := m.Data.parts(); pp.root != nil {
		return *pp.root
	}
	return Domain{}
}

// Leaf returns the opened leaf.
func (m *MerkleProof) Leaf() Domain {
	if pp := m.Data.parts(); pp.leaf != nil {
		return *pp.leaf
	}
	return Domain{}
}

// Len returns the number of path levels: base, plus sub and top levels.
func (m *MerkleProof) Len() int {
	n := 0
	pp := m.Data.parts()
	for _, p := range pp.list() {
		n += len(p.Path)
	}
	return n
}

// Level returns path level l, 0 ≤ l < Len, counting from the leaf through
// the base path, then the sub and top paths: rust-fil-proofs' path()[l].
func (m *MerkleProof) Level(l int) *PathElement {
	pp := m.Data.parts()
	for _, p := range pp.list() {
		if l >= 0 && l < len(p.Path) {
			return &p.Path[l]
		}
		l -= len(p.Path)
	}
	return nil
}

// Siblings returns the siblings of every level, leaf to root (base, then sub,
// then top). The inner slices are the proof's own.
func (m *MerkleProof) Siblings() [][]Domain {
	out := make([][]Domain, 0, m.Len())
	pp := m.Data.parts()
	for _, p := range pp.list() {
		for i := range p.Path {
			out = append(out, p.Path[i].Hashes)
		}
	}
	return out
}

// Indices returns the index of every level, leaf to root. For the binary
// tree D these are the bits of the opened node, least significant first.
func (m *MerkleProof) Indices() []uint64 {
	out := make([]uint64, 0, m.Len())
	pp := m.Data.parts()
	for _, p := range pp.list() {
		for i := range p.Path {
			out = append(out, p.Path[i].Index)
		}
	}
	return out
}

// PathIndex returns the opened leaf's index, Σ index_l · Π_{j<l} arity_j in
// mixed radix over all levels, where a level's arity is its sibling count
// plus one: rust-fil-proofs' path_index() for Single, Sub and Top proofs.
func (m *MerkleProof) PathIndex() uint64 {
	var idx, weight uint64 = 0, 1
	pp := m.Data.parts()
	for _, p := range pp.list() {
		for i := range p.Path {
			e := &p.Path[i]
			idx += e.Index * weight
			weight *= uint64(len(e.Hashes) + 1)
		}
	}
	return idx
}

// PathIndex returns the leaf index this path alone opens, Σ index_l ·
// arity^l (rust-fil-proofs' InclusionPath::path_index), where arity is the
// sibling count plus one.
func (ip *InclusionPath) PathIndex() uint64 {
	var idx, weight uint64 = 0, 1
	for i := range ip.Path {
		idx += ip.Path[i].Index * weight
		weight *= uint64(len(ip.Path[i].Hashes) + 1)
	}
	return idx
}

// variant returns the name of the first variant set and how many are set.
func (d *ProofData) variant() (string, int) {
	name, n := "", 0
	for _, v := range []struct {
		set  bool
		name string
	}{{d.Single != nil, "Single"}, {d.Sub != nil, "Sub"}, {d.Top != nil, "Top"}} {
		if v.set {
			if n == 0 {
				name = v.name
			}
			n++
		}
	}
	return name, n
}

// proofParts are the pieces of the variant set in a ProofData.
type proofParts struct {
	paths      [3]*InclusionPath // base, then sub and top as present
	keys       []string          // their JSON keys; len(keys) paths are set
	root, leaf *Domain
}

// list returns the paths present.
func (pp *proofParts) list() []*InclusionPath { return pp.paths[:len(pp.keys)] }

// parts returns the pieces of the first variant set; all nil if none is.
func (d *ProofData) parts() (pp proofParts) {
	switch {
	case d.Single != nil:
		s := d.Single
		pp.paths[0], pp.keys, pp.root, pp.leaf = &s.Path, singleFields[2:], &s.Root, &s.Leaf
	case d.Sub != nil:
		s := d.Sub
		pp.paths[0], pp.paths[1], pp.keys, pp.root, pp.leaf = &s.BaseProof, &s.SubProof, subFields[:2], &s.Root, &s.Leaf
	case d.Top != nil:
		t := d.Top
		pp.paths[0], pp.paths[1], pp.paths[2], pp.keys, pp.root, pp.leaf = &t.BaseProof, &t.SubProof, &t.TopProof, topFields[:3], &t.Root, &t.Leaf
	}
	return pp
}

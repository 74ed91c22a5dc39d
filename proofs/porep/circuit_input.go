package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/c1"
)

// PartitionInputFromC1 returns the circuit input of partition k of a decoded
// C1 output: what rust-fil-proofs' From<VanillaProof> takes (spec §1.4), with
// comm_r_last and comm_c from the partition's first challenge proof.
func PartitionInputFromC1(c *c1.Commit1Out, k int) (*PartitionInput, error) {
	commRLast, commC, err := c.PartitionRoots(k)
	if err != nil {
		return nil, err
	}
	var conv converter
	in := &PartitionInput{
		ReplicaID: conv.elem(c.ReplicaID, "replica_id"),
		CommD:     conv.elem(c.CommD, "comm_d"),
		CommR:     conv.elem(c.CommR, "comm_r"),
		CommRLast: conv.elem(commRLast, "comm_r_last"),
		CommC:     conv.elem(commC, "comm_c"),
	}
	proofs := c.VanillaProofs.Partitions[k]
	in.Proofs = make([]ChallengeInput, len(proofs))
	for j := range proofs {
		pr := &proofs[j]
		ci := &in.Proofs[j]
		ci.Challenge = pr.Challenge()
		ci.DataLeaf = conv.elem(pr.DataLeaf(), "comm_d_proofs.leaf")
		ci.CommDPath = conv.path(&pr.CommDProofs, "comm_d_proofs")
		ci.CommRLastPath = conv.path(&pr.CommRLastProof, "comm_r_last_proof")
		ci.CommCPath = conv.path(&pr.ReplicaColumnProofs.CX.InclusionProof, "c_x.inclusion_proof")
		rcp := &pr.ReplicaColumnProofs
		if len(rcp.DrgParents) != len(ci.DRGParents) || len(rcp.ExpParents) != len(ci.ExpParents) {
			return nil, fmt.Errorf("partition %d challenge %d: %d drg and %d exp parents, want %d and %d",
				k, j, len(rcp.DrgParents), len(rcp.ExpParents), len(ci.DRGParents), len(ci.ExpParents))
		}
		for i := range rcp.DrgParents {
			ci.DRGParents[i] = conv.column(&rcp.DrgParents[i], "drg_parents")
		}
		for i := range rcp.ExpParents {
			ci.ExpParents[i] = conv.column(&rcp.ExpParents[i], "exp_parents")
		}
		if conv.err != nil {
			return nil, fmt.Errorf("partition %d challenge %d: %w", k, j, conv.err)
		}
	}
	if conv.err != nil {
		return nil, fmt.Errorf("partition %d: %w", k, conv.err)
	}
	return in, nil
}

// converter turns C1 domains into field elements, keeping the first error.
type converter struct{ err error }

func (cv *converter) elem(d c1.Domain, what string) fr.Element {
	e, err := fr.LittleEndian.Element((*[32]byte)(&d))
	if err != nil && cv.err == nil {
		cv.err = fmt.Errorf("%s is not a field element (≥ r)", what)
	}
	return e
}

func (cv *converter) path(m *c1.MerkleProof, what string) []PathLevel {
	sibs, idx := m.Siblings(), m.Indices()
	out := make([]PathLevel, len(sibs))
	for l := range sibs {
		out[l].Index = int(idx[l])
		out[l].Siblings = make([]fr.Element, len(sibs[l]))
		for i, s := range sibs[l] {
			out[l].Siblings[i] = cv.elem(s, what)
		}
	}
	return out
}

func (cv *converter) column(cp *c1.ColumnProof, what string) Column {
	col := Column{Rows: make([]fr.Element, len(cp.Column.Rows)), Path: cv.path(&cp.InclusionProof, what)}
	for i, r := range cp.Column.Rows {
		col.Rows[i] = cv.elem(r, what+".column.rows")
	}
	return col
}

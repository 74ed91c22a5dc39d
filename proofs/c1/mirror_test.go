package c1

// The mirror types model the Rust structs with encoding/json tags, in Rust
// field order, the way curio's lib/proof does. They are an independent oracle
// for the encoder (encoding/json writes fields in declaration order, [32]byte
// as an array of numbers, nil any as null) and the decoding baseline.

type mirrorCommit1Out struct {
	RegisteredProof string                     `json:"registered_proof"`
	VanillaProofs   map[string][][]mirrorProof `json:"vanilla_proofs"`
	CommR           Domain                     `json:"comm_r"`
	CommD           Domain                     `json:"comm_d"`
	ReplicaID       Domain                     `json:"replica_id"`
	Seed            Domain                     `json:"seed"`
	Ticket          Domain                     `json:"ticket"`
}

type mirrorProof struct {
	CommDProofs         mirrorMerkle  `json:"comm_d_proofs"`
	CommRLastProof      mirrorMerkle  `json:"comm_r_last_proof"`
	ReplicaColumnProofs mirrorReplica `json:"replica_column_proofs"`
	LabelingProofs      []mirrorLabel `json:"labeling_proofs"`
	EncodingProof       mirrorLabel   `json:"encoding_proof"`
}

type mirrorReplica struct {
	CX         mirrorColumnProof   `json:"c_x"`
	DrgParents []mirrorColumnProof `json:"drg_parents"`
	ExpParents []mirrorColumnProof `json:"exp_parents"`
}

type mirrorColumnProof struct {
	Column         mirrorColumn `json:"column"`
	InclusionProof mirrorMerkle `json:"inclusion_proof"`
}

type mirrorColumn struct {
	Index uint32   `json:"index"`
	Rows  []Domain `json:"rows"`
	H     any      `json:"_h"`
}

type mirrorLabel struct {
	Parents    []Domain `json:"parents"`
	LayerIndex uint32   `json:"layer_index"`
	Node       uint64   `json:"node"`
}

type mirrorMerkle struct {
	Data struct {
		Single *struct {
			Root Domain     `json:"root"`
			Leaf Domain     `json:"leaf"`
			Path mirrorPath `json:"path"`
		} `json:"Single,omitempty"`
		Sub *struct {
			BaseProof mirrorPath `json:"base_proof"`
			SubProof  mirrorPath `json:"sub_proof"`
			Root      Domain     `json:"root"`
			Leaf      Domain     `json:"leaf"`
		} `json:"Sub,omitempty"`
		Top *struct {
			BaseProof mirrorPath `json:"base_proof"`
			SubProof  mirrorPath `json:"sub_proof"`
			TopProof  mirrorPath `json:"top_proof"`
			Root      Domain     `json:"root"`
			Leaf      Domain     `json:"leaf"`
		} `json:"Top,omitempty"`
	} `json:"data"`
}

type mirrorPath struct {
	Path []struct {
		Hashes []Domain `json:"hashes"`
		Index  uint64   `json:"index"`
	} `json:"path"`
}

// toMirror converts c to the mirror types.
func toMirror(c *Commit1Out) mirrorCommit1Out {
	path := func(ip *InclusionPath) mirrorPath {
		var m mirrorPath
		for _, e := range ip.Path {
			m.Path = append(m.Path, struct {
				Hashes []Domain `json:"hashes"`
				Index  uint64   `json:"index"`
			}{e.Hashes, e.Index})
		}
		return m
	}
	merkle := func(p *MerkleProof) mirrorMerkle {
		var m mirrorMerkle
		d := &m.Data
		switch {
		case p.Data.Single != nil:
			s := p.Data.Single
			d.Single = &struct {
				Root Domain     `json:"root"`
				Leaf Domain     `json:"leaf"`
				Path mirrorPath `json:"path"`
			}{s.Root, s.Leaf, path(&s.Path)}
		case p.Data.Sub != nil:
			s := p.Data.Sub
			d.Sub = &struct {
				BaseProof mirrorPath `json:"base_proof"`
				SubProof  mirrorPath `json:"sub_proof"`
				Root      Domain     `json:"root"`
				Leaf      Domain     `json:"leaf"`
			}{path(&s.BaseProof), path(&s.SubProof), s.Root, s.Leaf}
		case p.Data.Top != nil:
			s := p.Data.Top
			d.Top = &struct {
				BaseProof mirrorPath `json:"base_proof"`
				SubProof  mirrorPath `json:"sub_proof"`
				TopProof  mirrorPath `json:"top_proof"`
				Root      Domain     `json:"root"`
				Leaf      Domain     `json:"leaf"`
			}{path(&s.BaseProof), path(&s.SubProof), path(&s.TopProof), s.Root, s.Leaf}
		}
		return m
	}
	column := func(cp *ColumnProof) mirrorColumnProof {
		return mirrorColumnProof{mirrorColumn{Index: cp.Column.Index, Rows: cp.Column.Rows}, merkle(&cp.InclusionProof)}
	}
	columns := func(cps []ColumnProof) []mirrorColumnProof {
		out := []mirrorColumnProof{}
		for i := range cps {
			out = append(out, column(&cps[i]))
		}
		return out
	}
	m := mirrorCommit1Out{
		RegisteredProof: c.RegisteredProof,
		VanillaProofs:   map[string][][]mirrorProof{},
		CommR:           c.CommR, CommD: c.CommD, ReplicaID: c.ReplicaID, Seed: c.Seed, Ticket: c.Ticket,
	}
	parts := [][]mirrorProof{}
	for _, part := range c.VanillaProofs.Partitions {
		ps := []mirrorProof{}
		for j := range part {
			p := &part[j]
			mp := mirrorProof{
				CommDProofs:    merkle(&p.CommDProofs),
				CommRLastProof: merkle(&p.CommRLastProof),
				ReplicaColumnProofs: mirrorReplica{
					CX:         column(&p.ReplicaColumnProofs.CX),
					DrgParents: columns(p.ReplicaColumnProofs.DrgParents),
					ExpParents: columns(p.ReplicaColumnProofs.ExpParents),
				},
				LabelingProofs: []mirrorLabel{},
				EncodingProof:  mirrorLabel{p.EncodingProof.Parents, p.EncodingProof.LayerIndex, p.EncodingProof.Node},
			}
			for _, l := range p.LabelingProofs {
				mp.LabelingProofs = append(mp.LabelingProofs, mirrorLabel{l.Parents, l.LayerIndex, l.Node})
			}
			ps = append(ps, mp)
		}
		parts = append(parts, ps)
	}
	m.VanillaProofs[c.VanillaProofs.Key] = parts
	return m
}

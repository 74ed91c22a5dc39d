package c1

import (
	"errors"
	"strings"
	"testing"
)

// rule is a targeted corruption of a valid value and the error it must cause.
type rule struct {
	name   string
	mutate func(c *Commit1Out)
	path   string // exact JSON path of the *ValidationError
	msg    string // a part of its message
}

// notFr is no field element: 2^256 − 1 ≥ r.
var notFr = func() (d Domain) {
	for i := range d {
		d[i] = 0xff
	}
	return d
}()

// proof returns challenge proof j of partition k.
func proof(c *Commit1Out, k, j int) *Proof { return &c.VanillaProofs.Partitions[k][j] }

// checkRules applies each rule to a fresh valid value of the proof type and
// checks the error, through Decode(Encode(c)) when viaDecode, else Validate.
func checkRules(t *testing.T, name string, viaDecode bool, rules []rule) {
	t.Helper()
	if err := valid(t, name, 11).Validate(); err != nil {
		t.Fatalf("%s: the unmodified value fails: %v", name, err)
	}
	for _, r := range rules {
		c := valid(t, name, 11)
		r.mutate(c)
		var err error
		if viaDecode {
			_, err = Decode(mustEncode(t, c))
		} else {
			err = c.Validate()
		}
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: %s: got %v (%T), want a *ValidationError", name, r.name, err, err)
			continue
		}
		if ve.Path != r.path || !strings.Contains(ve.Msg, r.msg) {
			t.Errorf("%s: %s:\n got %v\nwant %s: …%s…", name, r.name, err, r.path, r.msg)
		}
	}
}

// TestValidateRules2KiB corrupts one thing at a time in a 2KiB file and
// decodes it.
func TestValidateRules2KiB(t *testing.T) {
	const v = "vanilla_proofs.StackedDrg2KiBV1"
	const p01 = v + "[0][1]"
	single := func(m *MerkleProof) *SingleProof { return m.Data.Single }
	dPath := func(c *Commit1Out) []PathElement { return single(&proof(c, 0, 1).CommDProofs).Path.Path }
	rPath := func(c *Commit1Out) []PathElement { return single(&proof(c, 0, 1).CommRLastProof).Path.Path }
	cx := func(c *Commit1Out) *ColumnProof { return &proof(c, 0, 1).ReplicaColumnProofs.CX }
	checkRules(t, "StackedDrg2KiBV1_1", true, []rule{
		// Proof type and variant.
		{"unknown proof type", func(c *Commit1Out) { c.RegisteredProof = "StackedDrg4KiBV1_1" }, "registered_proof", `unknown proof type "StackedDrg4KiBV1_1"`},
		{"numeric proof type", func(c *Commit1Out) { c.RegisteredProof = "5" }, "registered_proof", `unknown proof type "5"`},
		{"other size's proof type", func(c *Commit1Out) { c.RegisteredProof = "StackedDrg32GiBV1_1" }, "vanilla_proofs",
			"variant StackedDrg2KiBV1 does not belong to registered_proof StackedDrg32GiBV1_1, whose vanilla proofs are StackedDrg32GiBV1"},
		{"other size's variant", func(c *Commit1Out) { c.VanillaProofs.Key = "StackedDrg8MiBV1" }, "vanilla_proofs", "variant StackedDrg8MiBV1 does not belong"},
		{"unknown variant", func(c *Commit1Out) { c.VanillaProofs.Key = "StackedDrg2KiBV1_1" }, "vanilla_proofs", `unknown variant "StackedDrg2KiBV1_1": want StackedDrg2KiBV1`},
		// Top-level values.
		{"zero comm_r", func(c *Commit1Out) { c.CommR = Domain{} }, "comm_r", "all zero"},
		{"comm_r ≥ r", func(c *Commit1Out) { c.CommR = notFr }, "comm_r", "not below the BLS12-381 scalar modulus r"},
		{"zero comm_d", func(c *Commit1Out) { c.CommD = Domain{} }, "comm_d", "all zero"},
		{"comm_d ≥ r", func(c *Commit1Out) { c.CommD = notFr }, "comm_d", "C2 requires comm_d < r"},
		{"replica_id ≥ r", func(c *Commit1Out) { c.ReplicaID[31] = 0x74 }, "replica_id", "not below"},
		{"zero seed", func(c *Commit1Out) { c.Seed = Domain{} }, "seed", "C2 rejects a zero seed"},
		// Counts.
		{"no partition", func(c *Commit1Out) { c.VanillaProofs.Partitions = nil }, v, "0 partitions, want 1 for StackedDrg2KiBV1_1"},
		{"extra partition", func(c *Commit1Out) {
			c.VanillaProofs.Partitions = append(c.VanillaProofs.Partitions, c.VanillaProofs.Partitions[0])
		}, v, "2 partitions, want 1"},
		{"missing challenge", func(c *Commit1Out) { c.VanillaProofs.Partitions[0] = c.VanillaProofs.Partitions[0][:1] }, v + "[0]", "1 challenge proof, want 2 per partition"},
		// The challenge.
		{"challenge 0", func(c *Commit1Out) { proof(c, 0, 1).LabelingProofs[0].Node = 0 }, p01 + ".labeling_proofs[0].node", "challenge 0 is outside 1..63"},
		{"challenge ≥ nodes", func(c *Commit1Out) { proof(c, 0, 1).LabelingProofs[0].Node = 64 }, p01 + ".labeling_proofs[0].node", "challenge 64 is outside"},
		{"no labeling proofs", func(c *Commit1Out) { proof(c, 0, 1).LabelingProofs = nil }, p01 + ".labeling_proofs", "empty, want 2"},
		// Tree D.
		{"tree D not Single", func(c *Commit1Out) {
			s := single(&proof(c, 0, 1).CommDProofs)
			proof(c, 0, 1).CommDProofs.Data = ProofData{Sub: &SubProof{BaseProof: s.Path, Root: s.Root, Leaf: s.Leaf}}
		}, p01 + ".comm_d_proofs.data", "a Sub proof, want Single: tree D of StackedDrg2KiBV1_1 is a binary tree of 2^6 leaves"},
		{"tree D short", func(c *Commit1Out) { s := single(&proof(c, 0, 1).CommDProofs); s.Path.Path = s.Path.Path[:5] },
			p01 + ".comm_d_proofs.data.Single.path.path", "5 levels, want 6"},
		{"tree D two siblings", func(c *Commit1Out) { e := &dPath(c)[2]; e.Hashes = append(e.Hashes, e.Hashes[0]) },
			p01 + ".comm_d_proofs.data.Single.path.path[2].hashes", "2 siblings, want 1 at a level of arity 2"},
		{"tree D index 2", func(c *Commit1Out) { dPath(c)[2].Index = 2 }, p01 + ".comm_d_proofs.data.Single.path.path[2].index", "2, want 0-1"},
		{"tree D sibling untrimmed", func(c *Commit1Out) { dPath(c)[1].Hashes[0][31] = 0x40 },
			p01 + ".comm_d_proofs.data.Single.path.path[1].hashes[0]", "byte 31 is 0x40, but tree-D (SHA-256) values are trimmed"},
		{"tree D leaf untrimmed", func(c *Commit1Out) { single(&proof(c, 0, 1).CommDProofs).Leaf[31] |= 0x80 },
			p01 + ".comm_d_proofs.data.Single.leaf", "trimmed to 254 bits"},
		{"tree D root not comm_d", func(c *Commit1Out) { single(&proof(c, 0, 1).CommDProofs).Root[0] ^= 1 },
			p01 + ".comm_d_proofs.data.Single.root", "differs from comm_d"},
		{"tree D other node", func(c *Commit1Out) { dPath(c)[0].Index ^= 1 }, p01 + ".comm_d_proofs", "opens node"},
		// Tree R-last.
		{"tree R short", func(c *Commit1Out) { s := single(&proof(c, 0, 1).CommRLastProof); s.Path.Path = s.Path.Path[:1] },
			p01 + ".comm_r_last_proof.data.Single.path.path", "1 level, want 2: trees R and C of StackedDrg2KiBV1_1 are 1 base trees of 64 leaves"},
		{"tree R six siblings", func(c *Commit1Out) { e := &rPath(c)[1]; e.Hashes = e.Hashes[:6] },
			p01 + ".comm_r_last_proof.data.Single.path.path[1].hashes", "6 siblings, want 7"},
		{"tree R index 8", func(c *Commit1Out) { rPath(c)[0].Index = 8 }, p01 + ".comm_r_last_proof.data.Single.path.path[0].index", "8, want 0-7"},
		{"tree R sibling ≥ r", func(c *Commit1Out) { rPath(c)[1].Hashes[3] = notFr }, p01 + ".comm_r_last_proof.data.Single.path.path[1].hashes[3]", "not below"},
		{"tree R root ≥ r", func(c *Commit1Out) { single(&proof(c, 0, 0).CommRLastProof).Root = notFr },
			v + "[0][0].comm_r_last_proof.data.Single.root", "no Poseidon field element"},
		{"tree R leaf ≥ r", func(c *Commit1Out) { single(&proof(c, 0, 1).CommRLastProof).Leaf = notFr }, p01 + ".comm_r_last_proof.data.Single.leaf", "not below"},
		{"tree R other node", func(c *Commit1Out) { rPath(c)[1].Index = (rPath(c)[1].Index + 1) % 8 }, p01 + ".comm_r_last_proof", "opens node"},
		{"inconsistent comm_r_last", func(c *Commit1Out) { single(&proof(c, 0, 1).CommRLastProof).Root[0] ^= 1 },
			p01 + ".comm_r_last_proof.data.Single.root", "differs from comm_r_last"},
		// Columns.
		{"c_x other node", func(c *Commit1Out) { cx(c).Column.Index ^= 1 }, p01 + ".replica_column_proofs.c_x.column.index", "but the challenge"},
		{"c_x one row", func(c *Commit1Out) { cx(c).Column.Rows = cx(c).Column.Rows[:1] }, p01 + ".replica_column_proofs.c_x.column.rows", "1 row, want 2"},
		{"c_x row ≥ r", func(c *Commit1Out) { cx(c).Column.Rows[1] = notFr }, p01 + ".replica_column_proofs.c_x.column.rows[1]", "not below"},
		{"inconsistent comm_c", func(c *Commit1Out) { single(&cx(c).InclusionProof).Root[5] ^= 1 },
			p01 + ".replica_column_proofs.c_x.inclusion_proof.data.Single.root", "differs from comm_c"},
		{"five DRG parents", func(c *Commit1Out) {
			r := &proof(c, 0, 1).ReplicaColumnProofs
			r.DrgParents = r.DrgParents[:5]
		}, p01 + ".replica_column_proofs.drg_parents", "5 parent columns, want 6"},
		{"nine expander parents", func(c *Commit1Out) {
			r := &proof(c, 0, 1).ReplicaColumnProofs
			r.ExpParents = append(r.ExpParents, r.ExpParents[0])
		}, p01 + ".replica_column_proofs.exp_parents", "9 parent columns, want 8"},
		{"parent column index", func(c *Commit1Out) { proof(c, 0, 1).ReplicaColumnProofs.ExpParents[2].Column.Index ^= 1 },
			p01 + ".replica_column_proofs.exp_parents[2].inclusion_proof", "opens node"},
		{"parent row ≥ r", func(c *Commit1Out) { proof(c, 0, 1).ReplicaColumnProofs.DrgParents[3].Column.Rows[0] = notFr },
			p01 + ".replica_column_proofs.drg_parents[3].column.rows[0]", "not below"},
		{"parent path", func(c *Commit1Out) {
			single(&proof(c, 0, 1).ReplicaColumnProofs.DrgParents[1].InclusionProof).Path.Path[0].Hashes = nil
		}, p01 + ".replica_column_proofs.drg_parents[1].inclusion_proof.data.Single.path.path[0].hashes", "0 siblings, want 7"},
		{"parent root", func(c *Commit1Out) {
			single(&proof(c, 0, 1).ReplicaColumnProofs.DrgParents[4].InclusionProof).Root[0] ^= 1
		},
			p01 + ".replica_column_proofs.drg_parents[4].inclusion_proof.data.Single.root", "differs from the c_x root"},
		// Labeling and encoding proofs.
		{"one labeling proof", func(c *Commit1Out) { proof(c, 0, 1).LabelingProofs = proof(c, 0, 1).LabelingProofs[:1] },
			p01 + ".labeling_proofs", "1 labeling proof, want 2 (one per layer of StackedDrg2KiBV1_1)"},
		{"36 parents", func(c *Commit1Out) { l := &proof(c, 0, 1).LabelingProofs[1]; l.Parents = l.Parents[:36] },
			p01 + ".labeling_proofs[1].parents", "36 parent labels, want 37"},
		{"label ≥ r", func(c *Commit1Out) { proof(c, 0, 1).LabelingProofs[0].Parents[36] = notFr }, p01 + ".labeling_proofs[0].parents[36]", "not below"},
		{"layer index", func(c *Commit1Out) { proof(c, 0, 1).LabelingProofs[1].LayerIndex = 1 }, p01 + ".labeling_proofs[1].layer_index", "1, want 2"},
		{"labeling node", func(c *Commit1Out) { proof(c, 0, 1).LabelingProofs[1].Node++ }, p01 + ".labeling_proofs[1].node", "but the challenge"},
		{"encoding parents", func(c *Commit1Out) { e := &proof(c, 0, 1).EncodingProof; e.Parents = append(e.Parents, e.Parents[0]) },
			p01 + ".encoding_proof.parents", "38 parent labels, want 37"},
		{"encoding layer", func(c *Commit1Out) { proof(c, 0, 1).EncodingProof.LayerIndex = 1 }, p01 + ".encoding_proof.layer_index", "1, want 2"},
		{"encoding node", func(c *Commit1Out) { proof(c, 0, 1).EncodingProof.Node = 0 }, p01 + ".encoding_proof.node", "0, but the challenge"},
	})
}

// TestValidateTicketFree checks that the ticket, which C2 does not use, may
// hold any bytes.
func TestValidateTicketFree(t *testing.T) {
	c := valid(t, "StackedDrg2KiBV1_1", 12)
	c.Ticket = notFr
	if _, err := Decode(mustEncode(t, c)); err != nil {
		t.Fatal(err)
	}
}

// TestValidateRulesPartitions checks the cross-partition root rule on NI-PoRep
// 2KiB (13 partitions).
func TestValidateRulesPartitions(t *testing.T) {
	const v = "vanilla_proofs.StackedDrg2KiBV1"
	reroot := func(c *Commit1Out, k int, mp func(p *Proof) *MerkleProof) {
		for j := range c.VanillaProofs.Partitions[k] {
			mp(proof(c, k, j)).Data.Single.Root[0] ^= 1
		}
	}
	checkRules(t, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", true, []rule{
		{"12 partitions", func(c *Commit1Out) { c.VanillaProofs.Partitions = c.VanillaProofs.Partitions[:12] }, v,
			"12 partitions, want 13 for StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"},
		{"partition 3 comm_c", func(c *Commit1Out) {
			reroot(c, 3, func(p *Proof) *MerkleProof { return &p.ReplicaColumnProofs.CX.InclusionProof })
			for j := range c.VanillaProofs.Partitions[3] {
				r := &proof(c, 3, j).ReplicaColumnProofs
				for i := range ColumnParents {
					r.Parent(i).InclusionProof.Data.Single.Root = r.CX.InclusionProof.Data.Single.Root
				}
			}
		}, v + "[3][0].replica_column_proofs.c_x.inclusion_proof.data.Single.root", "differs from partition 0's comm_c"},
		{"partition 12 comm_r_last", func(c *Commit1Out) { reroot(c, 12, func(p *Proof) *MerkleProof { return &p.CommRLastProof }) },
			v + "[12][0].comm_r_last_proof.data.Single.root", "differs from partition 0's comm_r_last"},
	})
}

// TestValidateRulesShapes checks the Single, Sub and Top path rules of the
// larger sectors.
func TestValidateRulesShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 32GiB- and 64GiB-shaped files")
	}
	checkRules(t, "StackedDrg512MiBV1_1", true, []rule{
		{"Single six siblings", func(c *Commit1Out) {
			e := &proof(c, 0, 1).CommRLastProof.Data.Single.Path.Path[3]
			e.Hashes = e.Hashes[:6]
		},
			"vanilla_proofs.StackedDrg512MiBV1[0][1].comm_r_last_proof.data.Single.path.path[3].hashes", "6 siblings, want 7"},
	})
	const v32 = "vanilla_proofs.StackedDrg32GiBV1[9][17]"
	sub := func(c *Commit1Out) *SubProof { return proof(c, 9, 17).CommRLastProof.Data.Sub }
	checkRules(t, "StackedDrg32GiBV1_1", false, []rule{
		{"Sub six siblings", func(c *Commit1Out) { e := &sub(c).BaseProof.Path[3]; e.Hashes = e.Hashes[:6] },
			v32 + ".comm_r_last_proof.data.Sub.base_proof.path[3].hashes", "6 siblings, want 7"},
		{"Single for Sub", func(c *Commit1Out) {
			s := sub(c)
			proof(c, 9, 17).CommRLastProof.Data = ProofData{Single: &SingleProof{Root: s.Root, Leaf: s.Leaf, Path: s.BaseProof}}
		}, v32 + ".comm_r_last_proof.data", "a Single proof, want Sub: trees R and C of StackedDrg32GiBV1_1 are 8 base trees of 134217728 leaves (arity 8) under a sub level of arity 8"},
		{"Sub and Single", func(c *Commit1Out) { proof(c, 9, 17).CommRLastProof.Data.Single = &SingleProof{} },
			v32 + ".comm_r_last_proof.data", "2 ProofData variants set"},
		{"base path ten levels", func(c *Commit1Out) { s := sub(c); s.BaseProof.Path = append(s.BaseProof.Path, s.BaseProof.Path[0]) },
			v32 + ".comm_r_last_proof.data.Sub.base_proof.path", "10 levels, want 9"},
		{"sub path two levels", func(c *Commit1Out) { s := sub(c); s.SubProof.Path = append(s.SubProof.Path, s.SubProof.Path[0]) },
			v32 + ".comm_r_last_proof.data.Sub.sub_proof.path", "2 levels, want 1"},
		{"sub index 8", func(c *Commit1Out) { sub(c).SubProof.Path[0].Index = 8 }, v32 + ".comm_r_last_proof.data.Sub.sub_proof.path[0].index", "8, want 0-7"},
		{"sub index moves", func(c *Commit1Out) { e := &sub(c).SubProof.Path[0]; e.Index = (e.Index + 1) % 8 }, v32 + ".comm_r_last_proof", "opens node"},
		{"tree D 29 levels", func(c *Commit1Out) { s := proof(c, 2, 3).CommDProofs.Data.Single; s.Path.Path = s.Path.Path[1:] },
			"vanilla_proofs.StackedDrg32GiBV1[2][3].comm_d_proofs.data.Single.path.path", "29 levels, want 30"},
		{"eleven rows", func(c *Commit1Out) {
			r := &proof(c, 0, 0).ReplicaColumnProofs.ExpParents[7].Column
			r.Rows = r.Rows[:10]
		},
			"vanilla_proofs.StackedDrg32GiBV1[0][0].replica_column_proofs.exp_parents[7].column.rows", "10 rows, want 11"},
		{"17 challenges", func(c *Commit1Out) { c.VanillaProofs.Partitions[4] = c.VanillaProofs.Partitions[4][1:] },
			"vanilla_proofs.StackedDrg32GiBV1[4]", "17 challenge proofs, want 18 per partition for StackedDrg32GiBV1_1"},
	})
	const v64 = "vanilla_proofs.StackedDrg64GiBV1[0][0]"
	top := func(c *Commit1Out) *TopProof { return proof(c, 0, 0).ReplicaColumnProofs.CX.InclusionProof.Data.Top }
	checkRules(t, "StackedDrg64GiBV1_1", false, []rule{
		{"top index 2", func(c *Commit1Out) { top(c).TopProof.Path[0].Index = 2 },
			v64 + ".replica_column_proofs.c_x.inclusion_proof.data.Top.top_proof.path[0].index", "2, want 0-1 at a level of arity 2"},
		{"top seven siblings", func(c *Commit1Out) { e := &top(c).TopProof.Path[0]; e.Hashes = append(e.Hashes, make([]Domain, 6)...) },
			v64 + ".replica_column_proofs.c_x.inclusion_proof.data.Top.top_proof.path[0].hashes", "7 siblings, want 1"},
		{"Sub for Top", func(c *Commit1Out) {
			t := top(c)
			proof(c, 0, 0).ReplicaColumnProofs.CX.InclusionProof.Data = ProofData{Sub: &SubProof{BaseProof: t.BaseProof, SubProof: t.SubProof, Root: t.Root, Leaf: t.Leaf}}
		}, v64 + ".replica_column_proofs.c_x.inclusion_proof.data", "a Sub proof, want Top"},
		{"top sibling ≥ r", func(c *Commit1Out) { top(c).TopProof.Path[0].Hashes[0] = notFr },
			v64 + ".replica_column_proofs.c_x.inclusion_proof.data.Top.top_proof.path[0].hashes[0]", "not below"},
		{"tree D 30 levels", func(c *Commit1Out) { s := proof(c, 0, 0).CommDProofs.Data.Single; s.Path.Path = s.Path.Path[:30] },
			v64 + ".comm_d_proofs.data.Single.path.path", "30 levels, want 31"},
	})
}

package porep_test

import (
	"context"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/porep"
)

func proofType(t *testing.T, name string) abi.SealProof {
	t.Helper()
	p, err := abi.ParseName(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkSyntheticShape checks what c1.Validate leaves implicit: the counts and
// path lengths of every challenge proof of a synthetic C1.
func checkSyntheticShape(t *testing.T, p abi.SealProof, out *c1.Commit1Out) {
	t.Helper()
	if err := out.Validate(); err != nil {
		t.Fatalf("%s: the synthetic C1 does not validate: %v", p.Name, err)
	}
	parts := out.VanillaProofs.Partitions
	if len(parts) != p.Partitions || out.VanillaProofs.Key != p.VanillaKey() || out.RegisteredProof != p.Name {
		t.Fatalf("%s: %d partitions of %s", p.Name, len(parts), out.VanillaProofs.Key)
	}
	wantVariant := "Single"
	switch {
	case p.Tree.Top > 0:
		wantVariant = "Top"
	case p.Tree.Sub > 0:
		wantVariant = "Sub"
	}
	for k := range parts {
		want, err := porep.Challenges(p, out.ReplicaID, out.Seed, out.CommR, k)
		if err != nil {
			t.Fatal(err)
		}
		if len(parts[k]) != p.ChallengesPerPartition {
			t.Fatalf("%s partition %d: %d challenges", p.Name, k, len(parts[k]))
		}
		for j := range parts[k] {
			pr := &parts[k][j]
			if pr.Challenge() != want[j] {
				t.Fatalf("%s partition %d challenge %d: node %d, the derived challenge is %d", p.Name, k, j, pr.Challenge(), want[j])
			}
			if n := pr.CommDProofs.Len(); n != p.TreeDLevels() {
				t.Fatalf("%s: tree D path of %d levels", p.Name, n)
			}
			rcp := &pr.ReplicaColumnProofs
			for _, m := range []*c1.MerkleProof{&pr.CommRLastProof, &rcp.CX.InclusionProof, &rcp.DrgParents[0].InclusionProof, &rcp.ExpParents[7].InclusionProof} {
				if m.Len() != p.TreeRLevels() || m.Variant() != wantVariant {
					t.Fatalf("%s: a tree R/C path of %d levels (%s), want %d (%s)", p.Name, m.Len(), m.Variant(), p.TreeRLevels(), wantVariant)
				}
			}
			if len(rcp.DrgParents) != abi.BaseDegree || len(rcp.ExpParents) != abi.ExpansionDegree || len(rcp.CX.Column.Rows) != p.Layers ||
				len(pr.LabelingProofs) != p.Layers || len(pr.EncodingProof.Parents) != c1.LabelParents {
				t.Fatalf("%s: wrong counts in %+v", p.Name, rcp.CX.Column)
			}
		}
	}
}

// At 2KiB and 8MiB the synthetic C1 validates, survives the JSON, fails the
// vanilla checks, and synthesises: the witness's public inputs are the ones a
// verifier derives from its replica_id, comm_d, comm_r and seed.
func TestSyntheticC1Synthesises(t *testing.T) {
	for _, name := range []string{"StackedDrg2KiBV1_1", "StackedDrg8MiBV1"} {
		p := proofType(t, name)
		out, err := porep.SyntheticC1(p, 7)
		if err != nil {
			t.Fatal(err)
		}
		checkSyntheticShape(t, p, out)
		b, err := c1.Encode(out)
		if err != nil {
			t.Fatal(err)
		}
		back, err := c1.Decode(b)
		if err != nil {
			t.Fatalf("%s: decoding the synthetic C1: %v", name, err)
		}
		if err := back.Validate(); err != nil {
			t.Fatalf("%s: after the JSON: %v", name, err)
		}
		if err := porep.VerifyVanilla(context.Background(), back); err == nil {
			t.Fatalf("%s: the synthetic C1 passed the vanilla checks", name)
		}
		in, err := porep.PartitionInputFromC1(back, 0)
		if err != nil {
			t.Fatal(err)
		}
		w, err := c2.Witness(porep.ShapeOf(p), in, nil)
		if err != nil {
			t.Fatalf("%s: witness synthesis: %v", name, err)
		}
		public, err := porep.PublicInputs(p, back.ReplicaID, back.CommD, back.CommR, back.Seed, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Inputs) != len(public)+1 || len(w.Aux) < 1_000_000 {
			t.Fatalf("%s: %d inputs, %d aux; %d public inputs", name, len(w.Inputs), len(w.Aux), len(public))
		}
		for i := range public {
			if !w.Inputs[i+1].Equal(&public[i]) {
				t.Fatalf("%s: input %d of the witness differs from the verifier's", name, i)
			}
		}
	}
}

// Every proof type, 32GiB and 64GiB included (structure only: synthesis
// there takes many seconds and gigabytes), has the right shape; seeds give
// distinct sectors, the same seed the same one.
func TestSyntheticC1Shapes(t *testing.T) {
	for _, p := range abi.All() {
		if p.Partitions > 10 && testing.Short() {
			continue
		}
		out, err := porep.SyntheticC1(p, 1)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		checkSyntheticShape(t, p, out)
	}
	p := proofType(t, "StackedDrg32GiBV1_1")
	a, err := porep.SyntheticC1(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := porep.SyntheticC1(p, 1)
	c, _ := porep.SyntheticC1(p, 2)
	if a.ReplicaID != b.ReplicaID || a.VanillaProofs.Partitions[9][17].LabelingProofs[10].Parents[36] != b.VanillaProofs.Partitions[9][17].LabelingProofs[10].Parents[36] {
		t.Fatal("the same seed gave different C1 outputs")
	}
	if a.ReplicaID == c.ReplicaID || a.CommR == c.CommR {
		t.Fatal("two seeds gave the same sector")
	}
	if _, err := porep.SyntheticC1(abi.SealProof{}, 1); err == nil {
		t.Fatal("a zero proof type was accepted")
	}
}

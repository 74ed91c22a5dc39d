package porep

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/r1cs"
)

// sparseInput is the fixture sector of the tests: sector id and seed vary with n.
func sparseInput(tb testing.TB, name string, n uint64) SparseInput {
	tb.Helper()
	p, err := abi.ParseName(name)
	if err != nil {
		tb.Fatal(err)
	}
	in := SparseInput{Proof: p, ProverID: ProverID(1000), SectorID: n, Seed: testSeed(byte(n))}
	in.Ticket[0], in.Ticket[7] = 3, byte(n)
	return in
}

func sparseC1(tb testing.TB, name string, n uint64) *c1.Commit1Out {
	tb.Helper()
	out, _, err := SparseC1(context.Background(), sparseInput(tb, name, n))
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return out
}

// Sparse C1s of the small sizes pass c1.Validate, VerifyVanilla and the whole
// circuit in Check mode (with data and committed capacity), and their
// replica_id is the one prover, sector, ticket and comm_d give.
func TestSparseC1SmallSizes(t *testing.T) {
	names := []string{"StackedDrg2KiBV1", "StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1"}
	if testing.Short() {
		names = names[1:2]
	}
	for _, name := range names {
		for _, cc := range []bool{false, true} {
			in := sparseInput(t, name, 5)
			in.CommittedCapacity = cc
			out, s, err := SparseC1(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if err := out.Validate(); err != nil {
				t.Fatalf("%s cc=%v: %v", name, cc, err)
			}
			if err := VerifyVanilla(context.Background(), out); err != nil {
				t.Fatalf("%s cc=%v: %v", name, cc, err)
			}
			if want := ReplicaID(in.ProverID, in.SectorID, in.Ticket, s.CommD, in.Proof.PoRepID()); out.ReplicaID != want {
				t.Fatalf("%s: replica_id is not derived from comm_d", name)
			}
			if err := checkPartitions(t, out); err != nil {
				t.Fatalf("%s cc=%v: %v", name, cc, err)
			}
			for k := range out.VanillaProofs.Partitions {
				if err := CheckPartition(context.Background(), out, k, 0); err != nil {
					t.Fatalf("%s cc=%v: CheckPartition(%d): %v", name, cc, k, err)
				}
			}
		}
	}
}

// A committed-capacity sparse sector has the comm_d of a sealed CC sector of
// its size, and its data leaves are zero; different sectors differ.
func TestSparseC1CommD(t *testing.T) {
	in := sparseInput(t, "StackedDrg2KiBV1_1", 1)
	in.CommittedCapacity = true
	s, err := NewSparseSector(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	sealed := sealFor(t, "StackedDrg2KiBV1_1", nil)
	if s.CommD != sealed.CommD {
		t.Fatalf("CC comm_d %x, a sealed CC 2KiB sector has %x", s.CommD, sealed.CommD)
	}
	a, b := sparseC1(t, "StackedDrg2KiBV1_1", 1), sparseC1(t, "StackedDrg2KiBV1_1", 2)
	if a.CommD == b.CommD || a.CommR == b.CommR || a.ReplicaID == b.ReplicaID {
		t.Fatal("two sparse sectors share a commitment")
	}
	again := sparseC1(t, "StackedDrg2KiBV1_1", 1)
	if again.CommR != a.CommR || again.CommD != a.CommD {
		t.Fatal("the same input gave another sector")
	}
}

// Proof types whose challenges come from comm_r are refused, with the reason.
func TestSparseC1Refuses(t *testing.T) {
	for _, name := range []string{"StackedDrg2KiBV1_1_Feat_SyntheticPoRep", "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep"} {
		p, err := abi.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		in := sparseInput(t, "StackedDrg2KiBV1_1", 1)
		in.Proof = p
		if _, err := NewSparseSector(context.Background(), in); err == nil {
			t.Fatalf("%s: a sparse sector", name)
		}
	}
	in := sparseInput(t, "StackedDrg2KiBV1_1", 1)
	in.Seed = [32]byte{}
	if _, err := NewSparseSector(context.Background(), in); err == nil {
		t.Fatal("a zero seed was accepted")
	}
}

// A challenge that is also another challenge's parent keeps one column: the
// fixture must handle it (the 2KiB graph has few nodes, so some seed makes it
// happen), and the C1 still verifies.
func TestSparseC1ChallengeIsParent(t *testing.T) {
	p, err := abi.ParseName("StackedDrg2KiBV1_1")
	if err != nil {
		t.Fatal(err)
	}
	for n := uint64(1); n < 200; n++ {
		in := sparseInput(t, p.Name, n)
		binary.LittleEndian.PutUint64(in.Seed[8:], n)
		s, err := NewSparseSector(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.Commit1()
		if err != nil {
			t.Fatal(err)
		}
		shared := false
		for _, part := range out.VanillaProofs.Partitions {
			chs := map[uint64]bool{}
			for _, pr := range part {
				chs[pr.LabelingProofs[0].Node] = true
			}
			for _, pr := range part {
				for _, cp := range slices.Concat(pr.ReplicaColumnProofs.DrgParents, pr.ReplicaColumnProofs.ExpParents) {
					shared = shared || chs[uint64(cp.Column.Index)]
				}
			}
		}
		if !shared {
			continue
		}
		if err := VerifyVanilla(context.Background(), out); err != nil {
			t.Fatalf("sector %d (a challenge is a parent): %v", n, err)
		}
		if err := CheckPartition(context.Background(), out, 0, 0); err != nil {
			t.Fatalf("sector %d (a challenge is a parent): %v", n, err)
		}
		return
	}
	t.Fatal("no seed below 200 makes a challenge another's parent")
}

// One flipped label, sibling, column row or data leaf of a sparse 2KiB C1
// fails VerifyVanilla naming it, and, where the circuit reads the value (all
// but the labeling proofs' copies of the parents' labels, which only the
// vanilla check reads, and the challenge's own column, whose labels the
// circuit computes from the parents), fails the circuit at the challenge.
func TestSparseC1Corruptions(t *testing.T) {
	const key = "vanilla_proofs.StackedDrg2KiBV1"
	for _, tc := range []struct {
		name, path, msg string
		circuit         bool
		corrupt         func(pr *c1.Proof)
	}{
		{"parent label", key + "[0][1].labeling_proofs[1].parents[5]", "does not hash the challenge's parent columns", false,
			func(pr *c1.Proof) { pr.LabelingProofs[1].Parents[5][0] ^= 1 }},
		{"challenge label", key + "[0][1].replica_column_proofs.c_x.column.rows", "a row is corrupt", false,
			func(pr *c1.Proof) { pr.ReplicaColumnProofs.CX.Column.Rows[0][0] ^= 1 }},
		{"sibling", key + "[0][1].comm_r_last_proof.data.Single.path", "a sibling is corrupt", true,
			func(pr *c1.Proof) { pr.CommRLastProof.Data.Single.Path.Path[1].Hashes[3][2] ^= 1 }},
		{"column", key + "[0][1].replica_column_proofs.drg_parents[2].column.rows", "a row is corrupt", true,
			func(pr *c1.Proof) { pr.ReplicaColumnProofs.DrgParents[2].Column.Rows[1][4] ^= 1 }},
		{"data", key + "[0][1].comm_d_proofs.data.Single.leaf", "the data leaf is corrupt", true,
			func(pr *c1.Proof) { pr.CommDProofs.Data.Single.Leaf[0] ^= 1 }},
	} {
		out := sparseC1(t, "StackedDrg2KiBV1_1", 3)
		tc.corrupt(&out.VanillaProofs.Partitions[0][1])
		err := VerifyVanilla(context.Background(), out)
		wantVanillaError(t, err, 0, 1, tc.path, tc.msg)
		err = CheckPartition(context.Background(), out, 0, 0)
		if !tc.circuit {
			if err != nil {
				t.Fatalf("%s: the circuit does not read this value, yet: %v", tc.name, err)
			}
			continue
		}
		var ce *CheckError
		if !asCheckError(err, &ce) || ce.Challenge != 1 || ce.Partition != 0 {
			t.Fatalf("%s: CheckPartition: %v, want a CheckError at challenge 1", tc.name, err)
		}
		// The index and path are the sequential Check-mode synthesis's.
		var ue *r1cs.UnsatisfiedError
		if !errors.As(checkPartitions(t, out), &ue) || ue.Index != ce.Constraint || ue.Path != ce.Path {
			t.Fatalf("%s: CheckPartition says constraint %d (%s), the sequential check %v", tc.name, ce.Constraint, ce.Path, ue)
		}
		t.Logf("%s: %v", tc.name, err)
	}
}

// Production sizes: sparse 32GiB and 64GiB C1s pass VerifyVanilla, and
// partition 0 passes Check mode (with -short: its first challenge's share,
// and 32GiB only); the times are logged (go test -v).
func TestSparseC1LargeSectors(t *testing.T) {
	names := []string{"StackedDrg32GiBV1_1", "StackedDrg64GiBV1_1"}
	if testing.Short() {
		names = names[:1]
	}
	for _, name := range names {
		t0 := time.Now()
		out := sparseC1(t, name, 7)
		build := time.Since(t0)
		if err := out.Validate(); err != nil {
			t.Fatal(err)
		}
		t0 = time.Now()
		if err := VerifyVanilla(context.Background(), out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		vanilla := time.Since(t0)
		t0 = time.Now()
		// Each challenge's share is checked with the partition's top level, so
		// three challenges (first, middle, last) check every kind of constraint
		// the partition has, in a tenth of the whole partition's minutes; the
		// whole partition with FILC2_TEST_LONG=1.
		ctx, n := context.Background(), len(out.VanillaProofs.Partitions[0])
		var what string
		var err error
		switch {
		case os.Getenv("FILC2_TEST_LONG") == "1":
			what, err = "partition 0", CheckPartition(ctx, out, 0, 0)
		case testing.Short():
			what, err = "partition 0's challenge 0", CheckChallenges(ctx, out, 0, []int{0}, 0)
		default:
			what, err = fmt.Sprintf("partition 0's challenges 0, %d, %d", n/2, n-1), CheckChallenges(ctx, out, 0, []int{0, n / 2, n - 1}, 0)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: sparse C1 built in %v, VerifyVanilla %v, Check mode of %s %v",
			name, build.Round(time.Millisecond), vanilla.Round(time.Millisecond), what, time.Since(t0).Round(time.Millisecond))
	}
}

// Every size and interactive version: the sparse C1 validates and passes
// VerifyVanilla; the first challenge of the last partition satisfies the
// circuit for the versions and sizes the other tests do not check whole.
func TestSparseC1AllSizes(t *testing.T) {
	for _, size := range []string{"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"} {
		for _, v := range []string{"V1", "V1_1"} {
			name := "StackedDrg" + size + v
			out := sparseC1(t, name, 11)
			if err := out.Validate(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := VerifyVanilla(context.Background(), out); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if v == "V1" || size == "512MiB" {
				last := len(out.VanillaProofs.Partitions) - 1
				if err := CheckChallenges(context.Background(), out, last, []int{0}, 0); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
		}
	}
}

package c2_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/filc2/filc2/internal/testparams"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	. "github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/porep"
)

// sparseC1 builds sparse sector n of proof type p and returns its C1 through
// the JSON, as a C1 file arrives.
func sparseC1(t *testing.T, p abi.SealProof, n uint64) *c1.Commit1Out {
	t.Helper()
	in := porep.SparseInput{Proof: p, ProverID: porep.ProverID(1000), SectorID: n}
	in.Ticket[0], in.Seed[0], in.Seed[1] = byte(n), 1, byte(n)
	out, _, err := porep.SparseC1(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	back, _ := testparams.ThroughJSON(t, out)
	return back
}

// Sparse sectors prove like sealed ones: a 2KiB (and with FILC2_TEST_LONG=1 an
// 8MiB) sparse C1 passes the checks, proves with test parameters on the CPU and
// verifies; the proof fails for another sparse sector. The 8MiB one costs an
// 8MiB Groth16 setup and proof (minutes on 2 cores) for no code path of its
// own: porep's sparse tests check the 8MiB circuit is satisfied, and the prover
// is the same at every size.
func TestSparseProves(t *testing.T) {
	names := []string{"StackedDrg2KiBV1_1"}
	if os.Getenv("FILC2_TEST_LONG") == "1" {
		names = append(names, "StackedDrg8MiBV1_1")
	}
	ctx := context.Background()
	for _, name := range names {
		p, err := abi.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := Load(ctx, p, LoadOptions{ParamsDir: testparams.Dir(t, p)})
		if err != nil {
			t.Fatal(err)
		}
		a, b := sparseC1(t, p, 1), sparseC1(t, p, 2)
		if err := porep.VerifyVanilla(ctx, a); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		proof, _, err := pr.Prove(ctx, a, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := VerifyC1Proof(pr.PVK, a, proof); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := VerifyC1Proof(pr.PVK, b, proof); !errors.Is(err, ErrInvalid) {
			t.Fatalf("%s: the proof of sparse sector 1 for sector 2: %v", name, err)
		}
		pr.Close()
	}
}

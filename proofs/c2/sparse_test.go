package c2_test

import (
	"context"
	"errors"
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

// Sparse sectors prove like sealed ones: 2KiB and (unless -short) 8MiB sparse
// C1s pass the checks, prove with test parameters on the CPU and verify; the
// proof fails for another sparse sector.
func TestSparseProves(t *testing.T) {
	names := []string{"StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1"}
	if testing.Short() {
		names = names[:1]
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

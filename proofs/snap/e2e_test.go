package snap

import (
	"context"
	"errors"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/snark"
	"github.com/filc2/filc2/proofs/update"
)

// Setup → Prove → Verify at 2KiB; the proof is invalid for another
// comm_d_new, comm_r_old or comm_r_new, and vanilla proofs of another
// update are refused before proving.
func TestProveVerify2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2KiB update setup takes about a minute on 2 cores")
	}
	ctx := context.Background()
	p := abi.AllUpdate()[0]
	dir := t.TempDir()
	toxic, err := groth16.SeededToxic(11)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Setup(ctx, p, dir, snark.SetupOptions{Toxic: &toxic}); err != nil {
		t.Fatal(err)
	}
	pr, err := Load(ctx, p, LoadOptions{ParamsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	if pr.Circuit.NumConstraints != 1_705_044 || pr.Circuit.NumInputs != NumInputs {
		t.Fatalf("circuit of %d constraints and %d inputs", pr.Circuit.NumConstraints, pr.Circuit.NumInputs)
	}
	req, _, err := RandomRequest(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	proof, _, err := pr.Prove(ctx, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(proof) != abi.PartitionProofLen*p.Partitions {
		t.Fatalf("%d bytes", len(proof))
	}
	if err := Verify(pr.PVK, p, req.Commitments, proof); err != nil {
		t.Fatal(err)
	}
	// A periodic fixture (what the 32GiB benchmarks prove) proves and verifies too.
	per, _, err := PeriodicRequest(p, 3)
	if err != nil {
		t.Fatal(err)
	}
	pproof, _, err := pr.Prove(ctx, per, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(pr.PVK, p, per.Commitments, pproof); err != nil {
		t.Fatalf("the periodic fixture's proof: %v", err)
	}
	other, _, err := RandomRequest(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	for name, pub := range map[string]update.Commitments{
		"comm_d_new": {CommROld: req.CommROld, CommDNew: other.CommDNew, CommRNew: req.CommRNew},
		"comm_r_old": {CommROld: other.CommROld, CommDNew: req.CommDNew, CommRNew: req.CommRNew},
		"comm_r_new": {CommROld: req.CommROld, CommDNew: req.CommDNew, CommRNew: other.CommRNew},
	} {
		if err := Verify(pr.PVK, p, pub, proof); !errors.Is(err, ErrInvalid) {
			t.Errorf("another %s: %v, want ErrInvalid", name, err)
		}
	}
	if err := Verify(pr.PVK, p, req.Commitments, proof[:len(proof)-1]); !errors.Is(err, ErrInvalid) {
		t.Errorf("a short proof: %v", err)
	}
	req.Vanilla = other.Vanilla
	var ce *update.CheckError
	if _, _, err := pr.Prove(ctx, req, nil); !errors.As(err, &ce) {
		t.Errorf("another update's vanilla proofs: %v, want a CheckError", err)
	}
}

package post

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/fallback"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/snark"
)

// Setup → Prove → Verify for Window (V1 partition 1, V1_1) and Winning at
// 2KiB; the proof is invalid for another randomness, sector, comm_r or
// partition.
func TestProveVerify2KiB(t *testing.T) {
	ctx := context.Background()
	r := fallback.MaskRandomness([32]byte{9, 9, 9, 31: 0xee})
	other := fallback.MaskRandomness([32]byte{9, 9, 8, 31: 0xee})
	for _, tc := range []struct {
		name    string
		sectors int
		k       int
	}{{"StackedDrgWindow2KiBV1_1", 1, 0}, {"StackedDrgWindow2KiBV1", 2, 1}, {"StackedDrgWinning2KiBV1", 1, 0}} {
		p, _ := abi.ParsePoStName(tc.name)
		pr := testProver(t, p)
		req, err := SparseRequest(p, r, tc.sectors, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		var pubs []fallback.PublicSector
		for _, v := range req.Vanilla {
			pubs = append(pubs, fallback.PublicSector{ID: v.SectorID, CommR: v.CommR})
		}
		proof, _, err := pr.Prove(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := Verify(pr.PVK, p, r, pubs, tc.k, proof); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		bad := map[string]func() error{
			"randomness": func() error { return Verify(pr.PVK, p, other, pubs, tc.k, proof) },
			"sector": func() error {
				q := append([]fallback.PublicSector(nil), pubs...)
				q[0].ID++
				return Verify(pr.PVK, p, r, q, tc.k, proof)
			},
			"comm_r": func() error {
				q := append([]fallback.PublicSector(nil), pubs...)
				q[len(q)-1].CommR[0] ^= 1
				return Verify(pr.PVK, p, r, q, tc.k, proof)
			},
		}
		if p.Kind == abi.Window && p.APIVersion == abi.APIVersion1_0_0 {
			bad["partition"] = func() error { return Verify(pr.PVK, p, r, pubs, 0, proof) }
		}
		for what, f := range bad {
			if err := f(); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s, another %s: %v, want ErrInvalid", tc.name, what, err)
			}
		}
		// Vanilla proofs for another randomness are refused before proving.
		req.Randomness = other
		var ce *fallback.CheckError
		if _, _, err := pr.Prove(ctx, req); !errors.As(err, &ce) {
			t.Errorf("%s: vanilla for another randomness: %v", tc.name, err)
		}
	}
}

// testProver sets up test parameters for p (toxic waste seeded by 7) in a
// temporary directory and loads them on the CPU, closed at the test's end.
func testProver(t *testing.T, p abi.PoStProof) *Prover {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	toxic, err := groth16.SeededToxic(7)
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
	t.Cleanup(func() { pr.Close() })
	return pr
}

// A Window partition of fewer sectors than the circuit holds is padded by repeating its
// last sector: the witness says so (Assignment.Repeat), the CPU prover folds the four
// small queries' bases over the copies, and the proof is the one proved in full with the
// same r, s. A Repeat that does not hold is not used.
func TestPaddedPartitionFolds(t *testing.T) {
	ctx := context.Background()
	p, _ := abi.ParsePoStName("StackedDrgWindow2KiBV1_1")
	pr := testProver(t, p)
	r := fallback.MaskRandomness([32]byte{3, 1, 4, 31: 0x15})
	prove := func(w *groth16.Assignment) (*groth16.Proof, groth16.StageTimes) {
		t.Helper()
		pf, st, err := groth16.ProveTimed(ctx, pr.PK, pr.Circuit, w, groth16.WithRandom(bytes.NewReader(bytes.Repeat([]byte{7}, 1024))))
		if err != nil {
			t.Fatal(err)
		}
		return pf, st
	}
	for _, real := range []int{1, 2} {
		req, err := SparseRequest(p, r, real, 0)
		if err != nil {
			t.Fatal(err)
		}
		pt, err := Prepare(req)
		if err != nil {
			t.Fatal(err)
		}
		w, err := Witness(pt, pr.Circuit)
		if err != nil {
			t.Fatal(err)
		}
		if real == p.SectorCount {
			if w.Repeat != nil {
				t.Fatalf("a full partition says it repeats: %+v", *w.Repeat)
			}
			continue
		}
		per := len(w.Aux) / p.SectorCount
		if want := (groth16.Repeat{Start: (real - 1) * per, Len: per, Copies: p.SectorCount - real + 1}); w.Repeat == nil || *w.Repeat != want {
			t.Fatalf("%d of %d sectors: repeat %v, want %+v", real, p.SectorCount, w.Repeat, want)
		}
		if err := w.Repeat.Check(w); err != nil {
			t.Fatal(err)
		}
		folded, st := prove(w)
		if st.Folded != 4 {
			t.Errorf("%d queries folded, want L, A, B_G1 and B_G2", st.Folded)
		}
		full, st := prove(&groth16.Assignment{Inputs: w.Inputs, Aux: w.Aux})
		if st.Folded != 0 {
			t.Errorf("%d queries folded without a Repeat", st.Folded)
		}
		if !folded.A.Equal(&full.A) || !folded.B.Equal(&full.B) || !folded.C.Equal(&full.C) {
			t.Fatal("the folded proof differs from the full one with the same r, s")
		}
		pubs := []fallback.PublicSector{{ID: req.Vanilla[0].SectorID, CommR: req.Vanilla[0].CommR}}
		b := folded.Bytes()
		if err := Verify(pr.PVK, p, r, pubs, 0, b[:]); err != nil {
			t.Fatalf("folded proof: %v", err)
		}
		// A Repeat whose copies differ (one aux changed) is checked and not used.
		bad := &groth16.Assignment{Inputs: w.Inputs, Aux: slices.Clone(w.Aux), Repeat: w.Repeat}
		bad.Aux[len(bad.Aux)-1].SetUint64(12345)
		if err := bad.Repeat.Check(bad); err == nil {
			t.Error("Check passed blocks that differ")
		}
		if _, st := prove(bad); st.Folded != 0 {
			t.Errorf("a Repeat that does not hold folded %d queries", st.Folded)
		}
	}
}

package post

import (
	"context"
	"errors"
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
		pr.Close()
	}
}

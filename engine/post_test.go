package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/fallback"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/post"
	"github.com/filc2/filc2/proofs/snark"
)

// WindowPoSt and WinningPoSt at 2KiB through the engine on the Proofs
// backend: each verifies under the setup's key, both circuits stay resident
// beside each other, vanilla proofs for another randomness are the caller's
// error, and a reused id with another statement is a conflict, not a merge.
func TestEnginePoSt2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two 2KiB PoSt setups")
	}
	ctx := context.Background()
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.Params.Dir = dir
	cfg.Synthesis.Workers = 1
	cfg.Memory.Budget = 4 * GiB
	r := fallback.MaskRandomness([32]byte{1, 2, 3, 31: 0xff})
	other := fallback.MaskRandomness([32]byte{1, 2, 4})
	var names []string
	for _, name := range []string{"StackedDrgWindow2KiBV1_1", "StackedDrgWinning2KiBV1"} {
		p, _ := abi.ParsePoStName(name)
		toxic, err := groth16.SeededToxic(3)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := post.Setup(ctx, p, dir, snark.SetupOptions{Toxic: &toxic}); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	e, err := New(cfg, &Proofs{ParamsDir: dir, GPU: CPUWholeProof(0)}, WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, name := range names {
		p, _ := abi.ParsePoStName(name)
		in, vanilla := sparsePoSt(t, p, r)
		id, err := e.Submit(ctx, Request{ID: "post-" + name, Input: in})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Await(ctx, id)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wantKind := KindWindowPoSt
		if p.Kind == abi.Winning {
			wantKind = KindWinningPoSt
		}
		if res.Kind != wantKind || len(res.Proof) != abi.PartitionProofLen || len(res.Partitions) != 1 || !res.Partitions[0].Verified {
			t.Fatalf("%s: result %+v", name, res)
		}
		pvk, err := snark.ReadVerifyingKey(post.FilesIn(dir, p).VK, fallback.NumInputs(p))
		if err != nil {
			t.Fatal(err)
		}
		if err := post.Verify(pvk, p, r, in.Partition.PublicSectors(), 0, res.Proof); err != nil {
			t.Fatalf("%s: the engine's proof: %v", name, err)
		}
		if err := post.Verify(pvk, p, other, in.Partition.PublicSectors(), 0, res.Proof); !errors.Is(err, post.ErrInvalid) {
			t.Fatalf("%s: the proof for another randomness: %v", name, err)
		}

		// The same id for another statement (curio reuses wdpost ids across
		// the chain partitions of a deadline): refused, never merged.
		in2, _ := sparsePoSt(t, p, other)
		if _, err := e.Submit(ctx, Request{ID: "post-" + name, Input: in2}); !errors.Is(err, ErrIDConflict) {
			t.Fatalf("%s: a reused id with another randomness: %v", name, err)
		}
		// Vanilla proofs of one randomness claimed for another: a bad request.
		bad, err := NewPoSt(p, other, vanilla, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ce *fallback.CheckError
		if _, err := e.Submit(ctx, Request{Input: bad}); !errors.Is(err, ErrBadRequest) || !errors.As(err, &ce) {
			t.Fatalf("%s: vanilla proofs for another randomness: %v", name, err)
		}
	}
	st := e.Status()
	if len(st.Circuits) != 2 || st.Circuits[0].Kind != KindWindowPoSt || st.Circuits[1].Kind != KindWinningPoSt {
		t.Fatalf("resident circuits %+v: want the Window and Winning ones", st.Circuits)
	}
}

// The SetupKey backend proves PoSt beside PoRep (what `bench c2
// --post-proof` measures on the GPU): a Winning 2KiB proof that verifies
// under the setup's key, through the critical lane.
func TestSetupKeyPoSt(t *testing.T) {
	ctx := context.Background()
	cfg := DefaultConfig()
	cfg.Synthesis.Workers = 1
	cfg.Memory.Budget = 2 * GiB
	e, err := New(cfg, &SetupKey{GPU: CPUWholeProof(0), Seed: 4}, WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	p, _ := abi.ParsePoStName("StackedDrgWinning2KiBV1")
	r := fallback.MaskRandomness([32]byte{4, 4})
	in, _ := sparsePoSt(t, p, r)
	if err := e.PreloadPoSt(ctx, p); err != nil {
		t.Fatal(err)
	}
	id, err := e.Submit(ctx, Request{Input: in})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Await(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Proof) != abi.PartitionProofLen || !res.Partitions[0].Verified {
		t.Fatalf("result %+v", res)
	}
	if st, _ := e.Job(id); st.Priority != PriorityCritical {
		t.Fatalf("priority %v", st.Priority)
	}
}

// sparsePoSt is a one-sector PoSt input of p for r on a sparse sector, and
// its vanilla proofs.
func sparsePoSt(t *testing.T, p abi.PoStProof, r fallback.Randomness) (*PoSt, []*fallback.SectorVanilla) {
	t.Helper()
	req, err := post.SparseRequest(p, r, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	in, err := NewPoSt(p, r, req.Vanilla, 0)
	if err != nil {
		t.Fatal(err)
	}
	return in, req.Vanilla
}

package c2_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/filc2/filc2/internal/testparams"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	. "github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
)

func sealC1(t testing.TB, p abi.SealProof, sector uint64, seed byte) *c1.Commit1Out {
	t.Helper()
	var ticket, s [32]byte
	ticket[1], s[0] = byte(sector)+1, seed
	out, _ := testparams.SealC1(t, p, 1000, sector, ticket, s)
	return out
}

// The whole job on the CPU: 2KiB seal → setup → prove → verify, and the
// negatives of the end-to-end issue.
func TestEndToEnd2KiB(t *testing.T) {
	ctx := context.Background()
	p, err := abi.ParseName("StackedDrg2KiBV1_1")
	if err != nil {
		t.Fatal(err)
	}
	dir := testparams.Dir(t, p)
	f := FilesIn(dir, p)
	// Setup refuses to replace existing files without Force, before any work.
	busy := t.TempDir()
	os.WriteFile(FilesIn(busy, p).VK, []byte("x"), 0o644)
	if _, _, err := Setup(ctx, p, busy, SetupOptions{}); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("setup over an existing .vk without force: %v", err)
	}

	t0 := time.Now()
	pr, err := Load(ctx, p, LoadOptions{ParamsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	t.Logf("load %v", time.Since(t0))

	a, b := sealC1(t, p, 1, 3), sealC1(t, p, 2, 4)
	t0 = time.Now()
	proof, timings, err := pr.Prove(ctx, a, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("prove %v: %+v", time.Since(t0), timings)
	if len(proof) != p.Partitions*groth16.ProofSize || len(timings) != p.Partitions {
		t.Fatalf("%d proof bytes, %d timings", len(proof), len(timings))
	}
	if err := VerifyC1Proof(pr.PVK, a, proof); err != nil {
		t.Fatalf("valid proof: %v", err)
	}
	flipped := append([]byte(nil), proof...)
	flipped[100] ^= 0x01
	if err := VerifyC1Proof(pr.PVK, a, flipped); !errors.Is(err, ErrInvalid) {
		t.Fatalf("flipped byte: %v", err)
	}
	if err := VerifyC1Proof(pr.PVK, b, proof); !errors.Is(err, ErrInvalid) {
		t.Fatalf("another sector's public data: %v", err)
	}
	if err := VerifyC1Proof(pr.PVK, a, proof[:191]); !errors.Is(err, ErrInvalid) {
		t.Fatalf("short proof: %v", err)
	}

	// A truncated .params file gives an error naming it.
	raw, err := os.ReadFile(f.Params)
	if err != nil {
		t.Fatal(err)
	}
	bad := t.TempDir()
	bf := FilesIn(bad, p)
	os.WriteFile(bf.Params, raw[:len(raw)/2], 0o644)
	copyFile(t, f.VK, bf.VK)
	copyFile(t, f.PCE, bf.PCE)
	_, err = Load(ctx, p, LoadOptions{ParamsDir: bad})
	var fe *groth16.FormatError
	if !errors.As(err, &fe) || fe.File != bf.Params || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("truncated params: %v", err)
	}
	// A C1 of another size is refused before any work.
	big, _ := abi.ParseName("StackedDrg8MiBV1_1")
	other := *a
	other.RegisteredProof = big.Name
	if _, _, err := pr.Prove(ctx, &other, nil); err == nil || !strings.Contains(err.Error(), "8MiB") {
		t.Fatalf("C1 of another size: %v", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

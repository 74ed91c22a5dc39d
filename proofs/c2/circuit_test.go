package c2

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/r1cs"
)

func pceOf(t *testing.T, c *r1cs.Circuit) []byte {
	t.Helper()
	b, err := c.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// LoadCircuit records and caches the circuit on first use, reads the same circuit
// back later, and refuses a damaged file or another circuit's file at that path.
func TestLoadCircuit(t *testing.T) {
	ctx := context.Background()
	p, _ := abi.ParseName("StackedDrg2KiBV1_1")
	path := filepath.Join(t.TempDir(), "c.pce")
	recorded, err := LoadCircuit(ctx, p, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the recorded circuit was not cached: %v", err)
	}
	read, err := LoadCircuit(ctx, p, path)
	if err != nil {
		t.Fatal(err)
	}
	want := pceOf(t, recorded)
	if !bytes.Equal(pceOf(t, read), want) {
		t.Fatal("the circuit read back differs from the one recorded")
	}

	damaged := bytes.Clone(want)
	damaged[len(damaged)/2] ^= 1
	if err := os.WriteFile(path, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCircuit(ctx, p, path); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Errorf("damaged PCE: %v", err)
	}

	other := r1cs.New(r1cs.Record)
	other.Alloc(fr.One())
	if err := other.Finish(); err != nil {
		t.Fatal(err)
	}
	oc, err := other.Circuit()
	if err != nil {
		t.Fatal(err)
	}
	if err := r1cs.WritePCE(path, oc); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCircuit(ctx, p, path); err == nil || !strings.Contains(err.Error(), "this filc2 synthesises") {
		t.Errorf("another circuit's PCE: %v", err)
	}
}

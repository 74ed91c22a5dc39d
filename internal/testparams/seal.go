package testparams

import (
	"context"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/porep"
)

// SealC1 seals a fresh sector of proof type p (2KiB, 8MiB or 512MiB) for miner
// with the ticket, runs Commit1 with seed, and returns the C1 output through its
// JSON, as a real C1 arrives: the decoded value and the bytes.
func SealC1(t testing.TB, p abi.SealProof, miner, sector uint64, ticket, seed [32]byte) (*c1.Commit1Out, []byte) {
	t.Helper()
	sec, err := porep.Seal(context.Background(), porep.SealInput{Proof: p, ProverID: porep.ProverID(miner), SectorID: sector, Ticket: ticket}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := sec.Commit1(seed)
	if err != nil {
		t.Fatal(err)
	}
	return ThroughJSON(t, out)
}

// ThroughJSON encodes a C1 output and decodes it again, as a real C1 arrives:
// the decoded value and the bytes.
func ThroughJSON(t testing.TB, out *c1.Commit1Out) (*c1.Commit1Out, []byte) {
	t.Helper()
	b, err := c1.Encode(out)
	if err != nil {
		t.Fatal(err)
	}
	back, err := c1.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return back, b
}

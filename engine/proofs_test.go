package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/filc2/filc2/internal/testparams"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
)

// One real 2KiB SealCommit2 through the engine on the CPU: seal, test
// parameters (shared through package testparams), then a job submitted as C1 bytes,
// proved through the C2 backend and WholeProof, verified again here. Skipped
// with -short and under the race detector (it would take many minutes).
func TestC2Backend2KiB(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a real 2KiB proof takes about 80 s on 2 cores (skipped with -short and -race)")
	}
	ctx := context.Background()
	p := proof2K
	dir := testparams.Dir(t, p)
	raw := sealC1(t, p)

	cfg := DefaultConfig()
	cfg.Params.Dir = dir
	cfg.GPU.Devices = []int{0}
	cfg.Synthesis.Workers = 1
	cfg.Memory.Budget = 6 * GiB
	e, err := New(cfg, &Proofs{ParamsDir: dir, GPU: CPUWholeProof(0)}, WithLogger(discard()))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.backend.Name() != "proofs/cpu" {
		t.Fatalf("backend %s", e.backend.Name())
	}
	// A C1 whose vanilla proofs do not check is the caller's error.
	bad, err := c1.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	bad.Seed[0] ^= 1
	if _, err := e.Submit(ctx, Request{ID: "bad", Commit1: bad}); err == nil {
		t.Fatal("a C1 with a changed seed was accepted")
	}

	t0 := time.Now()
	id, err := e.Submit(ctx, Request{ID: "real", C1: raw, ProofType: p})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Await(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("job %v: %+v", time.Since(t0), r.Partitions)
	if len(r.Proof) != p.Partitions*abi.PartitionProofLen {
		t.Fatalf("%d proof bytes", len(r.Proof))
	}
	c, err := c1.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := c2.Load(ctx, p, c2.LoadOptions{ParamsDir: dir, Backend: hostKeys{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.VerifyC1Proof(pr.PVK, c, r.Proof); err != nil {
		t.Fatalf("the engine's proof: %v", err)
	}
	st := e.Status()
	if len(st.Circuits) != 1 || st.Circuits[0].PartitionBytes < 100<<20 || st.Memory.HighWater > st.Memory.Budget {
		t.Fatalf("status %+v", st)
	}
	if l := st.GPUs[0].Lock; l.Acquisitions != 1 || l.MaxHolders != 1 || l.Busy < time.Second {
		t.Fatalf("lock %+v", l)
	}
}

// sealC1 seals a 2KiB sector and returns its C1 output as JSON.
func sealC1(t *testing.T, p abi.SealProof) []byte {
	t.Helper()
	var ticket, seed [32]byte
	ticket[1], seed[0] = 2, 7
	_, b := testparams.SealC1(t, p, 1000, 1, ticket, seed)
	return b
}

// A recycled witness's storage holds the next synthesis, which equals a
// fresh one: the C2 circuit's pool with the real 2KiB circuit.
func TestC2CircuitWitnessReuse(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the 2KiB test parameters")
	}
	ctx := context.Background()
	p := proof2K
	dir := testparams.Dir(t, p)
	b := &Proofs{ParamsDir: dir, GPU: CPUWholeProof(0)}
	circ, err := b.LoadCircuit(ctx, (&PoRep{Proof: p}).Circuit(), func(int64, int64) {})
	if err != nil {
		t.Fatal(err)
	}
	defer circ.Close()
	cc := circ.(*c2Circuit)
	out, err := c1.Decode(sealC1(t, p))
	if err != nil {
		t.Fatal(err)
	}
	first, err := cc.Synthesize(ctx, &PoRep{Proof: p, C1: out}, 0)
	if err != nil {
		t.Fatal(err)
	}
	fresh := &groth16.Assignment{Inputs: slices.Clone(first.Inputs), Aux: slices.Clone(first.Aux)}
	for i := range first.Aux { // scribble, as a finished partition's storage would hold anything
		first.Aux[i].SetUint64(uint64(i))
	}
	cc.Recycle(first)
	again, err := cc.Synthesize(ctx, &PoRep{Proof: p, C1: out}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if &again.Aux[0] != &first.Aux[0] {
		t.Error("the recycled storage was not reused")
	}
	if !slices.Equal(again.Inputs, fresh.Inputs) || !slices.Equal(again.Aux, fresh.Aux) {
		t.Fatal("the witness synthesised into recycled storage differs from a fresh one")
	}
}

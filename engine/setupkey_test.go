package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/r1cs"
)

// vkSetup is a GPU backend whose "setup" returns a verifying key per GPU and
// records the toxic waste it was given.
type vkSetup struct {
	Staged
	vks    map[int]*groth16.VerifyingKey
	toxics []groth16.Toxic
}

func (v *vkSetup) LoadSetupProver(_ context.Context, gpu int, _ *r1cs.Circuit, t *groth16.Toxic) (PartitionProver, *groth16.VerifyingKey, error) {
	v.toxics = append(v.toxics, *t)
	return nopProver{}, v.vks[gpu], nil
}

type nopProver struct{}

func (nopProver) Prepare(context.Context, *groth16.Assignment) (Prepared, error) { return nil, nil }
func (nopProver) RunGPU(context.Context, Prepared) (Raw, error)                  { return nil, nil }
func (nopProver) Finish(context.Context, Raw) (*groth16.Proof, error)            { return nil, nil }
func (nopProver) Close() error                                                   { return nil }

func testVK(seed uint64) *groth16.VerifyingKey {
	return groth16.SyntheticVerifyingKey(porep.PublicInputCount(proof2K.ChallengesPerPartition)+1, seed)
}

// The setup-key backend: production checks of C1 outputs (a random C1 fails
// the vanilla check, a sparse one passes); every GPU gets the same seeded
// toxic waste; a GPU whose setup made another verifying key is refused; no
// verification before a key exists; a GPU backend without setups is refused
// before anything is recorded.
func TestSetupKeyBackend(t *testing.T) {
	ctx := context.Background()
	gpu := &vkSetup{Staged: Staged{Label: "vk"}, vks: map[int]*groth16.VerifyingKey{0: testVK(1), 1: testVK(1), 2: testVK(2)}}
	s := &SetupKey{GPU: gpu, PCEDir: t.TempDir(), Seed: 9}
	if isSynthetic(s) || !strings.HasPrefix(s.Name(), "setup-key/") {
		t.Fatalf("%s", s.Name())
	}
	random, err := porep.SyntheticC1(proof2K, 1)
	if err != nil {
		t.Fatal(err)
	}
	var ve *porep.VanillaError
	if err := s.Check(ctx, &PoRep{Proof: proof2K, C1: random}); !errors.As(err, &ve) {
		t.Fatalf("a random C1: %v", err)
	}
	in := porep.SparseInput{Proof: proof2K, ProverID: porep.ProverID(1000), SectorID: 3}
	in.Seed[0] = 4
	sparse, _, err := porep.SparseC1(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx, &PoRep{Proof: proof2K, C1: sparse}); err != nil {
		t.Fatalf("a sparse C1: %v", err)
	}

	c, err := s.LoadCircuit(ctx, (&PoRep{Proof: proof2K}).Circuit(), func(int64, int64) {})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Verify(&PoRep{Proof: proof2K, C1: sparse}, 0, &groth16.Proof{}); err == nil || !strings.Contains(err.Error(), "no verifying key") {
		t.Fatalf("verify before any prover: %v", err)
	}
	for _, g := range []int{0, 1} {
		if _, err := s.LoadProver(ctx, g, c); err != nil {
			t.Fatalf("GPU %d: %v", g, err)
		}
	}
	if _, err := s.LoadProver(ctx, 2, c); err == nil || !strings.Contains(err.Error(), "another key") {
		t.Fatalf("a GPU with another key: %v", err)
	}
	want, _ := groth16.SeededToxic(9)
	for i, tx := range gpu.toxics {
		if tx != want {
			t.Fatalf("GPU call %d got other toxic waste", i)
		}
	}
	// A proof that is no proof of this statement fails verification.
	_, _, g1, g2 := bls.Generators()
	if err := c.Verify(&PoRep{Proof: proof2K, C1: sparse}, 0, &groth16.Proof{A: g1, B: g2, C: g1}); err == nil {
		t.Fatal("a junk proof verified")
	}

	none := &SetupKey{GPU: Staged{Label: "nosetup"}}
	if _, err := none.LoadCircuit(ctx, (&PoRep{Proof: proof2K}).Circuit(), func(int64, int64) {}); err == nil || !strings.Contains(err.Error(), "no setups") {
		t.Fatalf("a GPU backend without setups: %v", err)
	}
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/r1cs"
)

// C2 is the Backend on package c2: circuits and keys from a parameter
// directory (c2.Load), witnesses from c2.Witness, verification by
// c2.VerifyPartition, proving by a GPUBackend.
type C2 struct {
	ParamsDir string     // where the .params, .vk and recorded circuits are
	GPU       GPUBackend // the per-GPU provers
}

// GPUBackend is a GPU library as C2 uses it: it makes one circuit's proving
// key resident on one GPU and proves there in the three stages of
// PartitionProver. WholeProof adapts a whole-proof groth16.Backend.
type GPUBackend interface {
	// Name is a short identifier ("cpu", "cuda").
	Name() string
	// LoadProver makes pk (of circuit c) resident on GPU gpu.
	LoadProver(ctx context.Context, gpu int, pk *groth16.ProvingKey, c *r1cs.Circuit) (PartitionProver, error)
	// WorkingBytes is the host memory one partition's three stages need
	// beyond its witness.
	WorkingBytes(c *r1cs.Circuit) int64
}

// Name implements Backend.
func (b *C2) Name() string { return "c2/" + b.GPU.Name() }

// CheckC1 implements Backend: the structural rules (c1.Validate) and the
// vanilla proofs (porep.VerifyVanilla).
func (b *C2) CheckC1(ctx context.Context, p abi.SealProof, c *c1.Commit1Out) error {
	if err := c.Validate(); err != nil {
		return err
	}
	return porep.VerifyVanilla(ctx, c)
}

// CircuitBytes implements Backend: the sizes of the .params file and the
// recorded circuit, which is about what they take in memory.
func (b *C2) CircuitBytes(p abi.SealProof) (int64, error) {
	f := c2.FilesIn(b.ParamsDir, p)
	st, err := os.Stat(f.Params)
	if err != nil {
		return 0, fmt.Errorf("%s parameters: %w; run `filc2 params fetch -p %s` (official) or `filc2 setup -p %s --out DIR` (test)", p.Name, err, p.Name, p.Name)
	}
	n := st.Size()
	if st, err := os.Stat(f.PCE); err == nil {
		n += st.Size()
	}
	return n, nil
}

// LoadCircuit implements Backend with c2.Load. The keys stay on the host,
// shared by every GPU's prover; no backend SRS is made here.
func (b *C2) LoadCircuit(ctx context.Context, p abi.SealProof, progress func(done, total int64)) (Circuit, error) {
	progress(0, 1)
	pr, err := c2.Load(ctx, p, c2.LoadOptions{ParamsDir: b.ParamsDir, Backend: hostKeys{}})
	if err != nil {
		return nil, err
	}
	progress(1, 1)
	return &c2Circuit{partitionSynth: newPartitionSynth(pr.Circuit, pr.Shape, b.GPU), pr: pr}, nil
}

// LoadProver implements Backend.
func (b *C2) LoadProver(ctx context.Context, gpu int, c Circuit) (PartitionProver, error) {
	cc, ok := c.(*c2Circuit)
	if !ok {
		return nil, fmt.Errorf("engine: circuit %T was not loaded by the C2 backend", c)
	}
	return b.GPU.LoadProver(ctx, gpu, cc.pr.PK, cc.pr.Circuit)
}

// witnessBytes is the size of one dense witness of c.
func witnessBytes(c *r1cs.Circuit) int64 {
	return int64(c.NumInputs+c.NumAux) * fr.Bytes
}

// c2Circuit is C2's Circuit: a c2.Prover whose keys stay on the host.
type c2Circuit struct {
	partitionSynth
	pr *c2.Prover
}

func (c *c2Circuit) Verify(p abi.SealProof, out *c1.Commit1Out, k int, proof *groth16.Proof) error {
	return c2.VerifyPartition(c.pr.PVK, p, out.ReplicaID, out.CommD, out.CommR, out.Seed, k, proof)
}

func (c *c2Circuit) Close() error { return c.pr.Close() }

// hostKeys is the groth16.Backend C2 hands c2.Load: it keeps nothing beyond
// the host keys (the GPU provers load their own SRS) and never proves.
type hostKeys struct{}

func (hostKeys) Name() string { return "host" }

func (hostKeys) LoadSRS(context.Context, *groth16.ProvingKey, *r1cs.Circuit) (groth16.SRS, error) {
	return noSRS{}, nil
}

func (hostKeys) Prove(context.Context, groth16.SRS, *groth16.Assignment, fr.Element, fr.Element) (*groth16.Proof, error) {
	return nil, errors.New("engine: the host keys do not prove; the engine proves through a PartitionProver")
}

type noSRS struct{}

func (noSRS) Close() error { return nil }

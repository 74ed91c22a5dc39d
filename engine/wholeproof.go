package engine

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
)

// WholeProof adapts a whole-proof groth16.Backend to GPUBackend: Prepare only
// draws the blinding, RunGPU runs the whole Prove under the GPU's lock, Finish
// hands the proof on. It is how today's CPU and CUDA backends run in the
// engine until they split their work into the three stages.
type WholeProof struct {
	Label  string                                 // the Name, such as "cpu"
	ForGPU func(gpu int) (groth16.Backend, error) // the backend bound to device gpu
}

// CPUWholeProof is WholeProof on the CPU backend for every GPU index, each
// proof on tasks goroutines (≤ 0: all cores): the engine on a machine without
// GPUs, where each "GPU" is a share of the CPU.
func CPUWholeProof(tasks int) WholeProof {
	return WholeProof{Label: "cpu", ForGPU: func(int) (groth16.Backend, error) { return groth16.CPU{Tasks: tasks}, nil }}
}

// Name implements GPUBackend.
func (w WholeProof) Name() string { return w.Label }

// LoadProver implements GPUBackend with the backend's LoadSRS.
func (w WholeProof) LoadProver(ctx context.Context, gpu int, pk *groth16.ProvingKey, c *r1cs.Circuit) (PartitionProver, error) {
	be, err := w.ForGPU(gpu)
	if err != nil {
		return nil, fmt.Errorf("GPU %d: %w", gpu, err)
	}
	srs, err := be.LoadSRS(ctx, pk, c)
	if err != nil {
		return nil, fmt.Errorf("GPU %d: %s backend: %w", gpu, be.Name(), err)
	}
	return &wholeProver{be: be, srs: srs}, nil
}

// LoadSyntheticProver implements SyntheticLoader: a synthetic key made on
// the host (groth16.SyntheticKey, so only for circuits of up to
// groth16.MaxSyntheticKeyPoints points: 2KiB, 8MiB, 512MiB) loaded with the
// backend's LoadSRS.
func (w WholeProof) LoadSyntheticProver(ctx context.Context, gpu int, c *r1cs.Circuit, seed uint64) (PartitionProver, error) {
	be, err := w.ForGPU(gpu)
	if err != nil {
		return nil, fmt.Errorf("GPU %d: %w", gpu, err)
	}
	pk, err := groth16.SyntheticKey(ctx, c, seed, 0)
	if err != nil {
		return nil, fmt.Errorf("GPU %d: synthetic key: %w", gpu, err)
	}
	srs, err := be.LoadSRS(ctx, pk, c)
	if err != nil {
		return nil, fmt.Errorf("GPU %d: %s backend: %w", gpu, be.Name(), err)
	}
	return &wholeProver{be: be, srs: srs}, nil
}

// LoadSetupProver implements SetupLoader: the setup on the host's cores
// (groth16.SetupFromToxic; minutes at 2KiB on 2 cores), loaded with the
// backend's LoadSRS.
func (w WholeProof) LoadSetupProver(ctx context.Context, gpu int, c *r1cs.Circuit, t *groth16.Toxic) (PartitionProver, *groth16.VerifyingKey, error) {
	be, err := w.ForGPU(gpu)
	if err != nil {
		return nil, nil, fmt.Errorf("GPU %d: %w", gpu, err)
	}
	pk, err := groth16.SetupFromToxic(ctx, c, t)
	if err != nil {
		return nil, nil, fmt.Errorf("GPU %d: setup: %w", gpu, err)
	}
	srs, err := be.LoadSRS(ctx, pk, c)
	if err != nil {
		return nil, nil, fmt.Errorf("GPU %d: %s backend: %w", gpu, be.Name(), err)
	}
	return &wholeProver{be: be, srs: srs}, &pk.VK, nil
}

// WorkingBytes implements GPUBackend: what the CPU prover allocates beside
// the witness (a, b, c over the domain and the compacted A and B scalars).
func (w WholeProof) WorkingBytes(c *r1cs.Circuit) int64 {
	s := c.Stats()
	domain := int64(1) << s.DomainLog2()
	scalars := 3*domain + int64(s.Inputs+s.AAuxDensity) + int64(s.BInputDensity+s.BAuxDensity)
	return scalars * fr.Bytes
}

type wholeProver struct {
	be  groth16.Backend
	srs groth16.SRS
}

type wholePrepared struct {
	w    *groth16.Assignment
	r, s fr.Element
}

func (p *wholeProver) Prepare(ctx context.Context, w *groth16.Assignment) (Prepared, error) {
	pp := &wholePrepared{w: w}
	if _, err := pp.r.SetRandom(); err != nil {
		return nil, fmt.Errorf("blinding r: %w", err)
	}
	if _, err := pp.s.SetRandom(); err != nil {
		return nil, fmt.Errorf("blinding s: %w", err)
	}
	return pp, nil
}

func (p *wholeProver) RunGPU(ctx context.Context, prep Prepared) (Raw, error) {
	pp, ok := prep.(*wholePrepared)
	if !ok {
		return nil, fmt.Errorf("engine: prepared partition %T is not a whole proof's", prep)
	}
	return p.be.Prove(ctx, p.srs, pp.w, pp.r, pp.s)
}

func (p *wholeProver) Finish(_ context.Context, raw Raw) (*groth16.Proof, error) {
	proof, ok := raw.(*groth16.Proof)
	if !ok {
		return nil, fmt.Errorf("engine: GPU output %T is not a whole proof's", raw)
	}
	return proof, nil
}

func (p *wholeProver) Close() error { return p.srs.Close() }

// Staged is a GPUBackend whose provers split their work into the three stages
// themselves (the CUDA backend's ffi.Prover): Load makes one circuit's key
// resident on a GPU, Working is the host memory a partition's stages need
// beyond its witness. LoadSynthetic, if set, makes a synthetic key of a
// circuit's lengths directly on the GPU (ffi.LoadSyntheticProver), for the
// Synthetic backend; LoadSetup, if set, runs a setup with its heavy part on
// the GPU and keeps the key there (ffi.SetupProver), for the SetupKey backend.
type Staged struct {
	Label         string
	Load          func(ctx context.Context, gpu int, pk *groth16.ProvingKey, c *r1cs.Circuit) (PartitionProver, error)
	Working       func(c *r1cs.Circuit) int64
	LoadSynthetic func(ctx context.Context, gpu int, c *r1cs.Circuit, seed uint64) (PartitionProver, error)
	LoadSetup     func(ctx context.Context, gpu int, c *r1cs.Circuit, t *groth16.Toxic) (PartitionProver, *groth16.VerifyingKey, error)
	// Probe checks a quarantined GPU (DeviceProber); nil: none.
	Probe func(ctx context.Context, gpu int, lost bool) error
}

// ProbeDevice implements DeviceProber with Probe (nil: the GPU passes).
func (s Staged) ProbeDevice(ctx context.Context, gpu int, lost bool) error {
	if s.Probe == nil {
		return nil
	}
	return s.Probe(ctx, gpu, lost)
}

// LoadSetupProver implements SetupLoader with LoadSetup.
func (s Staged) LoadSetupProver(ctx context.Context, gpu int, c *r1cs.Circuit, t *groth16.Toxic) (PartitionProver, *groth16.VerifyingKey, error) {
	if s.LoadSetup == nil {
		return nil, nil, fmt.Errorf("GPU %d: the %s backend runs no setups", gpu, s.Label)
	}
	p, vk, err := s.LoadSetup(ctx, gpu, c, t)
	if err != nil {
		return nil, nil, fmt.Errorf("GPU %d: %s backend: setup: %w", gpu, s.Label, err)
	}
	return p, vk, nil
}

// SyntheticLoader is implemented by GPU backends that can make a synthetic
// key resident on a GPU: distinct valid points with the lengths circuit c
// needs, drawn from seed, no setup. Proofs made with it verify under no key;
// the Synthetic backend uses it to run every stage at full size where no
// parameters exist.
type SyntheticLoader interface {
	LoadSyntheticProver(ctx context.Context, gpu int, c *r1cs.Circuit, seed uint64) (PartitionProver, error)
}

// LoadSyntheticProver implements SyntheticLoader with LoadSynthetic.
func (s Staged) LoadSyntheticProver(ctx context.Context, gpu int, c *r1cs.Circuit, seed uint64) (PartitionProver, error) {
	if s.LoadSynthetic == nil {
		return nil, fmt.Errorf("GPU %d: the %s backend makes no synthetic keys", gpu, s.Label)
	}
	p, err := s.LoadSynthetic(ctx, gpu, c, seed)
	if err != nil {
		return nil, fmt.Errorf("GPU %d: %s backend: synthetic key: %w", gpu, s.Label, err)
	}
	return p, nil
}

// Name implements GPUBackend.
func (s Staged) Name() string { return s.Label }

// LoadProver implements GPUBackend with Load.
func (s Staged) LoadProver(ctx context.Context, gpu int, pk *groth16.ProvingKey, c *r1cs.Circuit) (PartitionProver, error) {
	p, err := s.Load(ctx, gpu, pk, c)
	if err != nil {
		return nil, fmt.Errorf("GPU %d: %s backend: %w", gpu, s.Label, err)
	}
	return p, nil
}

// WorkingBytes implements GPUBackend with Working (0 if it is not set).
func (s Staged) WorkingBytes(c *r1cs.Circuit) int64 {
	if s.Working == nil {
		return 0
	}
	return s.Working(c)
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
)

// ErrUnverified is what a synthetic circuit's Verify returns: the proof was
// made with a synthetic key from a synthetic C1 and verifies under no key.
var ErrUnverified = errors.New("engine: synthetic proof (random key and C1): it does not verify")

// Synthetic is a Backend for benchmarks at sizes where no real C1 output or
// parameters are at hand (32GiB without its 45 GB .params): the C1 outputs
// are structurally valid but random (porep.SyntheticC1), the circuit is the
// real recorded one, and the key is a synthetic one with the circuit's
// lengths that the GPU backend makes itself (SyntheticLoader: on the GPU for
// CUDA, on the host for the CPU at small sizes). Every stage — synthesis,
// SpMV, upload, kernels, finalisation, verification — runs at full size; the
// proofs do not verify.
//
// The engine knows a synthetic backend by its Synthetic method: a partition
// whose Verify fails is then counted (Result.Unverified), not fatal, and the
// job returns no proof bytes. Any other backend's failed verification fails
// the job, as always.
type Synthetic struct {
	GPU    GPUBackend // the per-GPU provers; must implement SyntheticLoader
	PCEDir string     // where recorded circuits are cached (c2.PCEName); "": record at every load, keep none on disk
	Seed   uint64     // seed of the synthetic keys
	// Progress, if set, is told of long circuit loads: recording a circuit
	// (the 32GiB one takes minutes and many GB), reading a cached one.
	Progress func(stage string, done, total int64)

	once sync.Once
	rec  *recordedCircuits
}

// Synthetic marks the backend as synthetic for the engine (see the type).
func (s *Synthetic) Synthetic() bool { return true }

// isSynthetic reports whether b declares itself synthetic.
func isSynthetic(b Backend) bool {
	sb, ok := b.(interface{ Synthetic() bool })
	return ok && sb.Synthetic()
}

// Name implements Backend.
func (s *Synthetic) Name() string { return "synthetic/" + s.GPU.Name() }

// Check implements Backend with the structural rules only (c1.Validate):
// the vanilla proofs of a synthetic C1 do not check. It proves PoRep only.
func (s *Synthetic) Check(_ context.Context, in Input) error {
	pr, err := poRepOnly(s.Name(), in)
	if err != nil {
		return err
	}
	return pr.C1.Validate()
}

// CircuitBytes implements Backend: the cached recorded circuit's size, or an
// estimate from the circuit's counts, plus the synthetic key when the GPU
// backend keeps it on the host (a WholeProof).
func (s *Synthetic) CircuitBytes(spec CircuitSpec) (int64, error) {
	p, err := poRepSpec(s.Name(), spec)
	if err != nil {
		return 0, err
	}
	return s.circuits().circuitBytes(p, s.GPU, true)
}

// circuits returns the recorded-circuit loader on PCEDir.
func (s *Synthetic) circuits() *recordedCircuits {
	s.once.Do(func() { s.rec = &recordedCircuits{pceDir: s.PCEDir, progress: s.Progress} })
	return s.rec
}

// LoadCircuit implements Backend: the recorded circuit, from PCEDir when
// cached there (recorded and written there first otherwise), and a synthetic
// verifying key with its input count for Verify.
func (s *Synthetic) LoadCircuit(ctx context.Context, spec CircuitSpec, progress func(done, total int64)) (Circuit, error) {
	p, err := poRepSpec(s.Name(), spec)
	if err != nil {
		return nil, err
	}
	if _, err := s.loader(); err != nil {
		return nil, err
	}
	c, err := s.circuits().load(ctx, p, progress)
	if err != nil {
		return nil, err
	}
	pvk, err := groth16.Prepare(groth16.SyntheticVerifyingKey(c.NumInputs, s.Seed))
	if err != nil {
		return nil, fmt.Errorf("engine: synthetic verifying key: %w", err)
	}
	return &syntheticCircuit{partitionSynth: newPartitionSynth(c, porep.ShapeOf(p), s.GPU), pvk: pvk}, nil
}

// LoadProver implements Backend with the GPU backend's synthetic key.
func (s *Synthetic) LoadProver(ctx context.Context, gpu int, c Circuit) (PartitionProver, error) {
	sc, ok := c.(*syntheticCircuit)
	if !ok {
		return nil, fmt.Errorf("engine: circuit %T was not loaded by the synthetic backend", c)
	}
	sl, err := s.loader()
	if err != nil {
		return nil, err
	}
	return sl.LoadSyntheticProver(ctx, gpu, sc.circuit, s.Seed)
}

// loader returns the GPU backend as a SyntheticLoader, if it makes
// synthetic keys (a Staged one only with LoadSynthetic set).
func (s *Synthetic) loader() (SyntheticLoader, error) {
	sl, ok := s.GPU.(SyntheticLoader)
	if st, staged := s.GPU.(Staged); staged && st.LoadSynthetic == nil {
		ok = false
	}
	if !ok {
		return nil, fmt.Errorf("engine: the %s GPU backend makes no synthetic keys", s.GPU.Name())
	}
	return sl, nil
}

// syntheticCircuit is Synthetic's Circuit.
type syntheticCircuit struct {
	partitionSynth
	pvk *groth16.PreparedVerifyingKey
}

// Verify does a real verification's work — the public inputs from the
// graph, the IC multi-exponentiation, the pairings — against the synthetic
// verifying key, and returns ErrUnverified (or the error that stopped it).
func (c *syntheticCircuit) Verify(in Input, k int, proof *groth16.Proof) error {
	pr, err := poRepInput(in)
	if err != nil {
		return err
	}
	p, out := pr.Proof, pr.C1
	public, err := porep.PublicInputs(p, out.ReplicaID, out.CommD, out.CommR, out.Seed, k)
	if err != nil {
		return fmt.Errorf("partition %d public inputs: %w", k, err)
	}
	ok, err := groth16.Verify(c.pvk, proof, public)
	switch {
	case err != nil:
		return fmt.Errorf("partition %d: %w", k, err)
	case ok: // a random key cannot verify anything; keep the engine honest anyway
		return nil
	}
	return ErrUnverified
}

func (c *syntheticCircuit) Close() error { return nil }

package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/r1cs"
	"github.com/filc2/filc2/proofs/snap"
)

// SetupKey is a Backend that proves with keys it makes itself, for verified
// benchmarks and tests at sizes whose parameters are not at hand (32GiB without
// its 47 GB .params, and no file written): the circuit is the recorded one
// (cached in PCEDir), and each GPU's prover runs a real Groth16 setup of it
// when it loads (SetupLoader: on the GPU for CUDA, in a few minutes at 32GiB;
// on the host for the CPU backend, at small sizes), from toxic waste drawn
// from Seed (groth16.SeededToxic), so that every GPU makes the same key. The
// C1 outputs get the production checks (c1.Validate, porep.VerifyVanilla) and
// every partition is verified against the setup's verifying key, as in
// production: the proofs are real. The key is a test key — its toxic waste is
// public — so they verify under it and no official key.
type SetupKey struct {
	GPU    GPUBackend // the per-GPU provers; must implement SetupLoader
	PCEDir string     // where recorded circuits are cached (c2.PCEName); "": record at every load
	Seed   uint64     // the toxic waste's seed
	// Progress, if set, is told of long circuit loads.
	Progress func(stage string, done, total int64)

	once sync.Once
	rec  *recordedCircuits
}

// SetupLoader is implemented by GPU backends that can run a Groth16 setup of a
// circuit and keep the key resident on a GPU; they return the key's verifying
// key.
type SetupLoader interface {
	LoadSetupProver(ctx context.Context, gpu int, c *r1cs.Circuit, t *groth16.Toxic) (PartitionProver, *groth16.VerifyingKey, error)
}

// Name implements Backend.
func (s *SetupKey) Name() string { return "setup-key/" + s.GPU.Name() }

// Check implements Backend as Proofs does: structure and vanilla proofs.
func (s *SetupKey) Check(ctx context.Context, in Input) error {
	if sn, ok := in.(*Snap); ok {
		if sn.Checked {
			return nil
		}
		return snap.Check(sn.Request)
	}
	if ps, ok := in.(*PoSt); ok {
		if ps.Checked {
			return nil
		}
		return ps.Partition.Check(ps.Randomness)
	}
	pr, err := poRepOnly(s.Name(), in)
	if err != nil {
		return err
	}
	c := pr.C1
	if err := c.Validate(); err != nil {
		return err
	}
	return porep.VerifyVanilla(ctx, c)
}

func (s *SetupKey) circuits() *recordedCircuits {
	s.once.Do(func() { s.rec = &recordedCircuits{pceDir: s.PCEDir, progress: s.Progress} })
	return s.rec
}

// CircuitBytes implements Backend: the recorded circuit, and the key when the
// GPU backend keeps it on the host.
func (s *SetupKey) CircuitBytes(spec CircuitSpec) (int64, error) {
	switch spec.Kind {
	case KindSnapDeals:
		return s.snapCircuitBytes(spec)
	case KindWindowPoSt, KindWinningPoSt:
		return s.postCircuitBytes(spec)
	}
	p, err := poRepSpec(s.Name(), spec)
	if err != nil {
		return 0, err
	}
	return s.circuits().circuitBytes(p, s.GPU, false)
}

// LoadCircuit implements Backend: the recorded circuit; the verifying key
// comes with the first prover.
func (s *SetupKey) LoadCircuit(ctx context.Context, spec CircuitSpec, progress func(done, total int64)) (Circuit, error) {
	if _, ok := s.GPU.(SetupLoader); !ok || !setupCapable(s.GPU) {
		return nil, fmt.Errorf("engine: the %s GPU backend runs no setups", s.GPU.Name())
	}
	switch spec.Kind {
	case KindSnapDeals:
		return s.loadSnapCircuit(ctx, spec, progress)
	case KindWindowPoSt, KindWinningPoSt:
		return s.loadPoStCircuit(ctx, spec, progress)
	}
	p, err := poRepSpec(s.Name(), spec)
	if err != nil {
		return nil, err
	}
	c, err := s.circuits().load(ctx, p, progress)
	if err != nil {
		return nil, err
	}
	return &setupCircuit{partitionSynth: newPartitionSynth(c, porep.ShapeOf(p), s.GPU)}, nil
}

// setupCapable: a Staged backend runs setups only with LoadSetup set.
func setupCapable(g GPUBackend) bool {
	st, staged := g.(Staged)
	return !staged || st.LoadSetup != nil
}

// LoadProver implements Backend: the setup, on GPU gpu.
func (s *SetupKey) LoadProver(ctx context.Context, gpu int, c Circuit) (PartitionProver, error) {
	sc, ok := c.(setupKeyed)
	if !ok {
		return nil, fmt.Errorf("engine: circuit %T was not loaded by the setup-key backend", c)
	}
	sl, ok := s.GPU.(SetupLoader)
	if !ok {
		return nil, fmt.Errorf("engine: the %s GPU backend runs no setups", s.GPU.Name())
	}
	t, err := groth16.SeededToxic(s.Seed)
	if err != nil {
		return nil, err
	}
	pp, vk, err := sl.LoadSetupProver(ctx, gpu, sc.recorded(), &t)
	if err != nil {
		return nil, err
	}
	if err := sc.setVK(vk); err != nil {
		pp.Close()
		return nil, fmt.Errorf("GPU %d: %w", gpu, err)
	}
	return pp, nil
}

// setupKeyed is a circuit of SetupKey's: its recorded circuit, and the
// verifying key the first GPU's setup made.
type setupKeyed interface {
	recorded() *r1cs.Circuit
	setVK(vk *groth16.VerifyingKey) error
}

// setupCircuit is SetupKey's PoRep Circuit.
type setupCircuit struct {
	partitionSynth
	setupVK
}

func (c *setupCircuit) recorded() *r1cs.Circuit { return c.circuit }

// setupVK is the verifying key of a SetupKey circuit.
type setupVK struct {
	mu  sync.Mutex
	vk  []byte // the first prover's verifying key, encoded
	pvk *groth16.PreparedVerifyingKey
}

// key returns the verifying key, or an error before any prover was set up.
func (c *setupVK) key() (*groth16.PreparedVerifyingKey, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pvk == nil {
		return nil, errors.New("engine: no verifying key yet: no prover has been set up")
	}
	return c.pvk, nil
}

// setVK keeps the first prover's verifying key; every later prover's must be
// the same (each GPU ran the same setup).
func (c *setupVK) setVK(vk *groth16.VerifyingKey) error {
	var b bytes.Buffer
	if _, err := vk.WriteTo(&b); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vk != nil {
		if !bytes.Equal(c.vk, b.Bytes()) {
			return errors.New("engine: this GPU's setup made another key than the first GPU's (same toxic waste): its backend is broken")
		}
		return nil
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		return err
	}
	c.vk, c.pvk = b.Bytes(), pvk
	return nil
}

func (c *setupCircuit) Verify(in Input, k int, proof *groth16.Proof) error {
	pr, err := poRepInput(in)
	if err != nil {
		return err
	}
	p, out := pr.Proof, pr.C1
	pvk, err := c.key()
	if err != nil {
		return err
	}
	return c2.VerifyPartition(pvk, p, out.ReplicaID, out.CommD, out.CommR, out.Seed, k, proof)
}

func (c *setupCircuit) Close() error { return nil }

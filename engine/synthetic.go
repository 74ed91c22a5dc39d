package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/r1cs"
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

	mu    sync.Mutex
	stats map[uint64]r1cs.Stats // circuit counts by sector size, for CircuitBytes
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

// CheckC1 implements Backend with the structural rules only (c1.Validate):
// the vanilla proofs of a synthetic C1 do not check.
func (s *Synthetic) CheckC1(_ context.Context, _ abi.SealProof, c *c1.Commit1Out) error {
	return c.Validate()
}

// CircuitBytes implements Backend: the cached recorded circuit's size, or an
// estimate from the circuit's counts (a count-mode synthesis, once per size:
// 26 s at 32GiB), plus the synthetic key when the GPU backend keeps it on the
// host (a WholeProof).
func (s *Synthetic) CircuitBytes(p abi.SealProof) (int64, error) {
	_, host := s.GPU.(WholeProof)
	n := int64(-1)
	if s.PCEDir != "" {
		if fi, err := os.Stat(c2.FilesIn(s.PCEDir, p).PCE); err == nil {
			n = fi.Size()
		}
	}
	if n >= 0 && !host {
		return n, nil
	}
	st, err := s.circuitStats(p)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		n = int64(st.Constraints) * pceBytesPerConstraint
	}
	if host {
		l := groth16.ShapeOf(st).Lengths()
		n += int64(max(l[0], l[1], l[2], l[3]))*bls.SizeOfG1AffineUncompressed + int64(l[4])*bls.SizeOfG2AffineUncompressed
	}
	return n, nil
}

// pceBytesPerConstraint is about what a recorded PoRep circuit holds per
// constraint (CSR of A, B and C, ~5.5 entries a row, and the row pointers):
// 57 bytes at 2KiB as at 32GiB.
const pceBytesPerConstraint = 57

func (s *Synthetic) circuitStats(p abi.SealProof) (r1cs.Stats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.stats[uint64(p.SectorSize)]; ok {
		return st, nil
	}
	shape := porep.ShapeOf(p)
	cs := r1cs.New(r1cs.Count)
	if err := porep.Synthesize(cs, shape, shape.Blank()); err != nil {
		return r1cs.Stats{}, fmt.Errorf("counting the %s circuit: %w", p.Name, err)
	}
	if err := cs.Finish(); err != nil {
		return r1cs.Stats{}, fmt.Errorf("counting the %s circuit: %w", p.Name, err)
	}
	if s.stats == nil {
		s.stats = map[uint64]r1cs.Stats{}
	}
	s.stats[uint64(p.SectorSize)] = cs.Stats()
	return cs.Stats(), nil
}

// LoadCircuit implements Backend: the recorded circuit, from PCEDir when
// cached there (recorded and written there first otherwise), and a synthetic
// verifying key with its input count for Verify.
func (s *Synthetic) LoadCircuit(ctx context.Context, p abi.SealProof, progress func(done, total int64)) (Circuit, error) {
	if _, err := s.loader(); err != nil {
		return nil, err
	}
	tell := func(stage string, done, total int64) {
		progress(done, total)
		if s.Progress != nil {
			s.Progress(stage, done, total)
		}
	}
	record := porep.WithProgress(func(done, total int) {
		tell("recording the "+p.Name+" circuit (challenges)", int64(done), int64(total))
	})
	var c *r1cs.Circuit
	var err error
	if s.PCEDir == "" {
		c, err = c2.RecordCircuit(ctx, p, record)
	} else {
		path := c2.FilesIn(s.PCEDir, p).PCE
		if _, serr := os.Stat(path); serr == nil {
			tell("reading the recorded "+p.Name+" circuit", 0, 1)
		} else if err = os.MkdirAll(s.PCEDir, 0o755); err != nil {
			return nil, fmt.Errorf("engine: the recorded-circuit cache: %w", err)
		}
		c, err = c2.LoadCircuit(ctx, p, path, record)
	}
	if err != nil {
		return nil, err
	}
	tell("circuit "+p.Name+" loaded", 1, 1)
	pvk, err := groth16.Prepare(groth16.SyntheticVerifyingKey(c.NumInputs, s.Seed))
	if err != nil {
		return nil, fmt.Errorf("engine: synthetic verifying key: %w", err)
	}
	return &syntheticCircuit{c: c, shape: porep.ShapeOf(p), pvk: pvk, partBytes: witnessBytes(c) + s.GPU.WorkingBytes(c)}, nil
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
	return sl.LoadSyntheticProver(ctx, gpu, sc.c, s.Seed)
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
	witnessPool
	c         *r1cs.Circuit
	shape     porep.CircuitShape
	pvk       *groth16.PreparedVerifyingKey
	partBytes int64
}

func (c *syntheticCircuit) PartitionBytes() int64 { return c.partBytes }

func (c *syntheticCircuit) Synthesize(ctx context.Context, _ abi.SealProof, out *c1.Commit1Out, k int) (*groth16.Assignment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in, err := porep.PartitionInputFromC1(out, k)
	if err != nil {
		return nil, err
	}
	return c2.Witness(c.shape, in, c.c, c.options()...)
}

// Verify does a real verification's work — the public inputs from the
// graph, the IC multi-exponentiation, the pairings — against the synthetic
// verifying key, and returns ErrUnverified (or the error that stopped it).
func (c *syntheticCircuit) Verify(p abi.SealProof, out *c1.Commit1Out, k int, proof *groth16.Proof) error {
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

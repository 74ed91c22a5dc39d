package c2

import (
	"context"
	"fmt"
	"time"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/r1cs"
	"github.com/filc2/filc2/proofs/snark"
)

// Prover proves the C1 outputs of one sector size with one backend. Its
// circuit, keys and backend SRS stay loaded between proofs.
type Prover struct {
	Size    abi.SealProof // a proof type of the sector size; each C1 names its own
	Circuit *r1cs.Circuit
	Shape   porep.CircuitShape
	PK      *groth16.ProvingKey
	PVK     *groth16.PreparedVerifyingKey
	Files   Files
	backend groth16.Backend
	srs     groth16.SRS
}

// LoadOptions configure Load.
type LoadOptions struct {
	ParamsDir      string
	Backend        groth16.Backend // nil: the CPU backend
	SubgroupChecks bool            // check every key point's subgroup (slow)
}

// Load reads p's recorded circuit (recording it if absent), its .vk and
// .params from the parameter directory, checks they belong together and to the
// circuit, and loads the key into the backend.
func Load(ctx context.Context, p abi.SealProof, opts LoadOptions) (*Prover, error) {
	f := FilesIn(opts.ParamsDir, p)
	c, err := LoadCircuit(ctx, p, f.PCE)
	if err != nil {
		return nil, err
	}
	k, err := snark.LoadKeys(ctx, c, f, opts.Backend, opts.SubgroupChecks)
	if err != nil {
		return nil, err
	}
	return &Prover{Size: p, Circuit: c, Shape: porep.ShapeOf(p), PK: k.PK, PVK: k.PVK, Files: f, backend: k.Backend, srs: k.SRS}, nil
}

// Close releases the backend's SRS.
func (pr *Prover) Close() error { return pr.srs.Close() }

// Backend is the prover's backend name.
func (pr *Prover) Backend() string { return pr.backend.Name() }

// PartitionTiming is where one partition's time went.
type PartitionTiming struct {
	Partition int           `json:"partition"`
	Synthesis time.Duration `json:"synthesis_ns"`
	Prove     time.Duration `json:"prove_ns"`
	Verify    time.Duration `json:"verify_ns"`
}

// WitnessOption configures Witness.
type WitnessOption func(*witnessConfig)

type witnessConfig struct {
	parallelism int
	reuse       *groth16.Assignment
	gate        *par.Gate
}

// WithGate synthesises each challenge inside g (porep.WithGate): every
// partition sharing g takes at most g.Size() threads at once between them.
// The witness is the same with or without it.
func WithGate(g *par.Gate) WitnessOption {
	return func(c *witnessConfig) { c.gate = g }
}

// WithParallelism synthesises the partition's challenges on up to n
// goroutines; n < 1 (the default) means runtime.GOMAXPROCS(0), 1 the
// sequential synthesis. The witness is the same for every n.
func WithParallelism(n int) WitnessOption {
	return func(c *witnessConfig) { c.parallelism = n }
}

// WithReuse writes the witness into w's storage when it is large enough,
// instead of allocating new storage (4 GiB for a 32GiB partition, whose first
// touch, page by page, can cost more than the synthesis). w's previous
// contents are overwritten and the new assignment shares w's arrays: the
// caller must be done with w (a backend that has taken the witness in).
func WithReuse(w *groth16.Assignment) WitnessOption {
	return func(c *witnessConfig) { c.reuse = w }
}

// Witness synthesises one partition in witness mode and returns its
// assignment. c, the recorded circuit (nil to synthesise without it), sizes
// the storage, lays out the parallel synthesis without measuring a challenge
// first, and is checked against the assignment's counts.
func Witness(shape porep.CircuitShape, in *porep.PartitionInput, c *r1cs.Circuit, opts ...WitnessOption) (*groth16.Assignment, error) {
	var cfg witnessConfig
	for _, o := range opts {
		o(&cfg)
	}
	var ro []r1cs.Option
	if cfg.reuse != nil {
		ro = append(ro, r1cs.WithStorage(cfg.reuse.Inputs, cfg.reuse.Aux))
	}
	so := []porep.SynthOption{porep.WithParallelism(cfg.parallelism), porep.WithGate(cfg.gate)}
	if c != nil {
		ro = append(ro, r1cs.WithCapacity(c.NumAux, c.NumConstraints))
		so = append(so, porep.WithTotals(c.Header()))
	}
	cs := r1cs.New(r1cs.Witness, ro...)
	if err := porep.Synthesize(cs, shape, in, so...); err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	if err := cs.Finish(); err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	inputs, aux := cs.Assignment()
	if c != nil && (len(inputs) != c.NumInputs || len(aux) != c.NumAux || cs.NumConstraints() != c.NumConstraints) {
		return nil, fmt.Errorf("witness: %d inputs, %d aux and %d constraints synthesised, the circuit has %d, %d and %d",
			len(inputs), len(aux), cs.NumConstraints(), c.NumInputs, c.NumAux, c.NumConstraints)
	}
	return &groth16.Assignment{Inputs: inputs, Aux: aux}, nil
}

// CheckC1 validates a decoded C1's structure and its vanilla proofs, and that
// it is for this prover's sector size.
func (pr *Prover) CheckC1(ctx context.Context, c *c1.Commit1Out) (abi.SealProof, error) {
	p, err := c.ProofType()
	if err != nil {
		return p, err
	}
	if p.SectorSize != pr.Size.SectorSize {
		return p, fmt.Errorf("the C1 output is for %s (%d-byte sectors), this prover is loaded for %d-byte sectors", p.Name, p.SectorSize, pr.Size.SectorSize)
	}
	if err := c.Validate(); err != nil {
		return p, err
	}
	return p, nil
}

// ProvePartition synthesises, proves and verifies partition k of c.
func (pr *Prover) ProvePartition(ctx context.Context, p abi.SealProof, c *c1.Commit1Out, k int) (groth16.Proof, PartitionTiming, error) {
	t := PartitionTiming{Partition: k}
	t0 := time.Now()
	in, err := porep.PartitionInputFromC1(c, k)
	if err != nil {
		return groth16.Proof{}, t, err
	}
	w, err := Witness(pr.Shape, in, pr.Circuit)
	if err != nil {
		return groth16.Proof{}, t, err
	}
	t.Synthesis = time.Since(t0)
	t0 = time.Now()
	r, s, err := snark.Blinding()
	if err != nil {
		return groth16.Proof{}, t, err
	}
	proof, err := pr.backend.Prove(ctx, pr.srs, w, r, s)
	if err != nil {
		return groth16.Proof{}, t, err
	}
	t.Prove = time.Since(t0)
	t0 = time.Now()
	err = VerifyPartition(pr.PVK, p, c.ReplicaID, c.CommD, c.CommR, c.Seed, k, proof)
	t.Verify = time.Since(t0)
	if err != nil {
		return groth16.Proof{}, t, fmt.Errorf("our own proof does not verify (%w): the parameters do not match the circuit, or the %s backend is broken; nothing was written", err, pr.backend.Name())
	}
	return *proof, t, nil
}

// Prove proves every partition of c in order and returns the concatenated
// proof bytes (192 per partition). onPartition, if not nil, is called after
// each partition.
func (pr *Prover) Prove(ctx context.Context, c *c1.Commit1Out, onPartition func(PartitionTiming)) ([]byte, []PartitionTiming, error) {
	p, err := pr.CheckC1(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	n := len(c.VanillaProofs.Partitions)
	proofs := make([]groth16.Proof, n)
	timings := make([]PartitionTiming, 0, n)
	for k := range n {
		proof, t, err := pr.ProvePartition(ctx, p, c, k)
		if err != nil {
			return nil, timings, fmt.Errorf("partition %d: %w", k, err)
		}
		proofs[k] = proof
		timings = append(timings, t)
		if onPartition != nil {
			onPartition(t)
		}
	}
	return groth16.EncodeProofs(proofs), timings, nil
}

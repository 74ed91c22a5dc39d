package post

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/fallback"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
	"github.com/filc2/filc2/proofs/snark"
)

// ErrInvalid marks a proof that decodes but does not verify.
var ErrInvalid = errors.New("invalid proof")

// Prover proves one PoSt circuit (a kind and sector size; Window V1 and V1_1
// share it) with one backend. Its circuit, keys and SRS stay loaded.
type Prover struct {
	Proof abi.PoStProof // the type it was loaded for; any type of the same circuit proves
	*snark.Loaded
}

// LoadOptions configure Load.
type LoadOptions struct {
	ParamsDir      string
	Backend        groth16.Backend // nil: the CPU backend
	SubgroupChecks bool
}

// Load reads p's recorded circuit (recording it if absent), its .vk and
// .params, checks they belong together and to the circuit, and loads the key
// into the backend.
func Load(ctx context.Context, p abi.PoStProof, opts LoadOptions) (*Prover, error) {
	f := FilesIn(opts.ParamsDir, p)
	l, err := snark.Load(ctx, f, func() (*r1cs.Circuit, error) { return LoadCircuit(ctx, p, f.PCE) }, opts.Backend, opts.SubgroupChecks)
	if err != nil {
		return nil, err
	}
	return &Prover{Proof: p, Loaded: l}, nil
}

// Request is one PoSt proving job: a Window partition or a Winning proof.
type Request struct {
	Proof      abi.PoStProof
	Randomness fallback.Randomness // a field element (fallback.MaskRandomness)
	// Vanilla holds the partition's vanilla proofs, one per sector, in the
	// order the verifier lists the sectors (for Winning, the one sector).
	Vanilla   []*fallback.SectorVanilla
	Partition int // the Window partition index k (0 for Winning)
}

// Timing is where one proof's time went.
type Timing struct {
	Check     time.Duration `json:"check_ns"`
	Synthesis time.Duration `json:"synthesis_ns"`
	Prove     time.Duration `json:"prove_ns"`
	Verify    time.Duration `json:"verify_ns"`
}

// Prepare arranges and checks a request's vanilla proofs (the reference's
// single_partition_vanilla_proofs with its FallbackPoSt::verify) and returns
// the partition, ready for Witness.
func Prepare(req *Request) (*fallback.Partition, error) {
	if err := fallback.CheckRandomness(req.Randomness); err != nil {
		return nil, err
	}
	pt, err := fallback.NewPartition(req.Proof, req.Vanilla, req.Partition)
	if err != nil {
		return nil, err
	}
	if err := pt.Check(req.Randomness); err != nil {
		return nil, err
	}
	return pt, nil
}

// Witness synthesises a checked partition and returns its assignment; c, if
// not nil, sizes the storage and is checked against the result. opts
// configure the synthesis (fallback.WithGate, fallback.WithParallelism).
func Witness(pt *fallback.Partition, c *r1cs.Circuit, opts ...fallback.SynthOption) (*groth16.Assignment, error) {
	in, err := pt.CircuitInput()
	if err != nil {
		return nil, err
	}
	var ro []r1cs.Option
	if c != nil {
		ro = append(ro, r1cs.WithCapacity(c.NumAux, c.NumConstraints))
	}
	cs := r1cs.New(r1cs.Witness, ro...)
	if err := fallback.Synthesize(cs, pt.Proof, in, opts...); err != nil {
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
	return &groth16.Assignment{Inputs: inputs, Aux: aux, Repeat: padding(pt, len(aux))}, nil
}

// padding is the Repeat of a Window partition padded by repeating its last sector: the
// last real block and its copies, nil when nothing repeats. Every block has as many aux
// (the blocks are synthesised alike, and nothing else allocates aux).
func padding(pt *fallback.Partition, aux int) *groth16.Repeat {
	n := pt.Proof.SectorCount
	if pt.Proof.Kind != abi.Window || pt.Real >= n || pt.Real < 1 || aux%n != 0 {
		return nil
	}
	per := aux / n
	return &groth16.Repeat{Start: (pt.Real - 1) * per, Len: per, Copies: n - pt.Real + 1}
}

// Prove checks, synthesises, proves and verifies one request and returns the
// 192-byte proof, what lotus and curio put on chain for the partition.
func (pr *Prover) Prove(ctx context.Context, req *Request) ([]byte, Timing, error) {
	t0 := time.Now()
	pt, err := Prepare(req)
	check := time.Since(t0)
	if err != nil {
		return nil, Timing{Check: check}, err
	}
	proof, t, err := pr.ProvePartition(ctx, pt, req.Randomness)
	t.Check = check
	return proof, t, err
}

// ProvePartition synthesises, proves and verifies a partition Prepare
// returned for randomness r (Timing.Check is left zero).
func (pr *Prover) ProvePartition(ctx context.Context, pt *fallback.Partition, r fallback.Randomness) ([]byte, Timing, error) {
	var t Timing
	if pt.Proof.CircuitKey() != pr.Proof.CircuitKey() {
		return nil, t, fmt.Errorf("post: a %s request, this prover is loaded for %s", pt.Proof.Name, pr.Proof.Name)
	}
	t0 := time.Now()
	w, err := Witness(pt, pr.Circuit)
	if err != nil {
		return nil, t, err
	}
	t.Synthesis = time.Since(t0)
	if err := ctx.Err(); err != nil {
		return nil, t, err
	}
	t0 = time.Now()
	b, err := pr.ProveAssignment(ctx, w)
	if err != nil {
		return nil, t, err
	}
	t.Prove = time.Since(t0)
	t0 = time.Now()
	err = Verify(pr.PVK, pt.Proof, r, pt.PublicSectors(), pt.Index, b)
	t.Verify = time.Since(t0)
	if err != nil {
		return nil, t, fmt.Errorf("our own proof does not verify (%w): the parameters do not match the circuit, or the %s backend is broken; nothing was returned", err, pr.Backend())
	}
	return b, t, nil
}

// Verify checks a 192-byte proof of partition k for the given sectors (for
// Winning, the one sector), as verify_window_post / verify_winning_post do
// for one partition. An invalid proof is an error wrapping ErrInvalid.
func Verify(pvk *groth16.PreparedVerifyingKey, p abi.PoStProof, r fallback.Randomness, sectors []fallback.PublicSector, k int, proof []byte) error {
	public, err := fallback.PublicInputs(p, r, sectors, k)
	if err != nil {
		return err
	}
	if len(proof) != abi.PartitionProofLen {
		return fmt.Errorf("%w: proof is %d bytes, a %s partition proof is %d", ErrInvalid, len(proof), p.Name, abi.PartitionProofLen)
	}
	proofs, err := groth16.DecodeProofs(proof, 1)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	ok, err := groth16.Verify(pvk, &proofs[0], public)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: the %s proof does not verify for these sectors and randomness", ErrInvalid, p.Name)
	}
	return nil
}

// NewProver makes a Prover of a key already loaded in a backend, such as one
// a setup made in memory (ffi.SetupProver): c is the recorded circuit, vk the
// key's verifying key, srs what be proves with.
func NewProver(p abi.PoStProof, c *r1cs.Circuit, vk *groth16.VerifyingKey, be groth16.Backend, srs groth16.SRS) (*Prover, error) {
	if c.NumInputs != fallback.NumInputs(p) {
		return nil, fmt.Errorf("post: a circuit of %d inputs, %s has %d", c.NumInputs, p.Name, fallback.NumInputs(p))
	}
	l, err := snark.NewLoaded(c, vk, be, srs)
	if err != nil {
		return nil, err
	}
	return &Prover{Proof: p, Loaded: l}, nil
}

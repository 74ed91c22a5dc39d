package snap

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
	"github.com/filc2/filc2/proofs/snark"
	"github.com/filc2/filc2/proofs/update"
)

// ErrInvalid marks a proof that decodes but does not verify.
var ErrInvalid = errors.New("invalid proof")

// Prover proves one update circuit (a sector size) with one backend. Its
// circuit, keys and SRS stay loaded.
type Prover struct {
	Proof abi.UpdateProof
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
func Load(ctx context.Context, p abi.UpdateProof, opts LoadOptions) (*Prover, error) {
	f := FilesIn(opts.ParamsDir, p)
	l, err := snark.Load(ctx, f, func() (*r1cs.Circuit, error) { return LoadCircuit(ctx, p, f.PCE) }, opts.Backend, opts.SubgroupChecks)
	if err != nil {
		return nil, err
	}
	return &Prover{Proof: p, Loaded: l}, nil
}

// Request is one update proving job: the commitments and every partition's
// vanilla proof, in partition order.
type Request struct {
	Proof abi.UpdateProof
	update.Commitments
	Vanilla []*update.PartitionProof
}

// Timing is where one proof's time went, summed over its partitions.
type Timing struct {
	Check     time.Duration `json:"check_ns"`
	Synthesis time.Duration `json:"synthesis_ns"`
	Prove     time.Duration `json:"prove_ns"`
	Verify    time.Duration `json:"verify_ns"`
}

// Check runs every partition's vanilla check (update.PartitionProof.Check).
// The reference does not re-verify update vanilla proofs before proving; a
// proof that fails it would only give a proof that does not verify, after
// all its synthesis.
func Check(req *Request) error {
	if len(req.Vanilla) != req.Proof.Partitions {
		return fmt.Errorf("snap: %d vanilla proofs, %s has %d partitions (one vanilla proof each, in partition order)",
			len(req.Vanilla), req.Proof.Name, req.Proof.Partitions)
	}
	for k, pp := range req.Vanilla {
		if err := pp.Check(req.Proof, req.Commitments, k); err != nil {
			return err
		}
	}
	return nil
}

// Witness synthesises partition k of a checked request and returns its
// assignment; c, if not nil, sizes the storage and is checked against it.
// opts configure the synthesis (update.WithGate, update.WithParallelism).
func Witness(req *Request, k int, c *r1cs.Circuit, opts ...update.SynthOption) (*groth16.Assignment, error) {
	in, err := update.NewCircuitInput(req.Proof, req.Commitments, k, req.Vanilla[k])
	if err != nil {
		return nil, err
	}
	var ro []r1cs.Option
	if c != nil {
		ro = append(ro, r1cs.WithCapacity(c.NumAux, c.NumConstraints))
	}
	cs := r1cs.New(r1cs.Witness, ro...)
	if err := update.Synthesize(cs, req.Proof, in, opts...); err != nil {
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

// Prove checks the request, then proves and verifies each partition and
// returns the 192·Partitions-byte proof in partition order, what lotus and
// curio put on chain. progress, if not nil, is called after each partition.
func (pr *Prover) Prove(ctx context.Context, req *Request, progress func(done, total int)) ([]byte, Timing, error) {
	var t Timing
	if req.Proof.Proof != pr.Proof.Proof {
		return nil, t, fmt.Errorf("snap: a %s request, this prover is loaded for %s", req.Proof.Name, pr.Proof.Name)
	}
	t0 := time.Now()
	err := Check(req)
	t.Check = time.Since(t0)
	if err != nil {
		return nil, t, err
	}
	out := make([]byte, 0, abi.PartitionProofLen*req.Proof.Partitions)
	for k := range req.Proof.Partitions {
		b, pt, err := pr.ProvePartition(ctx, req, k)
		t.Synthesis += pt.Synthesis
		t.Prove += pt.Prove
		t.Verify += pt.Verify
		if err != nil {
			return nil, t, fmt.Errorf("partition %d: %w", k, err)
		}
		out = append(out, b...)
		if progress != nil {
			progress(k+1, req.Proof.Partitions)
		}
	}
	return out, t, nil
}

// ProvePartition synthesises, proves and verifies partition k of a checked
// request and returns its 192-byte proof.
func (pr *Prover) ProvePartition(ctx context.Context, req *Request, k int) ([]byte, Timing, error) {
	var t Timing
	t0 := time.Now()
	w, err := Witness(req, k, pr.Circuit)
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
	err = VerifyPartition(pr.PVK, req.Proof, req.Commitments, k, b)
	t.Verify = time.Since(t0)
	if err != nil {
		return nil, t, fmt.Errorf("our own proof does not verify (%w): the parameters do not match the circuit, or the %s backend is broken; nothing was returned", err, pr.Backend())
	}
	return b, t, nil
}

// VerifyPartition checks the 192-byte proof of partition k.
func VerifyPartition(pvk *groth16.PreparedVerifyingKey, p abi.UpdateProof, pub update.Commitments, k int, proof []byte) error {
	public, err := update.PublicInputs(p, pub, k)
	if err != nil {
		return err
	}
	if len(proof) != abi.PartitionProofLen {
		return fmt.Errorf("%w: partition %d's proof is %d bytes, want %d", ErrInvalid, k, len(proof), abi.PartitionProofLen)
	}
	proofs, err := groth16.DecodeProofs(proof, 1)
	if err != nil {
		return fmt.Errorf("%w: partition %d: %v", ErrInvalid, k, err)
	}
	ok, err := groth16.Verify(pvk, &proofs[0], public)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: partition %d's proof does not verify for these commitments", ErrInvalid, k)
	}
	return nil
}

// Verify checks a whole update proof (192 bytes per partition, in partition
// order) as verify_empty_sector_update_proof does. An invalid proof is an
// error wrapping ErrInvalid.
func Verify(pvk *groth16.PreparedVerifyingKey, p abi.UpdateProof, pub update.Commitments, proof []byte) error {
	if want := abi.PartitionProofLen * p.Partitions; len(proof) != want {
		return fmt.Errorf("%w: proof is %d bytes, a %s proof is %d (%d partitions of %d)", ErrInvalid, len(proof), p.Name, want, p.Partitions, abi.PartitionProofLen)
	}
	for k := range p.Partitions {
		if err := VerifyPartition(pvk, p, pub, k, proof[k*abi.PartitionProofLen:(k+1)*abi.PartitionProofLen]); err != nil {
			return err
		}
	}
	return nil
}

// NewProver makes a Prover of a key already loaded in a backend, such as one
// a setup made in memory: c is the recorded circuit, vk the key's verifying
// key, srs what be proves with.
func NewProver(p abi.UpdateProof, c *r1cs.Circuit, vk *groth16.VerifyingKey, be groth16.Backend, srs groth16.SRS) (*Prover, error) {
	if c.NumInputs != NumInputs {
		return nil, fmt.Errorf("snap: a circuit of %d inputs, %s has %d", c.NumInputs, p.Name, NumInputs)
	}
	l, err := snark.NewLoaded(c, vk, be, srs)
	if err != nil {
		return nil, err
	}
	return &Prover{Proof: p, Loaded: l}, nil
}

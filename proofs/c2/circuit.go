package c2

import (
	"context"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/r1cs"
)

// RecordCircuit synthesises p's circuit in record mode (CSR matrices and
// densities). opts go to porep.Synthesize (porep.WithProgress reports the
// challenges recorded: the 32GiB circuit takes minutes).
func RecordCircuit(ctx context.Context, p abi.SealProof, opts ...porep.SynthOption) (*r1cs.Circuit, error) {
	shape := porep.ShapeOf(p)
	cs := r1cs.New(r1cs.Record)
	if err := porep.Synthesize(cs, shape, shape.Blank(), opts...); err != nil {
		return nil, err
	}
	if err := cs.Finish(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return cs.Circuit()
}

// LoadCircuit reads the recorded circuit at path, recording and writing it
// there first when the file does not exist. A circuit read from a file has its
// counts checked against a count-mode synthesis, so a PCE file from another
// filc2 is refused. opts go to RecordCircuit when it records.
func LoadCircuit(ctx context.Context, p abi.SealProof, path string, opts ...porep.SynthOption) (*r1cs.Circuit, error) {
	return r1cs.LoadPCE(path, func() (*r1cs.Circuit, error) { return RecordCircuit(ctx, p, opts...) }, func() (r1cs.Stats, error) { return countCircuit(p) })
}

func countCircuit(p abi.SealProof) (r1cs.Stats, error) {
	shape := porep.ShapeOf(p)
	cs := r1cs.New(r1cs.Count)
	if err := porep.Synthesize(cs, shape, shape.Blank()); err != nil {
		return r1cs.Stats{}, err
	}
	if err := cs.Finish(); err != nil {
		return r1cs.Stats{}, err
	}
	return cs.Stats(), nil
}

// KeyShape returns the .params shape p's circuit implies.
func KeyShape(c *r1cs.Circuit) groth16.Shape { return groth16.ShapeOf(c.Stats()) }

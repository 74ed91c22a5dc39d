package engine

import (
	"context"
	"path/filepath"

	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
	"github.com/filc2/filc2/proofs/snap"
	"github.com/filc2/filc2/proofs/update"
)

// snapCircuitBytes is CircuitBytes for an update circuit: its cached recorded
// circuit's size or an estimate from its counts, and the key when the GPU
// backend keeps it on the host.
func (s *SetupKey) snapCircuitBytes(spec CircuitSpec) (int64, error) {
	pce := ""
	if s.PCEDir != "" {
		pce = filepath.Join(s.PCEDir, snap.PCEName(spec.Update))
	}
	return recordedBytes(pce, s.GPU, false, func() (r1cs.Stats, error) { return snap.CountCircuit(spec.Update) })
}

// loadSnapCircuit is LoadCircuit for an update circuit (see loadKindCircuit).
func (s *SetupKey) loadSnapCircuit(ctx context.Context, spec CircuitSpec, progress func(done, total int64)) (Circuit, error) {
	p := spec.Update
	pce := ""
	if s.PCEDir != "" {
		pce = filepath.Join(s.PCEDir, snap.PCEName(p))
	}
	c, err := s.loadKindCircuit(ctx, p.Name+" update circuit", pce, progress,
		func(ctx context.Context) (*r1cs.Circuit, error) { return snap.RecordCircuit(ctx, p) },
		func(ctx context.Context, path string) (*r1cs.Circuit, error) { return snap.LoadCircuit(ctx, p, path) })
	if err != nil {
		return nil, err
	}
	return &setupSnapCircuit{setupKindCircuit: s.kindCircuit(c)}, nil
}

// setupSnapCircuit is SetupKey's SnapDeals Circuit.
type setupSnapCircuit struct{ setupKindCircuit }

// Synthesize implements Circuit with snap.Witness.
func (c *setupSnapCircuit) Synthesize(ctx context.Context, in Input, k int) (*groth16.Assignment, error) {
	sn, err := snapInput(in, k)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return snap.Witness(sn.Request, k, c.circuit, update.WithGate(cpuGateOf(ctx)))
}

// Verify implements Circuit with snap.VerifyPartition under the setup's key.
func (c *setupSnapCircuit) Verify(in Input, k int, proof *groth16.Proof) error {
	sn, err := snapInput(in, k)
	if err != nil {
		return err
	}
	pvk, err := c.key()
	if err != nil {
		return err
	}
	r := sn.Request
	return snap.VerifyPartition(pvk, r.Proof, r.Commitments, k, groth16.EncodeProofs([]groth16.Proof{*proof}))
}

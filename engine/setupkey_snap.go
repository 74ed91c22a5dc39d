package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
	"github.com/filc2/filc2/proofs/snap"
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

// loadSnapCircuit is LoadCircuit for an update circuit: the recorded circuit,
// from PCEDir when cached there (recorded and written there first
// otherwise); the verifying key comes with the first prover.
func (s *SetupKey) loadSnapCircuit(ctx context.Context, spec CircuitSpec, progress func(done, total int64)) (Circuit, error) {
	p := spec.Update
	progress(0, 1)
	if s.Progress != nil {
		s.Progress("recording or reading the "+p.Name+" update circuit", 0, 1)
	}
	var c *r1cs.Circuit
	var err error
	if s.PCEDir == "" {
		c, err = snap.RecordCircuit(ctx, p)
	} else {
		if err := os.MkdirAll(s.PCEDir, 0o755); err != nil {
			return nil, fmt.Errorf("engine: the recorded-circuit cache: %w", err)
		}
		c, err = snap.LoadCircuit(ctx, p, filepath.Join(s.PCEDir, snap.PCEName(p)))
	}
	if err != nil {
		return nil, err
	}
	progress(1, 1)
	if s.Progress != nil {
		s.Progress("circuit "+p.Name+" loaded", 1, 1)
	}
	return &setupSnapCircuit{circuit: c, partBytes: witnessBytes(c) + s.GPU.WorkingBytes(c)}, nil
}

// setupSnapCircuit is SetupKey's SnapDeals Circuit.
type setupSnapCircuit struct {
	setupVK
	circuit   *r1cs.Circuit
	partBytes int64
}

func (c *setupSnapCircuit) recorded() *r1cs.Circuit { return c.circuit }

// PartitionBytes implements Circuit.
func (c *setupSnapCircuit) PartitionBytes() int64 { return c.partBytes }

// Synthesize implements Circuit with snap.Witness.
func (c *setupSnapCircuit) Synthesize(ctx context.Context, in Input, k int) (*groth16.Assignment, error) {
	sn, err := snapInput(in, k)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return snap.Witness(sn.Request, k, c.circuit)
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

func (c *setupSnapCircuit) Close() error { return nil }

package engine

import (
	"context"
	"fmt"
	"os"

	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/post"
	"github.com/filc2/filc2/proofs/r1cs"
)

// postCircuitBytes is CircuitBytes for a PoSt circuit: its cached recorded
// circuit's size or an estimate from its counts, and the key when the GPU
// backend keeps it on the host.
func (s *SetupKey) postCircuitBytes(spec CircuitSpec) (int64, error) {
	pce := ""
	if s.PCEDir != "" {
		pce = post.FilesIn(s.PCEDir, spec.PoSt).PCE
	}
	return recordedBytes(pce, s.GPU, false, func() (r1cs.Stats, error) { return post.CountCircuit(spec.PoSt) })
}

// loadPoStCircuit is LoadCircuit for a PoSt circuit: the recorded circuit,
// from PCEDir when cached there (recorded and written there first
// otherwise); the verifying key comes with the first prover.
func (s *SetupKey) loadPoStCircuit(ctx context.Context, spec CircuitSpec, progress func(done, total int64)) (Circuit, error) {
	p := spec.PoSt
	progress(0, 1)
	if s.Progress != nil {
		s.Progress("recording or reading the "+p.Name+" circuit", 0, 1)
	}
	var c *r1cs.Circuit
	var err error
	if s.PCEDir == "" {
		c, err = post.RecordCircuit(ctx, p, nil)
	} else {
		if err := os.MkdirAll(s.PCEDir, 0o755); err != nil {
			return nil, fmt.Errorf("engine: the recorded-circuit cache: %w", err)
		}
		c, err = post.LoadCircuit(ctx, p, post.FilesIn(s.PCEDir, p).PCE)
	}
	if err != nil {
		return nil, err
	}
	progress(1, 1)
	if s.Progress != nil {
		s.Progress("circuit "+p.Name+" loaded", 1, 1)
	}
	return &setupPoStCircuit{circuit: c, partBytes: witnessBytes(c) + s.GPU.WorkingBytes(c)}, nil
}

// setupPoStCircuit is SetupKey's PoSt Circuit.
type setupPoStCircuit struct {
	setupVK
	circuit   *r1cs.Circuit
	partBytes int64
}

func (c *setupPoStCircuit) recorded() *r1cs.Circuit { return c.circuit }

// PartitionBytes implements Circuit.
func (c *setupPoStCircuit) PartitionBytes() int64 { return c.partBytes }

// Synthesize implements Circuit with post.Witness.
func (c *setupPoStCircuit) Synthesize(ctx context.Context, in Input, k int) (*groth16.Assignment, error) {
	ps, err := postInput(in, k)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return post.Witness(ps.Partition, c.circuit)
}

// Verify implements Circuit with post.Verify under the setup's key.
func (c *setupPoStCircuit) Verify(in Input, k int, proof *groth16.Proof) error {
	ps, err := postInput(in, k)
	if err != nil {
		return err
	}
	pvk, err := c.key()
	if err != nil {
		return err
	}
	pt := ps.Partition
	return post.Verify(pvk, pt.Proof, ps.Randomness, pt.PublicSectors(), pt.Index, groth16.EncodeProofs([]groth16.Proof{*proof}))
}

func (c *setupPoStCircuit) Close() error { return nil }

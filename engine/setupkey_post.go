package engine

import (
	"context"
	"fmt"
	"os"

	"github.com/filc2/filc2/proofs/fallback"
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

// loadPoStCircuit is LoadCircuit for a PoSt circuit (see loadKindCircuit).
func (s *SetupKey) loadPoStCircuit(ctx context.Context, spec CircuitSpec, progress func(done, total int64)) (Circuit, error) {
	p := spec.PoSt
	pce := ""
	if s.PCEDir != "" {
		pce = post.FilesIn(s.PCEDir, p).PCE
	}
	c, err := s.loadKindCircuit(ctx, p.Name+" circuit", pce, progress,
		func(ctx context.Context) (*r1cs.Circuit, error) { return post.RecordCircuit(ctx, p, nil) },
		func(ctx context.Context, path string) (*r1cs.Circuit, error) { return post.LoadCircuit(ctx, p, path) })
	if err != nil {
		return nil, err
	}
	return &setupPoStCircuit{setupKindCircuit: s.kindCircuit(c)}, nil
}

// loadKindCircuit loads a PoSt or update circuit for SetupKey: from pce when
// it is cached there (recorded and written there first otherwise), recorded
// at every load when pce is ""; the verifying key comes with the first
// prover.
func (s *SetupKey) loadKindCircuit(ctx context.Context, what, pce string, progress func(done, total int64),
	record func(context.Context) (*r1cs.Circuit, error), load func(context.Context, string) (*r1cs.Circuit, error)) (*r1cs.Circuit, error) {
	progress(0, 1)
	if s.Progress != nil {
		s.Progress("recording or reading the "+what, 0, 1)
	}
	var c *r1cs.Circuit
	var err error
	if pce == "" {
		c, err = record(ctx)
	} else {
		if err := os.MkdirAll(s.PCEDir, 0o755); err != nil {
			return nil, fmt.Errorf("engine: the recorded-circuit cache: %w", err)
		}
		c, err = load(ctx, pce)
	}
	if err != nil {
		return nil, err
	}
	progress(1, 1)
	if s.Progress != nil {
		s.Progress(what+" loaded", 1, 1)
	}
	return c, nil
}

// setupKindCircuit is what SetupKey's PoSt and update circuits share: the
// recorded circuit, a partition's bytes and the setup's verifying key.
type setupKindCircuit struct {
	setupVK
	circuit   *r1cs.Circuit
	partBytes int64
}

func (s *SetupKey) kindCircuit(c *r1cs.Circuit) setupKindCircuit {
	return setupKindCircuit{circuit: c, partBytes: witnessBytes(c) + s.GPU.WorkingBytes(c)}
}

func (c *setupKindCircuit) recorded() *r1cs.Circuit { return c.circuit }

// PartitionBytes implements Circuit.
func (c *setupKindCircuit) PartitionBytes() int64 { return c.partBytes }

func (c *setupKindCircuit) Close() error { return nil }

// setupPoStCircuit is SetupKey's PoSt Circuit.
type setupPoStCircuit struct{ setupKindCircuit }

// Synthesize implements Circuit with post.Witness.
func (c *setupPoStCircuit) Synthesize(ctx context.Context, in Input, k int) (*groth16.Assignment, error) {
	ps, err := postInput(in, k)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return post.Witness(ps.Partition, c.circuit, fallback.WithGate(cpuGateOf(ctx)))
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

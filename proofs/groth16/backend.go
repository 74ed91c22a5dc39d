package groth16

import (
	"context"
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// Backend is the seam between the proving pipeline and the hardware: it holds
// one circuit's proving key (its SRS) resident and computes proofs from witnesses.
// Every Backend must produce proofs that verify under the same verifying key.
type Backend interface {
	// Name is a short identifier ("cpu", "cuda").
	Name() string
	// LoadSRS makes the key and the circuit's matrices resident for Prove.
	LoadSRS(ctx context.Context, pk *ProvingKey, c *r1cs.Circuit) (SRS, error)
	// Prove computes one proof with the blinding factors r and s.
	Prove(ctx context.Context, srs SRS, w *Assignment, r, s fr.Element) (*Proof, error)
}

// SRS is a Backend's handle on a resident proving key; Close releases it.
type SRS interface {
	Close() error
}

// CPU is the reference Backend on gnark-crypto, using every core.
type CPU struct {
	// Tasks bounds the goroutines of one proof (≤ 0: all cores).
	Tasks int
}

// Name implements Backend.
func (CPU) Name() string { return "cpu" }

// LoadSRS implements Backend; the key stays in the Go heap.
func (CPU) LoadSRS(_ context.Context, pk *ProvingKey, c *r1cs.Circuit) (SRS, error) {
	p, err := newCPUProver(pk, c)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Prove implements Backend.
func (b CPU) Prove(ctx context.Context, srs SRS, w *Assignment, r, s fr.Element) (*Proof, error) {
	p, ok := srs.(*cpuProver)
	if !ok {
		return nil, errors.New("groth16: SRS was not loaded by the CPU backend")
	}
	cfg := config{nbTasks: b.Tasks}
	var st StageTimes
	sums, err := p.sums(ctx, w, &cfg, &st)
	if err != nil {
		return nil, err
	}
	return Assemble(&p.pk.VK, sums, &r, &s), nil
}

// Close implements SRS.
func (p *cpuProver) Close() error { return nil }

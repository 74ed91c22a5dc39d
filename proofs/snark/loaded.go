package snark

import (
	"context"

	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
)

// Loaded is one circuit ready to prove with one backend: the recorded
// circuit, its key pair and the backend's SRS. The proof kinds' provers
// (post.Prover, snap.Prover) are built on it.
type Loaded struct {
	Circuit *r1cs.Circuit
	PK      *groth16.ProvingKey // nil when the key was made in the backend (NewLoaded)
	PVK     *groth16.PreparedVerifyingKey
	Files   Files // the files it was read from (zero for NewLoaded)
	backend groth16.Backend
	srs     groth16.SRS
}

// Load reads the recorded circuit with loadCircuit, then f's key pair for
// it (checked to belong together and to the circuit), and loads the proving
// key into be (nil: the CPU backend).
func Load(ctx context.Context, f Files, loadCircuit func() (*r1cs.Circuit, error), be groth16.Backend, subgroupChecks bool) (*Loaded, error) {
	c, err := loadCircuit()
	if err != nil {
		return nil, err
	}
	k, err := LoadKeys(ctx, c, f, be, subgroupChecks)
	if err != nil {
		return nil, err
	}
	return &Loaded{Circuit: c, PK: k.PK, PVK: k.PVK, Files: f, backend: k.Backend, srs: k.SRS}, nil
}

// NewLoaded wraps a key already loaded in a backend, such as one a setup
// made in memory: c is the recorded circuit, vk the key's verifying key, srs
// what be proves with.
func NewLoaded(c *r1cs.Circuit, vk *groth16.VerifyingKey, be groth16.Backend, srs groth16.SRS) (*Loaded, error) {
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		return nil, err
	}
	return &Loaded{Circuit: c, PVK: pvk, backend: be, srs: srs}, nil
}

// Close releases the backend's SRS.
func (l *Loaded) Close() error { return l.srs.Close() }

// Backend is the backend's name.
func (l *Loaded) Backend() string { return l.backend.Name() }

// ProveAssignment proves one assignment with fresh blinding factors and
// returns the 192-byte compressed proof (not yet verified).
func (l *Loaded) ProveAssignment(ctx context.Context, w *groth16.Assignment) ([]byte, error) {
	r, s, err := Blinding()
	if err != nil {
		return nil, err
	}
	proof, err := l.backend.Prove(ctx, l.srs, w, r, s)
	if err != nil {
		return nil, err
	}
	return groth16.EncodeProofs([]groth16.Proof{*proof}), nil
}

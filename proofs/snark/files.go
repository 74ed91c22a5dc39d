package snark

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
)

// Files are the paths of one circuit's parameter files in a directory.
type Files struct {
	Params string // the Groth16 proving key (.params)
	VK     string // the verifying key (.vk)
	PCE    string // filc2's recorded circuit, beside the params
}

// SetupOptions configure WriteKeys.
type SetupOptions struct {
	Force    bool             // overwrite existing parameter files
	Progress groth16.Progress // stage progress, may be nil
	// Toxic, if set, is the toxic waste to use (reproducible test keys);
	// nil draws fresh toxic waste from crypto/rand.
	Toxic *groth16.Toxic
	// Keys, if set, makes the key instead of groth16.SetupFromToxic on the
	// host (ffi.SetupProver makes it on a GPU and downloads it).
	Keys func(ctx context.Context, c *r1cs.Circuit, t *groth16.Toxic, progress groth16.Progress) (*groth16.ProvingKey, error)
}

// CheckNotExist returns an error when f's key files exist and force is not set.
func (f Files) CheckNotExist(force bool) error {
	if force {
		return nil
	}
	for _, path := range []string{f.Params, f.VK} {
		if _, err := os.Stat(path); err == nil {
			return fmt.Errorf("%s exists; use --force to replace it", path)
		}
	}
	return nil
}

// WriteKeys makes test parameters for the recorded circuit c and writes them
// (and c) to f, each file atomically, the .vk last: a directory with a .vk has
// its matching .params. Proofs made with them verify only under their own
// .vk, never on chain.
func WriteKeys(ctx context.Context, c *r1cs.Circuit, f Files, opts SetupOptions) error {
	if err := f.CheckNotExist(opts.Force); err != nil {
		return err
	}
	if err := r1cs.WritePCE(f.PCE, c); err != nil {
		return err
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string, int64, int64) {}
	}
	t := opts.Toxic
	if t == nil {
		fresh, err := groth16.NewToxic(rand.Reader)
		if err != nil {
			return err
		}
		t = &fresh
	}
	keys := opts.Keys
	if keys == nil {
		keys = func(ctx context.Context, c *r1cs.Circuit, t *groth16.Toxic, progress groth16.Progress) (*groth16.ProvingKey, error) {
			return groth16.SetupFromToxic(ctx, c, t, groth16.WithProgress(progress))
		}
	}
	pk, err := keys(ctx, c, t, progress)
	if err != nil {
		return err
	}
	if err := groth16.WriteParamsFile(f.Params, pk); err != nil {
		return err
	}
	return groth16.WriteVerifyingKeyFile(f.VK, &pk.VK)
}

// ReadKeys reads f's .vk and .params for the recorded circuit c and checks
// that they belong together.
func ReadKeys(ctx context.Context, c *r1cs.Circuit, f Files, subgroupChecks bool) (*groth16.ProvingKey, *groth16.PreparedVerifyingKey, error) {
	var ro []groth16.ReadOption
	if subgroupChecks {
		ro = append(ro, groth16.WithSubgroupChecks())
	}
	vk, err := groth16.ReadVerifyingKeyFile(f.VK, c.NumInputs, ro...)
	if err != nil {
		return nil, nil, err
	}
	pk, err := groth16.ReadParamsFile(ctx, f.Params, groth16.ShapeOf(c.Stats()), ro...)
	if err != nil {
		return nil, nil, err
	}
	if !SameVK(vk, &pk.VK) {
		return nil, nil, fmt.Errorf("%s does not belong to %s (their verifying keys differ): fetch or set up both again", f.VK, f.Params)
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		return nil, nil, err
	}
	return pk, pvk, nil
}

// ReadVerifyingKey reads and prepares a .vk for a circuit of numInputs
// public inputs (ONE included).
func ReadVerifyingKey(path string, numInputs int) (*groth16.PreparedVerifyingKey, error) {
	vk, err := groth16.ReadVerifyingKeyFile(path, numInputs)
	if err != nil {
		return nil, err
	}
	return groth16.Prepare(vk)
}

// SameVK reports whether two verifying keys are byte-equal.
func SameVK(a, b *groth16.VerifyingKey) bool {
	var x, y bytes.Buffer
	a.WriteTo(&x)
	b.WriteTo(&y)
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// Blinding draws Groth16's r and s from crypto/rand.
func Blinding() (r, s fr.Element, err error) {
	if _, err = r.SetRandom(); err != nil {
		return
	}
	_, err = s.SetRandom()
	return
}

// Keys are a circuit's key pair read from its files and loaded into a backend.
type Keys struct {
	PK      *groth16.ProvingKey
	PVK     *groth16.PreparedVerifyingKey
	Backend groth16.Backend
	SRS     groth16.SRS
}

// LoadKeys reads f's key pair for the recorded circuit c (ReadKeys) and loads
// the proving key into be (nil: the CPU backend).
func LoadKeys(ctx context.Context, c *r1cs.Circuit, f Files, be groth16.Backend, subgroupChecks bool) (*Keys, error) {
	pk, pvk, err := ReadKeys(ctx, c, f, subgroupChecks)
	if err != nil {
		return nil, err
	}
	if be == nil {
		be = groth16.CPU{}
	}
	srs, err := be.LoadSRS(ctx, pk, c)
	if err != nil {
		return nil, fmt.Errorf("%s backend: %w", be.Name(), err)
	}
	return &Keys{PK: pk, PVK: pvk, Backend: be, SRS: srs}, nil
}

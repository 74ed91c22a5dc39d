package c2

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
)

// SetupOptions configure Setup.
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

// Setup records p's circuit and generates test parameters for it in dir, under
// the official file names, with the PCE beside them. The parameters come from
// fresh random toxic waste: proofs made with them verify only under their own
// .vk, never on chain. Every file is written atomically; existing files are an
// error unless opts.Force.
func Setup(ctx context.Context, p abi.SealProof, dir string, opts SetupOptions) (Files, *r1cs.Circuit, error) {
	f := FilesIn(dir, p)
	if !opts.Force {
		for _, path := range []string{f.Params, f.VK} {
			if exists(path) {
				return f, nil, fmt.Errorf("%s exists; use --force to replace it", path)
			}
		}
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string, int64, int64) {}
	}
	progress("recording circuit", 0, 1)
	c, err := RecordCircuit(ctx, p)
	if err != nil {
		return f, nil, err
	}
	progress("recording circuit", 1, 1)
	if err := r1cs.WritePCE(f.PCE, c); err != nil {
		return f, nil, err
	}
	t := opts.Toxic
	if t == nil {
		fresh, err := groth16.NewToxic(rand.Reader)
		if err != nil {
			return f, nil, err
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
		return f, nil, err
	}
	// The .vk last: a directory with a .vk has its matching .params.
	if err := groth16.WriteParamsFile(f.Params, pk); err != nil {
		return f, nil, err
	}
	if err := groth16.WriteVerifyingKeyFile(f.VK, &pk.VK); err != nil {
		return f, nil, err
	}
	return f, c, nil
}

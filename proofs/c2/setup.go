package c2

import (
	"context"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/r1cs"
	"github.com/filc2/filc2/proofs/snark"
)

// SetupOptions configure Setup.
type SetupOptions = snark.SetupOptions

// Setup records p's circuit and generates test parameters for it in dir, under
// the official file names, with the PCE beside them. The parameters come from
// fresh random toxic waste unless opts.Toxic: proofs made with them verify
// only under their own .vk, never on chain. Every file is written atomically;
// existing files are an error unless opts.Force.
func Setup(ctx context.Context, p abi.SealProof, dir string, opts SetupOptions) (Files, *r1cs.Circuit, error) {
	f := FilesIn(dir, p)
	if err := f.CheckNotExist(opts.Force); err != nil {
		return f, nil, err
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
	return f, c, snark.WriteKeys(ctx, c, f, opts)
}

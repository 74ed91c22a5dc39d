package snap

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/r1cs"
	"github.com/filc2/filc2/proofs/snark"
	"github.com/filc2/filc2/proofs/update"
)

// NumInputs is the update circuit's public inputs with ONE.
const NumInputs = 5

// FilesIn returns the official file names of p's parameters in dir, with
// filc2's recorded circuit beside them.
func FilesIn(dir string, p abi.UpdateProof) snark.Files {
	return snark.Files{
		Params: filepath.Join(dir, p.ParamsFile().Name),
		VK:     filepath.Join(dir, p.VKFile().Name),
		PCE:    filepath.Join(dir, PCEName(p)),
	}
}

// PCEName is the file name of the recorded circuit of p.
func PCEName(p abi.UpdateProof) string { return fmt.Sprintf("filc2-pce-v1-%s.pce", p.CircuitKey()) }

// RecordCircuit synthesises p's blank circuit in record mode.
func RecordCircuit(ctx context.Context, p abi.UpdateProof) (*r1cs.Circuit, error) {
	cs := r1cs.New(r1cs.Record)
	if err := update.Synthesize(cs, p, update.Blank(p)); err != nil {
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

// CountCircuit synthesises p's blank circuit in count mode.
func CountCircuit(p abi.UpdateProof) (r1cs.Stats, error) {
	cs := r1cs.New(r1cs.Count)
	if err := update.Synthesize(cs, p, update.Blank(p)); err != nil {
		return r1cs.Stats{}, err
	}
	if err := cs.Finish(); err != nil {
		return r1cs.Stats{}, err
	}
	return cs.Stats(), nil
}

// LoadCircuit reads the recorded circuit at path, recording and writing it
// first when the file does not exist, and checks a file's counts against a
// count-mode synthesis.
func LoadCircuit(ctx context.Context, p abi.UpdateProof, path string) (*r1cs.Circuit, error) {
	return r1cs.LoadPCE(path, func() (*r1cs.Circuit, error) { return RecordCircuit(ctx, p) },
		func() (r1cs.Stats, error) { return CountCircuit(p) })
}

// Setup records p's circuit and generates test parameters for it in dir under
// the official file names (see snark.WriteKeys: they verify only under their
// own .vk, never on chain).
func Setup(ctx context.Context, p abi.UpdateProof, dir string, opts snark.SetupOptions) (snark.Files, *r1cs.Circuit, error) {
	f := FilesIn(dir, p)
	if err := f.CheckNotExist(opts.Force); err != nil {
		return f, nil, err
	}
	if opts.Progress != nil {
		opts.Progress("recording circuit", 0, 1)
	}
	c, err := RecordCircuit(ctx, p)
	if err != nil {
		return f, nil, err
	}
	return f, c, snark.WriteKeys(ctx, c, f, opts)
}

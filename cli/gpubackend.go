package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/ffi"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
)

// gpuBackend returns the engine's per-GPU prover library by name: "cuda" (the
// three-stage ffi.Prover, each GPU its own key), "cpu" (each "GPU" a share of
// the CPU, cpuTasks goroutines per proof, ≤ 0 all cores), or "auto" (cuda when
// this binary has it and a device answers, else cpu).
func gpuBackend(name string, cpuTasks int) (engine.GPUBackend, error) {
	switch name {
	case "cpu":
		return engine.CPUWholeProof(cpuTasks), nil
	case "cuda":
		if _, err := ffi.Devices(); err != nil {
			return nil, fmt.Errorf("--backend cuda: %w", err)
		}
		return cudaGPUBackend(), nil
	case "auto":
		if devs, err := ffi.Devices(); err == nil && len(devs) > 0 {
			return cudaGPUBackend(), nil
		}
		return engine.CPUWholeProof(cpuTasks), nil
	}
	return nil, fmt.Errorf("--backend %q: want auto, cpu or cuda", name)
}

func cudaGPUBackend() engine.GPUBackend {
	return engine.Staged{
		Label: "cuda",
		Load: func(ctx context.Context, gpu int, pk *groth16.ProvingKey, c *r1cs.Circuit) (engine.PartitionProver, error) {
			p, err := ffi.LoadProver(ctx, gpu, pk, c)
			if err != nil {
				return nil, deviceMemory(err) // no typed nil in the interface
			}
			return memProver{p}, nil
		},
		Working: ffi.HostWorkingBytes,
		// Synthetic keys (bench c2 --synthetic) are made on the device itself.
		LoadSynthetic: func(ctx context.Context, gpu int, c *r1cs.Circuit, seed uint64) (engine.PartitionProver, error) {
			p, err := ffi.LoadSyntheticProver(ctx, gpu, c, seed)
			if err != nil {
				return nil, deviceMemory(err)
			}
			return memProver{p}, nil
		},
		// Keys of a real setup (bench c2 --sparse) are made on the device too.
		LoadSetup: func(ctx context.Context, gpu int, c *r1cs.Circuit, t *groth16.Toxic) (engine.PartitionProver, *groth16.VerifyingKey, error) {
			p, err := ffi.SetupProver(ctx, gpu, c, t)
			if err != nil {
				return nil, nil, deviceMemory(err)
			}
			return memProver{p}, p.VerifyingKey(), nil
		},
		// A quarantined GPU is probed; a lost one is reset first (its provers
		// were dropped before the engine probes).
		Probe: func(_ context.Context, gpu int, lost bool) error {
			return deviceMemory(ffi.ProbeDevice(gpu, lost))
		},
	}
}

// memProver is an ffi.Prover whose GPU section's out-of-device-memory
// errors are engine.ErrDeviceMemory too, so that the engine can say what
// else holds the GPU. Its other methods (Prepare, Finish, Close,
// CopiesWitness, HostResident) are the Prover's.
type memProver struct{ *ffi.Prover }

func (p memProver) RunGPU(ctx context.Context, prep engine.Prepared) (engine.Raw, error) {
	raw, err := p.Prover.RunGPU(ctx, prep)
	return raw, deviceMemory(err)
}

// deviceMemory marks ffi's out-of-device-memory errors as
// engine.ErrDeviceMemory, and its sticky errors as engine.ErrDeviceLost.
func deviceMemory(err error) error {
	if err != nil && errors.Is(err, ffi.ErrDeviceLost) {
		return fmt.Errorf("%w: %w", engine.ErrDeviceLost, err)
	}
	if err != nil && errors.Is(err, ffi.ErrOutOfMemory) {
		return fmt.Errorf("%w: %w", engine.ErrDeviceMemory, err)
	}
	return err
}

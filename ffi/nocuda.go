//go:build !cuda

package ffi

import (
	"context"
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
)

// ErrUnavailable is returned by every entry point of a build without CUDA.
var ErrUnavailable = errors.New("this filc2 was built without CUDA support: rebuild with ./build.sh --cuda on a machine with nvcc")

// Compiled reports whether CUDA support is compiled into this binary.
func Compiled() bool { return false }

// Devices returns the CUDA devices this process can use.
func Devices() ([]Device, error) { return nil, ErrUnavailable }

// ProbeDevice checks that a device works (not in this build).
func ProbeDevice(int, bool) error { return ErrUnavailable }

// Versions returns the CUDA runtime and driver versions.
func Versions() (runtime, driver int, err error) { return 0, 0, ErrUnavailable }

// NewBackend returns the CUDA proving backend on the first visible device.
func NewBackend() (groth16.Backend, error) { return nil, ErrUnavailable }

// Prover is one circuit's proving key resident on one device (not in this build).
type Prover struct{}

// LoadProver uploads a proving key to a device.
func LoadProver(context.Context, int, *groth16.ProvingKey, *r1cs.Circuit) (*Prover, error) {
	return nil, ErrUnavailable
}

// LoadSyntheticProver makes a synthetic key of circuit c's lengths on a device.
func LoadSyntheticProver(context.Context, int, *r1cs.Circuit, uint64) (*Prover, error) {
	return nil, ErrUnavailable
}

// Prepare is the CPU stage before the kernels.
func (*Prover) Prepare(context.Context, *groth16.Assignment) (any, error) { return nil, ErrUnavailable }

// RunGPU is the kernel section.
func (*Prover) RunGPU(context.Context, any) (any, error) { return nil, ErrUnavailable }

// Finish assembles the proof.
func (*Prover) Finish(context.Context, any) (*groth16.Proof, error) { return nil, ErrUnavailable }

// ProveTimed runs the three stages.
func (*Prover) ProveTimed(context.Context, *groth16.Assignment, fr.Element, fr.Element) (*groth16.Proof, StageTimes, error) {
	return nil, StageTimes{}, ErrUnavailable
}

// Device is the device ordinal the key lives on.
func (*Prover) Device() int { return -1 }

// Close releases the device memory.
func (*Prover) Close() error { return nil }

// CopiesWitness reports that Prepare copies the witness.
func (*Prover) CopiesWitness() bool { return true }

// HostResident names the key's queries kept in host memory.
func (*Prover) HostResident() []string { return nil }

// HostBytes is the pinned host memory those queries take.
func (*Prover) HostBytes() int64 { return 0 }

// StreamChunks maps each host-resident query to its MSMs' stream chunk in points.
func (*Prover) StreamChunks() map[string]int { return nil }

// SetupProver runs a Groth16 setup with its multiplications on a device.
func SetupProver(context.Context, int, *r1cs.Circuit, *groth16.Toxic, ...groth16.Option) (*Prover, error) {
	return nil, ErrUnavailable
}

// VerifyingKey is the verifying key of the prover's key.
func (*Prover) VerifyingKey() *groth16.VerifyingKey { return nil }

// ProvingKey copies the resident key back to the host.
func (*Prover) ProvingKey(context.Context) (*groth16.ProvingKey, error) { return nil, ErrUnavailable }

//go:build !cuda

package ffi

import (
	"errors"

	"github.com/filc2/filc2/proofs/groth16"
)

// ErrUnavailable is returned by every entry point of a build without CUDA.
var ErrUnavailable = errors.New("this filc2 was built without CUDA support: rebuild with ./build.sh --cuda on a machine with nvcc")

// Compiled reports whether CUDA support is compiled into this binary.
func Compiled() bool { return false }

// Devices returns the CUDA devices this process can use.
func Devices() ([]Device, error) { return nil, ErrUnavailable }

// Versions returns the CUDA runtime and driver versions.
func Versions() (runtime, driver int, err error) { return 0, 0, ErrUnavailable }

// NewBackend returns the CUDA proving backend on the first visible device.
func NewBackend() (groth16.Backend, error) { return nil, ErrUnavailable }

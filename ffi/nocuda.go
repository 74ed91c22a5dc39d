//go:build !cuda

package ffi

import "errors"

// ErrUnavailable is returned by every entry point of a build without CUDA.
var ErrUnavailable = errors.New("this filc2 was built without CUDA support: rebuild with ./build.sh --cuda on a machine with nvcc")

// Compiled reports whether CUDA support is compiled into this binary.
func Compiled() bool { return false }

// Devices returns the CUDA devices this process can use.
func Devices() ([]Device, error) { return nil, ErrUnavailable }

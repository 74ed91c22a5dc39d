package ffi

import (
	"errors"
	"fmt"
)

// ErrOutOfMemory is matched (errors.Is) by every failure that ran out of device memory,
// so callers can shed work or fall back instead of failing the job.
var ErrOutOfMemory = errors.New("ffi: out of device memory")

// ErrNoDevice is matched by failures that found no usable CUDA device or driver.
var ErrNoDevice = errors.New("ffi: no usable CUDA device")

// ErrDeviceLost is matched by CUDA errors that leave the device's context
// unusable (sticky: an illegal address, a launch failure or timeout, an
// uncorrectable ECC or NVLink error, a destroyed context): every later call on
// the device fails until it is reset (ProbeDevice with reset).
var ErrDeviceLost = errors.New("ffi: CUDA device lost (sticky error)")

// stickyCUDA lists the cudaError_t values after which the context is lost.
var stickyCUDA = map[int]bool{
	214: true, // cudaErrorECCUncorrectable
	220: true, // cudaErrorNvlinkUncorrectable
	700: true, // cudaErrorIllegalAddress
	702: true, // cudaErrorLaunchTimeout
	709: true, // cudaErrorContextIsDestroyed
	710: true, // cudaErrorAssert
	714: true, // cudaErrorHardwareStackError
	715: true, // cudaErrorIllegalInstruction
	716: true, // cudaErrorMisalignedAddress
	717: true, // cudaErrorInvalidAddressSpace
	718: true, // cudaErrorInvalidPc
	719: true, // cudaErrorLaunchFailure
}

// Error codes of cuda/filc2_cuda.h (FILC2_ERR_*); a cuda-tagged test checks they agree.
const (
	codeOutOfMemory     = 1
	codeNoDevice        = 2
	codeInvalidArgument = 3
	codeCUDA            = 4
	codeHostMemory      = 5
	codeInternal        = 6
)

// Error is a failure reported by the CUDA library: its code, the cudaError_t behind it
// (0 if none) and the failing call with its place in cuda/.
type Error struct {
	Code int
	CUDA int
	Msg  string
}

func (e *Error) Error() string {
	kind := "error"
	switch e.Code {
	case codeOutOfMemory:
		kind = "out of device memory"
	case codeNoDevice:
		kind = "no usable device"
	case codeInvalidArgument:
		kind = "invalid argument"
	case codeCUDA:
		kind = "CUDA error"
	case codeHostMemory:
		kind = "out of host memory"
	case codeInternal:
		kind = "internal error"
	}
	return fmt.Sprintf("cuda: %s: %s", kind, e.Msg)
}

// Is makes errors.Is(err, ErrOutOfMemory), errors.Is(err, ErrNoDevice) and
// errors.Is(err, ErrDeviceLost) work.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrOutOfMemory:
		return e.Code == codeOutOfMemory
	case ErrNoDevice:
		return e.Code == codeNoDevice
	case ErrDeviceLost:
		return stickyCUDA[e.CUDA]
	}
	return false
}

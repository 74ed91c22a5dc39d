package ffi

import (
	"errors"
	"testing"
)

// TestStickyErrorsAreDeviceLost: the CUDA codes that lose the context match
// ErrDeviceLost; an out-of-memory error does not.
func TestStickyErrorsAreDeviceLost(t *testing.T) {
	if !errors.Is(&Error{Code: codeCUDA, CUDA: 700, Msg: "illegal address"}, ErrDeviceLost) {
		t.Fatal("cudaErrorIllegalAddress is not device lost")
	}
	if errors.Is(&Error{Code: codeOutOfMemory, CUDA: 2}, ErrDeviceLost) {
		t.Fatal("out of memory is device lost")
	}
}

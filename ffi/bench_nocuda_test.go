//go:build !cuda

package ffi

import (
	"errors"
	"testing"
)

func TestKernelBenchUnavailable(t *testing.T) {
	for name, f := range map[string]func() (KernelBench, error){
		"ntt":       func() (KernelBench, error) { return BenchNTT(0, 10, 3) },
		"h":         func() (KernelBench, error) { return BenchH(0, 10, 3) },
		"g1":        func() (KernelBench, error) { return BenchMSMG1(0, 10, 3, 1) },
		"g2":        func() (KernelBench, error) { return BenchMSMG2(0, 10, 3, 1) },
		"batch-add": func() (KernelBench, error) { return BenchBatchAddG1(0, 10, 3, 1) },
	} {
		if _, err := f(); !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s: %v, want ErrUnavailable", name, err)
		}
	}
}

//go:build cuda

package ffi

import (
	"math"
	"testing"

	"github.com/filc2/filc2/proofs/groth16"
)

// TestKernelBench runs the exported kernel benchmarks (filc2 bench kernels) at small
// sizes: every timing positive and finite, the MSM window and the batch addition's
// count plausible, bad arguments refused.
func TestKernelBench(t *testing.T) {
	const reps = 3
	type benchFn func(logN int) (KernelBench, error)
	fns := []struct {
		kernel string
		f      benchFn
	}{
		{groth16.KernelG1MSM, func(k int) (KernelBench, error) { return BenchMSMG1(0, k, reps, 5) }},
		{groth16.KernelG2MSM, func(k int) (KernelBench, error) { return BenchMSMG2(0, k, reps, 5) }},
		{groth16.KernelNTT, func(k int) (KernelBench, error) { return BenchNTT(0, k, reps) }},
		{groth16.KernelBatchAdd, func(k int) (KernelBench, error) { return BenchBatchAddG1(0, k, reps, 5) }},
		{groth16.KernelH, func(k int) (KernelBench, error) { return BenchH(0, k, reps) }},
	}
	for _, logN := range []int{1, 10, 14} {
		for _, fn := range fns {
			b, err := fn.f(logN)
			if err != nil {
				t.Fatalf("%s 2^%d: %v", fn.kernel, logN, err)
			}
			if b.Kernel != fn.kernel || b.LogN != logN || len(b.Ms) != reps {
				t.Fatalf("%s 2^%d: %+v", fn.kernel, logN, b)
			}
			for i, ms := range b.Ms {
				if !(ms > 0) || math.IsInf(float64(ms), 0) {
					t.Errorf("%s 2^%d: run %d took %v ms", fn.kernel, logN, i, ms)
				}
			}
			if m := b.MedianMs(); !(m > 0) || math.IsInf(m, 0) {
				t.Errorf("%s 2^%d: median %v ms", fn.kernel, logN, m)
			}
			n := uint64(1) << logN
			switch fn.kernel {
			case groth16.KernelG1MSM, groth16.KernelG2MSM:
				if b.WindowBits < 1 || b.WindowBits > 24 {
					t.Errorf("%s 2^%d: window of %d bits", fn.kernel, logN, b.WindowBits)
				}
			case groth16.KernelBatchAdd:
				if b.Points > n || b.Bytes != b.Points*104 {
					t.Errorf("batch-add 2^%d: %d points, %d bytes", logN, b.Points, b.Bytes)
				}
				if logN >= 10 && (b.Points < n*40/100 || b.Points > n*54/100) {
					t.Errorf("batch-add 2^%d: %d points summed, want about 47%%", logN, b.Points)
				}
			}
			t.Logf("%s 2^%d: median %.4f ms of %v", fn.kernel, logN, b.MedianMs(), b.Ms)
		}
	}
	for name, f := range map[string]func() (KernelBench, error){
		"ntt 2^0":        func() (KernelBench, error) { return BenchNTT(0, 0, reps) },
		"ntt 2^29":       func() (KernelBench, error) { return BenchNTT(0, 29, reps) },
		"h no reps":      func() (KernelBench, error) { return BenchH(0, 10, 0) },
		"g1 2^31":        func() (KernelBench, error) { return BenchMSMG1(0, 31, reps, 1) },
		"g2 no reps":     func() (KernelBench, error) { return BenchMSMG2(0, 10, 0, 1) },
		"batch-add -1":   func() (KernelBench, error) { return BenchBatchAddG1(0, -1, reps, 1) },
		"ntt device 999": func() (KernelBench, error) { return BenchNTT(999, 10, reps) },
		"g1 device 999":  func() (KernelBench, error) { return BenchMSMG1(999, 10, reps, 1) },
	} {
		if _, err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

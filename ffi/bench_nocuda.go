//go:build !cuda

package ffi

// Kernel benchmarks of a build without CUDA: every one returns ErrUnavailable.

// BenchNTT times one forward NTT on the device; without CUDA it returns ErrUnavailable.
func BenchNTT(device, logN, reps int) (KernelBench, error) { return KernelBench{}, ErrUnavailable }

// BenchH times the H pipeline on the device; without CUDA it returns ErrUnavailable.
func BenchH(device, logN, reps int) (KernelBench, error) { return KernelBench{}, ErrUnavailable }

// BenchMSMG1 times a G1 MSM on the device; without CUDA it returns ErrUnavailable.
func BenchMSMG1(device, logN, reps int, seed uint64) (KernelBench, error) {
	return KernelBench{}, ErrUnavailable
}

// BenchMSMG2 times a G2 MSM on the device; without CUDA it returns ErrUnavailable.
func BenchMSMG2(device, logN, reps int, seed uint64) (KernelBench, error) {
	return KernelBench{}, ErrUnavailable
}

// BenchBatchAddG1 times a G1 batch addition on the device; without CUDA it returns
// ErrUnavailable.
func BenchBatchAddG1(device, logN, reps int, seed uint64) (KernelBench, error) {
	return KernelBench{}, ErrUnavailable
}

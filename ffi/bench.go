package ffi

import (
	"slices"
)

// KernelBench is the device timing of one kernel benchmark (BenchMSMG1 and the others,
// which filc2 bench kernels tabulates next to groth16.BenchKernelCPU).
type KernelBench struct {
	// Kernel is the kernel's name, one of groth16's Kernel* constants.
	Kernel string
	LogN   int
	// Ms holds the device time in milliseconds of each timed run, in run order: CUDA
	// events around the device work, after two warm-up runs, inputs already resident.
	Ms []float32
	// WindowBits is, for an MSM, the Pippenger window size the library chose.
	WindowBits int
	// Points is, for a batch addition, the number of points summed (the set bits).
	Points uint64
	// Bytes is, for a batch addition, the device memory read per run as the MSM notes
	// count it: 96 bytes of point and 8 of index per point summed.
	Bytes uint64
	// Floor is, for an NTT or an MSM, its multiply floor on the device (nil for the other
	// kernels, or where the rate probe failed).
	Floor *Floor
}

// MedianMs returns the median of Ms (the upper one of an even count), 0 if none.
func (k KernelBench) MedianMs() float64 {
	if len(k.Ms) == 0 {
		return 0
	}
	s := slices.Clone(k.Ms)
	slices.Sort(s)
	return float64(s[len(s)/2])
}

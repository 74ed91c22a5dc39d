//go:build cuda

package ffi

import (
	"fmt"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/filc2/filc2/proofs/groth16"
)

// Kernel benchmarks on the device (filc2 bench kernels): each makes its inputs on the
// device (random scalars, never zero; distinct bases from GenerateG1/GenerateG2), runs
// the kernel twice to warm up and then reps times between CUDA events, and frees
// everything before returning. The library entry points are filc2_ntt_bench and
// filc2_msm_bench (cuda/filc2_ntt.h, cuda/filc2_msm.h).

// maxMSMBenchLog bounds the MSM benchmarks: n < 2^31 points (filc2_msm_run).
const maxMSMBenchLog = 30

func checkBench(kernel string, logN, maxLog, reps int) error {
	if logN < 1 || logN > maxLog {
		return invalid("%s benchmark size 2^%d out of 2^1..2^%d", kernel, logN, maxLog)
	}
	if reps < 1 {
		return invalid("%s benchmark needs at least one run, got %d", kernel, reps)
	}
	return nil
}

// closeAfter runs c and keeps its error when *err is still nil.
func closeAfter(err *error, c func() error) {
	if cerr := c(); cerr != nil && *err == nil {
		*err = cerr
	}
}

// BenchNTT times one forward NTT of 2^logN points (1 ≤ logN ≤ 28) on device: natural
// order in, bit-reversed out, in place, over random non-zero inputs made on the device
// (the CPU's counterpart is gnark's FFT with fft.DIF). The domain's tables are built
// before the timing.
func BenchNTT(device, logN, reps int) (KernelBench, error) {
	return benchNTTOp(groth16.KernelNTT, nttBenchFwd, device, logN, reps)
}

// BenchH times the H pipeline of 2^logN points (1 ≤ logN ≤ 28) on device: 3 inverse
// NTTs, 3 coset NTTs, (a·b − c)/Z and the coset inverse NTT over three device buffers
// of random non-zero elements (HDevice).
func BenchH(device, logN, reps int) (KernelBench, error) {
	return benchNTTOp(groth16.KernelH, nttBenchH, device, logN, reps)
}

func benchNTTOp(kernel string, op, device, logN, reps int) (res KernelBench, err error) {
	if err := checkBench(kernel, logN, MaxNTTLog, reps); err != nil {
		return KernelBench{}, err
	}
	d, err := NewDomainWith(logN, DomainOptions{Device: device})
	if err != nil {
		return KernelBench{}, fmt.Errorf("ffi: %s benchmark at 2^%d on device %d: %w", kernel, logN, device, err)
	}
	defer closeAfter(&err, d.Close)
	ms, err := d.nttBench(op, reps)
	if err != nil {
		return KernelBench{}, fmt.Errorf("ffi: %s benchmark at 2^%d on device %d: %w", kernel, logN, device, err)
	}
	res = KernelBench{Kernel: kernel, LogN: logN, Ms: ms}
	if op == nttBenchFwd {
		res.Floor = nttFloor(d, device, logN)
	}
	return res, nil
}

// nttFloor is the forward transform's multiply floor on d's plan (nil where its plan or the
// rate probe is not to be had: the benchmark stands without it).
func nttFloor(d *Domain, device, logN int) *Floor {
	info, err := d.Info()
	if err != nil {
		return nil
	}
	mul, err := productRate(device, fieldFr, mulProduct)
	if err != nil {
		return nil
	}
	per := nttProducts(info.PassBits, false, info.ThreadElems)
	return &Floor{Field: "Fr", Products: per * float64(int64(1)<<logN), PerElement: per, MulRate: mul,
		Model: fmt.Sprintf("%.4g products an element: passes of %v bits, %d elements a thread", per, info.PassBits,
			info.ThreadElems)}
}

// The rate probe's fields and operations (filc2_bench_mul).
const (
	fieldFr, fieldFp, fieldFp2 = 0, 1, 2
	mulProduct, mulSquare      = 0, 2
)

// productRate is the device's throughput of field's product or squaring (op), per second:
// the chained probe of filc2_bench_mul (2^22 elements, two chains of 64 an element, the
// median of 5 launches after two warm-ups).
func productRate(device, field, op int) (float64, error) {
	const n, chain, reps = 1 << 22, 64, 5
	ms, err := benchMul(device, field, op, chain, n, reps)
	if err != nil {
		return 0, err
	}
	med := KernelBench{Ms: ms}.MedianMs()
	if med <= 0 {
		return 0, benchInternal("product rate", 22, fmt.Sprintf("median %g ms", med))
	}
	return float64(n) * (2*chain + 1) / (med / 1e3), nil
}

// msmFloorOn is msmFloor with field's rates measured on device (nil where the probe fails).
func msmFloorOn(device, field int, name string, n uint64, windows int) *Floor {
	mul, err := productRate(device, field, mulProduct)
	if err != nil {
		return nil
	}
	sqr, err := productRate(device, field, mulSquare)
	if err != nil {
		return nil
	}
	return msmFloor(name, n, windows, mul, sqr)
}

// BenchMSMG1 times a G1 MSM of 2^logN points (1 ≤ logN ≤ 30) on device: bases from
// GenerateG1(device, 2^logN, seed), uniform scalars from the device's generator with
// the same seed, already in device memory. The result is checked to be on the curve.
func BenchMSMG1(device, logN, reps int, seed uint64) (res KernelBench, err error) {
	const kernel = groth16.KernelG1MSM
	if err := checkBench(kernel, logN, maxMSMBenchLog, reps); err != nil {
		return KernelBench{}, err
	}
	n := 1 << logN
	b, err := GenerateG1(device, n, seed)
	if err != nil {
		return KernelBench{}, fmt.Errorf("ffi: %s benchmark at 2^%d on device %d: generating bases: %w", kernel, logN,
			device, err)
	}
	defer closeAfter(&err, b.Close)
	var w [maxWindows]bls.G1Jac
	ms, info, err := b.bench(benchMSM, n, seed, nil, reps, unsafe.Pointer(&w[0]))
	if err != nil {
		return KernelBench{}, fmt.Errorf("ffi: %s benchmark at 2^%d on device %d: %w", kernel, logN, device, err)
	}
	if info.Windows < 0 || info.Windows > maxWindows {
		return KernelBench{}, benchInternal(kernel, logN, fmt.Sprintf("%d window sums", info.Windows))
	}
	if sum := combineG1(w[:info.Windows], info.WindowBits); !sum.IsOnCurve() {
		return KernelBench{}, benchInternal(kernel, logN, "the result is not on the curve")
	}
	return KernelBench{Kernel: kernel, LogN: logN, Ms: ms, WindowBits: info.WindowBits,
		Floor: msmFloorOn(device, fieldFp, "Fp", uint64(n), info.Windows)}, nil
}

// BenchMSMG2 is BenchMSMG1 over G2 (bases from GenerateG2).
func BenchMSMG2(device, logN, reps int, seed uint64) (res KernelBench, err error) {
	const kernel = groth16.KernelG2MSM
	if err := checkBench(kernel, logN, maxMSMBenchLog, reps); err != nil {
		return KernelBench{}, err
	}
	n := 1 << logN
	b, err := GenerateG2(device, n, seed)
	if err != nil {
		return KernelBench{}, fmt.Errorf("ffi: %s benchmark at 2^%d on device %d: generating bases: %w", kernel, logN,
			device, err)
	}
	defer closeAfter(&err, b.Close)
	var w [maxWindows]bls.G2Jac
	ms, info, err := b.bench(benchMSM, n, seed, nil, reps, unsafe.Pointer(&w[0]))
	if err != nil {
		return KernelBench{}, fmt.Errorf("ffi: %s benchmark at 2^%d on device %d: %w", kernel, logN, device, err)
	}
	if info.Windows < 0 || info.Windows > maxWindows {
		return KernelBench{}, benchInternal(kernel, logN, fmt.Sprintf("%d window sums", info.Windows))
	}
	if sum := combineG2(w[:info.Windows], info.WindowBits); !sum.IsOnCurve() {
		return KernelBench{}, benchInternal(kernel, logN, "the result is not on the curve")
	}
	return KernelBench{Kernel: kernel, LogN: logN, Ms: ms, WindowBits: info.WindowBits,
		Floor: msmFloorOn(device, fieldFp2, "Fp2", uint64(n), info.Windows)}, nil
}

// BenchBatchAddG1 times the batch addition of the G1 bases of GenerateG1(device,
// 2^logN, seed) selected by a bitmap with about 47 % of its bits set (the ones of the
// device's witness-shaped scalars from seed), on device (1 ≤ logN ≤ 30). Points and
// Bytes of the result say how many points were summed and how many bytes read.
func BenchBatchAddG1(device, logN, reps int, seed uint64) (res KernelBench, err error) {
	const kernel = groth16.KernelBatchAdd
	if err := checkBench(kernel, logN, maxMSMBenchLog, reps); err != nil {
		return KernelBench{}, err
	}
	n := 1 << logN
	b, err := GenerateG1(device, n, seed)
	if err != nil {
		return KernelBench{}, fmt.Errorf("ffi: %s benchmark at 2^%d on device %d: generating bases: %w", kernel, logN,
			device, err)
	}
	defer closeAfter(&err, b.Close)
	var w [maxWindows]bls.G1Jac
	ms, info, err := b.bench(benchBatchWitness, n, seed, nil, reps, unsafe.Pointer(&w[0]))
	if err != nil {
		return KernelBench{}, fmt.Errorf("ffi: %s benchmark at 2^%d on device %d: %w", kernel, logN, device, err)
	}
	if !w[0].IsOnCurve() {
		return KernelBench{}, benchInternal(kernel, logN, "the sum is not on the curve")
	}
	if info.Ones > uint64(n) {
		return KernelBench{}, benchInternal(kernel, logN, fmt.Sprintf("%d points summed of %d", info.Ones, n))
	}
	return KernelBench{Kernel: kernel, LogN: logN, Ms: ms, Points: info.Ones, Bytes: info.Ones * (96 + 8)}, nil
}

// benchInternal is the error of a benchmark whose result failed its sanity check.
func benchInternal(kernel string, logN int, what string) error {
	return &Error{Code: codeInternal, Msg: fmt.Sprintf("%s benchmark at 2^%d: result check failed: %s", kernel, logN, what)}
}

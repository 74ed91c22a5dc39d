package groth16

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/filc2/filc2/internal/par"
)

// Kernel benchmarks of the CPU path (filc2 bench kernels): the five computations a
// proof spends its time in, timed one at a time on pseudo-random inputs. The CUDA
// counterparts are in package ffi (BenchMSMG1 and the others) under the same names.

// Names of the benchmarked kernels, shared by BenchKernelCPU, package ffi and the CLI.
const (
	// KernelG1MSM is a G1 multi-scalar multiplication with uniform non-zero scalars.
	KernelG1MSM = "g1-msm"
	// KernelG2MSM is KernelG1MSM over G2.
	KernelG2MSM = "g2-msm"
	// KernelNTT is one forward Fr transform: natural order in, bit-reversed out, in place.
	KernelNTT = "ntt"
	// KernelBatchAdd is the sum of the G1 points selected by a bitmap with about 47 % of
	// its bits set (the ones of a PoRep witness), as the split MSM adds its ones.
	KernelBatchAdd = "batch-add"
	// KernelH is the H pipeline: bellperson's (a·b − c)/Z on the coset, computed as 3 inverse
	// NTTs, 2 coset NTTs (a and b), a·b pointwise and a coset inverse NTT less c's coefficients.
	KernelH = "h-pipeline"
)

// BenchKernels returns the kernel names in the order a benchmark table lists them.
func BenchKernels() []string {
	return []string{KernelG1MSM, KernelG2MSM, KernelNTT, KernelBatchAdd, KernelH}
}

// MaxKernelBenchLog is the largest size, 2^28, that BenchKernelCPU accepts (the largest
// NTT domain of the CUDA backend).
const MaxKernelBenchLog = 28

// kbOnesPercent is the share of set bits in the batch-add bitmap: a PoRep witness
// is 51 % zeros, 47 % ones and 2 % other values.
const kbOnesPercent = 47

// KernelBenchOptions configure BenchKernelCPU.
type KernelBenchOptions struct {
	// Reps is the number of timed runs after the one warm-up run (at least 1).
	Reps int
	// Tasks bounds the goroutines of one run (≤ 0: all cores).
	Tasks int
	// Seed makes the pseudo-random inputs reproducible.
	Seed uint64
}

// CPUBench is what BenchKernelCPU measured.
type CPUBench struct {
	Kernel string
	LogN   int
	// Runs holds the wall-clock time of each timed run, in run order (the warm-up and
	// the making of inputs excluded).
	Runs []time.Duration
	// Points is, for KernelBatchAdd, the number of points summed (the set bits).
	Points int
}

// Median returns the median of Runs (the upper one of an even count), 0 if none.
func (b CPUBench) Median() time.Duration {
	if len(b.Runs) == 0 {
		return 0
	}
	s := slices.Clone(b.Runs)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchKernelCPU times one kernel (a Kernel* name) over 2^logN elements on the CPU, the
// way the CPU prover runs it: gnark-crypto's Pippenger MSM and FFT, this package's
// H computation and mixed-addition batch sum. The inputs are made first (untimed):
// uniform non-zero scalars, distinct points (k + j)·G for random 62-bit k per block of
// 256 points, j the position in the block, and for the batch addition a bitmap with 47 %
// of the bits set. One warm-up run, then o.Reps timed ones. The context is checked
// between runs (a run itself is not interrupted).
func BenchKernelCPU(ctx context.Context, kernel string, logN int, o KernelBenchOptions) (CPUBench, error) {
	if logN < 1 || logN > MaxKernelBenchLog {
		return CPUBench{}, fmt.Errorf("groth16: kernel benchmark size 2^%d out of 2^1..2^%d", logN, MaxKernelBenchLog)
	}
	if o.Reps < 1 {
		return CPUBench{}, fmt.Errorf("groth16: kernel benchmark needs at least one run, got %d", o.Reps)
	}
	n := 1 << logN
	res := CPUBench{Kernel: kernel, LogN: logN}
	var run func() error
	var reset func() // untimed, before each run
	switch kernel {
	case KernelG1MSM:
		points := kbPoints[bls.G1Affine, bls.G1Jac, g1Ops](generatorG1(), n, o.Seed, o.Tasks)
		scalars := kbScalars(n, o.Seed+1, o.Tasks)
		var out bls.G1Jac
		run = func() error { return msmG1(&out, points, scalars, o.Tasks) }
	case KernelG2MSM:
		points := kbPoints[bls.G2Affine, bls.G2Jac, g2Ops](generatorG2(), n, o.Seed, o.Tasks)
		scalars := kbScalars(n, o.Seed+1, o.Tasks)
		var out bls.G2Jac
		run = func() error { return msmG2(&out, points, scalars, o.Tasks) }
	case KernelNTT:
		d := fft.NewDomain(uint64(n))
		v := kbScalars(n, o.Seed+2, o.Tasks)
		var opts []fft.Option
		if o.Tasks > 0 {
			opts = append(opts, fft.WithNbTasks(o.Tasks))
		}
		run = func() error { d.FFT(v, fft.DIF, opts...); return nil }
	case KernelBatchAdd:
		points := kbPoints[bls.G1Affine, bls.G1Jac, g1Ops](generatorG1(), n, o.Seed, o.Tasks)
		bitmap := kbBitmap(n, o.Seed+3, o.Tasks)
		var out bls.G1Jac
		run = func() error {
			res.Points = batchAddBitmap[bls.G1Affine, bls.G1Jac, g1Ops](&out, points, bitmap, o.Tasks)
			return nil
		}
	case KernelH:
		d := fft.NewDomain(uint64(n))
		in := [3][]fr.Element{kbScalars(n, o.Seed+4, o.Tasks), kbScalars(n, o.Seed+5, o.Tasks),
			kbScalars(n, o.Seed+6, o.Tasks)}
		var work [3][]fr.Element
		for i := range work {
			work[i] = make([]fr.Element, n)
		}
		reset = func() {
			for i := range work {
				copy(work[i], in[i])
			}
		}
		run = func() error { computeH(d, work[0], work[1], work[2], o.Tasks); return nil }
	default:
		return CPUBench{}, fmt.Errorf("groth16: unknown benchmark kernel %q (want one of %v)", kernel, BenchKernels())
	}
	for r := -1; r < o.Reps; r++ {
		if err := ctx.Err(); err != nil {
			return CPUBench{}, fmt.Errorf("groth16: %s benchmark at 2^%d: %w", kernel, logN, err)
		}
		if reset != nil {
			reset()
		}
		t0 := time.Now()
		if err := run(); err != nil {
			return CPUBench{}, fmt.Errorf("groth16: %s benchmark at 2^%d: %w", kernel, logN, err)
		}
		if r >= 0 {
			res.Runs = append(res.Runs, time.Since(t0))
		}
	}
	return res, nil
}

func generatorG1() *bls.G1Affine { _, _, g, _ := bls.Generators(); return &g }
func generatorG2() *bls.G2Affine { _, _, _, g := bls.Generators(); return &g }

// kbBlock is the number of consecutive multiples of the generator in one block of
// kbPoints: one small scalar multiplication per block, one addition per point.
const kbBlock = 256

// kbPoints returns n distinct points: point b·kbBlock + j is (k_b + j)·g with k_b
// a pseudo-random 62-bit multiplier drawn from seed and b.
func kbPoints[A, J any, G groupOps[A, J]](g *A, n int, seed uint64, tasks int) []A {
	var ops G
	out := make([]A, n)
	blocks := (n + kbBlock - 1) / kbBlock
	kbRange(blocks, tasks, 4, func(lo, hi int) {
		js := make([]J, kbBlock)
		for b := lo; b < hi; b++ {
			k := rand.New(rand.NewPCG(seed, uint64(b))).Uint64()>>2 + 1
			var acc J
			ops.setInfinity(&acc)
			for bit := 61; bit >= 0; bit-- {
				ops.double(&acc)
				if k>>bit&1 == 1 {
					ops.addMixed(&acc, g)
				}
			}
			first, last := b*kbBlock, min((b+1)*kbBlock, n)
			for i := range last - first {
				js[i] = acc
				ops.addMixed(&acc, g)
			}
			ops.toAffine(out[first:last], js[:last-first])
		}
	})
	return out
}

// kbScalars returns n pseudo-random non-zero scalars: four random limbs below 2^254
// (so below r) taken as a Montgomery representation.
func kbScalars(n int, seed uint64, tasks int) []fr.Element {
	out := make([]fr.Element, n)
	par.Range(n, tasks, func(lo, hi int) {
		r := rand.New(rand.NewPCG(seed, uint64(lo)))
		for i := lo; i < hi; i++ {
			s := &out[i]
			s[0], s[1], s[2], s[3] = r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()>>2
			if s.IsZero() {
				s[0] = 1
			}
		}
	})
	return out
}

// kbBitmap returns a bitmap of n bits (bit i is bit i%64 of word i/64), each set with
// probability kbOnesPercent/100.
func kbBitmap(n int, seed uint64, tasks int) []uint64 {
	words := make([]uint64, (n+63)/64)
	par.Range(len(words), tasks, func(lo, hi int) {
		r := rand.New(rand.NewPCG(seed, uint64(lo)))
		for w := lo; w < hi; w++ {
			for bit := range min(64, n-64*w) {
				if r.IntN(100) < kbOnesPercent {
					words[w] |= 1 << bit
				}
			}
		}
	})
	return words
}

// batchAddBitmap sets out to Σ points[i] over the set bits i of bitmap by mixed
// additions, in parallel chunks, and returns the number of points added.
func batchAddBitmap[A, J any, G groupOps[A, J]](out *J, points []A, bitmap []uint64, tasks int) int {
	var ops G
	var mu sync.Mutex
	ops.setInfinity(out)
	count := 0
	words := min(len(bitmap), (len(points)+63)/64)
	kbRange(words, tasks, 16, func(lo, hi int) {
		var acc J
		ops.setInfinity(&acc)
		c := 0
		for w := lo; w < hi; w++ {
			for x := bitmap[w]; x != 0; x &= x - 1 {
				i := 64*w + bits.TrailingZeros64(x)
				if i >= len(points) {
					break
				}
				ops.addMixed(&acc, &points[i])
				c++
			}
		}
		mu.Lock()
		ops.add(out, &acc)
		count += c
		mu.Unlock()
	})
	return count
}

// kbRange splits [0, n) into one chunk per task (≤ 0: per core), each at least minPer
// long, and runs f on them in parallel.
func kbRange(n, tasks, minPer int, f func(lo, hi int)) {
	if tasks <= 0 {
		tasks = runtime.GOMAXPROCS(0)
	}
	chunk := max((n+tasks-1)/tasks, minPer, 1)
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, min(lo+chunk, n))
		}()
	}
	wg.Wait()
}

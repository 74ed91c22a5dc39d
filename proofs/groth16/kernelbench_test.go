package groth16

import (
	"context"
	"errors"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

func TestBenchKernelCPU(t *testing.T) {
	for _, k := range BenchKernels() {
		b, err := BenchKernelCPU(context.Background(), k, 8, KernelBenchOptions{Reps: 3, Seed: 7})
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if b.Kernel != k || b.LogN != 8 || len(b.Runs) != 3 {
			t.Fatalf("%s: %+v", k, b)
		}
		for _, d := range b.Runs {
			if d <= 0 {
				t.Errorf("%s: run of %v", k, d)
			}
		}
		if m := b.Median(); m <= 0 {
			t.Errorf("%s: median %v", k, m)
		}
		if k == KernelBatchAdd && (b.Points < 256*30/100 || b.Points > 256*64/100) {
			t.Errorf("batch-add summed %d of 256 points, want about 47%%", b.Points)
		}
	}
}

func TestBenchKernelCPUErrors(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		kernel string
		logN   int
		reps   int
		want   string
	}{
		{"fft", 8, 1, `unknown benchmark kernel "fft"`},
		{KernelNTT, 0, 1, "out of 2^1..2^28"},
		{KernelNTT, 29, 1, "out of 2^1..2^28"},
		{KernelNTT, 8, 0, "at least one run"},
	} {
		_, err := BenchKernelCPU(ctx, c.kernel, c.logN, KernelBenchOptions{Reps: c.reps})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s 2^%d reps %d: error %v, want %q", c.kernel, c.logN, c.reps, err, c.want)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := BenchKernelCPU(cancelled, KernelNTT, 8, KernelBenchOptions{Reps: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestKernelBenchInputs(t *testing.T) {
	const n = 3*kbBlock + 17
	pts := kbPoints[bls.G1Affine, bls.G1Jac, g1Ops](generatorG1(), n, 5, 0)
	seen := make(map[bls.G1Affine]bool, n)
	for i := range pts {
		if !pts[i].IsOnCurve() || !pts[i].IsInSubGroup() || pts[i].IsInfinity() {
			t.Fatalf("point %d is not a valid non-zero G1 point", i)
		}
		if seen[pts[i]] {
			t.Fatalf("point %d repeats an earlier one", i)
		}
		seen[pts[i]] = true
	}
	// Within a block the points are consecutive multiples of the generator.
	for _, i := range []int{kbBlock + 1, 2*kbBlock + 200, n - 1} {
		var d bls.G1Jac
		d.FromAffine(&pts[i])
		var prev bls.G1Affine
		prev.Neg(&pts[i-1])
		d.AddMixed(&prev)
		var got bls.G1Affine
		got.FromJacobian(&d)
		if g := generatorG1(); !got.Equal(g) {
			t.Errorf("point %d minus point %d is not the generator", i, i-1)
		}
	}
	g2 := kbPoints[bls.G2Affine, bls.G2Jac, g2Ops](generatorG2(), 300, 5, 0)
	for i := range g2 {
		if !g2[i].IsOnCurve() || !g2[i].IsInSubGroup() || g2[i].IsInfinity() {
			t.Fatalf("G2 point %d is not a valid non-zero point", i)
		}
	}

	s := kbScalars(5000, 3, 0)
	for i := range s {
		if s[i].IsZero() || s[i][3]>>62 != 0 {
			t.Fatalf("scalar %d: %v", i, s[i])
		}
	}
	if s[0] == s[1] {
		t.Error("scalars repeat")
	}

	bm := kbBitmap(n, 9, 0)
	set := 0
	for _, w := range bm {
		set += bits.OnesCount64(w)
	}
	if bm[len(bm)-1]>>(n%64) != 0 {
		t.Error("bitmap has bits past n")
	}
	if set < n*40/100 || set > n*54/100 {
		t.Errorf("bitmap has %d of %d bits set, want about 47%%", set, n)
	}
	var got, want bls.G1Jac
	if c := batchAddBitmap[bls.G1Affine, bls.G1Jac, g1Ops](&got, pts, bm, 0); c != set {
		t.Errorf("batch add counted %d points, the bitmap has %d", c, set)
	}
	want.X.SetOne()
	want.Y.SetOne()
	for i := range pts {
		if bm[i/64]>>(i%64)&1 == 1 {
			want.AddMixed(&pts[i])
		}
	}
	if !got.Equal(&want) {
		t.Error("batch add differs from the sum point by point")
	}
}

func TestKernelBenchPointsMultiplier(t *testing.T) {
	// Point 0 of block b is k_b·G for the multiplier drawn from (seed, b).
	const seed = 11
	pts := kbPoints[bls.G1Affine, bls.G1Jac, g1Ops](generatorG1(), 2*kbBlock, seed, 0)
	k := rand.New(rand.NewPCG(seed, 1)).Uint64()>>2 + 1
	var want bls.G1Affine
	want.ScalarMultiplication(generatorG1(), new(big.Int).SetUint64(k))
	if !pts[kbBlock].Equal(&want) {
		t.Error("block 1 does not start at k_1·G")
	}
}

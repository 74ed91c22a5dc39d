//go:build cuda

package ffi

import (
	"fmt"
	"slices"
	"testing"
)

// TestMulThroughput measures the field multiplication kernels (cuda/NOTES.md explains
// the numbers): device events around each launch, two warm-ups, the median of 9.
// Lines start with THROUGHPUT so cuda/device_check.sh can collect them. inv-vt has the
// 32 lanes of a warp invert one value, as the batch-affine MSM does; its Gop/s counts
// lanes, so (Fp mul Gop/s) / (Fp inv-vt Gop/s) is what one warp's inversion costs in
// products, the figure the MSM's cost model needs.
func TestMulThroughput(t *testing.T) {
	if testing.Short() {
		t.Skip("throughput is measured without -short")
	}
	type field struct {
		name  string
		id    int
		bytes int
		ops   []int // 0 mul, 1 the other mul (lo/hi chains; Fp2: three reductions), 2 sqr, 3 Fermat inverse, 4 divstep inverse (warp-uniform), 5 mul on FP64, 6 Karatsuba mul
	}
	opNames := []string{"mul", "mul-lohi", "sqr", "inv", "inv-vt", "mul-fp64", "mul-kara"}
	fields := []field{{"Fr", 0, 32, []int{0, 1, 2, 3, 4, 5, 6}}, {"Fp", 1, 48, []int{0, 1, 2, 3, 4, 5, 6}},
		{"Fp2", 2, 96, []int{0, 1, 2, 4}}}
	fmt.Printf("THROUGHPUT %-4s %-9s %5s %9s %9s %9s %9s %10s %9s\n", "fld", "op", "chain", "n",
		"median_ms", "min_ms", "max_ms", "Gop/s", "GB/s")
	for _, f := range fields {
		for _, op := range f.ops {
			for _, chain := range []int{0, 64} {
				n := uint64(1 << 24)
				if chain > 0 {
					n = 1 << 22
				}
				if op == 3 || op == 4 { // inversions: once, over fewer elements (each is hundreds of products)
					if chain > 0 {
						continue
					}
					n = 1 << 20
				}
				ms, err := benchMul(0, f.id, op, chain, n, 9)
				if err != nil {
					t.Fatalf("%s %s chain %d: %v", f.name, opNames[op], chain, err)
				}
				sorted := slices.Clone(ms)
				slices.Sort(sorted)
				med := float64(sorted[len(sorted)/2])
				perElem := 1.0
				if chain > 0 {
					perElem = float64(2*chain + 1)
				}
				gops := float64(n) * perElem / (med / 1e3) / 1e9
				gbps := float64(n) * float64(3*f.bytes) / (med / 1e3) / 1e9
				name := opNames[op]
				if f.id == 2 && op == 1 {
					name = "mul-eager"
				}
				fmt.Printf("THROUGHPUT %-4s %-9s %5d %9d %9.3f %9.3f %9.3f %10.2f %9.1f\n", f.name, name, chain,
					n, med, sorted[0], sorted[len(sorted)-1], gops, gbps)
			}
		}
	}
}

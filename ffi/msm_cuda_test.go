//go:build cuda

package ffi

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// GPU tests of the MSM (cuda/msm/): every entry point against gnark-crypto on fresh
// random inputs, the edge cases of Pippenger (infinity, 0, 1, −1, repeated points,
// empty windows, Booth boundary digits) at several window sizes, chunk lengths and
// window groups, the split MSM on witness-shaped scalars, the batch addition, the
// device-generated bases, the error paths; and, with FILC2_BENCH=1, TestMSMBench.

// ---- references and inputs -----------------------------------------------------

func randomG1Points(n int) []bls.G1Affine {
	_, _, g, _ := bls.Generators()
	return bls.BatchScalarMultiplicationG1(&g, randomFr(n))
}

func randomG2Points(n int) []bls.G2Affine {
	_, _, _, g := bls.Generators()
	return bls.BatchScalarMultiplicationG2(&g, randomFr(n))
}

func refMSMG1(t *testing.T, points []bls.G1Affine, scalars []fr.Element) bls.G1Affine {
	t.Helper()
	var r bls.G1Affine
	if len(scalars) == 0 {
		return r
	}
	if _, err := r.MultiExp(points[:len(scalars)], scalars, ecc.MultiExpConfig{}); err != nil {
		t.Fatal(err)
	}
	return r
}

func refMSMG2(t *testing.T, points []bls.G2Affine, scalars []fr.Element) bls.G2Affine {
	t.Helper()
	var r bls.G2Affine
	if len(scalars) == 0 {
		return r
	}
	if _, err := r.MultiExp(points[:len(scalars)], scalars, ecc.MultiExpConfig{}); err != nil {
		t.Fatal(err)
	}
	return r
}

func affG1(j *bls.G1Jac) (a bls.G1Affine) { a.FromJacobian(j); return }
func affG2(j *bls.G2Jac) (a bls.G2Affine) { a.FromJacobian(j); return }

// sumSelectedG1 is Σ points[i] over the selected i, on every core.
func sumSelectedG1(points []bls.G1Affine, sel func(i int) bool) bls.G1Affine {
	parts := make([]bls.G1Jac, 64)
	chunk := (len(points) + len(parts) - 1) / len(parts)
	parallel(len(parts), func(k int) {
		for i := k * chunk; i < min(len(points), (k+1)*chunk); i++ {
			if sel(i) {
				parts[k].AddMixed(&points[i])
			}
		}
	})
	var s bls.G1Jac
	for k := range parts {
		s.AddAssign(&parts[k])
	}
	return affG1(&s)
}

func sumSelectedG2(points []bls.G2Affine, sel func(i int) bool) bls.G2Affine {
	parts := make([]bls.G2Jac, 64)
	chunk := (len(points) + len(parts) - 1) / len(parts)
	parallel(len(parts), func(k int) {
		for i := k * chunk; i < min(len(points), (k+1)*chunk); i++ {
			if sel(i) {
				parts[k].AddMixed(&points[i])
			}
		}
	})
	var s bls.G2Jac
	for k := range parts {
		s.AddAssign(&parts[k])
	}
	return affG2(&s)
}

// witnessScalars: 51 % zeros, 47 % ones, 2 % uniform, as a PoRep witness.
func witnessScalars(n int) []fr.Element {
	s := make([]fr.Element, n)
	for i := range s {
		switch u := rand.IntN(100); {
		case u < 51:
		case u < 98:
			s[i].SetOne()
		default:
			if _, err := s[i].SetRandom(); err != nil {
				panic(err)
			}
		}
	}
	return s
}

// boothPattern: with c-bit windows every signed digit is ±2^(c−1) (window 0 −, then
// +, −, …), below 2^253: even windows 100…0, odd windows 011…1.
func boothPattern(c int) *big.Int {
	x := new(big.Int)
	for w := 0; w*c < 253; w++ {
		if w%2 == 0 {
			if b := w*c + c - 1; b < 253 {
				x.SetBit(x, b, 1)
			}
		} else {
			for j := 0; j < c-1 && w*c+j < 253; j++ {
				x.SetBit(x, w*c+j, 1)
			}
		}
	}
	return x
}

// edgeScalars returns n random scalars with the edge values spread over them (the
// Booth pattern for window size c, and its negation).
func edgeScalars(n, c int) []fr.Element {
	s := randomFr(n)
	r := fr.Modulus()
	one := big.NewInt(1)
	half := new(big.Int).Rsh(r, 1) // (r − 1)/2
	vals := []*big.Int{
		big.NewInt(0), big.NewInt(1), new(big.Int).Sub(r, one), new(big.Int).Sub(r, big.NewInt(2)), big.NewInt(2),
		half, new(big.Int).Add(half, one), new(big.Int).Sub(half, one),
		boothPattern(c), new(big.Int).Sub(r, boothPattern(c)), boothPattern(13), boothPattern(16),
		new(big.Int).Sub(new(big.Int).Lsh(one, 253), one), new(big.Int).Lsh(one, 253), new(big.Int).Lsh(one, 252),
		big.NewInt(1 << 40), new(big.Int).Lsh(big.NewInt(0xabcdef), 200),
	}
	for i, v := range vals {
		for k := i; k < n; k += 97 { // each value several times
			s[k] = bigFr(v)
		}
	}
	return s
}

// ---- G1 ----------------------------------------------------------------------

func msmSizesG1() []int {
	if testing.Short() {
		return []int{1, 2, 3, 100, 1000}
	}
	return []int{1, 2, 3, 100, 1000, 4097, 1<<16 + 3, 1 << 20}
}

// basesG1 returns n points on the host and on the device: random gnark points up to
// 2^16 + 3, device-generated ones (checked in TestGeneratedBases) above.
func basesG1(t *testing.T, n int) ([]bls.G1Affine, *G1Bases) {
	t.Helper()
	if n <= 1<<16+3 {
		p := randomG1Points(n)
		b, err := UploadG1(p)
		if err != nil {
			t.Fatal(err)
		}
		return p, b
	}
	b, err := GenerateG1(0, n, rand.Uint64())
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Points(0, n)
	if err != nil {
		t.Fatal(err)
	}
	return p, b
}

func TestMSMG1(t *testing.T) {
	for _, n := range msmSizesG1() {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p, b := basesG1(t, n)
			defer b.Close()
			s := randomFr(n)
			want := refMSMG1(t, p, s)
			got, info, err := b.msm(false, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if g := affG1(&got); !g.Equal(&want) {
				t.Fatalf("MSM of %d (c=%d): got %v, want %v", n, info.WindowBits, g, want)
			}
			t.Logf("n=%d: c=%d, %d windows", n, info.WindowBits, info.Windows)
			got, err = b.MSMSplit(s)
			if err != nil {
				t.Fatal(err)
			}
			if g := affG1(&got); !g.Equal(&want) {
				t.Fatalf("MSMSplit of %d: got %v, want %v", n, g, want)
			}
			// A prefix: fewer scalars than bases.
			if n > 2 {
				k := n/2 + 1
				want := refMSMG1(t, p, s[:k])
				got, err := b.MSM(s[:k])
				if err != nil {
					t.Fatal(err)
				}
				if g := affG1(&got); !g.Equal(&want) {
					t.Fatalf("MSM of the first %d of %d: got %v, want %v", k, n, g, want)
				}
			}
		})
	}
}

// msmConfigs: window sizes across the range, small chunks (many accumulation levels)
// and window groups (several sort passes).
func msmConfigs() []msmConfig {
	cfgs := []msmConfig{{}, {WindowBits: 4}, {WindowBits: 7}, {WindowBits: 12}, {WindowBits: 13},
		{WindowBits: 16}, {WindowBits: 17}, {WindowBits: 20}, {WindowBits: 22},
		{WindowBits: 9, Chunk: 1}, {WindowBits: 11, Chunk: 2, MaxGroup: 1}, {WindowBits: 13, MaxGroup: 3},
		{WindowBits: 16, Chunk: 64, MaxGroup: 5}, {Variant: 1}, {WindowBits: 10, Chunk: 7, Variant: 1},
		{WindowBits: 12, SortKiB: 1}, {WindowBits: 22, SortKiB: -1}, {WindowBits: 18, Chunk: 128, SortKiB: 3 << 10},
		// the batch-affine first level (accumulate_affine.cuh), K = 8, 16, 4 sub-streams a lane
		{Variant: 2}, {WindowBits: 9, Chunk: 1, Variant: 2}, {WindowBits: 13, Chunk: 5, MaxGroup: 3, Variant: 3},
		{WindowBits: 16, Chunk: 64, Variant: 4}, {WindowBits: 20, Variant: 2},
		// the FP64 product (ff/fp64_mul.cuh) in the XYZZ and the batch-affine first levels
		{Variant: 5}, {Variant: 6}, {WindowBits: 9, Chunk: 1, Variant: 6},
		// the XYZZ first level with the addition's equal-x case by value, on the Karatsuba product
		{Variant: 7}, {WindowBits: 9, Chunk: 1, Variant: 7}, {Variant: 9}, {WindowBits: 9, Chunk: 1, Variant: 9},
		// the XYZZ first level with its cold state in shared memory (accumulate_smem.cuh): chunks of one
		// and two entries (the copy pipeline's ends), many levels, several passes
		{Variant: 11}, {WindowBits: 9, Chunk: 1, Variant: 11}, {WindowBits: 13, Chunk: 2, MaxGroup: 3, Variant: 11},
		{Variant: 12}, {WindowBits: 9, Chunk: 1, Variant: 12}, {WindowBits: 11, Chunk: 3, Variant: 12},
		// each sort by name (whichever is the default above): the atomic counting sort, the binned one,
		// the radix one
		{Sort: 1}, {WindowBits: 13, MaxGroup: 3, Sort: 1}, {WindowBits: 22, SortKiB: -1, Sort: 1},
		{Sort: 2}, {WindowBits: 9, Chunk: 1, Sort: 2}, {WindowBits: 13, MaxGroup: 3, Sort: 2}, {WindowBits: 16, Sort: 2},
		{WindowBits: 22, SortKiB: -1, Sort: 2},
		{Sort: 3}, {WindowBits: 4, Sort: 3}, {WindowBits: 9, Chunk: 1, Sort: 3}, {WindowBits: 13, MaxGroup: 3, Sort: 3},
		{WindowBits: 16, Sort: 3}, {WindowBits: 22, SortKiB: -1, Sort: 3}}
	if testing.Short() {
		return append(cfgs[:5], msmConfig{Variant: 2}, msmConfig{Variant: 6}, msmConfig{Variant: 7}, msmConfig{Variant: 9},
			msmConfig{Variant: 11}, msmConfig{Variant: 12}, msmConfig{Sort: 1}, msmConfig{Sort: 2}, msmConfig{Sort: 3})
	}
	return cfgs
}

func TestMSMG1Edges(t *testing.T) {
	n := 4097
	if testing.Short() {
		n = 300
	}
	p := randomG1Points(n)
	for _, i := range []int{0, 5, n / 2, n - 1} {
		p[i] = bls.G1Affine{} // bases at infinity
	}
	b, err := UploadG1(p)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, cfg := range msmConfigs() {
		c := cfg.WindowBits
		if c == 0 {
			c = 13
		}
		s := edgeScalars(n, c)
		want := refMSMG1(t, p, s)
		for _, split := range []bool{false, true} {
			t.Run(fmt.Sprintf("%+v/split=%v", cfg, split), func(t *testing.T) {
				got, info, err := b.msm(split, s, &cfg)
				if err != nil {
					t.Fatal(err)
				}
				if cfg.WindowBits != 0 && info.WindowBits != cfg.WindowBits && (!split || info.Others > 0) {
					t.Errorf("window bits %d, asked for %d", info.WindowBits, cfg.WindowBits)
				}
				if g := affG1(&got); !g.Equal(&want) {
					t.Fatalf("got %v, want %v", g, want)
				}
			})
		}
	}
	// Whole-input special cases, at the default and at a small window.
	cases := map[string][]fr.Element{
		"all zeros": make([]fr.Element, n),
		"all ones":  slices.Repeat([]fr.Element{fr.One()}, n),
		"all -1":    slices.Repeat([]fr.Element{bigFr(new(big.Int).Sub(fr.Modulus(), big.NewInt(1)))}, n),
		"one value": slices.Repeat(randomFr(1), n),
		"16-bit": func() []fr.Element { // windows above 16 bits empty
			s := make([]fr.Element, n)
			for i := range s {
				s[i].SetUint64(rand.Uint64N(1 << 16))
			}
			return s
		}(),
		"high bits only": func() []fr.Element { // windows below bit 192 empty
			s := make([]fr.Element, n)
			for i := range s {
				s[i].SetBigInt(new(big.Int).Lsh(big.NewInt(rand.Int64N(1<<40)), 192))
			}
			return s
		}(),
	}
	for name, s := range cases {
		want := refMSMG1(t, p, s)
		for _, cfg := range []msmConfig{{}, {WindowBits: 5, Chunk: 3}, {Variant: 2}, {WindowBits: 5, Chunk: 3, Variant: 2},
			{Variant: 5}, {Variant: 6}, {Variant: 7}, {WindowBits: 5, Chunk: 3, Variant: 7}, {Variant: 9},
			{Variant: 11}, {WindowBits: 5, Chunk: 3, Variant: 11}, {Variant: 12}, {WindowBits: 5, Chunk: 2, Variant: 12}, {Sort: 1},
			{WindowBits: 5, Chunk: 3, Sort: 1}, {Sort: 2}, {WindowBits: 5, Chunk: 3, Sort: 2}, {Sort: 3},
			{WindowBits: 5, Chunk: 3, Sort: 3}} {
			for _, split := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%+v/split=%v", name, cfg, split), func(t *testing.T) {
					got, _, err := b.msm(split, s, &cfg)
					if err != nil {
						t.Fatal(err)
					}
					if g := affG1(&got); !g.Equal(&want) {
						t.Fatalf("got %v, want %v", g, want)
					}
				})
			}
		}
	}
}

// TestMSMG1Repeated: one base many times (every bucket sum doubles in XYZZ), with
// random scalars and with one scalar.
func TestMSMG1Repeated(t *testing.T) {
	n := 5000
	q := randomG1Points(3)
	p := make([]bls.G1Affine, n)
	for i := range p {
		p[i] = q[i%7/3] // mostly q[0], some q[1], q[2]
	}
	b, err := UploadG1(p)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for name, s := range map[string][]fr.Element{
		"random":   randomFr(n),
		"one":      slices.Repeat(randomFr(1), n),
		"ones":     slices.Repeat([]fr.Element{fr.One()}, n),
		"edges":    edgeScalars(n, 13),
		"twos, -1": slices.Repeat([]fr.Element{bigFr(big.NewInt(2)), bigFr(new(big.Int).Sub(fr.Modulus(), big.NewInt(1)))}, n/2),
	} {
		want := refMSMG1(t, p, s)
		for _, cfg := range []msmConfig{{}, {WindowBits: 8, Chunk: 2}, {Variant: 2}, {WindowBits: 8, Chunk: 2, Variant: 2},
			{WindowBits: 8, Chunk: 2, Variant: 6}, {WindowBits: 8, Chunk: 2, Variant: 7}, {WindowBits: 8, Chunk: 2, Variant: 9},
			{WindowBits: 8, Chunk: 2, Variant: 11}, {WindowBits: 8, Chunk: 3, Variant: 12},
			{WindowBits: 8, Chunk: 2, Sort: 1},
			{WindowBits: 8, Chunk: 2, Sort: 2},
			{WindowBits: 8, Chunk: 2, Sort: 3}} {
			for _, split := range []bool{false, true} {
				got, _, err := b.msm(split, s, &cfg)
				if err != nil {
					t.Fatal(err)
				}
				if g := affG1(&got); !g.Equal(&want) {
					t.Errorf("%s %+v split=%v: got %v, want %v", name, cfg, split, g, want)
				}
			}
		}
	}
}

func TestMSMSplitWitness(t *testing.T) {
	sizes := []int{1000, 1<<16 + 3, 1 << 20}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p, b := basesG1(t, n)
			defer b.Close()
			s := witnessScalars(n)
			ones, others := 0, 0
			for i := range s {
				switch {
				case s[i].IsOne():
					ones++
				case !s[i].IsZero():
					others++
				}
			}
			want := refMSMG1(t, p, s)
			got, info, err := b.msm(true, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if g := affG1(&got); !g.Equal(&want) {
				t.Fatalf("MSMSplit: got %v, want %v", g, want)
			}
			if info.Ones != uint64(ones) || info.Others != uint64(others) {
				t.Errorf("classified %d ones, %d others; want %d, %d", info.Ones, info.Others, ones, others)
			}
			plain, err := b.MSM(s)
			if err != nil {
				t.Fatal(err)
			}
			if g := affG1(&plain); !g.Equal(&want) {
				t.Fatalf("MSM on witness scalars: got %v, want %v", g, want)
			}
		})
	}
}

func TestBatchAddG1(t *testing.T) {
	sizes := []int{1, 100, 4097, 1<<16 + 3, 1 << 20}
	if testing.Short() {
		sizes = sizes[:3]
	}
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p, b := basesG1(t, n)
			defer b.Close()
			words := (n + 63) / 64
			bitmaps := map[string][]uint64{
				"random": func() []uint64 {
					m := make([]uint64, words)
					for i := range m {
						m[i] = rand.Uint64()
					}
					return m
				}(),
				"47%": func() []uint64 {
					m := make([]uint64, words)
					for i := 0; i < n; i++ {
						if rand.IntN(100) < 47 {
							m[i/64] |= 1 << (i % 64)
						}
					}
					return m
				}(),
				"empty": make([]uint64, words),
				"full":  slices.Repeat([]uint64{^uint64(0)}, words),
				"short": []uint64{0xdeadbeefcafe1234}, // a prefix of the bases
			}
			for name, m := range bitmaps {
				want := sumSelectedG1(p, func(i int) bool { return i/64 < len(m) && m[i/64]>>(i%64)&1 == 1 })
				got, info, err := b.batchAddG1(m)
				if err != nil {
					t.Fatal(err)
				}
				if g := affG1(&got); !g.Equal(&want) {
					t.Fatalf("%s: got %v, want %v", name, g, want)
				}
				count := 0
				for i, w := range m {
					if i == words-1 && n%64 != 0 {
						w &= 1<<(n%64) - 1
					}
					count += bits.OnesCount64(w)
				}
				if info.Ones != uint64(count) {
					t.Errorf("%s: added %d points, want %d", name, info.Ones, count)
				}
			}
			// Index lists, with repeats.
			idx := make([]uint32, n)
			for i := range idx {
				idx[i] = uint32(rand.IntN(n))
			}
			var js bls.G1Jac
			for _, i := range idx {
				js.AddMixed(&p[i])
			}
			want := affG1(&js)
			got, err := b.BatchAddIndices(idx)
			if err != nil {
				t.Fatal(err)
			}
			if g := affG1(&got); !g.Equal(&want) {
				t.Fatalf("indices: got %v, want %v", g, want)
			}
		})
	}
}

func (b *G1Bases) batchAddG1(m []uint64) (bls.G1Jac, msmInfo, error) {
	var s bls.G1Jac
	info, err := b.batchAdd(m, unsafe.Pointer(&s))
	return s, info, err
}

// TestGeneratedBases: the device generator's points are (k_b + j)·G as documented.
func TestGeneratedBases(t *testing.T) {
	n := 1<<16 + 5
	seed := rand.Uint64()
	b1, err := GenerateG1(0, n, seed)
	if err != nil {
		t.Fatal(err)
	}
	defer b1.Close()
	b2, err := GenerateG2(0, 1000, seed)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	_, _, g1, g2 := bls.Generators()
	p1, err := b1.Points(0, n)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := b2.Points(0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	sample := []int{0, 1, 63, 64, 65, 999, n / 2, n - 1}
	for k := 0; k < 24; k++ {
		sample = append(sample, rand.IntN(n))
	}
	for _, i := range sample {
		var want bls.G1Affine
		want.ScalarMultiplication(&g1, new(big.Int).SetUint64(GeneratedScalar(seed, i)))
		if !p1[i].Equal(&want) {
			t.Errorf("G1 point %d: got %v, want %v", i, p1[i], want)
		}
		if i < 1000 {
			var want2 bls.G2Affine
			want2.ScalarMultiplication(&g2, new(big.Int).SetUint64(GeneratedScalar(seed, i)))
			if !p2[i].Equal(&want2) {
				t.Errorf("G2 point %d: got %v, want %v", i, p2[i], want2)
			}
		}
	}
	// All on the curve and in the subgroup, pairwise distinct (spot check of a block).
	bad := 0
	var mu sync.Mutex
	parallel(n, func(i int) {
		if !p1[i].IsInSubGroup() {
			mu.Lock()
			bad++
			mu.Unlock()
		}
	})
	if bad > 0 {
		t.Errorf("%d generated G1 points off the subgroup", bad)
	}
	for i := 1; i < 200; i++ {
		if p1[i].Equal(&p1[i-1]) {
			t.Errorf("points %d and %d are equal", i-1, i)
		}
	}
}

// ---- G2 ----------------------------------------------------------------------

func TestMSMG2(t *testing.T) {
	sizes := []int{1, 7, 1000, 1<<16 + 3}
	if testing.Short() {
		sizes = sizes[:3]
	}
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p := randomG2Points(n)
			if n > 10 {
				p[3] = bls.G2Affine{}
			}
			b, err := UploadG2(p)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			inputs := map[string][]fr.Element{"random": randomFr(n), "edges": edgeScalars(n, 13)}
			if n >= 1000 {
				inputs["witness"] = witnessScalars(n)
				inputs["all ones"] = slices.Repeat([]fr.Element{fr.One()}, n)
			}
			for name, s := range inputs {
				want := refMSMG2(t, p, s)
				cfgs := []msmConfig{{}, {Variant: 2}, {Variant: 8}, {Variant: 10}, {Variant: 12}, {Variant: 13}}
				if name == "edges" {
					cfgs = append(cfgs, msmConfig{WindowBits: 13, Chunk: 2, MaxGroup: 4}, msmConfig{WindowBits: 6},
						msmConfig{WindowBits: 9, Chunk: 1, Variant: 11}, msmConfig{WindowBits: 9, Chunk: 3, Variant: 12},
						msmConfig{WindowBits: 13, Chunk: 2, MaxGroup: 4, Variant: 3}, msmConfig{WindowBits: 6, Variant: 4})
				}
				for _, cfg := range cfgs {
					for _, split := range []bool{false, true} {
						got, _, err := b.msm(split, s, &cfg)
						if err != nil {
							t.Fatal(err)
						}
						if g := affG2(&got); !g.Equal(&want) {
							t.Fatalf("%s %+v split=%v: got %v, want %v", name, cfg, split, g, want)
						}
					}
				}
			}
			// Batch addition.
			m := make([]uint64, (n+63)/64)
			for i := range m {
				m[i] = rand.Uint64()
			}
			want := sumSelectedG2(p, func(i int) bool { return m[i/64]>>(i%64)&1 == 1 })
			got, err := b.BatchAdd(m)
			if err != nil {
				t.Fatal(err)
			}
			if g := affG2(&got); !g.Equal(&want) {
				t.Fatalf("batch add: got %v, want %v", g, want)
			}
		})
	}
}

func TestMSMG2Repeated(t *testing.T) {
	q := randomG2Points(1)
	p := slices.Repeat(q, 700)
	b, err := UploadG2(p)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for name, s := range map[string][]fr.Element{"random": randomFr(700), "one": slices.Repeat(randomFr(1), 700)} {
		want := refMSMG2(t, p, s)
		for _, split := range []bool{false, true} {
			for _, variant := range []int{0, 2, 8, 12, 13, -1, -2, -3} {
				cfg := msmConfig{WindowBits: 8, Chunk: 3, Variant: variant}
				if variant < 0 {
					cfg = msmConfig{WindowBits: 8, Chunk: 3, Sort: -variant}
				}
				got, _, err := b.msm(split, s, &cfg)
				if err != nil {
					t.Fatal(err)
				}
				if g := affG2(&got); !g.Equal(&want) {
					t.Errorf("%s split=%v %+v: got %v, want %v", name, split, cfg, g, want)
				}
			}
		}
	}
}

// ---- errors --------------------------------------------------------------------

func TestMSMErrors(t *testing.T) {
	p := randomG1Points(10)
	b, err := UploadG1(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.MSM(randomFr(11)); err == nil {
		t.Error("11 scalars for 10 bases: no error")
	}
	if _, _, err := b.msm(false, randomFr(5), &msmConfig{WindowBits: 30}); err == nil ||
		errors.Is(err, ErrOutOfMemory) {
		t.Errorf("window bits 30: %v, want an invalid-argument error", err)
	}
	if _, _, err := b.msm(false, randomFr(5), &msmConfig{Sort: 4}); err == nil || errors.Is(err, ErrOutOfMemory) {
		t.Errorf("sort 4: %v, want an invalid-argument error", err)
	}
	if _, err := b.BatchAdd(make([]uint64, 2)); err == nil {
		t.Error("a 2-word bitmap for 10 bases: no error")
	}
	if _, err := b.BatchAddIndices([]uint32{1, 10}); err == nil {
		t.Error("index 10 of 10 bases: no error")
	}
	// Empty inputs are the point at infinity.
	if r, err := b.MSM(nil); err != nil || !r.Z.IsZero() {
		t.Errorf("MSM of nothing: %v, %v; want infinity", r, err)
	}
	if r, err := b.MSMSplit(make([]fr.Element, 10)); err != nil || !r.Z.IsZero() {
		t.Errorf("MSMSplit of zeros: %v, %v; want infinity", r, err)
	}
	if r, err := b.BatchAdd(nil); err != nil || !r.Z.IsZero() {
		t.Errorf("BatchAdd of nothing: %v, %v; want infinity", r, err)
	}
	if err := b.Trim(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.MSM(randomFr(10)); err != nil {
		t.Fatalf("MSM after Trim: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := b.MSM(randomFr(3)); !errors.Is(err, ErrClosed) {
		t.Errorf("MSM after Close: %v, want ErrClosed", err)
	}
	// More points than any device holds: out of memory, typed, and the device stays usable.
	_, err = GenerateG2(0, 1<<31-1, 1)
	if !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("2^31 G2 points: %v, want ErrOutOfMemory", err)
	}
	t.Logf("as expected: %v", err)
	b2, err := UploadG1(p)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	s := randomFr(10)
	want := refMSMG1(t, p, s)
	got, err := b2.MSM(s)
	if err != nil {
		t.Fatal(err)
	}
	if g := affG1(&got); !g.Equal(&want) {
		t.Fatalf("MSM after the failure: got %v, want %v", g, want)
	}
}

// ---- benchmarks ------------------------------------------------------------------

// TestMSMBench (FILC2_BENCH=1) times the MSM kernels on the device: device events
// around each run, two warm-ups, the median of 5 (ms), random inputs made on the device
// (never zeros), bases generated on the device. Lines start with BENCH; cuda/NOTES.md
// reads them. The window size is swept around the automatic choice (lines with c=).
// Correctness: at k ≤ 20 against gnark on the same inputs; above, the split MSM against
// the plain MSM on the same witness scalars.
func TestMSMBench(t *testing.T) {
	if os.Getenv("FILC2_BENCH") != "1" {
		t.Skip("set FILC2_BENCH=1")
	}
	const reps = 5
	med := func(ms []float32) float64 {
		s := slices.Clone(ms)
		slices.Sort(s)
		return float64(s[len(s)/2])
	}
	seed := rand.Uint64()
	for _, k := range []int{16, 20, 22, 24, 26} {
		n := 1 << k
		b, err := GenerateG1(0, n, seed)
		if err != nil {
			t.Fatal(err)
		}
		var w [maxWindows]bls.G1Jac
		wp := unsafe.Pointer(&w[0])
		ms, info, err := b.bench(benchMSM, n, seed, nil, reps, wp)
		if err != nil {
			t.Fatal(err)
		}
		auto := info.WindowBits
		fmt.Printf("BENCH msm g1 k=%d ms=%.3f c=%d min=%.3f max=%.3f\n", k, med(ms), auto, slices.Min(ms), slices.Max(ms))
		if k <= 20 {
			p, err := b.Points(0, n)
			if err != nil {
				t.Fatal(err)
			}
			s, err := deviceScalars(0, 0, n, seed)
			if err != nil {
				t.Fatal(err)
			}
			got := combineG1(w[:info.Windows], info.WindowBits)
			want := refMSMG1(t, p, s)
			if g := affG1(&got); !g.Equal(&want) {
				t.Errorf("bench k=%d: the MSM differs from gnark", k)
			}
		}
		for c := auto - 2; c <= min(auto+2, 23); c++ {
			if c == auto {
				continue
			}
			ms, _, err := b.bench(benchMSM, n, seed, &msmConfig{WindowBits: c}, reps, wp)
			if err != nil {
				t.Fatalf("k=%d c=%d: %v", k, c, err)
			}
			fmt.Printf("BENCH msm g1 k=%d c=%d ms=%.3f\n", k, c, med(ms))
		}
		if k >= 22 {
			for _, v := range []int{1, 2, 3, 4, 5, 6} {
				ms, _, err := b.bench(benchMSM, n, seed, &msmConfig{Variant: v}, reps, wp)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Printf("BENCH msm g1 k=%d c=%d variant=%d ms=%.3f\n", k, auto, v, med(ms))
			}
			for _, c := range []int{auto + 1, auto + 2} { // batch-affine: larger windows
				ms, _, err := b.bench(benchMSM, n, seed, &msmConfig{WindowBits: c, Variant: 2}, reps, wp)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Printf("BENCH msm g1 k=%d c=%d variant=2 ms=%.3f\n", k, c, med(ms))
			}
			ms, _, err := b.bench(benchSplit, n, seed, &msmConfig{Variant: 2}, reps, wp)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("BENCH msm-split g1 k=%d variant=2 ms=%.3f\n", k, med(ms))
		}
		if k == 24 {
			for _, chunk := range []int{8, 16, 64} {
				ms, _, err := b.bench(benchMSM, n, seed, &msmConfig{Chunk: chunk}, reps, wp)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Printf("BENCH msm g1 k=%d c=%d chunk=%d ms=%.3f\n", k, auto, chunk, med(ms))
			}
		}
		// Split MSM on witness scalars, checked against the plain MSM on the same ones.
		ms, info, err = b.bench(benchSplit, n, seed, nil, reps, wp)
		if err != nil {
			t.Fatal(err)
		}
		split := combineG1(w[:info.Windows], info.WindowBits)
		fmt.Printf("BENCH msm-split g1 k=%d ms=%.3f ones=%d tail=%d tail_c=%d\n", k, med(ms), info.Ones, info.Others,
			info.WindowBits)
		ms, info, err = b.bench(benchMSMWitness, n, seed, nil, 1, wp)
		if err != nil {
			t.Fatal(err)
		}
		plain := combineG1(w[:info.Windows], info.WindowBits)
		if a, c := affG1(&split), affG1(&plain); !a.Equal(&c) {
			t.Errorf("k=%d: split and plain MSM differ on witness scalars", k)
		}
		fmt.Printf("BENCH msm-witness-plain g1 k=%d ms=%.3f\n", k, med(ms))
		for _, op := range []int{benchBatchWitness, benchBatchAll} {
			ms, info, err := b.bench(op, n, seed, nil, reps, wp)
			if err != nil {
				t.Fatal(err)
			}
			m := med(ms)
			bytes := float64(info.Ones) * (96 + 8) // points and sorted indices read
			density := map[int]string{benchBatchWitness: "0.47", benchBatchAll: "1"}[op]
			fmt.Printf("BENCH batchadd g1 k=%d density=%s ms=%.3f GBps=%.0f points=%d\n", k, density, m,
				bytes/(m/1e3)/1e9, info.Ones)
		}
		db, _ := b.DeviceBytes()
		fmt.Printf("BENCH memory g1 k=%d device_GiB=%.1f\n", k, float64(db)/(1<<30))
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []int{16, 20, 22, 24} {
		n := 1 << k
		b, err := GenerateG2(0, n, seed)
		if err != nil {
			t.Fatal(err)
		}
		var w [maxWindows]bls.G2Jac
		wp := unsafe.Pointer(&w[0])
		ms, info, err := b.bench(benchMSM, n, seed, nil, reps, wp)
		if err != nil {
			t.Fatal(err)
		}
		auto := info.WindowBits
		fmt.Printf("BENCH msm g2 k=%d ms=%.3f c=%d min=%.3f max=%.3f\n", k, med(ms), auto, slices.Min(ms), slices.Max(ms))
		if k == 16 {
			p, err := b.Points(0, n)
			if err != nil {
				t.Fatal(err)
			}
			s, err := deviceScalars(0, 0, n, seed)
			if err != nil {
				t.Fatal(err)
			}
			got := combineG2(w[:info.Windows], info.WindowBits)
			want := refMSMG2(t, p, s)
			if g := affG2(&got); !g.Equal(&want) {
				t.Errorf("bench G2 k=%d: the MSM differs from gnark", k)
			}
		}
		if k >= 22 {
			for _, c := range []int{auto - 1, auto + 1} {
				ms, _, err := b.bench(benchMSM, n, seed, &msmConfig{WindowBits: c}, reps, wp)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Printf("BENCH msm g2 k=%d c=%d ms=%.3f\n", k, c, med(ms))
			}
			for _, v := range []int{2, 3, 4, 8} {
				ms, _, err := b.bench(benchMSM, n, seed, &msmConfig{Variant: v}, reps, wp)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Printf("BENCH msm g2 k=%d c=%d variant=%d ms=%.3f\n", k, auto, v, med(ms))
			}
		}
		ms, info, err = b.bench(benchSplit, n, seed, nil, reps, wp)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("BENCH msm-split g2 k=%d ms=%.3f ones=%d tail=%d\n", k, med(ms), info.Ones, info.Others)
		ms, info, err = b.bench(benchBatchWitness, n, seed, nil, reps, wp)
		if err != nil {
			t.Fatal(err)
		}
		m := med(ms)
		fmt.Printf("BENCH batchadd g2 k=%d density=0.47 ms=%.3f GBps=%.0f points=%d\n", k, m,
			float64(info.Ones)*(192+8)/(m/1e3)/1e9, info.Ones)
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMSMPhases (FILC2_BENCH=1) splits the G1 MSM of a 32GiB partition's H query
// (2^27 − 1 random scalars), 2^26 and 2^24 into their phases (device events between
// them) with the XYZZ first level: the atomic sort (sort=1, the default before session 13),
// the binned sort (sort=2), and the binned sort with all windows in one pass (sort_kib −1) and
// with c = 23, the radix sort (sort=3: its keys as hist, CUB's sort and the marks as scatter) as
// capped and in one pass; and the first level with the addition's equal-x case by value (variant 0,
// no local memory in its loop; the default since session 14) against it by reference (variant 7),
// and on the Karatsuba product (variant 9); then G2 at 2^24 and 2^22 as by default (variant 0,
// ZZ, ZZZ and the points in shared memory since session 25), all in registers (13, the default
// before), with the Fp2 product reduced three times (8) and with X, Y, R in shared memory too (12).
// (The batch-affine and FP64 first levels were measured in session 12,
// cuda/bench-msm-affine-phases-h100.txt; the sort caps in session 3, bench-msm-phases-h200.txt.)
// Lines start with BENCH msm-phases; acc0_Gmadd_s is the first level's rate of additions (n
// per window; the XYZZ floor is ~2.7 G/s at 10 Fp products each).
func TestMSMPhases(t *testing.T) {
	if os.Getenv("FILC2_BENCH") != "1" {
		t.Skip("set FILC2_BENCH=1")
	}
	const reps = 3
	seed := rand.Uint64()
	variants := map[int][]msmConfig{
		1<<27 - 1: {{Sort: 1}, {Sort: 2}, {Sort: 3}, {Sort: 2, SortKiB: -1}, {Sort: 3, SortKiB: -1},
			{Sort: 2, WindowBits: 23}, {Variant: 7, Sort: 1}, {Variant: 7, Sort: 2}, {Variant: 9, Sort: 1}},
		1 << 26: {{Sort: 1}, {Sort: 2}, {Sort: 3}, {Sort: 2, SortKiB: -1}, {Sort: 3, SortKiB: -1}, {Variant: 7, Sort: 2}},
		1 << 24: {{Sort: 1}, {Sort: 2}, {Sort: 3}, {Variant: 7, Sort: 2}},
	}
	// FILC2_MSM_PHASES_SORTS (e.g. "1,3,3:1"): only the default first level with those sorts
	// (SORT or SORT:MAXGROUP, at most MAXGROUP windows a pass), and no G2 (a short run).
	// FILC2_MSM_PHASES_VARIANTS (e.g. "0,11,12"): only those first levels with the default sort, for
	// G1 and then for G2 (in the order given, then reversed); "g2:0,13": for G2 only.
	g2cfgs := []msmConfig{{Variant: 13}, {}, {Variant: 13}, {}, {Variant: 8}, {Variant: 12}}
	sizes := []int{1<<27 - 1, 1 << 26, 1 << 24}
	if vs := os.Getenv("FILC2_MSM_PHASES_VARIANTS"); vs != "" {
		if rest, ok := strings.CutPrefix(vs, "g2:"); ok {
			vs, sizes = rest, nil
		}
		var cfgs []msmConfig
		for _, f := range strings.Split(vs, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || v < 0 || v > maxMSMVariant {
				t.Fatalf("FILC2_MSM_PHASES_VARIANTS=%q: want variants 0 to %d, comma-separated", vs, maxMSMVariant)
			}
			cfgs = append(cfgs, msmConfig{Variant: v})
		}
		for n := range variants {
			variants[n] = cfgs
		}
		g2cfgs = append(slices.Clone(cfgs), cfgs...)
		slices.Reverse(g2cfgs[len(cfgs):])
	}
	sorts := os.Getenv("FILC2_MSM_PHASES_SORTS")
	if sorts != "" {
		var cfgs []msmConfig
		for _, f := range strings.Split(sorts, ",") {
			sv, gv, grouped := strings.Cut(strings.TrimSpace(f), ":")
			v, err := strconv.Atoi(sv)
			g := 0
			if err == nil && grouped {
				g, err = strconv.Atoi(gv)
			}
			if err != nil || v < 1 || v > maxMSMSort || g < 0 {
				t.Fatalf("FILC2_MSM_PHASES_SORTS=%q: want SORT or SORT:MAXGROUP, sorts 1 to %d, comma-separated",
					sorts, maxMSMSort)
			}
			cfgs = append(cfgs, msmConfig{Sort: v, MaxGroup: g})
		}
		for n := range variants {
			variants[n] = cfgs
		}
	}
	for _, n := range sizes {
		b, err := GenerateG1(0, n, seed)
		if err != nil {
			t.Fatal(err)
		}
		var w [maxWindows]bls.G1Jac
		wp := unsafe.Pointer(&w[0])
		for _, cfg := range variants[n] {
			ms, ph, info, err := b.benchPhases(benchMSM, n, seed, &cfg, reps, wp)
			if err != nil {
				t.Fatalf("n=%d %+v: %v", n, cfg, err)
			}
			slices.Sort(ms)
			line := fmt.Sprintf("BENCH msm-phases n=%d variant=%d sort=%d sort_kib=%d max_group=%d chunk=%d c=%d windows=%d ms=%.1f",
				n, cfg.Variant, cfg.Sort, cfg.SortKiB, cfg.MaxGroup, cfg.Chunk, info.WindowBits, info.Windows, ms[reps/2])
			line += fmt.Sprintf(" sort=%.1f", (ph[1]+ph[6])/reps) // the whole sort, as before session 14
			for i, name := range msmPhaseNames {
				line += fmt.Sprintf(" %s=%.1f", name, ph[i]/reps)
			}
			acc0 := float64(ph[2]) / reps / 1e3
			line += fmt.Sprintf(" acc0_Gmadd_s=%.2f", float64(n)*float64(info.Windows)/acc0/1e9)
			fmt.Println(line)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// G2 at 2^24 and 2^22: the first level as by default (variant 0, the cold state in shared
	// memory since session 25) against all in registers (13, the default before) in both orders,
	// the Fp2 product reduced three times (8), and X, Y, R in shared memory too (12).
	if sorts != "" {
		return
	}
	for _, n := range []int{1 << 24, 1 << 22} {
		b, err := GenerateG2(0, n, seed)
		if err != nil {
			t.Fatal(err)
		}
		var w [maxWindows]bls.G2Jac
		wp := unsafe.Pointer(&w[0])
		// In both orders: session 14's two runs disagreed with the order swapped.
		for _, cfg := range g2cfgs {
			ms, ph, info, err := b.benchPhases(benchMSM, n, seed, &cfg, reps, wp)
			if err != nil {
				t.Fatalf("G2 n=%d %+v: %v", n, cfg, err)
			}
			slices.Sort(ms)
			line := fmt.Sprintf("BENCH msm-phases g2 n=%d variant=%d sort=%d c=%d windows=%d ms=%.1f", n, cfg.Variant,
				cfg.Sort, info.WindowBits, info.Windows, ms[reps/2])
			line += fmt.Sprintf(" sort=%.1f", (ph[1]+ph[6])/reps) // the whole sort, as before session 14
			for i, name := range msmPhaseNames {
				line += fmt.Sprintf(" %s=%.1f", name, ph[i]/reps)
			}
			line += fmt.Sprintf(" acc0_Gmadd_s=%.3f", float64(n)*float64(info.Windows)/(float64(ph[2])/reps/1e3)/1e9)
			fmt.Println(line)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMSMLent: the dense MSM with its sort's pair buffers in two lent device buffers (the
// H MSM's way, MSMDeviceLent) equals gnark's whatever the loans held before, and says it
// used both; a second loan too small for its buffer is left alone; bad loans are refused;
// a scratch reserved for lent calls runs them with as many windows a pass as an unlimited
// plan, and the same call unlent plans fewer windows there (or none: out of memory).
func TestMSMLent(t *testing.T) {
	const n = 1<<16 + 3
	p, b := basesG1(t, n)
	defer b.Close()
	s := randomFr(n)
	want := refMSMG1(t, p, s)
	dev := deviceFr(t, s)
	_, unlent, err := b.msm(false, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if unlent.PerPass < 1 || unlent.Lent != 0 {
		t.Fatalf("unlent MSM: %d windows a pass, %d buffers lent", unlent.PerPass, unlent.Lent)
	}
	elems := (n*unlent.PerPass*8 + fr.Bytes - 1) / fr.Bytes           // one pair buffer, in Fr elements
	loan := func(k int) *FrBuffer { return deviceFr(t, randomFr(k)) } // junk the call must not read
	l0, l1, short := loan(elems), loan(elems), loan(elems-1)
	for _, c := range []struct {
		name string
		lent []*FrBuffer
		want int
	}{{"both", []*FrBuffer{l0, l1}, 2}, {"second short", []*FrBuffer{l0, short}, 1}, {"first short", []*FrBuffer{short, l1}, 0},
		{"none", nil, 0}} {
		got, info, err := b.msmDeviceLent(dev.Pointer(), n, Lend{Buffers: c.lent})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if g := affG1(&got); !g.Equal(&want) {
			t.Fatalf("%s: got %v, want %v", c.name, g, want)
		}
		if info.Lent != c.want || info.PerPass != unlent.PerPass {
			t.Errorf("%s: %d buffers lent (want %d), %d windows a pass (want %d)", c.name, info.Lent, c.want,
				info.PerPass, unlent.PerPass)
		}
	}
	if _, _, err := b.msmDeviceLent(dev.Pointer(), n, Lend{Buffers: []*FrBuffer{l0, l1, short}}); err == nil {
		t.Error("three loans: no error")
	}
	if _, _, err := b.msmDeviceLent(dev.Pointer(), n, Lend{Buffers: []*FrBuffer{dev, l1}}); err == nil ||
		errors.Is(err, ErrOutOfMemory) {
		t.Errorf("the scalars lent: %v, want an invalid-argument error", err)
	}
	if _, _, err := b.msmDeviceLent(dev.Pointer(), n, Lend{Buffers: []*FrBuffer{l0, l0}}); err == nil ||
		errors.Is(err, ErrOutOfMemory) {
		t.Errorf("one buffer lent twice: %v, want an invalid-argument error", err)
	}
	// The scalars lent too: prepared in place (a copy, since they are overwritten).
	cp := deviceFr(t, s)
	if got, _, err := b.msmDeviceLent(cp.Pointer(), n, Lend{Buffers: []*FrBuffer{l0, l1}, Scalars: true}); err != nil {
		t.Fatal(err)
	} else if g := affG1(&got); !g.Equal(&want) {
		t.Fatalf("scalars lent: got %v, want %v", g, want)
	}

	// A scratch reserved for lent calls.
	r, err := UploadG1(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	reserved, err := r.reserveScratchLent(n, Lend{Buffers: []*FrBuffer{l0, l1}})
	if err != nil {
		t.Fatal(err)
	}
	got, info, err := r.msmDeviceLent(dev.Pointer(), n, Lend{Buffers: []*FrBuffer{l0, l1}})
	if err != nil {
		t.Fatal(err)
	}
	if g := affG1(&got); !g.Equal(&want) {
		t.Fatalf("reserved, lent: got %v, want %v", g, want)
	}
	if info.Lent != 2 || info.PerPass != unlent.PerPass {
		t.Errorf("reserved, lent: %d buffers lent, %d windows a pass (want 2, %d)", info.Lent, info.PerPass, unlent.PerPass)
	}
	// Unlent in the same scratch: fewer windows a pass, or chunks where one window does not fit.
	got, info, err = r.msmDeviceLent(dev.Pointer(), n, Lend{})
	if err != nil {
		t.Fatalf("reserved, unlent: %v", err)
	}
	if g := affG1(&got); !g.Equal(&want) {
		t.Fatalf("reserved, unlent: got %v, want %v", g, want)
	}
	if info.PerPass >= unlent.PerPass && info.Chunks == 0 {
		t.Errorf("reserved, unlent: %d windows a pass at once in a scratch of %d bytes reserved for lent calls (unlimited: %d)",
			info.PerPass, reserved, unlent.PerPass)
	}
	if after, err := r.DeviceBytes(); err != nil || after-uint64(n)*96 != reserved {
		t.Errorf("the reserved scratch: %d bytes reserved, the handle now %d bytes with its points (%v)", reserved, after, err)
	}

	// Chunks: a handle working in a scratch reserved for a 64th of its scalars (shared from a
	// small handle) runs dense and split MSMs of uniform scalars in chunks, and gets them right.
	small, err := UploadG1(p[:n/64])
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	if _, err := small.reserveScratch(n/64, true); err != nil {
		t.Fatal(err)
	}
	c, err := UploadG1(p)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.shareScratch(&small.handle); err != nil {
		t.Fatal(err)
	}
	for _, split := range []bool{false, true} {
		got, info, err := c.msm(split, s, nil)
		if err != nil {
			t.Fatalf("split %v in a small scratch: %v", split, err)
		}
		if g := affG1(&got); !g.Equal(&want) {
			t.Fatalf("split %v in a small scratch (%d chunks): got %v, want %v", split, info.Chunks, g, want)
		}
		if info.Chunks < 2 {
			t.Errorf("split %v of %d uniform scalars in a scratch reserved for %d: %d chunks, want several", split, n, n/64,
				info.Chunks)
		}
	}
}

// deviceFr is x uploaded to device 0, freed when the test ends.
func deviceFr(t *testing.T, x []fr.Element) *FrBuffer {
	t.Helper()
	b, err := AllocFr(0, len(x))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Free() })
	if err := b.Upload(x); err != nil {
		t.Fatal(err)
	}
	return b
}

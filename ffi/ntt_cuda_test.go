//go:build cuda

package ffi

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/filc2/filc2/internal/refh"
)

// GPU tests of the Fr NTT (ntt_cuda.go, cuda/ntt/) against gnark-crypto's fft, and of the
// H pipeline against bellperson's seven-transform route (internal/refh). Fresh random
// inputs every run; device outputs are poisoned first (host side, and device side for
// out-of-place runs).

var nttSizes = []int{1, 2, 3, 5, 10, 11, 16, 20, 22}

var nttOrders = []Order{OrderNN, OrderNR, OrderRN}

// gnarkNTT is the reference for a transform of x as the device receives it (bit-reversed
// for OrderRN): gnark's FFT/FFTInverse with DIF (NR), DIT (RN), or DIF then BitReverse (NN).
func gnarkNTT(dom *fft.Domain, x []fr.Element, inverse, coset bool, order Order) []fr.Element {
	w := slices.Clone(x)
	var opts []fft.Option
	if coset {
		opts = append(opts, fft.OnCoset())
	}
	dec := fft.DIF
	if order == OrderRN {
		dec = fft.DIT
	}
	if inverse {
		dom.FFTInverse(w, dec, opts...)
	} else {
		dom.FFT(w, dec, opts...)
	}
	if order == OrderNN {
		fft.BitReverse(w)
	}
	return w
}

// fastFr returns n uniform-ish random elements (random limbs below the modulus; every
// value is a valid Montgomery form), fast enough for 2^22-point inputs (fr's SetRandom
// reads crypto/rand per element). Never zero in practice.
func fastFr(n int) []fr.Element {
	v := make([]fr.Element, n)
	for i := range v {
		v[i] = fr.Element{rand.Uint64(), rand.Uint64(), rand.Uint64(), rand.Uint64N(0x73eda753299d7d48)}
	}
	return v
}

func frShow(got, want []fr.Element) func(i int) string {
	return func(i int) string { return fmt.Sprintf("got %s want %s", got[i].String(), want[i].String()) }
}

func newTestDomain(t *testing.T, k int, o DomainOptions) *Domain {
	t.Helper()
	d, err := NewDomainWith(k, o)
	if err != nil {
		t.Fatalf("NewDomain(%d, %+v): %v", k, o, err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// TestNTTGenerator: bellperson's ω (spec §6.2) is gnark's, and the device's is too.
func TestNTTGenerator(t *testing.T) {
	w27, err := fft.Generator(1 << 27)
	if err != nil {
		t.Fatal(err)
	}
	var spec fr.Element
	if _, err := spec.SetString("0x23397a9300f8f98bece8ea224f31d25db94f1101b1d7a628e2d0a7869f0319ed"); err != nil {
		t.Fatal(err)
	}
	if !w27.Equal(&spec) {
		t.Fatalf("gnark's 2^27 generator %s is not bellperson's %s", w27.String(), spec.String())
	}
	for _, k := range append(slices.Clone(nttSizes), 27) {
		d := newTestDomain(t, k, DomainOptions{Compact: true})
		info, err := d.Info()
		if err != nil {
			t.Fatal(err)
		}
		want, err := fft.Generator(1 << k)
		if err != nil {
			t.Fatal(err)
		}
		var inv fr.Element
		inv.Inverse(&want)
		if !info.Omega.Equal(&want) || !info.OmegaInv.Equal(&inv) {
			t.Errorf("k=%d: device ω %s, ω⁻¹ %s; want %s, %s", k, info.Omega.String(), info.OmegaInv.String(),
				want.String(), inv.String())
		}
		_ = d.Close()
	}
}

// checkNTT compares every (inverse, coset, order) of one domain with gnark, out of place
// and in place.
func checkNTT(t *testing.T, d *Domain, combos int) {
	t.Helper()
	k := d.LogN()
	n := 1 << k
	dom := fft.NewDomain(uint64(n))
	pick := map[int]bool{} // combos of the 12: a stride coprime with 12 mixes directions, cosets and orders
	for i := 0; i < combos; i++ {
		pick[(i*5+k)%12] = true
	}
	count := -1
	for _, inverse := range []bool{false, true} {
		for _, coset := range []bool{false, true} {
			for _, order := range nttOrders {
				count++
				if combos > 0 && combos < 12 && !pick[count] {
					continue
				}
				for _, inPlace := range []bool{false, true} {
					x := fastFr(n)
					want := gnarkNTT(dom, x, inverse, coset, order)
					got := make([]fr.Element, n)
					poison(got)
					var err error
					if inPlace {
						err = d.nttInPlace(got, x, inverse, coset, order)
					} else {
						err = d.NTTOrder(got, x, inverse, coset, order)
					}
					if err != nil {
						t.Fatalf("k=%d inverse=%v coset=%v order=%v: %v", k, inverse, coset, order, err)
					}
					what := fmt.Sprintf("k=%d inverse=%v coset=%v order=%v in_place=%v", k, inverse, coset, order, inPlace)
					mismatches(t, what, got, want, frShow(got, want))
				}
			}
		}
	}
}

// TestNTT: every size of the brief, every direction, coset and order, against gnark.
func TestNTT(t *testing.T) {
	for _, k := range nttSizes {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) { checkNTT(t, newTestDomain(t, k, DomainOptions{}), 0) })
	}
}

// TestNTTThreadElems: the kernels of 8 elements a thread (3-bit and 2-bit rounds, 2^11-element
// passes) at every size of the brief against gnark, as TestNTT checks the default's (4 a
// thread: 2-bit and 1-bit rounds, 2^10-element passes at most); the plans report which ran.
func TestNTTThreadElems(t *testing.T) {
	for _, k := range nttSizes {
		for _, e := range []int{0, 8} {
			t.Run(fmt.Sprintf("k=%d/elems=%d", k, e), func(t *testing.T) {
				d := newTestDomain(t, k, DomainOptions{ThreadElems: e})
				info, err := d.Info()
				if err != nil {
					t.Fatal(err)
				}
				if want := map[int]int{0: 4, 8: 8}[e]; info.ThreadElems != want {
					t.Fatalf("ThreadElems %d: the plan holds %d elements a thread, want %d", e, info.ThreadElems, want)
				}
				if e != 0 {
					checkNTT(t, d, 0)
				}
			})
		}
	}
}

// TestNTTPlans: other pass plans (2–4 passes, other block shapes, the compact table) on
// the device, which the default plans of the sizes above do not all reach.
func TestNTTPlans(t *testing.T) {
	cases := []struct {
		k int
		o DomainOptions
	}{
		{11, DomainOptions{MaxPassLog: 11, ThreadElems: 8}},
		{13, DomainOptions{MaxPassLog: 7, TileLog: 9}},
		{12, DomainOptions{MaxPassLog: 6, TileLog: 8, ThreadElems: 8}},
		{16, DomainOptions{MaxPassLog: 5, TileLog: 7, ThreadElems: 8}},
		{16, DomainOptions{MaxPassLog: 8, TileLog: 11, Compact: true, ThreadElems: 8}},
		{16, DomainOptions{MaxPassLog: 6, TileLog: 8, Greedy: true, ThreadElems: 8}},
		{19, DomainOptions{MaxPassLog: 7, TileLog: 11, Greedy: true, ThreadElems: 8}},
		{18, DomainOptions{MaxPassLog: 9, TileLog: 9, ThreadElems: 8}},
		{20, DomainOptions{MaxPassLog: 5, TileLog: 11, ThreadElems: 8}},
		{20, DomainOptions{Compact: true, ThreadElems: 8}},
		{21, DomainOptions{MaxPassLog: 7, ThreadElems: 8}},
		{22, DomainOptions{MaxPassLog: 11, TileLog: 11, ThreadElems: 8}},
		{16, DomainOptions{MaxPassLog: 5, TileLog: 7}},
		{19, DomainOptions{MaxPassLog: 7, TileLog: 11, Greedy: true, ThreadElems: 4}},
		{20, DomainOptions{MaxPassLog: 5, TileLog: 9}},
		{20, DomainOptions{Compact: true}},
		{22, DomainOptions{MaxPassLog: 11, TileLog: 11}},
	}
	if testing.Short() {
		cases = cases[:4]
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("k=%d/%+v", c.k, c.o), func(t *testing.T) {
			d := newTestDomain(t, c.k, c.o)
			info, err := d.Info()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("plan %v lines %v, tables %d B", info.PassBits, info.PassLines, info.TableBytes)
			combos := 12
			if c.k >= 20 {
				combos = 4
			}
			checkNTT(t, d, combos)
		})
	}
}

// TestNTTRoundTrip: inverse ∘ forward is the identity, plain and on the coset, through
// natural order and through the bit-reversed one (NR forward, RN inverse).
func TestNTTRoundTrip(t *testing.T) {
	for _, k := range []int{1, 4, 5, 13, 20} {
		d := newTestDomain(t, k, DomainOptions{})
		n := 1 << k
		for _, coset := range []bool{false, true} {
			x := fastFr(n)
			y := make([]fr.Element, n)
			z := make([]fr.Element, n)
			for _, path := range [][2]Order{{OrderNN, OrderNN}, {OrderNR, OrderRN}} {
				poison(y)
				poison(z)
				if err := d.NTTOrder(y, x, false, coset, path[0]); err != nil {
					t.Fatal(err)
				}
				if err := d.NTTOrder(z, y, true, coset, path[1]); err != nil {
					t.Fatal(err)
				}
				mismatches(t, fmt.Sprintf("k=%d coset=%v %v→%v", k, coset, path[0], path[1]), z, x, frShow(z, x))
			}
		}
	}
}

// constraintLike returns evaluations shaped like a proof's: random up to used, zero padding.
func constraintLike(n, used int) []fr.Element {
	v := fastFr(n)
	for i := used; i < n; i++ {
		v[i].SetZero()
	}
	return v
}

func checkH(t *testing.T, d *Domain, used int) {
	t.Helper()
	n := d.Size()
	a, b, c := constraintLike(n, used), constraintLike(n, used), constraintLike(n, used)
	want := refh.H(fft.NewDomain(uint64(n)), slices.Clone(a), slices.Clone(b), slices.Clone(c))
	got, err := d.H(a, b, c)
	if err != nil {
		t.Fatalf("H k=%d: %v", d.LogN(), err)
	}
	if len(got) != n-1 {
		t.Fatalf("H k=%d: %d coefficients, want %d", d.LogN(), len(got), n-1)
	}
	mismatches(t, fmt.Sprintf("H k=%d used=%d", d.LogN(), used), got, want, frShow(got, want))
}

// TestHPipeline: the device H equals bellperson's seven-transform H (refh.H) for m = 2^10,
// 2^16, 2^20 (the brief), small and odd plans, dense and padded inputs; and HPipeline's
// convenience path.
func TestHPipeline(t *testing.T) {
	for _, k := range []int{10, 16, 20} {
		d := newTestDomain(t, k, DomainOptions{})
		n := 1 << k
		checkH(t, d, n)
		checkH(t, d, n/2+n/5)
	}
	for _, c := range []struct {
		k int
		o DomainOptions
	}{
		{1, DomainOptions{}}, {2, DomainOptions{}}, {4, DomainOptions{}}, {5, DomainOptions{}}, {7, DomainOptions{}},
		{11, DomainOptions{}}, {15, DomainOptions{MaxPassLog: 5}}, {16, DomainOptions{Compact: true}},
		{17, DomainOptions{MaxPassLog: 6, TileLog: 11}}, {22, DomainOptions{}},
		{7, DomainOptions{ThreadElems: 8}}, {15, DomainOptions{MaxPassLog: 5, ThreadElems: 8}},
		{16, DomainOptions{Compact: true, ThreadElems: 8}}, {22, DomainOptions{ThreadElems: 8}},
	} {
		d := newTestDomain(t, c.k, c.o)
		checkH(t, d, (1<<c.k)-1)
	}
	// HPipeline: a domain for the occasion.
	n := 1 << 12
	a, b, c := constraintLike(n, 3000), constraintLike(n, 3000), constraintLike(n, 3000)
	want := refh.H(fft.NewDomain(uint64(n)), slices.Clone(a), slices.Clone(b), slices.Clone(c))
	got, err := HPipeline(a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	mismatches(t, "HPipeline 2^12", got, want, frShow(got, want))
}

// TestNTTDeviceBuffers: the backend's path — device buffers, the domain's stream, Sync.
func TestNTTDeviceBuffers(t *testing.T) {
	const k = 14
	n := 1 << k
	d := newTestDomain(t, k, DomainOptions{})
	dom := fft.NewDomain(uint64(n))
	if s, err := d.Stream(); err != nil || s == nil {
		t.Fatalf("Stream: %v, %v", s, err)
	}
	x := fastFr(n)
	src := deviceFr(t, x)
	dst, err := AllocFr(0, n)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Free()
	if err := d.NTTDevice(dst, src, false, true, OrderNR); err != nil {
		t.Fatal(err)
	}
	if err := d.NTTDevice(dst, dst, true, false, OrderRN); err != nil { // in place
		t.Fatal(err)
	}
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
	got := make([]fr.Element, n)
	poison(got)
	if err := dst.Download(got); err != nil {
		t.Fatal(err)
	}
	want := gnarkNTT(dom, gnarkNTT(dom, x, false, true, OrderNR), true, false, OrderRN)
	mismatches(t, "device coset NR then inverse RN", got, want, frShow(got, want))
	back := make([]fr.Element, n)
	if err := src.Download(back); err != nil {
		t.Fatal(err)
	}
	mismatches(t, "source untouched", back, x, frShow(back, x))

	// H through device buffers.
	bufs := make([]*FrBuffer, 3)
	in := make([][]fr.Element, 3)
	for i := range bufs {
		if bufs[i], err = AllocFr(0, n); err != nil {
			t.Fatal(err)
		}
		defer bufs[i].Free()
		in[i] = constraintLike(n, n-100)
		if err := bufs[i].Upload(in[i]); err != nil {
			t.Fatal(err)
		}
	}
	hb, err := d.HDevice(bufs[0], bufs[1], bufs[2])
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
	h := make([]fr.Element, n)
	poison(h)
	if err := hb.Download(h); err != nil {
		t.Fatal(err)
	}
	wantH := refh.H(dom, in[0], in[1], in[2])
	mismatches(t, "HDevice", h[:n-1], wantH, frShow(h, wantH))
}

// TestNTTErrors: bad arguments are typed errors, caught before any device work.
func TestNTTErrors(t *testing.T) {
	isInvalid := func(err error) bool {
		var e *Error
		return errors.As(err, &e) && e.Code == codeInvalidArgument
	}
	for _, k := range []int{0, -1, 29} {
		if _, err := NewDomain(k); !isInvalid(err) {
			t.Errorf("NewDomain(%d): %v, want an invalid-argument error", k, err)
		}
	}
	if _, err := NewDomainWith(10, DomainOptions{MaxPassLog: 4}); !isInvalid(err) {
		t.Errorf("MaxPassLog 4: %v", err)
	}
	for _, e := range []int{1, 2, 16, -4} {
		if _, err := NewDomainWith(10, DomainOptions{ThreadElems: e}); !isInvalid(err) {
			t.Errorf("ThreadElems %d: %v", e, err)
		}
	}
	d := newTestDomain(t, 6, DomainOptions{})
	if err := d.NTT(make([]fr.Element, 63), make([]fr.Element, 64), false, false); !isInvalid(err) {
		t.Errorf("short dst: %v", err)
	}
	if err := d.NTTOrder(make([]fr.Element, 64), make([]fr.Element, 64), false, false, Order(7)); !isInvalid(err) {
		t.Errorf("bad order: %v", err)
	}
	if _, err := d.H(make([]fr.Element, 64), make([]fr.Element, 64), make([]fr.Element, 32)); !isInvalid(err) {
		t.Errorf("short c: %v", err)
	}
	small, err := AllocFr(0, 32)
	if err != nil {
		t.Fatal(err)
	}
	defer small.Free()
	if err := d.NTTDevice(small, small, false, false, OrderNR); !isInvalid(err) {
		t.Errorf("short device buffer: %v", err)
	}
	if _, err := d.HDevice(small, small, small); !isInvalid(err) {
		t.Errorf("H on one buffer: %v", err)
	}
	if _, err := HPipeline(make([]fr.Element, 6), make([]fr.Element, 6), make([]fr.Element, 6)); !isInvalid(err) {
		t.Errorf("H of 6 points: %v", err)
	}
	_ = d.Close()
	if err := d.NTT(make([]fr.Element, 64), make([]fr.Element, 64), false, false); !isInvalid(err) {
		t.Errorf("closed domain: %v", err)
	}
}

func medianMs(t *testing.T, d *Domain, op, reps int) float64 {
	t.Helper()
	ms, err := d.nttBench(op, reps)
	if err != nil {
		t.Fatalf("bench op %d k=%d: %v", op, d.LogN(), err)
	}
	s := slices.Clone(ms)
	slices.Sort(s)
	return float64(s[len(s)/2])
}

func planString(bits []int) string {
	parts := make([]string, len(bits))
	for i, b := range bits {
		parts[i] = fmt.Sprint(b)
	}
	return strings.Join(parts, "+")
}

// TestNTTBench times the transforms and the H pipeline (FILC2_BENCH=1): device events,
// two warm-ups, the median of 7, random device-made inputs. Lines start with BENCH.
// Memory: at 2^27 the H pipeline holds 3 × 4 GiB plus the 2 GiB table.
// FILC2_NTT_BENCH_LOGS (e.g. "24,27") times only those sizes and no plan variants (a
// profiler's short run).
func TestNTTBench(t *testing.T) {
	if os.Getenv("FILC2_BENCH") != "1" {
		t.Skip("set FILC2_BENCH=1 to time the NTT")
	}
	const reps = 7
	logs, only := []int{16, 20, 22, 24, 26, 27}, os.Getenv("FILC2_NTT_BENCH_LOGS")
	if only != "" {
		logs = nil
		for _, f := range strings.Split(only, ",") {
			k, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || k < 1 || k > 28 {
				t.Fatalf("FILC2_NTT_BENCH_LOGS=%q: want sizes 1 to 28 (log2), comma-separated", only)
			}
			logs = append(logs, k)
		}
	}
	for _, k := range logs {
		d := newTestDomain(t, k, DomainOptions{})
		info, err := d.Info()
		if err != nil {
			t.Fatal(err)
		}
		fwd := medianMs(t, d, nttBenchFwd, reps)
		inv := medianMs(t, d, nttBenchInv, reps)
		coset := medianMs(t, d, nttBenchCoset, reps)
		fmt.Printf("BENCH ntt k=%d fwd_ms=%.3f inv_ms=%.3f coset_ms=%.3f\n", k, fwd, inv, coset)
		h := medianMs(t, d, nttBenchH, reps)
		fmt.Printf("BENCH h-pipeline k=%d ms=%.3f\n", k, h)
		rn := medianMs(t, d, nttBenchFwdRN, reps)
		cosetRN := medianMs(t, d, nttBenchCosetRN, reps)
		nn := medianMs(t, d, nttBenchFwdNN, reps)
		cosetInv := medianMs(t, d, nttBenchCosetInv, reps)
		muls := nttProducts(info.PassBits, false, info.ThreadElems) * float64(int64(1)<<k)
		fmt.Printf("BENCH ntt-detail k=%d plan=%s lines=%v tables_MiB=%.1f fwd_rn_ms=%.3f coset_rn_ms=%.3f nn_ms=%.3f coset_inv_ms=%.3f muls_per_elem=%.3f fwd_Gmul_s=%.1f fwd_GB_s=%.0f\n",
			k, planString(info.PassBits), info.PassLines, float64(info.TableBytes)/(1<<20), rn, cosetRN, nn, cosetInv,
			muls/float64(int64(1)<<k), muls/(fwd/1e3)/1e9,
			float64(len(info.PassBits))*2*32*float64(int64(1)<<k)/(fwd/1e3)/1e9)
		_ = d.Close()
	}
	// Plan variants: which elements a thread, pass split, block size and table to keep (the
	// default plans hold 4 elements a thread: 8+7+7 at 2^22, 8+8+8 at 2^24, 9+9+9 at 2^27, blocks
	// of 2^10 elements).
	if only != "" {
		return
	}
	variants := map[int][]DomainOptions{
		16: {{ThreadElems: 8}},
		20: {{ThreadElems: 8}},
		22: {{ThreadElems: 8}, {MaxPassLog: 11, ThreadElems: 8}, {TileLog: 11, ThreadElems: 8}},
		24: {{ThreadElems: 8}, {TileLog: 9}, {Compact: true}, {MaxPassLog: 9, Greedy: true},
			{TileLog: 11, ThreadElems: 8}, {Compact: true, ThreadElems: 8}},
		26: {{ThreadElems: 8}, {TileLog: 9}},
		27: {{ThreadElems: 8}, {TileLog: 9}, {Compact: true}, {TileLog: 11, ThreadElems: 8}},
	}
	if v := os.Getenv("FILC2_NTT_BENCH_VARIANTS"); v == "eight" {
		// only 8 elements a thread beside the default plans (a short device call)
		for k, vs := range variants {
			variants[k] = slices.DeleteFunc(vs, func(o DomainOptions) bool { return o != DomainOptions{ThreadElems: 8} })
		}
	}
	for _, k := range []int{16, 20, 22, 24, 26, 27} {
		for _, o := range variants[k] {
			d := newTestDomain(t, k, o)
			info, err := d.Info()
			if err != nil {
				t.Fatal(err)
			}
			fwd := medianMs(t, d, nttBenchFwd, 5)
			cosetRN := medianMs(t, d, nttBenchCosetRN, 5)
			h := medianMs(t, d, nttBenchH, 5)
			fmt.Printf("BENCH ntt-variant k=%d max_pass=%d tile=%d compact=%v greedy=%v thread_elems=%d plan=%s lines=%v fwd_ms=%.3f coset_rn_ms=%.3f h_ms=%.3f muls_per_elem=%.3f fwd_Gmul_s=%.1f\n",
				k, o.MaxPassLog, o.TileLog, o.Compact, o.Greedy, info.ThreadElems, planString(info.PassBits), info.PassLines,
				fwd, cosetRN, h, nttProducts(info.PassBits, o.Compact, info.ThreadElems),
				nttProducts(info.PassBits, o.Compact, info.ThreadElems)*float64(int64(1)<<k)/(fwd/1e3)/1e9)
			_ = d.Close()
		}
	}
}

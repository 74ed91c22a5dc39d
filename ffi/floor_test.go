package ffi

import (
	"math"
	"testing"
)

// The products of the NTT plans whose counts cuda/NOTES.md states (sessions 18 and 20):
// 2^27 in three 9-bit passes is 13.25 an element with 4 elements a thread (rounds of
// 1+2+2+2+2 bits, 3.75 a pass) and 12.875 with 8 (3+3+3, 3.625 a pass), both under the
// radix-2 count of 13.5.
func TestNTTProducts(t *testing.T) {
	for _, c := range []struct {
		bits    []int
		compact bool
		elems   int
		want    float64
	}{
		{[]int{9, 9, 9}, false, 4, 13.25},
		{[]int{9, 9, 9}, false, 8, 12.875},
		{[]int{9, 9, 9}, true, 4, 14.25},                             // the compact first pass twists twice
		{[]int{8, 8, 8}, false, 4, 11.75},                            // 2+2+2+2: 1 + 3·0.75 a pass, 2 pass twists
		{[]int{8, 8, 8}, false, 8, 11.375},                           // 2+3+3: 1.5 + 0.75 + 0.875 a pass
		{[]int{1}, false, 4, 0},                                      // one 2-point DFT: additions only
		{[]int{2}, false, 4, 0.25},                                   // one 4-point DFT: the product by ω4
		{[]int{3}, false, 8, 0.625},                                  // one 8-point DFT
		{[]int{10, 10}, false, 4, 5*.25 + 4*.75 + 1 + 5*.25 + 4*.75}, // 2+2+2+2+2 twice, one pass twist
	} {
		if got := nttProducts(c.bits, c.compact, c.elems); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("nttProducts(%v, compact %v, %d a thread) = %v, want %v", c.bits, c.compact, c.elems, got, c.want)
		}
	}
	// Never above radix 2's n/2·log n products (every twiddle a product) at the sizes the
	// prover plans.
	for k, bits := range map[int][]int{22: {8, 7, 7}, 24: {8, 8, 8}, 26: {9, 9, 8}, 27: {9, 9, 9}} {
		for _, e := range []int{4, 8} {
			if got := nttProducts(bits, false, e); got >= float64(k)/2 {
				t.Errorf("2^%d %v, %d a thread: %v products an element, radix 2 makes %v", k, bits, e, got, float64(k)/2)
			}
		}
	}
}

func TestFloorMs(t *testing.T) {
	f := Floor{Products: 3e9, MulRate: 1.5e12}
	if got := f.Ms(); math.Abs(got-2) > 1e-12 {
		t.Errorf("3e9 products at 1.5 T/s: %v ms, want 2", got)
	}
	f.Squares, f.SqrRate = 1e9, 2e12
	if got := f.Ms(); math.Abs(got-2.5) > 1e-12 {
		t.Errorf("with 1e9 squarings at 2 T/s: %v ms, want 2.5", got)
	}
	if got := (Floor{Products: 1, Squares: 1, MulRate: 1}).Ms(); got != 0 {
		t.Errorf("squarings without their rate: %v ms, want 0 (no floor)", got)
	}
	if got := (Floor{Products: 1}).Ms(); got != 0 {
		t.Errorf("no rate: %v ms, want 0", got)
	}
	// A G1 MSM of 2^27 points in 12 windows at the H100's chained rates (cuda/NOTES.md:
	// Fp products 27.2 G/s): 2^27·12 mixed additions of 8 products and 2 squarings.
	m := msmFloor("Fp", 1<<27, 12, 27.2e9, 27.2e9)
	if m.Products != 8*12*(1<<27) || m.Squares != 2*12*(1<<27) || m.PerElement != 10 || m.Field != "Fp" {
		t.Fatalf("msmFloor: %+v", *m)
	}
	if got, want := m.Ms(), 10*12*float64(1<<27)/27.2e9*1e3; math.Abs(got-want) > 1e-9 {
		t.Errorf("G1 2^27 floor %v ms, want %v", got, want)
	}
}

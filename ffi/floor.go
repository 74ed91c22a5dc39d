package ffi

// Floor is the multiply floor of a kernel benchmark: the field products (and squarings)
// its arithmetic cannot do without, and the rates of that field's product and squaring
// measured on the same device by the chained probe (two independent chains of 64 an
// element: no memory traffic to speak of). Floor.Ms is the time those products take at
// those rates; a kernel's time over it says how far the kernel is from its arithmetic.
type Floor struct {
	// Field is the field whose products are counted: "Fr" (the NTT), "Fp" (a G1 MSM) or
	// "Fp2" (a G2 MSM).
	Field string
	// Products and Squares are a run's counts; PerElement is their sum per element (NTT)
	// or per point and window (MSM).
	Products, Squares, PerElement float64
	// MulRate and SqrRate are the device's products and squarings per second.
	MulRate, SqrRate float64
	// Model says what was counted.
	Model string
}

// Ms is the floor in milliseconds: Products at MulRate plus Squares at SqrRate (0 where a
// rate is missing).
func (f Floor) Ms() float64 {
	if f.MulRate <= 0 || (f.Squares > 0 && f.SqrRate <= 0) {
		return 0
	}
	s := f.Products / f.MulRate
	if f.Squares > 0 {
		s += f.Squares / f.SqrRate
	}
	return s * 1e3
}

// msmFloor is the first level of a Pippenger MSM of n points in w windows: one mixed XYZZ
// addition a point and window (madd-2008-s, 8 products and 2 squarings, cuda/msm/point.cuh),
// the bucket sort and reduction not counted.
func msmFloor(field string, n uint64, w int, mulRate, sqrRate float64) *Floor {
	madds := float64(n) * float64(w)
	return &Floor{Field: field, Products: 8 * madds, Squares: 2 * madds, PerElement: 10, MulRate: mulRate,
		SqrRate: sqrRate, Model: "a mixed XYZZ addition a point and window: 8 products, 2 squarings"}
}

// nttProducts is the number of Fr products of one plain forward transform per element,
// by its plan (cuda/ntt/plan.cuh): a pass of s bits runs in rounds of le bits (le = 3 for
// 8 elements a thread, 2 for 4), after s mod 3 rounds of 2 bits (le = 3) or s mod 2 rounds
// of 1 bit (le = 2); a round costs its register DFT's products (5/8 an element for 3 bits,
// 1/4 for 2, none for 1) and, in every round of a pass but its last, its round twist (every
// register whose digit is not 0: 1 − 2^−r an element); every pass but the last ends with
// its pass twist (1 an element; 2 for the compact plan's first pass).
func nttProducts(passBits []int, compact bool, threadElems int) float64 {
	le := 3
	if threadElems == 4 {
		le = 2
	}
	dft := [4]float64{0, 0, 1.0 / 4, 5.0 / 8}
	total := 0.0
	for p, s := range passBits {
		shorts := s % 2
		if le == 3 {
			shorts = [3]int{0, 2, 1}[s%3]
		}
		var rs []int
		for range shorts {
			rs = append(rs, le-1)
		}
		for left := s - (le-1)*shorts; left > 0; left -= le {
			rs = append(rs, le)
		}
		for i, r := range rs {
			total += dft[r]
			if i+1 < len(rs) {
				total += 1 - 1/float64(int(1)<<r)
			}
		}
		if p+1 < len(passBits) {
			total++
			if p == 0 && compact {
				total++
			}
		}
	}
	return total
}

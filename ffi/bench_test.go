package ffi

import "testing"

func TestKernelBenchMedian(t *testing.T) {
	for _, c := range []struct {
		ms   []float32
		want float64
	}{
		{nil, 0},
		{[]float32{2}, 2},
		{[]float32{3, 1, 2}, 2},
		{[]float32{4, 1, 3, 2}, 3},
	} {
		b := KernelBench{Ms: c.ms}
		if got := b.MedianMs(); got != c.want {
			t.Errorf("median of %v: %v, want %v", c.ms, got, c.want)
		}
	}
	b := KernelBench{Ms: []float32{3, 1, 2}}
	b.MedianMs()
	if b.Ms[0] != 3 {
		t.Error("MedianMs reordered Ms")
	}
}

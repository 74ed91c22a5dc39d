package par

import (
	"sync/atomic"
	"testing"
)

// Each calls f once for every index, also with more workers than indices and
// with none to do.
func TestEach(t *testing.T) {
	for _, c := range [][2]int{{0, 4}, {1, 4}, {10, 3}, {100, 0}, {5, 50}} {
		n := c[0]
		seen := make([]atomic.Int32, n)
		Each(n, c[1], func(i int) { seen[i].Add(1) })
		for i := range seen {
			if v := seen[i].Load(); v != 1 {
				t.Fatalf("n=%d workers=%d: index %d called %d times", n, c[1], i, v)
			}
		}
	}
}

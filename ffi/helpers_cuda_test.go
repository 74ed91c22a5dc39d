//go:build cuda

package ffi

import (
	"math/big"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// sizes are the batch sizes every entry point is tested at: 1, a few, not a power of
// two, and (without -short) one that spans many blocks of every grid.
func sizes() []int {
	if testing.Short() {
		return []int{1, 7, 1000}
	}
	return []int{1, 7, 1000, 1<<16 + 3}
}

// poison fills a slice with 0xff bytes, so an output the device did not write fails.
func poison[T any](s []T) {
	if len(s) == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
	for i := range b {
		b[i] = 0xff
	}
}

// parallel runs f(i) for i in [0, n) on every core (the references are the slow part).
func parallel(n int, f func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				f(i)
			}
		}(lo, hi)
	}
	wg.Wait()
}

// mismatches reports the first few indices where got differs from want.
func mismatches[T comparable](t *testing.T, what string, got, want []T, show func(i int) string) {
	t.Helper()
	bad := 0
	for i := range want {
		if got[i] != want[i] {
			if bad < 5 {
				t.Errorf("%s: index %d of %d differs: %s", what, i, len(want), show(i))
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d differ", what, bad, len(want))
	}
}

func randomFr(n int) []fr.Element {
	v := make([]fr.Element, n)
	for i := range v {
		if _, err := v[i].SetRandom(); err != nil {
			panic(err)
		}
	}
	return v
}

func bigFr(x *big.Int) fr.Element {
	var e fr.Element
	e.SetBigInt(x)
	return e
}

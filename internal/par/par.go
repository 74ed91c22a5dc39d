// Package par splits index ranges over goroutines.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Range splits [0, n) into chunks processed by up to nbTasks goroutines.
func Range(n, nbTasks int, f func(lo, hi int)) {
	if nbTasks <= 0 {
		nbTasks = runtime.GOMAXPROCS(0)
	}
	if nbTasks > n/1024 {
		nbTasks = max(1, n/1024)
	}
	if nbTasks == 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + nbTasks - 1) / nbTasks
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// Each calls f(i) for every i in [0, n) on up to workers goroutines (≤ 0:
// GOMAXPROCS), handing the indices out one at a time, in order: for a few
// uneven pieces of work, where Range's equal chunks would leave cores idle.
func Each(n, workers int, f func(i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

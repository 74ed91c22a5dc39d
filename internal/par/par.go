// Package par splits index ranges over goroutines.
package par

import (
	"runtime"
	"sync"
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

package ffi

import "sync"

// freeList keeps up to max values (device buffers, uploaders) for reuse, until it is
// closed with its owner. Safe for concurrent use.
type freeList[T any] struct {
	mu     sync.Mutex
	max    int
	free   []T
	closed bool
}

// take returns a kept value (ok), or nothing: then the caller makes a new one, unless
// the list is closed.
func (l *freeList[T]) take() (v T, ok, closed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return v, false, true
	}
	if n := len(l.free); n > 0 {
		v = l.free[n-1]
		var zero T
		l.free[n-1] = zero
		l.free = l.free[:n-1]
		return v, true, false
	}
	return v, false, false
}

// put keeps v and reports true, or reports false when the list is closed or full: the
// caller frees v.
func (l *freeList[T]) put(v T) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || len(l.free) >= l.max {
		return false
	}
	l.free = append(l.free, v)
	return true
}

// close stops keeping values and returns those kept, for the caller to free.
func (l *freeList[T]) close() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	kept := l.free
	l.free = nil
	return kept
}

// len is the number of values kept.
func (l *freeList[T]) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.free)
}

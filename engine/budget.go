package engine

import (
	"fmt"
	"sync"
)

// budget is the host-RAM byte budget: resident circuits and partitions in
// flight reserve their bytes before they take them and release them after.
// A reservation that does not fit is refused, never granted in part; the
// scheduler waits for a release (broadcast on changed) and asks again. The
// high-water mark is the most ever reserved at once.
type budget struct {
	changed *signal

	mu                sync.Mutex
	total, used, high int64
	reservations      int64
}

func newBudget(total int64, changed *signal) *budget {
	return &budget{total: total, changed: changed}
}

// tryReserve reserves n bytes if they fit.
func (b *budget) tryReserve(n int64) bool { return b.tryReserveKeeping(n, 0) }

// tryReserveKeeping reserves n bytes if they fit with keep bytes left free
// (the room kept for critical jobs).
func (b *budget) tryReserveKeeping(n, keep int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n < 0 || b.used+n+max(keep, 0) > b.total {
		return false
	}
	b.used += n
	b.high = max(b.high, b.used)
	b.reservations++
	return true
}

// reserveOver reserves n bytes even where they do not fit (what nothing else
// could give room for); the scheduler admits nothing until the budget is back
// under its total.
func (b *budget) reserveOver(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used += max(n, 0)
	b.high = max(b.high, b.used)
	b.reservations++
}

// release returns n reserved bytes and wakes the scheduler.
func (b *budget) release(n int64) {
	b.mu.Lock()
	if n < 0 || n > b.used {
		b.mu.Unlock()
		panic(fmt.Sprintf("engine: budget release of %d bytes with %d reserved", n, b.used))
	}
	b.used -= n
	b.mu.Unlock()
	b.changed.broadcast()
}

// MemoryStatus is the memory budget's state.
type MemoryStatus struct {
	Budget       int64 `json:"budget"`        // the whole budget, bytes
	InUse        int64 `json:"in_use"`        // reserved now
	HighWater    int64 `json:"high_water"`    // the most ever reserved at once
	Resident     int64 `json:"resident"`      // of InUse, held by resident circuits
	Reservations int64 `json:"reservations"`  // reservations granted so far
	Partitions   int   `json:"partitions_in"` // partitions holding a reservation now
}

func (b *budget) status() MemoryStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	return MemoryStatus{Budget: b.total, InUse: b.used, HighWater: b.high, Reservations: b.reservations}
}

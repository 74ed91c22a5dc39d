package engine

import (
	"errors"

	"github.com/filc2/filc2/internal/placement"
)

// A GPU's memory is shared by the provers resident there. When a prover does
// not fit, the loader makes room by priority, the priority of a circuit being
// the highest of its partitions in flight:
//
//   - an idle prover of another circuit (nothing in flight, not in use) is
//     closed, least recently used first;
//   - a busy prover of lower priority is drained: no new partition takes it,
//     those that hold it finish, then it is closed (its circuit stays resident
//     and reloads it once the GPU has room again);
//   - beside a busy prover of higher priority the loader waits for it to go
//     idle or lower;
//   - beside busy provers of the same priority only, the key's queries that do
//     not fit stay in pinned host memory when the memory budget has room for
//     them (slower MSMs; Status says host_resident), else it waits;
//   - alone on the GPU, what does not fit stays in host memory (charged to the
//     budget even over it: nothing else could give the room).
//
// Every wait ends when the circuit has no partition in flight any more (the
// load is abandoned) or the engine closes.

// roomAction is what the loader does after a device-only load found no room.
type roomAction int

const (
	roomRetry   roomAction = iota // a prover was closed: load again
	roomWait                      // wait for a change, then decide again
	roomSpill                     // load with host memory allowed
	roomAbandon                   // nobody waits for this prover any more
)

// maxPrioLocked is the highest priority of rc's partitions in flight, and
// false when none is in flight.
func (rc *resident) maxPrioLocked() (Priority, bool) {
	var top Priority
	found := false
	for p, n := range rc.byPrio {
		if n > 0 && (!found || p > top) {
			top, found = p, true
		}
	}
	return top, found
}

// KeyBytes is a Circuit's optional report of the host memory its key's points
// would take if none of them fit on a GPU (the most a spilled prover pins).
type KeyBytes interface {
	KeyBytes() int64
}

// HostBytes is a PartitionProver's optional report of the pinned host memory
// its key's spilled queries hold.
type HostBytes interface {
	HostBytes() int64
}

// loadProverOn loads rc's prover on gpu, making room there as described
// above. It returns the prover and the host bytes charged to the budget for
// it. A device-only load is tried again only when a prover there was closed
// or another's load ended, never on every wake (a failed 32GiB load costs
// seconds).
func (r *residency) loadProverOn(gpu int, rc *resident, ahead bool) (PartitionProver, int64, error) {
	defer r.endClaim(gpu, rc)
	deviceOnly := placement.WithDeviceOnly(r.ctx)
	spillOK := true // false once the backend could not keep the key in host memory either
	for {
		if err := r.awaitClaim(gpu, rc); err != nil {
			return nil, 0, err
		}
		pr, err := r.backend.LoadProver(deviceOnly, gpu, rc.circuit)
		if !errors.Is(err, ErrDeviceMemory) {
			return pr, 0, err
		}
		act, reserved, err := r.makeRoom(gpu, rc, spillOK, ahead)
		switch {
		case err != nil:
			return nil, 0, err
		case act == roomRetry:
			continue
		}
		r.log.Info("loading a prover partly in host memory: its GPU is full of provers of the same priority", "proof", rc.spec.Name, "gpu", gpu, "host_bytes_reserved", reserved)
		pr, err = r.backend.LoadProver(r.ctx, gpu, rc.circuit)
		if err != nil {
			if reserved > 0 {
				r.budget.release(reserved)
			}
			if errors.Is(err, ErrDeviceMemory) && spillOK && r.othersOn(gpu, rc) {
				spillOK = false // wait for the room instead
				continue
			}
			return nil, 0, err
		}
		host := reserved
		if hb, ok := pr.(HostBytes); ok {
			host = min(hb.HostBytes(), reserved)
			if reserved > host {
				r.budget.release(reserved - host)
			}
		}
		return pr, host, nil
	}
}

// makeRoom decides what to do after a device-only load of rc's prover on gpu
// failed, and waits where the decision is to wait: it returns roomRetry once
// a prover there was closed or another's load ended, roomSpill with the host
// bytes it reserved for the spilled key, or an error when the load is
// abandoned.
func (r *residency) makeRoom(gpu int, rc *resident, spillOK, ahead bool) (roomAction, int64, error) {
	r.mu.Lock()
	for {
		act, victim, reserved, loading := r.decideRoomLocked(gpu, rc, spillOK)
		switch {
		case act == roomAbandon && r.closed:
			r.mu.Unlock()
			return act, 0, ErrClosed
		case ahead && (act == roomWait || act == roomAbandon || (act == roomSpill && r.othersOnLocked(gpu, rc))):
			r.mu.Unlock()
			if act == roomSpill && reserved > 0 {
				r.budget.release(reserved)
			}
			return roomAbandon, 0, errNotAhead
		}
		switch act {
		case roomAbandon:
			r.mu.Unlock()
			return act, 0, errors.New("no partition waits for it any more")
		case roomSpill:
			r.mu.Unlock()
			return act, reserved, nil
		case roomRetry:
			pr, host := r.evictProverLocked(victim.rc, gpu)
			r.m.circuitLoads.WithLabelValues(victim.outcome).Inc()
			r.mu.Unlock()
			r.log.Info("evicting a prover for a GPU's memory", "proof", victim.rc.spec.Name, "gpu", gpu, "for", rc.spec.Name, "outcome", victim.outcome)
			r.closeEvicted(victim.rc, gpu, pr, host)
			return act, 0, nil
		}
		wake := r.changed.wait()
		r.mu.Unlock()
		select {
		case <-wake:
		case <-r.ctx.Done():
			return roomAbandon, 0, ErrClosed
		}
		if loading {
			return roomRetry, 0, nil // its end may have left room, or taken it
		}
		r.mu.Lock()
	}
}

// roomVictim is the prover decideRoomLocked closes.
type roomVictim struct {
	rc      *resident
	outcome string // the circuit_loads metric's: prover_evicted or prover_drained
}

// decideRoomLocked is makeRoom's decision (r.mu held). loading: another
// prover is loading on gpu (wait for its end, then load again). spillOK:
// beside provers of the same priority the key may spill to host memory.
func (r *residency) decideRoomLocked(gpu int, rc *resident, spillOK bool) (act roomAction, victim roomVictim, reserved int64, loading bool) {
	if r.closed {
		return roomAbandon, victim, 0, false
	}
	// With no partition in flight (a preload) the load only takes the room
	// of idle provers, or the GPU's when alone.
	q, wanted := rc.maxPrioLocked()
	if !wanted {
		q = PriorityLow - 1
	}
	var idle, lower *resident
	others, equal := false, false
	for _, o := range r.circuits {
		pe := o.provers[gpu]
		if o == rc || pe == nil || pe.state == residentFailed || pe.state == residentEvicted {
			continue
		}
		others = true
		if pe.state != residentReady {
			loading = true
			continue
		}
		if o.inFlight == 0 && pe.inUse == 0 {
			if idle == nil || o.lastUsed.Before(idle.lastUsed) {
				idle = o
			}
			continue
		}
		if o.inFlight == 0 {
			continue // in use a moment longer by a partition already dropped: wait
		}
		switch p, _ := o.maxPrioLocked(); {
		case p < q:
			// Drain the one already draining, else the least recently used.
			if lower == nil || (pe.draining && !lower.provers[gpu].draining) ||
				(pe.draining == lower.provers[gpu].draining && o.lastUsed.Before(lower.lastUsed)) {
				lower = o
			}
		case p == q:
			equal = true
		}
	}
	switch {
	case idle != nil:
		return roomRetry, roomVictim{idle, "prover_evicted"}, 0, false
	case !others:
		return roomSpill, victim, r.reserveSpill(rc, true), false
	case !wanted:
		return roomAbandon, victim, 0, false
	case lower != nil:
		r.claims[gpu] = rc
		pe := lower.provers[gpu]
		if pe.inUse == 0 {
			return roomRetry, roomVictim{lower, "prover_drained"}, 0, false
		}
		if !pe.draining {
			pe.draining = true
			r.log.Info("draining a prover of lower priority for a GPU's memory", "proof", lower.spec.Name, "gpu", gpu, "for", rc.spec.Name, "in_use", pe.inUse)
		}
		return roomWait, victim, 0, false
	case loading:
		return roomWait, victim, 0, true
	case equal && spillOK:
		if n := r.reserveSpill(rc, false); n >= 0 {
			return roomSpill, victim, n, false
		}
	}
	return roomWait, victim, 0, false
}

// errNotAhead ends a load ahead that found no idle room.
var errNotAhead = errors.New("engine: no room to load ahead")

// othersOn reports whether a prover of another circuit is loaded or loading on gpu.
func (r *residency) othersOn(gpu int, rc *resident) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.othersOnLocked(gpu, rc)
}

func (r *residency) othersOnLocked(gpu int, rc *resident) bool {
	for _, o := range r.circuits {
		if pe := o.provers[gpu]; o != rc && pe != nil && (pe.state == residentReady || pe.state == residentLoading) {
			return true
		}
	}
	return false
}

// reserveSpill reserves in the budget the host bytes a spilled key of rc may
// pin, or returns -1 when they do not fit (force: reserve them even over the
// budget).
func (r *residency) reserveSpill(rc *resident, force bool) int64 {
	kb, ok := rc.circuit.(KeyBytes)
	if !ok {
		return 0
	}
	n := kb.KeyBytes()
	if r.budget.tryReserve(n) {
		return n
	}
	if !force {
		return -1
	}
	r.budget.reserveOver(n)
	r.log.Warn("a prover alone on its GPU spills its key to host memory beyond the memory budget", "proof", rc.spec.Name, "bytes", n)
	return n
}

// awaitClaim waits while another circuit of no lower priority than rc's holds
// a claim on gpu (its load drains a prover there).
func (r *residency) awaitClaim(gpu int, rc *resident) error {
	r.mu.Lock()
	for {
		c := r.claims[gpu]
		if c == nil || c == rc {
			r.mu.Unlock()
			return nil
		}
		q, ok := rc.maxPrioLocked()
		if !ok {
			r.mu.Unlock()
			return errors.New("no partition waits for it any more")
		}
		if cp, _ := c.maxPrioLocked(); q > cp {
			r.mu.Unlock()
			return nil
		}
		wake := r.changed.wait()
		r.mu.Unlock()
		select {
		case <-wake:
		case <-r.ctx.Done():
			return ErrClosed
		}
		r.mu.Lock()
	}
}

// endClaim drops rc's claim on gpu, calling off any drain it left.
func (r *residency) endClaim(gpu int, rc *resident) {
	r.mu.Lock()
	if r.claims[gpu] != rc {
		r.mu.Unlock()
		return
	}
	delete(r.claims, gpu)
	for _, o := range r.circuits {
		if pe := o.provers[gpu]; pe != nil {
			pe.draining = false
		}
	}
	r.mu.Unlock()
	r.changed.broadcast()
}

package engine

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// TimelineEvent is one line of the TIMELINE log: a stage of a partition (or
// of a job, a circuit load, a GPU's lock) starting or ending on a worker.
// Lines are JSON, one event each, in the order the engine saw them.
type TimelineEvent struct {
	Time      time.Time `json:"t"`
	Job       JobID     `json:"job,omitempty"`
	Partition int       `json:"partition"` // −1 for job, load and gpu_held events
	GPU       int       `json:"gpu"`       // −1 off the GPU workers
	Worker    string    `json:"worker,omitempty"`
	Stage     Stage     `json:"stage"`
	Event     string    `json:"event"`            // "start" or "end"
	Detail    string    `json:"detail,omitempty"` // a job's final state, a load's proof type, the partition holding a GPU
	Error     string    `json:"error,omitempty"`
}

// DefaultTimelineMemory is how many TIMELINE events an engine keeps in memory
// for TimelineEvents and TimelineSVG unless WithTimelineMemory says otherwise:
// a few hundred 32GiB jobs.
const DefaultTimelineMemory = 1 << 16

// timeline writes TimelineEvents as JSON lines, if it has a writer, and keeps
// the last few in a ring for TimelineEvents; a nil *timeline does nothing.
// The first write error turns the writing off (and is logged by the engine);
// the ring goes on.
type timeline struct {
	mu   sync.Mutex
	enc  *json.Encoder // nil: no log
	err  error
	ring []TimelineEvent // capacity: the events kept
	next int             // where the next event goes once the ring is full
}

// newTimeline returns a timeline writing to w (nil: no log) and keeping the
// last keep events (≤ 0: none).
func newTimeline(w io.Writer, keep int) *timeline {
	t := &timeline{ring: make([]TimelineEvent, 0, max(keep, 0))}
	if w != nil {
		t.enc = json.NewEncoder(w)
	}
	return t
}

// emit records ev, stamping its time if unset.
func (t *timeline) emit(ev TimelineEvent) {
	if t == nil {
		return
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.enc != nil && t.err == nil {
		t.err = t.enc.Encode(&ev)
	}
	switch {
	case cap(t.ring) == 0:
	case len(t.ring) < cap(t.ring):
		t.ring = append(t.ring, ev)
	default:
		t.ring[t.next] = ev
		t.next = (t.next + 1) % len(t.ring)
	}
}

// events returns the kept events in the order they were recorded.
func (t *timeline) events() []TimelineEvent {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]TimelineEvent, 0, len(t.ring))
	out = append(out, t.ring[t.next:]...)
	return append(out, t.ring[:t.next]...)
}

// failed returns the write error that turned the log off, if any.
func (t *timeline) failed() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

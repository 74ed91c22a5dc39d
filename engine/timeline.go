package engine

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// TimelineEvent is one line of the TIMELINE log: a stage of a partition (or
// of a job, a circuit load) starting or ending on a worker. Lines are JSON,
// one event each, in the order the engine saw them.
type TimelineEvent struct {
	Time      time.Time `json:"t"`
	Job       JobID     `json:"job,omitempty"`
	Partition int       `json:"partition"` // −1 for job and load events
	GPU       int       `json:"gpu"`       // −1 off the GPU workers
	Worker    string    `json:"worker,omitempty"`
	Stage     Stage     `json:"stage"`
	Event     string    `json:"event"`            // "start" or "end"
	Detail    string    `json:"detail,omitempty"` // a job's final state, a load's proof type
	Error     string    `json:"error,omitempty"`
}

// timeline writes TimelineEvents as JSON lines; a nil *timeline writes
// nothing. The first write error turns it off (and is logged by the engine).
type timeline struct {
	mu  sync.Mutex
	enc *json.Encoder
	err error
}

func newTimeline(w io.Writer) *timeline {
	if w == nil {
		return nil
	}
	return &timeline{enc: json.NewEncoder(w)}
}

// emit writes ev, stamping its time if unset.
func (t *timeline) emit(ev TimelineEvent) {
	if t == nil {
		return
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = t.enc.Encode(&ev)
	}
}

// failed returns the write error that turned the timeline off, if any.
func (t *timeline) failed() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

package groth16

import (
	"crypto/rand"
	"io"
	"sync"
)

// Progress receives the progress of a long operation: a stage name, the units
// done so far and the stage's total. It is called from several goroutines.
type Progress func(stage string, done, total int64)

// Option configures Setup and the CPU prover.
type Option func(*config)

type config struct {
	progress Progress
	rand     io.Reader
	nbTasks  int
}

// WithProgress reports progress to p.
func WithProgress(p Progress) Option { return func(c *config) { c.progress = p } }

// WithRandom draws toxic waste (Setup) or r, s (Prove) from rd instead of
// crypto/rand; for reproducible tests only.
func WithRandom(rd io.Reader) Option { return func(c *config) { c.rand = rd } }

// WithTasks bounds the goroutines used by one operation (≤ 0: all cores).
func WithTasks(n int) Option { return func(c *config) { c.nbTasks = n } }

func newConfig(opts []Option) config {
	c := config{rand: rand.Reader}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// stage returns a thread-safe tick function for one stage of total units.
func (c *config) stage(name string, total int64) func(int) {
	if c.progress == nil {
		return func(int) {}
	}
	var mu sync.Mutex
	var done int64
	c.progress(name, 0, total)
	return func(n int) {
		mu.Lock()
		done += int64(n)
		d := done
		mu.Unlock()
		c.progress(name, d, total)
	}
}

// Package fault injects faults for tests and soak runs: a spec names the
// points where a fault may fire (a failed kernel section, a corrupted proof,
// a failed device allocation, a lost device) and when each fires (the Nth
// call, every Nth call, or at random with a rate). An Injector travels in a
// context, like internal/preempt's preemption points, so that the engine and
// the CUDA backend below it consult the same one.
//
// Nothing here is on unless a test, `filc2 bench c2 --inject-faults` or the
// plugin's FILC2_INJECT_FAULTS asks for it: production code paths call Hit,
// which is a no-op without an Injector.
package fault

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Point is a place where a fault can be injected.
type Point string

// The points. Section fires inside (or, for a backend that does not hit it
// itself, right after) a GPU kernel section, which then fails; Corrupt
// flips a finished proof before it is verified; Alloc fails a prover's
// device allocation (out of device memory); Lost makes the device lost:
// sections on it fail and probes say so until LostFor has passed.
const (
	Section Point = "section"
	Corrupt Point = "corrupt"
	Alloc   Point = "alloc"
	Lost    Point = "lost"
)

// Points lists every point, in the order specs and reports use.
var points = []Point{Section, Corrupt, Alloc, Lost}

// ErrInjected is matched (errors.Is) by every injected failure.
var ErrInjected = errors.New("fault injected")

// rule says when one point fires.
type rule struct {
	nth   map[int64]bool // fire at these calls (1-based)
	every int64          // fire at every every-th call (0: no)
	rate  float64        // fire with this probability (0: no)
	calls int64
	hits  int64
}

// Injector decides, point by point, whether a fault fires now. It is safe
// for concurrent use.
type Injector struct {
	spec    string
	lostFor time.Duration

	mu    sync.Mutex
	rng   *rand.Rand
	rules map[Point]*rule
}

// Count is what one point did: how often it was consulted and how often it
// fired.
type Count struct {
	Calls int64 `json:"calls"`
	Hits  int64 `json:"hits"`
}

// Parse reads a spec: comma-separated POINT=WHEN terms, where POINT is
// section, corrupt, alloc or lost and WHEN is
//
//	N        the Nth call only (1-based); several: 3+7+12
//	every:N  every Nth call
//	rate:P   each call with probability P (0 < P ≤ 1)
//
// plus seed=N (the random source of rate terms; default 1) and lost_for=D
// (how long a lost device stays lost, a Go duration; default 2s). An empty
// spec is an error: no injector is the way to inject nothing.
func Parse(spec string) (*Injector, error) {
	in := &Injector{spec: spec, lostFor: 2 * time.Second, rules: map[Point]*rule{}}
	seed := uint64(1)
	if strings.TrimSpace(spec) == "" {
		return nil, errors.New("fault spec is empty: want terms such as section=every:5,corrupt=3")
	}
	for _, term := range strings.Split(spec, ",") {
		term = strings.TrimSpace(term)
		name, when, ok := strings.Cut(term, "=")
		if !ok {
			return nil, fmt.Errorf("fault spec term %q: want POINT=WHEN", term)
		}
		switch name {
		case "seed":
			n, err := strconv.ParseUint(when, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("fault spec seed=%q: want an unsigned integer", when)
			}
			seed = n
			continue
		case "lost_for":
			d, err := time.ParseDuration(when)
			if err != nil || d < 0 {
				return nil, fmt.Errorf("fault spec lost_for=%q: want a duration such as 2s", when)
			}
			in.lostFor = d
			continue
		}
		p := Point(name)
		if !known(p) {
			return nil, fmt.Errorf("fault spec term %q: unknown point %q (want section, corrupt, alloc, lost, seed or lost_for)", term, name)
		}
		r, err := parseWhen(when)
		if err != nil {
			return nil, fmt.Errorf("fault spec term %q: %w", term, err)
		}
		if in.rules[p] != nil {
			return nil, fmt.Errorf("fault spec: point %s given twice", p)
		}
		in.rules[p] = r
	}
	in.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return in, nil
}

func known(p Point) bool {
	for _, q := range points {
		if p == q {
			return true
		}
	}
	return false
}

func parseWhen(when string) (*rule, error) {
	r := &rule{}
	switch {
	case strings.HasPrefix(when, "every:"):
		n, err := strconv.ParseInt(strings.TrimPrefix(when, "every:"), 10, 64)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("every:%s: want a count ≥ 1", strings.TrimPrefix(when, "every:"))
		}
		r.every = n
	case strings.HasPrefix(when, "rate:"):
		f, err := strconv.ParseFloat(strings.TrimPrefix(when, "rate:"), 64)
		if err != nil || !(f > 0 && f <= 1) {
			return nil, fmt.Errorf("rate:%s: want a probability in (0, 1]", strings.TrimPrefix(when, "rate:"))
		}
		r.rate = f
	default:
		r.nth = map[int64]bool{}
		for _, s := range strings.Split(when, "+") {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%q: want N (the Nth call, ≥ 1), N+M+…, every:N or rate:P", when)
			}
			r.nth[n] = true
		}
	}
	return r, nil
}

// String returns the spec the injector was parsed from.
func (in *Injector) String() string { return in.spec }

// LostFor is how long a device stays lost after Lost fires.
func (in *Injector) LostFor() time.Duration { return in.lostFor }

// Has reports whether the spec has a term for p.
func (in *Injector) Has(p Point) bool {
	if in == nil {
		return false
	}
	return in.rules[p] != nil
}

// Hit consults point p: it counts the call and reports whether the fault
// fires. A nil Injector never fires.
func (in *Injector) Hit(p Point) bool {
	if in == nil {
		return false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	r := in.rules[p]
	if r == nil {
		return false
	}
	r.calls++
	fire := r.nth[r.calls] || (r.every > 0 && r.calls%r.every == 0) || (r.rate > 0 && in.rng.Float64() < r.rate)
	if fire {
		r.hits++
	}
	return fire
}

// Counts returns what each point of the spec did so far.
func (in *Injector) Counts() map[Point]Count {
	out := map[Point]Count{}
	if in == nil {
		return out
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	for p, r := range in.rules {
		out[p] = Count{Calls: r.calls, Hits: r.hits}
	}
	return out
}

// Report formats Counts as "section 3/120, corrupt 1/118" in point order.
func (in *Injector) Report() string {
	cs := in.Counts()
	var parts []string
	for _, p := range points {
		if c, ok := cs[p]; ok {
			parts = append(parts, fmt.Sprintf("%s %d/%d", p, c.Hits, c.Calls))
		}
	}
	return strings.Join(parts, ", ")
}

// Errorf returns an injected failure at p: errors.Is(err, ErrInjected).
func Errorf(p Point, format string, args ...any) error {
	return fmt.Errorf("%w at %s: %s", ErrInjected, p, fmt.Sprintf(format, args...))
}

type key struct{}

// With returns ctx carrying in.
func With(ctx context.Context, in *Injector) context.Context {
	if in == nil {
		return ctx
	}
	return context.WithValue(ctx, key{}, in)
}

// From returns the Injector ctx carries, or nil.
func From(ctx context.Context) *Injector {
	in, _ := ctx.Value(key{}).(*Injector)
	return in
}

// Hit consults point p of the Injector ctx carries (never fires without one).
func Hit(ctx context.Context, p Point) bool { return From(ctx).Hit(p) }

// Aware is implemented by a prover that consults some points itself (the
// CUDA prover hits Section inside its kernel section): the engine then does
// not consult them for it.
type Aware interface {
	HitsFault(p Point) bool
}

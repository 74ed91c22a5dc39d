package cli

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/filc2/filc2/engine"
)

// makeInputs makes the jobs' inputs in order, up to `ahead` of them before
// any is taken, and stops at the first error or when its context ends.
func TestMakeInputs(t *testing.T) {
	var mu sync.Mutex
	var calls []int
	made := func(i int) (engine.Input, error) {
		mu.Lock()
		calls = append(calls, i)
		mu.Unlock()
		if i == 4 {
			return nil, errors.New("input 4 is bad")
		}
		return &engine.PoRep{}, nil
	}
	ctx := context.Background()
	inputs, done := makeInputs(ctx, 7, 2, made)
	// Nothing is taken yet: inputs 0 and 1 wait in the channel and 2 is made,
	// its send blocked — three made ahead of the first job's submission.
	deadline := time.Now().Add(time.Minute)
	for {
		mu.Lock()
		n := len(calls)
		mu.Unlock()
		if n == 3 {
			break
		}
		if n > 3 || time.Now().After(deadline) {
			t.Fatalf("%d inputs made before any was taken, want 3", n)
		}
		time.Sleep(time.Millisecond)
	}
	var got []int
	for m := range inputs {
		got = append(got, m.i)
		if (m.err != nil) != (m.i == 4) {
			t.Fatalf("input %d: err %v", m.i, m.err)
		}
	}
	<-done
	if len(got) != 5 || got[0] != 0 || got[4] != 4 {
		t.Fatalf("inputs sent %v, want 0…4 (the maker stops after the bad one)", got)
	}
	if len(calls) != 5 {
		t.Fatalf("inputFor called for %v, want 0…4", calls)
	}

	// A cancelled context stops the maker while its send is blocked.
	cctx, cancel := context.WithCancel(ctx)
	inputs, done = makeInputs(cctx, 100, 1, func(int) (engine.Input, error) { return &engine.PoRep{}, nil })
	<-inputs
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the maker did not stop when its context ended")
	}
	n := 0
	for range inputs {
		n++
	}
	if n > 2 {
		t.Fatalf("%d inputs after the cancel", n)
	}
}

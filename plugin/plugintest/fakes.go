package plugintest

import (
	"context"
	"sync"
	"testing"
	"time"

	gabi "github.com/filecoin-project/go-state-types/abi"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/proofs/c2"
)

// Gate is a fake ProveFunc (plugin.LocalConfig.Prove): each job waits until
// Open releases it (or its context ends), and the order of starts is
// recorded. Its proof of job ID is "proof of ID".
type Gate struct {
	mu      sync.Mutex
	started []plugin.JobID
	release map[plugin.JobID]chan error
	running chan plugin.JobID
}

// NewGate returns a Gate with no job released.
func NewGate() *Gate {
	return &Gate{release: make(map[plugin.JobID]chan error), running: make(chan plugin.JobID, 64)}
}

func (g *Gate) ch(id plugin.JobID) chan error {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.release[id]
	if c == nil {
		c = make(chan error, 1)
		g.release[id] = c
	}
	return c
}

// Prove is the ProveFunc.
func (g *Gate) Prove(ctx context.Context, req *plugin.Request) (plugin.Proof, []c2.PartitionTiming, error) {
	g.mu.Lock()
	g.started = append(g.started, req.ID)
	g.mu.Unlock()
	g.running <- req.ID
	select {
	case err := <-g.ch(req.ID):
		if err != nil {
			return nil, nil, err
		}
		return plugin.Proof("proof of " + req.ID), nil, nil
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// Running yields each job as it starts.
func (g *Gate) Running() <-chan plugin.JobID { return g.running }

// Open releases job id, to fail with err if not nil.
func (g *Gate) Open(id plugin.JobID, err error) { g.ch(id) <- err }

// Order is the jobs in the order they started.
func (g *Gate) Order() []plugin.JobID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]plugin.JobID(nil), g.started...)
}

// WaitRunning fails t unless the next job to start is want.
func (g *Gate) WaitRunning(t *testing.T, want plugin.JobID) {
	t.Helper()
	select {
	case id := <-g.running:
		if id != want {
			t.Fatalf("%s started, want %s", id, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not start", want)
	}
}

// ErrProver is a plugin.Prover answering every call with Err.
type ErrProver struct{ Err error }

func (p ErrProver) SealCommit2(context.Context, plugin.SectorRef, plugin.Commit1Out) (plugin.Proof, error) {
	return nil, p.Err
}
func (p ErrProver) Submit(context.Context, plugin.ProveRequest) (plugin.JobID, error) {
	return "", p.Err
}
func (p ErrProver) Await(context.Context, plugin.JobID) (plugin.Result, error) {
	return plugin.Result{}, p.Err
}
func (p ErrProver) Cancel(context.Context, plugin.JobID) error { return p.Err }
func (p ErrProver) Status(context.Context) (plugin.Status, error) {
	return plugin.Status{}, p.Err
}
func (p ErrProver) Version(context.Context) (plugin.VersionInfo, error) {
	return plugin.VersionInfo{}, p.Err
}
func (p ErrProver) Timeline(context.Context, time.Duration) (string, error) { return "", p.Err }

var (
	sealOnce sync.Once
	sealA    []byte
	sealB    []byte
)

// Sealed returns two sealed 2KiB C1 outputs of Miner (sectors 1 and 2),
// made once per test binary.
func Sealed(t testing.TB) (a, b []byte) {
	t.Helper()
	sealOnce.Do(func() {
		sealA = SealC1(t, 1, 3)
		sealB = SealC1(t, 2, 4)
	})
	return sealA, sealB
}

// WaitFor polls ok every 50 ms until it holds, failing t after d.
func WaitFor(t testing.TB, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Sector is sector n of Miner, of type Proof.
func Sector(n uint64) plugin.SectorRef {
	return plugin.SectorRef{ID: gabi.SectorID{Miner: Miner, Number: gabi.SectorNumber(n)}, ProofType: Proof.Proof}
}

package cli

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/engine/benchreport"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/fallback"
	"github.com/filc2/filc2/proofs/post"
)

// benchPoStPlan is the PoSt side of bench c2 --post-proof: PoSt jobs on the
// same engine as the PoRep jobs, alone first, then every Every while the
// PoRep jobs run.
type benchPoStPlan struct {
	Proof   abi.PoStProof
	Sectors int           // per Window partition (Winning: 1)
	Alone   int           // proofs before the PoRep jobs start
	Every   time.Duration // the gap between PoSt submissions under load
}

// postInput makes the PoSt job every submission proves: sparse TEST FIXTURE
// sectors with vanilla proofs for a fixed randomness.
func (pl benchPoStPlan) input() (*engine.PoSt, error) {
	r := fallback.MaskRandomness([32]byte{0xb, 0xe, 0xc, 0x2, 31: 0xff})
	req, err := post.SparseRequest(pl.Proof, r, pl.Sectors, 0)
	if err != nil {
		return nil, err
	}
	return engine.NewPoSt(pl.Proof, r, req.Vanilla, 0)
}

// provePoSt submits one PoSt job and waits for it.
func provePoSt(ctx context.Context, e *engine.Engine, in *engine.PoSt, id string) (time.Duration, engine.Result, error) {
	t0 := time.Now()
	if _, err := e.Submit(ctx, engine.Request{ID: id, Input: in}); err != nil {
		return 0, engine.Result{}, err
	}
	res, err := e.Await(ctx, engine.JobID(id))
	if err == nil && res.Proof == nil {
		err = fmt.Errorf("no proof bytes")
	}
	return time.Since(t0), res, err
}

// runPoStAlone proves pl.Alone PoSt jobs one after the other on the idle engine.
func runPoStAlone(ctx context.Context, e *engine.Engine, pl benchPoStPlan, in *engine.PoSt, rep *benchreport.PoSt, say func(string, ...any)) error {
	var lat []time.Duration
	for i := range pl.Alone {
		d, _, err := provePoSt(ctx, e, in, fmt.Sprintf("post-alone-%d", i+1))
		if err != nil {
			return fmt.Errorf("bench c2: PoSt alone %d: %w", i+1, err)
		}
		lat = append(lat, d)
		say("%s alone: proof %d of %d in %v", pl.Proof.Name, i+1, pl.Alone, d.Round(time.Millisecond))
	}
	rep.Alone, rep.AloneN = post.Summarize(lat), len(lat)
	return nil
}

// postUnderLoad submits a PoSt job about every pl.Every (jittered) until
// stop is closed, one at a time, and returns a function that waits for the last and fills rep.
func postUnderLoad(ctx context.Context, e *engine.Engine, pl benchPoStPlan, in *engine.PoSt, rep *benchreport.PoSt,
	stop <-chan struct{}, say func(string, ...any)) func() error {
	var wg sync.WaitGroup
	var failure error
	var lockWaits []time.Duration
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-time.After(jitter(pl.Every, i)):
			}
			d, res, err := provePoSt(ctx, e, in, fmt.Sprintf("post-load-%d", i))
			if err != nil {
				if ctx.Err() == nil {
					failure = fmt.Errorf("bench c2: PoSt under load %d: %w", i, err)
				}
				return
			}
			rep.Latencies = append(rep.Latencies, d)
			var load, wait, section time.Duration
			for _, pt := range res.Partitions {
				lockWaits = append(lockWaits, pt.LockWait)
				load, wait, section = load+pt.Load, wait+pt.LockWait, section+pt.GPUTime
			}
			say("%s under load: proof %d in %v (prover wait and load %v, lock wait %v, kernel section %v)", pl.Proof.Name, i,
				d.Round(time.Millisecond), load.Round(time.Millisecond), wait.Round(time.Millisecond), section.Round(time.Millisecond))
		}
	}()
	return func() error {
		wg.Wait()
		rep.UnderLoad, rep.LoadN = post.Summarize(rep.Latencies), len(rep.Latencies)
		rep.LockWait = post.Summarize(lockWaits).Median
		return failure
	}
}

// jitter spreads the gaps between PoSt submissions over [½, 1½] × every
// (a fixed sequence), so that they do not lock into the phase of the
// PoRep kernel sections and sample every point of them.
func jitter(every time.Duration, i int) time.Duration {
	f := float64((uint64(i)*0x9e3779b97f4a7c15)>>11) / float64(1<<53) // a Weyl sequence in [0, 1)
	return time.Duration((0.5 + f) * float64(every))
}

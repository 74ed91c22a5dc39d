package plugin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/post"
	"github.com/filc2/filc2/proofs/snap"
)

// NewEngineService returns a LocalService whose jobs are proved by e: the
// service keeps the Prover API's queue, idempotency and job states, and hands
// every running job to the engine, which pipelines the partitions of all of
// them over the CPUs and GPUs. cfg.Slots bounds the jobs handed over at once
// (default: the engine's queue limit, so the engine orders them); cfg.Prove
// and cfg.Describe are set here. Closing the service does not close e.
func NewEngineService(e *engine.Engine, cfg LocalConfig) *LocalService {
	if cfg.Slots <= 0 {
		cfg.Slots = max(e.Config().Queue.MaxQueued, 1)
	}
	cfg.Prove = func(ctx context.Context, req *Request) (Proof, []c2.PartitionTiming, error) {
		return proveOnEngine(ctx, e, req)
	}
	cfg.Describe = func(st *Status) {
		es := e.Status()
		st.Backend = strings.TrimPrefix(es.Backend, "proofs/")
		st.Engine = &es
		st.Circuits = st.Circuits[:0]
		for _, c := range es.Circuits {
			if c.State != "ready" {
				continue
			}
			ci := Circuit{Kind: c.Kind.String(), ProofType: c.ProofType, SectorSize: c.SectorSize, LoadNS: c.LoadTime, Loaded: time.Now().Add(-c.Idle)}
			switch c.Kind {
			case engine.KindPoRep:
				if p, err := abi.ParseName(c.ProofType); err == nil {
					ci.Params = c2.FilesIn(cfg.ParamsDir, p).Params
				}
			case engine.KindWindowPoSt, engine.KindWinningPoSt:
				if p, err := abi.ParsePoStName(c.ProofType); err == nil {
					ci.Params = post.FilesIn(cfg.ParamsDir, p).Params
				}
			case engine.KindSnapDeals:
				if p, err := abi.ParseUpdateName(c.ProofType); err == nil {
					ci.Params = snap.FilesIn(cfg.ParamsDir, p).Params
				}
			}
			st.Circuits = append(st.Circuits, ci)
		}
	}
	cfg.Timeline = func(_ context.Context, window time.Duration) (string, error) {
		if window <= 0 {
			window = 10 * time.Minute
		}
		var b strings.Builder
		if err := e.TimelineSVG(&b, window); err != nil {
			return "", &InternalError{Msg: "drawing the timeline: " + err.Error()}
		}
		return b.String(), nil
	}
	return NewLocalService(cfg)
}

// proveOnEngine runs one request as an engine job and waits for it; when ctx
// ends first the engine job is cancelled.
func proveOnEngine(ctx context.Context, e *engine.Engine, req *Request) (Proof, []c2.PartitionTiming, error) {
	er := engine.Request{ID: string(req.ID), ProofType: req.Proof, Commit1: req.C1, Priority: engine.Priority(req.Priority)}
	if req.PoSt != nil {
		er = engine.Request{ID: string(req.ID), Input: req.PoSt, Priority: engine.Priority(req.Priority)}
	}
	if req.Snap != nil {
		er = engine.Request{ID: string(req.ID), Input: req.Snap, Priority: engine.Priority(req.Priority)}
	}
	id, err := e.Submit(ctx, er)
	if err != nil {
		return nil, nil, engineError(e, req, err)
	}
	r, err := e.Await(ctx, id)
	if ctx.Err() != nil {
		_ = e.Cancel(id)
		return nil, nil, ctx.Err()
	}
	if err != nil {
		return nil, nil, engineError(e, req, err)
	}
	if r.Synthetic || r.Unverified > 0 {
		return nil, nil, &InternalError{Msg: "the engine runs a synthetic backend: its proofs do not verify"}
	}
	timings := make([]c2.PartitionTiming, len(r.Partitions))
	for i, t := range r.Partitions {
		timings[i] = c2.PartitionTiming{Partition: t.Partition, Synthesis: t.Synthesis,
			Prove: t.Prepare + t.LockWait + t.GPUTime + t.Finish, Verify: t.Verify}
	}
	return Proof(r.Proof), timings, nil
}

// engineError turns an engine error into the Prover API's typed errors.
func engineError(e *engine.Engine, req *Request, err error) error {
	switch {
	case errors.Is(err, engine.ErrQueueFull):
		q := e.Status().Queued
		return &BusyError{Queued: q, Capacity: e.Config().Queue.MaxQueued}
	case errors.Is(err, engine.ErrIDConflict):
		return &BadInputError{Field: "ID", Msg: fmt.Sprintf("%s is already used by another request", req.ID)}
	case errors.Is(err, engine.ErrBadRequest):
		field := "Commit1Out"
		if req.PoSt != nil {
			field = "PoSt.VanillaProofs"
		}
		if req.Snap != nil {
			field = "Snap.VanillaProofs"
		}
		return &BadInputError{Field: field, Msg: err.Error()}
	case errors.Is(err, engine.ErrCanceled):
		return &CancelledError{ID: req.ID}
	case errors.Is(err, engine.ErrClosed):
		return &UnavailableError{Msg: "the proving engine shut down"}
	}
	// Budget, deadline and partition failures are the prover's: internal.
	return &InternalError{Msg: err.Error()}
}

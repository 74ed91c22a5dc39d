package plugin

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"
)

// Server is the Prover API in process: it validates every request
// (ParseRequest) and hands it to a Service. It is what the plugin serves.
type Server struct {
	svc      Service
	version  string
	started  time.Time
	rejected atomic.Uint64
}

var _ Prover = (*Server)(nil)

// NewServer returns the Prover API over svc; version is filc2's version.
func NewServer(svc Service, version string) *Server {
	return &Server{svc: svc, version: version, started: time.Now()}
}

// SealCommit2 implements Prover: Submit at priority 0, then Await. When ctx
// ends first (the caller went away) the job is cancelled.
func (s *Server) SealCommit2(ctx context.Context, sector SectorRef, c1o Commit1Out) (Proof, error) {
	id, err := s.Submit(ctx, ProveRequest{Sector: sector, Commit1Out: c1o})
	if err != nil {
		return nil, err
	}
	res, err := s.svc.Await(ctx, id)
	if err != nil {
		if ctx.Err() != nil {
			s.svc.Cancel(context.Background(), id)
			return nil, &CancelledError{ID: id}
		}
		return nil, wireError(err)
	}
	return res.Proof, nil
}

// Submit implements Prover.
func (s *Server) Submit(ctx context.Context, req ProveRequest) (JobID, error) {
	r, err := ParseRequest(ctx, req)
	if err != nil {
		s.rejected.Add(1)
		return "", wireError(err)
	}
	id, err := s.svc.Submit(ctx, r)
	return id, wireError(err)
}

// Await implements Prover.
func (s *Server) Await(ctx context.Context, id JobID) (Result, error) {
	res, err := s.svc.Await(ctx, id)
	if err != nil && ctx.Err() != nil {
		return Result{}, ctx.Err() // the caller is gone or out of time
	}
	return res, wireError(err)
}

// Cancel implements Prover.
func (s *Server) Cancel(ctx context.Context, id JobID) error {
	return wireError(s.svc.Cancel(ctx, id))
}

// Status implements Prover.
func (s *Server) Status(ctx context.Context) (Status, error) {
	st, err := s.svc.Status(ctx)
	if err != nil {
		return Status{}, wireError(err)
	}
	st.Version, st.PID, st.Started = s.version, os.Getpid(), s.started
	st.Totals.Rejected += s.rejected.Load()
	// Lists are [] rather than null in JSON.
	st.GPUs = nonNil(st.GPUs)
	st.Circuits = nonNil(st.Circuits)
	st.Queued = nonNil(st.Queued)
	st.Running = nonNil(st.Running)
	return st, nil
}

// Version implements Prover.
func (s *Server) Version(ctx context.Context) (VersionInfo, error) {
	return VersionInfo{Version: s.version, APIVersion: ProverAPIVersion}, nil
}

// MaxTimelineWindow is the longest window Timeline draws (a week, as
// /debug/timeline.svg's minutes=); 0 asks for the default.
const MaxTimelineWindow = 7 * 24 * time.Hour

// Timeline implements Prover: the service's drawing when it has one.
func (s *Server) Timeline(ctx context.Context, window time.Duration) (string, error) {
	if window < 0 || window > MaxTimelineWindow {
		return "", &BadInputError{Field: "window", Msg: fmt.Sprintf("%d ns: want 0 (the default) up to %v", int64(window), MaxTimelineWindow)}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	ts, ok := s.svc.(TimelineService)
	if !ok {
		return "", &UnavailableError{Msg: "no timeline: this prover has no engine"}
	}
	svg, err := ts.TimelineSVG(ctx, window)
	return svg, wireError(err)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

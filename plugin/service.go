package plugin

import (
	"context"
	"time"
)

// Service runs validated proving jobs. It is the seam between the Prover API
// and whatever proves: LocalService now, package engine later. Every error a
// Service returns should be one of this package's typed errors
// (*BusyError, *NotFoundError, *CancelledError, *InternalError,
// *UnavailableError, *BadInputError for a reused id); anything else reaches
// clients as *InternalError.
type Service interface {
	// Submit queues req and returns its id. A req.ID already queued, running
	// or done is not queued again: Submit returns it when req.Digest matches
	// and *BadInputError otherwise. A full queue answers *BusyError.
	Submit(ctx context.Context, req *Request) (JobID, error)
	// Await waits for the job and returns its result or its error; when ctx
	// ends first it returns ctx.Err() and the job carries on. An unknown id
	// answers *NotFoundError.
	Await(ctx context.Context, id JobID) (Result, error)
	// Cancel stops a queued or running job (its Await answers
	// *CancelledError); a finished job is left as it is.
	Cancel(ctx context.Context, id JobID) error
	// Status snapshots the service. Version and PID are filled in by the
	// Server.
	Status(ctx context.Context) (Status, error)
	// Close cancels every job and stops the workers.
	Close() error
}

// TimelineService is a Service that can draw its recent work (the engine
// service); Server.Timeline answers *UnavailableError for any other.
type TimelineService interface {
	TimelineSVG(ctx context.Context, window time.Duration) (string, error)
}

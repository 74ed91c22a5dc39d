// Package plugin serves filc2's SealCommit2 prover: the Prover API, the
// go-plugin subprocess that proves behind it, and the host side that runs
// that subprocess and faces the world.
//
// # The Prover API
//
// go-jsonrpc, namespace Filc2 (Namespace), at /rpc/v0 (RPCPath):
//
//	SealCommit2(SectorRef, Commit1Out) (Proof, error)  lotus's Sealer.SealCommit2: queue and wait   write
//	Submit(ProveRequest) (JobID, error)                 validate, queue, return at once              write
//	Await(JobID) (Result, error)                        wait for a job (the caller's deadline holds)  write
//	Cancel(JobID) error                                 cancel a queued or running job                write
//	Status() (Status, error)                            GPUs, circuits, queue, running, totals        read
//	Version() (VersionInfo, error)                                                                    read
//
// SectorRef has lotus's JSON ({"ID":{"Miner":1000,"Number":42},"ProofType":8});
// Commit1Out and Proof are base64. Errors are typed and registered (Errors):
// *BadInputError, *BusyError, *CancelledError, *NotFoundError,
// *InternalError, *UnavailableError and *PermissionError reach go-jsonrpc
// clients made with jsonrpc.WithErrors(Errors()) as themselves, for
// errors.As; IsRetryable tells busy and unavailable apart from the rest.
// Requests may have up to DefaultMaxRequestSize (256 MiB) bytes.
//
// # Layers
//
//	Service        queues validated Requests and proves them: LocalService
//	               (bounded priority queue, one worker per slot, proofs/c2 on
//	               the CPU backend, every proof verified), package engine later
//	Server         the Prover API over a Service: ParseRequest validates every
//	               request (decode, proof type, size, replica_id, vanilla
//	               proofs) before it is queued
//	Serve          `filc2 plugin`: the go-plugin subprocess serving a Server
//	Client         Launch: runs the plugin (SHA-256 checked), forwards its
//	               log, restarts it when it dies; a Prover
//	NewHandler     the host's HTTP face: JWT auth (Permissioned), /healthz,
//	               /metrics (Instrumented, NewStatusCollector); `filc2 serve`
//
// Adapters for other wire shapes (the lotus worker API, lotus's
// RemoteCommit2Endpoint, curio's proving-engine gRPC) are written against
// Prover, turn their requests into ProveRequests and map the typed errors.
//
// # Transport between host and plugin
//
// The advertised-endpoint pattern: go-jsonrpc over HTTP on a private unix
// socket that the plugin hands the host, with a token, over the AutoMTLS
// go-plugin connection. "The transport, and why" in plugin.go says why this
// and not the frame bridge or the broker connection.
//
// The package knows nothing of CUDA.
package plugin

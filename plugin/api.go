package plugin

import (
	"context"
	"fmt"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/proofs/c2"
)

// Namespace is the go-jsonrpc namespace of the Prover API: its methods are
// called "Filc2.SealCommit2", "Filc2.Submit" and so on.
const Namespace = "Filc2"

// RPCPath is where the Prover API is served over HTTP POST and websocket.
const RPCPath = "/rpc/v0"

// DefaultMaxRequestSize bounds one JSON-RPC request: a base64 C1 output of a
// 64GiB sector with the envelope around it.
const DefaultMaxRequestSize = 256 << 20

// APIVersion is a semantic version packed as lotus packs its API versions:
// major<<16 | minor<<8 | patch.
type APIVersion uint32

// NewAPIVersion packs a version.
func NewAPIVersion(major, minor, patch uint8) APIVersion {
	return APIVersion(uint32(major)<<16 | uint32(minor)<<8 | uint32(patch))
}

// Parts returns the major, minor and patch numbers.
func (v APIVersion) Parts() (major, minor, patch uint8) {
	return uint8(v >> 16), uint8(v >> 8), uint8(v)
}

// String writes the version as "major.minor.patch".
func (v APIVersion) String() string {
	a, b, c := v.Parts()
	return fmt.Sprintf("%d.%d.%d", a, b, c)
}

// EqMajorMinor reports whether v and w agree on major and minor, the test
// lotus applies before talking to a peer.
func (v APIVersion) EqMajorMinor(w APIVersion) bool { return v&0xffff00 == w&0xffff00 }

// ProverAPIVersion is the version of the Prover API this package serves.
var ProverAPIVersion = NewAPIVersion(0, 1, 0)

// SectorRef names a sector and its proof type. It is lotus's
// storiface.SectorRef with the same JSON:
// {"ID":{"Miner":1000,"Number":42},"ProofType":8}.
type SectorRef struct {
	ID        abi.SectorID
	ProofType abi.RegisteredSealProof
}

// String writes the sector as "f01000-42 (8)".
func (s SectorRef) String() string {
	return fmt.Sprintf("f0%d-%d (%d)", s.ID.Miner, s.ID.Number, s.ProofType)
}

// Commit1Out is a C1 output: raw SealCommitPhase1Output JSON (what lotus's
// SealCommit1 returns) or lotus-bench's Commit2In wrapper around it. Its JSON
// is a base64 string, as lotus's storiface.Commit1Out.
type Commit1Out []byte

// Proof is SealCommit2's output, 192 bytes per partition; base64 in JSON.
type Proof []byte

// JobID identifies a proving job. A client may choose it (it is then the
// idempotency key of ProveRequest); otherwise the server mints a UUID.
type JobID string

// ProveRequest asks for one proving job: a SealCommit2 (Sector and
// Commit1Out), or with PoSt set a WindowPoSt partition or a WinningPoSt, or
// with Snap set a SnapDeals update proof.
type ProveRequest struct {
	// ID is the idempotency key: submitting a request with the ID of a job
	// that is queued, running or done returns that job instead of starting
	// another (and is refused as bad input if the sector or C1 differ). A
	// job that failed or was cancelled is replaced. Empty: a fresh UUID.
	// At most 128 bytes of printable ASCII.
	ID JobID
	// Sector names the sector; its ProofType must be the C1's proof type
	// and its Miner and Number must give the C1's replica_id.
	Sector SectorRef
	// Commit1Out is the C1 output to prove.
	Commit1Out Commit1Out
	// Priority orders the queue: higher first, first come first served
	// within a priority. A PoSt runs at least at its kind's priority
	// (WinningPoSt 2, critical; WindowPoSt 1, high).
	Priority int
	// PoSt, when set, asks for a PoSt instead of a SealCommit2: Commit1Out
	// must then be empty and Sector.ID.Miner alone is read (for logs).
	PoSt *PoStRequest `json:",omitempty"`
	// Snap, when set, asks for a SnapDeals update proof
	// (ProveReplicaUpdate2): Commit1Out and PoSt must then be empty and
	// Sector.ID alone is read (for logs).
	Snap *SnapRequest `json:",omitempty"`
}

// SnapRequest is a SnapDeals update to prove from its partition vanilla
// proofs, what lotus's GenerateUpdateProofWithVanilla and curio's
// SNAP_DEALS_UPDATE take.
type SnapRequest struct {
	// ProofType is the update proof type as go-state-types numbers it
	// (RegisteredUpdateProof: 2KiB 0 … 64GiB 4).
	ProofType abi.RegisteredUpdateProof
	// CommROld, CommRNew and CommDNew are the 32-byte commitments: the
	// sector key's comm_r, the updated sector's comm_r and the new data's
	// comm_d (the raw bytes of their CIDs' digests).
	CommROld, CommRNew, CommDNew []byte
	// VanillaProofs holds one bincode PartitionProof per partition, in
	// partition order (GenerateUpdateVanillaProofs' output); base64 in JSON.
	VanillaProofs [][]byte
}

// PoStRequest is a WindowPoSt partition or a WinningPoSt to prove from the
// sectors' vanilla proofs, what lotus's
// GenerateSinglePartitionWindowPoStWithVanilla and
// GenerateWinningPoStWithVanilla take.
type PoStRequest struct {
	// ProofType is the PoSt type as go-state-types numbers it: Winning 0–4,
	// Window V1 5–9, Window V1_1 10–14 (mainnet WindowPoSt).
	ProofType abi.RegisteredPoStProof
	// Randomness is the 32-byte challenge randomness; its top two bits are
	// cleared, as lotus and curio do before they hand it to a prover.
	Randomness []byte
	// VanillaProofs holds one bincode FallbackPoStSectorProof per sector
	// (generate_single_vanilla_proof's output), in the order the verifier
	// lists the sectors; base64 in JSON.
	VanillaProofs [][]byte
	// Partition is the WindowPoSt partition index (0 for WinningPoSt, and
	// for curio's one-partition jobs).
	Partition int
}

// JobState is where a job is in its life.
type JobState string

// The job states. Queued and Running are transient; the others are final.
const (
	StateQueued    JobState = "queued"
	StateRunning   JobState = "running"
	StateDone      JobState = "done"
	StateFailed    JobState = "failed"
	StateCancelled JobState = "cancelled"
)

// Final reports whether s is a final state.
func (s JobState) Final() bool { return s == StateDone || s == StateFailed || s == StateCancelled }

// Result is a finished job: its proof, verified before it was returned.
type Result struct {
	ID         JobID
	Sector     SectorRef
	Proof      Proof
	Backend    string            // the proving backend, "cpu" or "cuda"
	QueueNS    time.Duration     // from submission to the start of proving
	ProveNS    time.Duration     // from the start of proving to the verified proof (parameter loading included)
	Partitions []PartitionTiming // per partition
}

// PartitionTiming is where one partition's time went.
type PartitionTiming struct {
	Partition   int
	SynthesisNS time.Duration
	ProveNS     time.Duration
	VerifyNS    time.Duration
}

// partitionTimings converts c2's timings.
func partitionTimings(ts []c2.PartitionTiming) []PartitionTiming {
	out := make([]PartitionTiming, len(ts))
	for i, t := range ts {
		out[i] = PartitionTiming{Partition: t.Partition, SynthesisNS: t.Synthesis, ProveNS: t.Prove, VerifyNS: t.Verify}
	}
	return out
}

// JobInfo describes a queued or running job in Status.
type JobInfo struct {
	ID        JobID
	Kind      string `json:",omitempty"` // "porep" (also when empty), "window-post", "winning-post"
	Sector    SectorRef
	Priority  int
	State     JobState
	Submitted time.Time
	Started   time.Time `json:",omitzero"` // zero while queued
}

// GPU is a CUDA device the prover can use.
type GPU struct {
	Ordinal int
	Name    string
	Memory  uint64 // bytes
}

// Circuit is a circuit with its parameters loaded and resident.
type Circuit struct {
	Kind       string `json:",omitempty"` // "porep" (also when empty), "window-post", "winning-post", "snap-deals"
	ProofType  string // the proof type it was loaded for, such as "StackedDrg32GiBV1_1"
	SectorSize uint64
	Params     string // the .params file
	LoadNS     time.Duration
	Loaded     time.Time
}

// Totals count jobs since the prover started.
type Totals struct {
	Submitted uint64 // jobs accepted into the queue
	Rejected  uint64 // requests refused before queueing (bad input, busy)
	Succeeded uint64
	Failed    uint64
	Cancelled uint64
}

// Status is a snapshot of the prover.
type Status struct {
	Version       string    // filc2's version
	PID           int       // the prover process
	Started       time.Time // when the prover process started
	Backend       string    // "cpu" or "cuda"
	GPUs          []GPU
	Circuits      []Circuit // loaded circuits
	Slots         int       // jobs proved at once
	QueueCapacity int       // queued jobs accepted before Submit answers busy
	Queued        []JobInfo // in the order they will run
	Running       []JobInfo
	Totals        Totals
	// Engine is the proving engine's own status (pipeline, per-GPU workers
	// and lock accounting, memory budget) when the prover runs one.
	Engine *engine.Status `json:",omitempty"`
}

// VersionInfo is the answer of Version.
type VersionInfo struct {
	Version    string     // filc2's version, such as "0.1.0-dev"
	APIVersion APIVersion // the Prover API version (packed; see APIVersion)
}

// Prover is the Prover API. The in-process Server, the host-side Client and
// the permission proxy all implement it; the lotus and curio adapters are
// written against it.
type Prover interface {
	// SealCommit2 proves c1o for sector and returns the verified proof:
	// lotus's Sealer.SealCommit2. It queues the job at priority 0 and waits;
	// when ctx ends first the job is cancelled.
	SealCommit2(ctx context.Context, sector SectorRef, c1o Commit1Out) (Proof, error) // perm:write
	// Submit validates req, queues it and returns its job id at once.
	Submit(ctx context.Context, req ProveRequest) (JobID, error) // perm:write
	// Await waits for the job to finish and returns its result, or the
	// job's error (*CancelledError, *InternalError, …). When ctx ends first
	// it returns ctx's error and the job carries on: Await again later.
	Await(ctx context.Context, id JobID) (Result, error) // perm:write
	// Cancel cancels a queued or running job; its Await answers
	// *CancelledError. Cancelling a finished job changes nothing.
	Cancel(ctx context.Context, id JobID) error // perm:write
	// Status reports GPUs, loaded circuits, the queue, running jobs and totals.
	Status(ctx context.Context) (Status, error) // perm:read
	// Version reports filc2's version and the API version.
	Version(ctx context.Context) (VersionInfo, error) // perm:read
	// Timeline draws the proving engine's last window of work as an SVG
	// Gantt chart (a row per synthesis and GPU worker, a bar per partition
	// stage, a track of when each GPU's kernels ran); *UnavailableError
	// without an engine.
	Timeline(ctx context.Context, window time.Duration) (string, error) // perm:read
}

// ProverStruct is the Prover API as a struct of function fields, lotus
// style: go-jsonrpc clients fill Internal (NewMergeClient), and the
// permission proxy fills it with checked calls. Its methods call Internal.
type ProverStruct struct {
	Internal struct {
		SealCommit2 func(ctx context.Context, sector SectorRef, c1o Commit1Out) (Proof, error) `perm:"write"`
		Submit      func(ctx context.Context, req ProveRequest) (JobID, error)                 `perm:"write"`
		Await       func(ctx context.Context, id JobID) (Result, error)                        `perm:"write"`
		Cancel      func(ctx context.Context, id JobID) error                                  `perm:"write"`
		Status      func(ctx context.Context) (Status, error)                                  `perm:"read"`
		Version     func(ctx context.Context) (VersionInfo, error)                             `perm:"read"`
		Timeline    func(ctx context.Context, window time.Duration) (string, error)            `perm:"read"`
	}
}

var _ Prover = (*ProverStruct)(nil)

// SealCommit2 implements Prover.
func (s *ProverStruct) SealCommit2(ctx context.Context, sector SectorRef, c1o Commit1Out) (Proof, error) {
	return s.Internal.SealCommit2(ctx, sector, c1o)
}

// Submit implements Prover.
func (s *ProverStruct) Submit(ctx context.Context, req ProveRequest) (JobID, error) {
	return s.Internal.Submit(ctx, req)
}

// Await implements Prover.
func (s *ProverStruct) Await(ctx context.Context, id JobID) (Result, error) {
	return s.Internal.Await(ctx, id)
}

// Cancel implements Prover.
func (s *ProverStruct) Cancel(ctx context.Context, id JobID) error {
	return s.Internal.Cancel(ctx, id)
}

// Status implements Prover.
func (s *ProverStruct) Status(ctx context.Context) (Status, error) { return s.Internal.Status(ctx) }

// Version implements Prover.
func (s *ProverStruct) Version(ctx context.Context) (VersionInfo, error) {
	return s.Internal.Version(ctx)
}

// Timeline implements Prover.
func (s *ProverStruct) Timeline(ctx context.Context, window time.Duration) (string, error) {
	return s.Internal.Timeline(ctx, window)
}

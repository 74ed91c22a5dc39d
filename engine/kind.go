package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/fallback"
	"github.com/filc2/filc2/proofs/snap"
)

// Kind is what a job proves. Each kind brings its decoded input (an Input),
// and a Backend knows how to check, synthesise and verify it; the queue, the
// budget, the interlock, residency, metrics and the timeline do not look
// inside.
type Kind int

// The kinds a sealing host hands a GPU prover.
const (
	KindPoRep       Kind = iota // SealCommit2: a C1 output → the PoRep proof
	KindWindowPoSt              // one WindowPoSt partition
	KindWinningPoSt             // a WinningPoSt
	KindSnapDeals               // ProveReplicaUpdate2: an update's vanilla proofs → the update proof
)

var kindNames = [...]string{"porep", "window-post", "winning-post", "snap-deals"}

// String returns the kind's name, such as "window-post".
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// MarshalText implements encoding.TextMarshaler.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("engine: unknown kind %q", b)
}

// Priority is the least priority a job of kind k runs at, curio's order:
// WinningPoSt critical (a late one loses the block), WindowPoSt high (a late
// one loses power), PoRep and SnapDeals normal. A request asking for less
// gets this.
func (k Kind) Priority() Priority {
	switch k {
	case KindWinningPoSt:
		return PriorityCritical
	case KindWindowPoSt:
		return PriorityHigh
	}
	return PriorityLow
}

// CircuitSpec names the circuit a job needs and the proof type to load it
// for. Jobs of one kind and sector size share a circuit (PoRep V1 and V1_1;
// Window V1 and V1_1), so those two are the residency key.
type CircuitSpec struct {
	Kind       Kind
	SectorSize uint64
	Name       string          // the registered proof the load is for, for logs and errors
	Seal       abi.SealProof   // KindPoRep
	PoSt       abi.PoStProof   // KindWindowPoSt, KindWinningPoSt
	Update     abi.UpdateProof // KindSnapDeals
}

// circuitKey is what residency keys circuits by.
type circuitKey struct {
	kind Kind
	size uint64
}

func (s CircuitSpec) key() circuitKey { return circuitKey{s.Kind, s.SectorSize} }

// String names the circuit, such as "porep/32GiB".
func (k circuitKey) String() string {
	return fmt.Sprintf("%s/%s", k.kind, ByteSize(int64(k.size)))
}

// Input is one job's decoded input: PoRep, PoSt or Snap. A Backend type-switches
// on it; the engine only asks what every kind answers.
type Input interface {
	// Kind is what the job proves.
	Kind() Kind
	// Circuit is the circuit the job's partitions are proved with.
	Circuit() CircuitSpec
	// Partitions is how many proving runs the job is (one 192-byte proof each).
	Partitions() int
	// Fingerprint identifies the public statement: two inputs with the same
	// fingerprint are the same request.
	Fingerprint() [32]byte
}

// PoRep is a SealCommit2's input: a decoded C1 output of proof type Proof.
type PoRep struct {
	Proof abi.SealProof
	C1    *c1.Commit1Out
}

// Kind implements Input.
func (*PoRep) Kind() Kind { return KindPoRep }

// Circuit implements Input.
func (in *PoRep) Circuit() CircuitSpec {
	return CircuitSpec{Kind: KindPoRep, SectorSize: uint64(in.Proof.SectorSize), Name: in.Proof.Name, Seal: in.Proof}
}

// Partitions implements Input.
func (in *PoRep) Partitions() int { return in.Proof.Partitions }

// Fingerprint implements Input: the proof type and the sector's public data.
func (in *PoRep) Fingerprint() [32]byte {
	c := in.C1
	h := sha256.New()
	h.Write([]byte(c.RegisteredProof))
	h.Write([]byte{0})
	for _, d := range []c1.Domain{c.ReplicaID, c.CommD, c.CommR, c.Seed, c.Ticket} {
		h.Write(d[:])
	}
	var f [32]byte
	h.Sum(f[:0])
	return f
}

// PoSt is a WindowPoSt partition's or a WinningPoSt's input: the sectors'
// vanilla proofs arranged as the circuit takes them (fallback.NewPartition),
// not yet checked (the Backend's Check does that), and the randomness.
type PoSt struct {
	Partition  *fallback.Partition
	Randomness fallback.Randomness // already masked to a field element
	// Checked says the caller ran Partition.Check(Randomness) already (the
	// Prover API does, to refuse bad input before queueing): the backend
	// does not run it again (a 32GiB WindowPoSt's check is a second).
	Checked bool
}

// NewPoSt arranges the vanilla proofs of sectors (in the verifier's order)
// for partition k of proof type p: the shape checks that need no hashing.
func NewPoSt(p abi.PoStProof, r fallback.Randomness, vanillas []*fallback.SectorVanilla, k int) (*PoSt, error) {
	if err := fallback.CheckRandomness(r); err != nil {
		return nil, err
	}
	pt, err := fallback.NewPartition(p, vanillas, k)
	if err != nil {
		return nil, err
	}
	return &PoSt{Partition: pt, Randomness: r}, nil
}

// Kind implements Input.
func (in *PoSt) Kind() Kind {
	if in.Partition.Proof.Kind == abi.Winning {
		return KindWinningPoSt
	}
	return KindWindowPoSt
}

// Circuit implements Input.
func (in *PoSt) Circuit() CircuitSpec {
	p := in.Partition.Proof
	return CircuitSpec{Kind: in.Kind(), SectorSize: uint64(p.SectorSize), Name: p.Name, PoSt: p}
}

// Partitions implements Input: a PoSt job is one proving run.
func (*PoSt) Partitions() int { return 1 }

// Fingerprint implements Input: the proof type, randomness, partition index
// and the sectors (id, comm_r) the proof is for.
func (in *PoSt) Fingerprint() [32]byte {
	h := sha256.New()
	h.Write([]byte(in.Partition.Proof.Name))
	h.Write([]byte{0})
	h.Write(in.Randomness[:])
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(in.Partition.Index))
	h.Write(b[:])
	for _, s := range in.Partition.PublicSectors() {
		binary.LittleEndian.PutUint64(b[:], s.ID)
		h.Write(b[:])
		h.Write(s.CommR[:])
	}
	var f [32]byte
	h.Sum(f[:0])
	return f
}

// poRepOnly is in as a PoRep input, for the backends that prove PoRep only
// (Synthetic, SetupKey).
func poRepOnly(backend string, in Input) (*PoRep, error) {
	pr, ok := in.(*PoRep)
	if !ok || pr.C1 == nil {
		return nil, fmt.Errorf("engine: the %s backend proves PoRep only, not %s", backend, in.Kind())
	}
	return pr, nil
}

// poRepSpec is spec's seal proof type, for the backends that prove PoRep only.
func poRepSpec(backend string, spec CircuitSpec) (abi.SealProof, error) {
	if spec.Kind != KindPoRep {
		return abi.SealProof{}, fmt.Errorf("engine: the %s backend proves PoRep only, not %s", backend, spec.Kind)
	}
	return spec.Seal, nil
}

// Snap is a SnapDeals update's input: the commitments and every partition's
// vanilla proof (snap.Request), each partition one proving run.
type Snap struct {
	Request *snap.Request
	// Checked says the caller ran snap.Check on the request already (the
	// Prover API does, to refuse bad input before queueing): the backend does
	// not run it again.
	Checked bool
}

// Kind implements Input.
func (*Snap) Kind() Kind { return KindSnapDeals }

// Circuit implements Input.
func (in *Snap) Circuit() CircuitSpec {
	p := in.Request.Proof
	return CircuitSpec{Kind: KindSnapDeals, SectorSize: uint64(p.SectorSize), Name: p.Name, Update: p}
}

// Partitions implements Input.
func (in *Snap) Partitions() int { return in.Request.Proof.Partitions }

// Fingerprint implements Input: the proof type and the three commitments.
func (in *Snap) Fingerprint() [32]byte {
	r := in.Request
	h := sha256.New()
	h.Write([]byte("update/" + r.Proof.Name))
	h.Write([]byte{0})
	h.Write(r.CommROld[:])
	h.Write(r.CommDNew[:])
	h.Write(r.CommRNew[:])
	var f [32]byte
	h.Sum(f[:0])
	return f
}

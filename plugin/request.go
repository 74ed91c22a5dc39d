package plugin

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/fallback"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/snap"
	"github.com/filc2/filc2/proofs/update"
	"github.com/filc2/filc2/proofs/vanilla"
)

// MaxC1Size bounds a C1 output (the decoded bytes; Commit1Out's base64 in a
// request is a third larger). A 32GiB C1 is about 50 MB.
const MaxC1Size = 192 << 20

// MaxIDLen bounds a client-chosen job id.
const MaxIDLen = 128

// Request is a validated ProveRequest, what a Service queues: the C1 is
// decoded, validated and its vanilla proofs checked, and it belongs to the
// sector.
type Request struct {
	ID       JobID
	Sector   SectorRef
	Priority int
	Proof    abi.SealProof     // the proof type, Sector.ProofType's (SealCommit2)
	C1       *c1.Commit1Out    // the decoded C1 output (SealCommit2)
	PoSt     *engine.PoSt      // a PoSt's checked vanilla proofs and randomness (nil: SealCommit2)
	Snap     *engine.Snap      // a SnapDeals update's checked vanilla proofs and commitments
	Digest   [sha256.Size]byte // of the sector and the C1 bytes, or of the PoSt: equal digests, same job
}

// Kind names what the request proves ("porep", "window-post", "winning-post").
func (r *Request) Kind() string {
	if r.PoSt != nil {
		return r.PoSt.Kind().String()
	}
	if r.Snap != nil {
		return r.Snap.Kind().String()
	}
	return engine.KindPoRep.String()
}

// ProofName is the registered proof's name.
func (r *Request) ProofName() string {
	if r.PoSt != nil {
		return r.PoSt.Partition.Proof.Name
	}
	if r.Snap != nil {
		return r.Snap.Request.Proof.Name
	}
	return r.Proof.Name
}

// ParseRequest validates req as every entry point must before queueing: the
// id, the proof type, the C1's size, JSON and structure, its proof type
// against the sector's, its replica_id against the sector's miner and
// number, and its vanilla proofs. Every refusal is a *BadInputError; ctx
// bounds the vanilla checks.
func ParseRequest(ctx context.Context, req ProveRequest) (*Request, error) {
	if err := checkID(req.ID); err != nil {
		return nil, err
	}
	if req.PoSt != nil && req.Snap != nil {
		return nil, &BadInputError{Field: "Snap", Msg: "set with PoSt: send one kind of request"}
	}
	if req.PoSt != nil {
		return parsePoSt(ctx, req)
	}
	if req.Snap != nil {
		return parseSnap(ctx, req)
	}
	p, err := abi.Lookup(req.Sector.ProofType)
	if err != nil {
		return nil, &BadInputError{Field: "Sector.ProofType", Msg: err.Error()}
	}
	switch n := len(req.Commit1Out); {
	case n == 0:
		return nil, &BadInputError{Field: "Commit1Out", Msg: "empty: send the output of SealCommit1 (raw SealCommitPhase1Output JSON or a lotus-bench Commit2In file)"}
	case n > MaxC1Size:
		return nil, &BadInputError{Field: "Commit1Out", Msg: fmt.Sprintf("%d bytes, over the limit of %d", n, MaxC1Size)}
	}
	c, w, err := c1.DecodeWrapped(req.Commit1Out)
	if err != nil {
		return nil, &BadInputError{Field: "Commit1Out", Msg: err.Error()}
	}
	cp, err := c.ProofType()
	if err != nil {
		return nil, &BadInputError{Field: "Commit1Out", Msg: err.Error()}
	}
	if cp.Proof != p.Proof {
		msg := fmt.Sprintf("the C1 output is for %s (%d), Sector.ProofType is %d (%s)", cp.Name, cp.Proof, p.Proof, p.Name)
		if cp.SectorSize != p.SectorSize {
			msg = fmt.Sprintf("the C1 output is for %s (%d-byte sectors), Sector.ProofType is %d (%s, %d-byte sectors): wrong sector size",
				cp.Name, uint64(cp.SectorSize), p.Proof, p.Name, uint64(p.SectorSize))
		}
		return nil, &BadInputError{Field: "Sector.ProofType", Msg: msg}
	}
	if w != nil && uint64(w.SectorNum) != uint64(req.Sector.ID.Number) {
		return nil, &BadInputError{Field: "Sector.ID.Number", Msg: fmt.Sprintf(
			"%d, but the Commit2In wrapper's SectorNum is %d", req.Sector.ID.Number, w.SectorNum)}
	}
	want := porep.ReplicaID(porep.ProverID(uint64(req.Sector.ID.Miner)), uint64(req.Sector.ID.Number), c.Ticket, c.CommD, p.PoRepID())
	if want != c.ReplicaID {
		return nil, &BadInputError{Field: "Sector.ID", Msg: fmt.Sprintf(
			"the C1's replica_id %x is not that of miner %d sector %d: the C1 belongs to another sector",
			c.ReplicaID[:], req.Sector.ID.Miner, req.Sector.ID.Number)}
	}
	if err := porep.VerifyVanilla(ctx, c); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ve *porep.VanillaError
		if errors.As(err, &ve) {
			return nil, &BadInputError{Field: "Commit1Out", Msg: err.Error()}
		}
		return nil, &BadInputError{Field: "Commit1Out", Msg: "vanilla proofs: " + err.Error()}
	}
	id := req.ID
	if id == "" {
		id = JobID(uuid.NewString())
	}
	return &Request{
		ID:       id,
		Sector:   req.Sector,
		Priority: req.Priority,
		Proof:    p,
		C1:       c,
		Digest:   digest(req.Sector, req.Commit1Out),
	}, nil
}

// checkID accepts an empty id or up to MaxIDLen bytes of printable ASCII.
func checkID(id JobID) error {
	if len(id) > MaxIDLen {
		return &BadInputError{Field: "ID", Msg: fmt.Sprintf("%d bytes, at most %d", len(id), MaxIDLen)}
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return &BadInputError{Field: "ID", Msg: fmt.Sprintf("byte %d is %q: want printable ASCII without spaces", i, id[i])}
		}
	}
	return nil
}

// digest identifies a request's content: the sector and the C1 bytes.
func digest(s SectorRef, c1o []byte) [sha256.Size]byte {
	h := sha256.New()
	var b [24]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(s.ID.Miner))
	binary.LittleEndian.PutUint64(b[8:], uint64(s.ID.Number))
	binary.LittleEndian.PutUint64(b[16:], uint64(s.ProofType))
	h.Write(b[:])
	h.Write(c1o)
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

// MaxPoStVanilla bounds one sector's vanilla proof (a 64GiB WindowPoSt
// sector's is about 26 KB).
const MaxPoStVanilla = 1 << 20

// parsePoSt validates a PoSt request: its type, randomness (masked), each
// vanilla proof's bincode, the partition's shape and the vanilla check the
// reference runs before proving (paths, comm_r, challenged leaves).
func parsePoSt(ctx context.Context, req ProveRequest) (*Request, error) {
	ps := req.PoSt
	if len(req.Commit1Out) != 0 {
		return nil, &BadInputError{Field: "Commit1Out", Msg: "set for a PoSt request: send either a C1 output or PoSt, not both"}
	}
	p, err := abi.LookupPoSt(ps.ProofType)
	if err != nil {
		return nil, &BadInputError{Field: "PoSt.ProofType", Msg: err.Error()}
	}
	if len(ps.Randomness) != 32 {
		return nil, &BadInputError{Field: "PoSt.Randomness", Msg: fmt.Sprintf("%d bytes, want 32", len(ps.Randomness))}
	}
	r := fallback.MaskRandomness([32]byte(ps.Randomness))
	switch n := len(ps.VanillaProofs); {
	case n == 0:
		return nil, &BadInputError{Field: "PoSt.VanillaProofs", Msg: fmt.Sprintf("empty: send one FallbackPoStSectorProof per sector (1 to %d for %s)", p.SectorCount, p.Name)}
	case p.Kind == abi.Window && n > p.SectorCount:
		return nil, &BadInputError{Field: "PoSt.VanillaProofs", Msg: fmt.Sprintf("%d sectors, a %s partition holds at most %d", n, p.Name, p.SectorCount)}
	}
	if ps.Partition < 0 || ps.Partition > 1<<20 {
		return nil, &BadInputError{Field: "PoSt.Partition", Msg: fmt.Sprintf("%d: want a partition index ≥ 0", ps.Partition)}
	}
	h := sha256.New()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(ps.ProofType))
	binary.LittleEndian.PutUint64(b[8:], uint64(ps.Partition))
	h.Write([]byte("post\x00"))
	h.Write(b[:])
	h.Write(r[:])
	vs := make([]*fallback.SectorVanilla, len(ps.VanillaProofs))
	for i, raw := range ps.VanillaProofs {
		if len(raw) > MaxPoStVanilla {
			return nil, &BadInputError{Field: fmt.Sprintf("PoSt.VanillaProofs[%d]", i), Msg: fmt.Sprintf("%d bytes, over the limit of %d", len(raw), MaxPoStVanilla)}
		}
		v, err := fallback.DecodeSectorVanilla(raw)
		if err != nil {
			return nil, &BadInputError{Field: fmt.Sprintf("PoSt.VanillaProofs[%d]", i), Msg: err.Error()}
		}
		vs[i] = v
		binary.LittleEndian.PutUint64(b[:8], uint64(len(raw)))
		h.Write(b[:8])
		h.Write(raw)
	}
	in, err := engine.NewPoSt(p, r, vs, ps.Partition)
	if err != nil {
		return nil, &BadInputError{Field: "PoSt.VanillaProofs", Msg: err.Error()}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := in.Partition.Check(r); err != nil {
		return nil, &BadInputError{Field: "PoSt.VanillaProofs", Msg: err.Error()}
	}
	in.Checked = true
	id := req.ID
	if id == "" {
		id = JobID(uuid.NewString())
	}
	out := &Request{ID: id, Sector: SectorRef{ID: req.Sector.ID}, Priority: max(req.Priority, int(in.Kind().Priority())), PoSt: in}
	h.Sum(out.Digest[:0])
	return out, nil
}

// MaxSnapVanilla bounds one partition's vanilla proof (a 32GiB partition's
// is 562 KB).
const MaxSnapVanilla = 4 << 20

// parseSnap validates a SnapDeals request: its type, the three
// commitments, each partition's bincode and the vanilla check of every
// partition (paths, roots, the encoding, the apex tree).
func parseSnap(ctx context.Context, req ProveRequest) (*Request, error) {
	sr := req.Snap
	if len(req.Commit1Out) != 0 {
		return nil, &BadInputError{Field: "Commit1Out", Msg: "set for a SnapDeals request: send either a C1 output or Snap, not both"}
	}
	p, err := abi.LookupUpdate(sr.ProofType)
	if err != nil {
		return nil, &BadInputError{Field: "Snap.ProofType", Msg: err.Error()}
	}
	var pub update.Commitments
	for _, c := range []struct {
		field string
		b     []byte
		dst   *vanilla.Domain
	}{{"Snap.CommROld", sr.CommROld, &pub.CommROld}, {"Snap.CommRNew", sr.CommRNew, &pub.CommRNew}, {"Snap.CommDNew", sr.CommDNew, &pub.CommDNew}} {
		if len(c.b) != 32 {
			return nil, &BadInputError{Field: c.field, Msg: fmt.Sprintf("%d bytes, want 32", len(c.b))}
		}
		*c.dst = vanilla.Domain(c.b)
	}
	if n := len(sr.VanillaProofs); n != p.Partitions {
		return nil, &BadInputError{Field: "Snap.VanillaProofs", Msg: fmt.Sprintf("%d partition proofs, %s has %d (one per partition, in partition order)", n, p.Name, p.Partitions)}
	}
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(sr.ProofType))
	h.Write([]byte("snap\x00"))
	h.Write(b[:])
	h.Write(pub.CommROld[:])
	h.Write(pub.CommRNew[:])
	h.Write(pub.CommDNew[:])
	sreq := &snap.Request{Proof: p, Commitments: pub}
	for k, raw := range sr.VanillaProofs {
		if len(raw) > MaxSnapVanilla {
			return nil, &BadInputError{Field: fmt.Sprintf("Snap.VanillaProofs[%d]", k), Msg: fmt.Sprintf("%d bytes, over the limit of %d", len(raw), MaxSnapVanilla)}
		}
		pp, err := update.DecodePartitionProof(raw)
		if err != nil {
			return nil, &BadInputError{Field: fmt.Sprintf("Snap.VanillaProofs[%d]", k), Msg: err.Error()}
		}
		sreq.Vanilla = append(sreq.Vanilla, pp)
		binary.LittleEndian.PutUint64(b[:], uint64(len(raw)))
		h.Write(b[:])
		h.Write(raw)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := snap.Check(sreq); err != nil {
		return nil, &BadInputError{Field: "Snap.VanillaProofs", Msg: err.Error()}
	}
	id := req.ID
	if id == "" {
		id = JobID(uuid.NewString())
	}
	in := &engine.Snap{Request: sreq, Checked: true}
	out := &Request{ID: id, Sector: SectorRef{ID: req.Sector.ID}, Priority: max(req.Priority, int(in.Kind().Priority())), Snap: in}
	h.Sum(out.Digest[:0])
	return out, nil
}

//go:build cuda

package ffi

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/fault"
	"github.com/filc2/filc2/internal/placement"
	"github.com/filc2/filc2/internal/preempt"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
)

// The CUDA proving backend. A Prover holds one circuit's proving key resident on one
// device (the five queries as MSM bases, the NTT domain) and proves in three stages:
//
//	Prepare (CPU, outside the GPU lock): the witness uploaded into a device buffer;
//	RunGPU  (the kernel section): a, b, c = A·w, B·w, C·w and the compacted A and B
//	        scalars by SpMV and gathers on the device (the circuit resident beside the
//	        key), the H pipeline, the dense H MSM and the split L, A, B_G1, B_G2 MSMs;
//	Finish  (CPU): the proof from the five sums and the blinding r, s.
//
// When the circuit's matrices do not fit beside the key, Prepare computes a, b, c and
// the query scalars on the host instead and RunGPU uploads them (HostSpMV reports it).
//
// Backend wraps the three stages as a groth16.Backend.

// Backend is the CUDA groth16.Backend on one device.
type Backend struct {
	Device int // CUDA device ordinal
}

// NewBackend returns the CUDA proving backend on device 0; no usable device is an error
// matching ErrNoDevice.
func NewBackend() (groth16.Backend, error) {
	b, err := NewBackendOn(0)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// NewBackendOn returns the CUDA proving backend on the given device.
func NewBackendOn(device int) (*Backend, error) {
	devs, err := Devices()
	if err != nil {
		return nil, err
	}
	if device < 0 || device >= len(devs) {
		return nil, fmt.Errorf("%w: device %d requested, %d visible", ErrNoDevice, device, len(devs))
	}
	return &Backend{Device: device}, nil
}

// Name implements groth16.Backend.
func (b *Backend) Name() string { return "cuda" }

// LoadSRS implements groth16.Backend with LoadProver.
func (b *Backend) LoadSRS(ctx context.Context, pk *groth16.ProvingKey, c *r1cs.Circuit) (groth16.SRS, error) {
	return LoadProver(ctx, b.Device, pk, c)
}

// Prove implements groth16.Backend: the three stages in a row.
func (b *Backend) Prove(ctx context.Context, srs groth16.SRS, w *groth16.Assignment, r, s fr.Element) (*groth16.Proof, error) {
	p, ok := srs.(*Prover)
	if !ok {
		return nil, errors.New("ffi: SRS was not loaded by the CUDA backend")
	}
	proof, _, err := p.ProveTimed(ctx, w, r, s)
	return proof, err
}

// Prover is one circuit's proving key resident on one device.
type Prover struct {
	device  int
	vk      groth16.VerifyingKey
	circuit *r1cs.Circuit
	shape   groth16.Shape
	dens    groth16.Densities
	domain  *Domain
	h, l, a *G1Bases
	bg1     *G1Bases
	bg2     *G2Bases
	dc      *DeviceCircuit // nil: SpMV on the host
	up      *uploadPool    // staged witness uploads; nil: pageable copies (FILC2_UPLOAD=pageable)
	overlap bool           // the A and B MSMs run beside the H pipeline (FILC2_OVERLAP=1; default: after it)
	lean    bool           // the MSM scratch sized for H, lent its scalars too (FILC2_MSM_SCRATCH; scratchPolicy)
	fold    bool           // a padded partition's small MSMs over folded bases (FILC2_FOLD; foldFromEnv)

	folds        *foldSet       // the folded bases of the last padded partition (groth16.Repeat); p.gpu
	hostResident []string       // queries whose points are in pinned host memory
	hostBytes    int64          // the pinned host memory those points take
	streamChunks map[string]int // hostResident's chunks, in points, as set at load (StreamChunks)

	gpu  sync.Mutex   // the kernel section: one partition at a time uses work
	work *workBuffers // a, b, c over the domain and the query scalars (under gpu)

	spare    freeList[*FrBuffer] // witness buffers kept for the next partition (closed by Close)
	out      atomic.Int32        // witness buffers taken and not yet given back
	returned chan struct{}       // a witness buffer came back (for a take that found no memory)

	scratchBytes uint64 // the MSM scratch the five queries share, reserved at load
	footprint    uint64 // the device memory taken at load

	maxOut   int32              // tests: at most this many witness buffers out at once (0: as memory allows)
	testHook func(point string) // tests: called at named points of the kernel section
}

// maxSpare bounds the witness buffers a Prover keeps between partitions (two workers
// per GPU: one running, one prepared).
const maxSpare = 2

// workBuffers are the device vectors of the kernel section.
type workBuffers struct {
	a, b, c *FrBuffer // the evaluations over the domain, then H
	as, bs  *FrBuffer // the compacted A and B scalars
}

// others are a, b and c less x (the H MSM's loans: H is in x).
func (w *workBuffers) others(x *FrBuffer) []*FrBuffer {
	out := make([]*FrBuffer, 0, 2)
	for _, b := range []*FrBuffer{w.a, w.b, w.c} {
		if b != x {
			out = append(out, b)
		}
	}
	return out
}

func (w *workBuffers) free() error {
	if w == nil {
		return nil
	}
	return errors.Join(w.a.Free(), w.b.Free(), w.c.Free(), w.as.Free(), w.bs.Free())
}

// LoadProver uploads pk (the key of circuit c) and c's matrices to device and keeps
// them there until Close. If the matrices do not fit, SpMV runs on the host.
func LoadProver(ctx context.Context, device int, pk *groth16.ProvingKey, c *r1cs.Circuit) (*Prover, error) {
	if err := pk.CheckShape(groth16.ShapeOf(c.Stats())); err != nil {
		return nil, err
	}
	return loadProver(ctx, device, c, func(p *Prover) error {
		p.vk = pk.VK
		var err error
		for _, q := range []struct {
			name string
			dst  **G1Bases
			pts  []bls.G1Affine
		}{{"h", &p.h, pk.H}, {"l", &p.l, pk.L}, {"a", &p.a, pk.A}, {"b_g1", &p.bg1, pk.BG1}} {
			if err := ctx.Err(); err != nil {
				return err
			}
			if *q.dst, err = UploadG1On(device, q.pts); err != nil {
				return fmt.Errorf("uploading the %s query (%d points) to device %d: %w", q.name, len(q.pts), device, err)
			}
		}
		if p.bg2, err = UploadG2On(device, pk.BG2); err != nil {
			return fmt.Errorf("uploading the b_g2 query (%d points) to device %d: %w", len(pk.BG2), device, err)
		}
		return nil
	})
}

// LoadSyntheticProver makes a key with the lengths circuit c needs directly on the
// device, from seed: distinct valid points, not a real setup (benchmarks at sizes whose
// parameters are not at hand). Its proofs do not verify under any key.
func LoadSyntheticProver(ctx context.Context, device int, c *r1cs.Circuit, seed uint64) (*Prover, error) {
	_, _, g1, g2 := bls.Generators()
	return loadProver(ctx, device, c, func(p *Prover) error {
		p.vk = groth16.VerifyingKey{AlphaG1: g1, BetaG1: g1, BetaG2: g2, GammaG2: g2, DeltaG1: g1, DeltaG2: g2}
		n := p.shape.Lengths()
		var err error
		for i, dst := range []**G1Bases{&p.h, &p.l, &p.a, &p.bg1} {
			if err := ctx.Err(); err != nil {
				return err
			}
			if *dst, err = GenerateG1(device, max(n[i], 1), seed+uint64(i)<<40); err != nil {
				return fmt.Errorf("generating %d synthetic G1 points on device %d: %w", n[i], device, err)
			}
		}
		if p.bg2, err = GenerateG2(device, max(n[4], 1), seed+4<<40); err != nil {
			return fmt.Errorf("generating %d synthetic G2 points on device %d: %w", n[4], device, err)
		}
		return nil
	})
}

// loadProver makes circuit c's prover on device. Everything a proof needs on the device
// is allocated here, so that a prover that loads can prove beside whatever else is
// resident: the NTT domain, the kernel section's buffers, one witness buffer, then, with
// room held back for one shared MSM scratch, the circuit's matrices (no room: SpMV on the
// host) and the five queries and the verifying key (keys fills them; queries that find
// the device full stay in host memory and their MSMs stream them through the device), and
// the scratch itself. The matrices go first because the host SpMV costs a 32GiB proof
// seconds (SpMV on the cores and its a, b, c uploaded) where a streamed query costs its
// copy, which the MSM's arithmetic hides. Under placement.WithDeviceOnly nothing goes to
// the host: the key goes up before the matrices, and what does not fit on the device fails
// with ErrOutOfMemory. On any failure what was made is freed.
func loadProver(ctx context.Context, device int, c *r1cs.Circuit, keys func(p *Prover) error) (_ *Prover, err error) {
	shape := groth16.ShapeOf(c.Stats())
	p := &Prover{device: device, circuit: c, shape: shape, dens: groth16.DensitiesOf(c), returned: make(chan struct{}, 1)}
	p.spare.max = maxSpare
	if p.up, err = uploadPoolFromEnv(device); err != nil {
		return nil, err
	}
	variant, err := msmVariantFromEnv()
	if err != nil {
		return nil, err
	}
	if p.fold, err = foldFromEnv(); err != nil {
		return nil, err
	}
	if p.overlap, err = overlapFromEnv(); err != nil {
		return nil, err
	}
	policy, err := scratchPolicyFromEnv()
	if err != nil {
		return nil, err
	}
	p.lean = policy == scratchH
	sort, err := msmSortFromEnv()
	if err != nil {
		return nil, err
	}
	streamChunk, err := streamChunkFromEnv()
	if err != nil {
		return nil, err
	}
	err = func() (err error) {
		if p.domain, err = newDomainOn(device, shape); err != nil {
			return err
		}
		p.gpu.Lock()
		_, err = p.workLocked()
		p.gpu.Unlock()
		if err != nil {
			return err
		}
		w, err := p.takeWitness(context.Background())
		if err != nil {
			return err
		}
		p.giveWitness(w)
		plans, err := p.scratchPlans()
		if err != nil {
			return err
		}
		// Ballast: the first plan's bytes, held while the key goes up so that the queries
		// leave the scratch its room (a device too full for it gets none: the reservation
		// below then plans fewer windows per pass, or chunks, or fails). The largest plan's,
		// a split MSM's worst case (every scalar neither 0 nor 1); with p.lean the H MSM's,
		// and the split MSMs get what is free after the key, in chunks where that is not
		// enough. scratchAuto starts with the worst case and switches once the circuit is
		// up, where that brings the whole key onto the device (sizeForH).
		deviceOnly := placement.DeviceOnly(ctx)
		ballast, err := p.holdBallast(plans, deviceOnly)
		if err != nil {
			return err
		}
		if !deviceOnly {
			if err := p.uploadCircuit(); err != nil {
				ballast.Free()
				return err
			}
		}
		if policy == scratchAuto {
			if plans, ballast, err = p.sizeForH(plans, ballast, deviceOnly); err != nil {
				ballast.Free()
				return err
			}
		}
		if deviceOnly {
			if err := p.checkKeyFits(); err != nil {
				ballast.Free()
				return err
			}
		}
		err = keys(p)
		if ballast != nil {
			err = errors.Join(err, ballast.Free())
		}
		if err != nil {
			return err
		}
		for _, q := range []string{"h", "l", "a", "b_g1", "b_g2"} {
			if variant != 0 {
				if err := p.handleOf(q).setVariant(variant); err != nil {
					return fmt.Errorf("the %s query's MSM kernel (FILC2_MSM_VARIANT=%d): %w", q, variant, err)
				}
			}
			if sort != 0 {
				if err := p.handleOf(q).setSort(sort); err != nil {
					return fmt.Errorf("the %s query's MSM sort (FILC2_MSM_SORT=%d): %w", q, sort, err)
				}
			}
		}
		if err := p.reserveScratch(plans); err != nil {
			return err
		}
		p.findHostResident()
		if streamChunk >= 0 {
			for _, q := range p.hostResident {
				if _, err := p.handleOf(q).SetStreamChunk(streamChunk); err != nil {
					return fmt.Errorf("the %s query's stream chunk (FILC2_MSM_STREAM_CHUNK=%d): %w", q, streamChunk, err)
				}
			}
		} else if streamChunk == streamChunkGrow {
			if err := p.growStreamChunks(); err != nil {
				return err
			}
		}
		if err := p.recordStreamChunks(); err != nil {
			return err
		}
		if deviceOnly && len(p.hostResident) > 0 {
			return fmt.Errorf("%w: the key's %v queries did not fit on device %d (device-only load)", ErrOutOfMemory,
				p.hostResident, device)
		}
		if deviceOnly {
			if err := p.uploadCircuit(); err != nil {
				return err
			}
		}
		if deviceOnly && p.dc == nil {
			return fmt.Errorf("%w: the circuit's matrices did not fit on device %d (device-only load)", ErrOutOfMemory, device)
		}
		p.footprint, err = p.DeviceBytes()
		return err
	}()
	if err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// holdBallast allocates plans[0].bytes on the prover's device, held while the key goes up
// (nil where there are no plans, or, unless deviceOnly, where the device has no room).
func (p *Prover) holdBallast(plans []scratchPlan, deviceOnly bool) (*FrBuffer, error) {
	if len(plans) == 0 {
		return nil, nil
	}
	b, err := AllocFr(p.device, int(plans[0].bytes/uint64(fr.Bytes))+1)
	if errors.Is(err, ErrOutOfMemory) && !deviceOnly {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("room for the MSM scratch (%.1f GiB) on device %d: %w", float64(plans[0].bytes)/(1<<30), p.device, err)
	}
	return b, nil
}

// sizeForH is scratchAuto's choice, made with the worst case's ballast held and the circuit
// up: where leanPays (the whole key fits with the H MSM's plan held back, not with the
// worst case), it sets p.lean and returns the plans sized for H with their ballast in place
// of the worst case's; otherwise plans and ballast unchanged.
func (p *Prover) sizeForH(plans []scratchPlan, ballast *FrBuffer, deviceOnly bool) ([]scratchPlan, *FrBuffer, error) {
	free, err := p.deviceFree()
	if err != nil {
		return plans, ballast, err
	}
	var held uint64
	if ballast != nil {
		held = uint64(ballast.Len()) * fr.Bytes
	}
	p.lean = true
	lean, err := p.scratchPlans()
	if err != nil || len(lean) == 0 || !leanPays(free, keyDeviceBytes(p.shape.Lengths()), held, lean[0].bytes) {
		p.lean = false
		return plans, ballast, err
	}
	if err := ballast.Free(); err != nil {
		return plans, nil, err
	}
	b, err := p.holdBallast(lean, deviceOnly)
	return lean, b, err
}

// ScratchSizedForH reports whether the MSM scratch was sized for the H MSM at load
// (FILC2_MSM_SCRATCH=h, or auto where that brought the whole key onto the device).
func (p *Prover) ScratchSizedForH() bool { return p.lean }

// checkKeyFits fails with ErrOutOfMemory when the device's free memory is less than the
// key's points (keyDeviceBytes): a device-only load that cannot fit fails before it uploads
// anything.
func (p *Prover) checkKeyFits() error {
	need := keyDeviceBytes(p.shape.Lengths())
	free, err := p.deviceFree()
	if err != nil {
		return err
	}
	if free < need {
		return fmt.Errorf("%w: the key needs %.1f GiB, device %d has %.1f GiB free (device-only load)", ErrOutOfMemory,
			float64(need)/(1<<30), p.device, float64(free)/(1<<30))
	}
	return nil
}

// deviceFree is the free memory of the prover's device now.
func (p *Prover) deviceFree() (uint64, error) {
	devs, err := Devices()
	if err != nil {
		return 0, err
	}
	if p.device >= len(devs) {
		return 0, fmt.Errorf("%w: device %d requested, %d visible", ErrNoDevice, p.device, len(devs))
	}
	return devs[p.device].Free, nil
}

// scratchPlan is one query's MSM: its length, kind and unlimited plan.
type scratchPlan struct {
	query string
	n     int
	g2    bool
	split bool
	bytes uint64
}

// scratchPlans are the five MSMs of a proof (H dense over the domain less one, lent its
// section buffers; L, A, B_G1, B_G2 split over their densities' lengths), largest plan first
// (p.lean: H first). p.work is made.
func (p *Prover) scratchPlans() ([]scratchPlan, error) {
	s := p.shape
	plans := []scratchPlan{
		{query: "h", n: s.Domain - 1},
		{query: "l", n: s.NumAux, split: true},
		{query: "a", n: s.NumInputs + s.AAux, split: true},
		{query: "b_g1", n: s.BInput + s.BAux, split: true},
		{query: "b_g2", n: s.BInput + s.BAux, split: true, g2: true},
	}
	kept := plans[:0]
	for _, q := range plans {
		if q.n <= 0 {
			continue
		}
		var err error
		if q.query == "h" {
			q.bytes, err = scratchPlanBytesLent(q.g2, q.n, p.hLend(nil))
		} else {
			q.bytes, err = scratchPlanBytes(q.g2, q.n, q.split)
		}
		if err != nil {
			return nil, fmt.Errorf("planning the %s MSM's scratch: %w", q.query, err)
		}
		kept = append(kept, q)
	}
	sort.SliceStable(kept, func(i, j int) bool {
		if p.lean && (kept[i].query == "h") != (kept[j].query == "h") {
			return kept[i].query == "h"
		}
		return kept[i].bytes > kept[j].bytes
	})
	return kept, nil
}

// hLend is what the H MSM borrows: the two section buffers the H pipeline is done with
// (a, b and c less hb, H's; for planning, hb nil: b and c, the same sizes) and, with
// p.lean, H itself, prepared in place. p.work is made.
func (p *Prover) hLend(hb *FrBuffer) Lend {
	if hb == nil {
		hb = p.work.a
	}
	return Lend{Buffers: p.work.others(hb), Scalars: p.lean}
}

// handleOf is the query's MSM handle.
func (p *Prover) handleOf(query string) *handle {
	switch query {
	case "h":
		return &p.h.handle
	case "l":
		return &p.l.handle
	case "a":
		return &p.a.handle
	case "b_g1":
		return &p.bg1.handle
	}
	return &p.bg2.handle
}

// reserveScratch makes the five queries share the H query's scratch and reserves it in the
// plans' order (scratchPlans): each plan with as many windows per pass as the device has
// room for, growing the scratch, or in chunks where even one window does not fit.
func (p *Prover) reserveScratch(plans []scratchPlan) error {
	owner := &p.h.handle
	for _, q := range []*handle{&p.l.handle, &p.a.handle, &p.bg1.handle, &p.bg2.handle} {
		if err := q.shareScratch(owner); err != nil {
			return fmt.Errorf("sharing the MSM scratch on device %d: %w", p.device, err)
		}
	}
	for _, q := range plans {
		var got uint64
		var err error
		if q.query == "h" {
			got, err = p.handleOf(q.query).reserveScratchLent(q.n, p.hLend(nil))
		} else {
			got, err = p.handleOf(q.query).reserveScratch(q.n, q.split)
		}
		if err != nil {
			return fmt.Errorf("reserving the MSM scratch for the %s query (%d scalars, %.1f GiB unlimited) on device %d: %w",
				q.query, q.n, float64(q.bytes)/(1<<30), p.device, err)
		}
		p.scratchBytes = got
	}
	return nil
}

// ScratchBytes is the device memory of the MSM scratch the five queries share.
func (p *Prover) ScratchBytes() uint64 { return p.scratchBytes }

// Footprint is the device memory the prover took at load: DeviceBytes then plus the
// kernel section's buffers and one witness buffer (a second worker's witness buffer
// comes later, or waits for the first: 32 bytes per variable).
func (p *Prover) Footprint() uint64 {
	s := p.shape
	bufs := 3*max(s.Domain, 1) + max(s.NumInputs+s.AAux, 1) + max(s.BInput+s.BAux, 1) + s.NumInputs + s.NumAux
	return p.footprint + uint64(bufs)*fr.Bytes
}

// uploadCircuit makes the matrices resident; out of device memory leaves SpMV on the host.
func (p *Prover) uploadCircuit() error {
	dc, err := UploadCircuit(p.device, p.circuit)
	if errors.Is(err, ErrOutOfMemory) {
		return nil
	}
	if err != nil {
		return err
	}
	p.dc = dc
	return nil
}

func newDomainOn(device int, shape groth16.Shape) (*Domain, error) {
	logN := 0
	for 1<<logN < shape.Domain {
		logN++
	}
	d, err := NewDomainWith(logN, DomainOptions{Device: device})
	if err != nil {
		return nil, fmt.Errorf("NTT domain of 2^%d on device %d: %w", logN, device, err)
	}
	return d, nil
}

// Device is the device ordinal the key lives on.
func (p *Prover) Device() int { return p.device }

// HostResident names the key's queries whose points live in pinned host memory
// because the device had no room for them (their MSMs copy them to the device a chunk at
// a time). Fixed at load.
func (p *Prover) HostResident() []string { return p.hostResident }

// HostBytes is the pinned host memory the host-resident queries' points take.
func (p *Prover) HostBytes() int64 { return p.hostBytes }

// StreamChunks maps each host-resident query to the points its MSMs copy to the device
// at a time (0: gathered over the bus), as FILC2_MSM_STREAM_CHUNK and the room left set
// them at load; nil when every query is on the device.
func (p *Prover) StreamChunks() map[string]int { return maps.Clone(p.streamChunks) }

// recordStreamChunks reads the host-resident queries' chunks once they are set, for
// StreamChunks (which then asks no handle while MSMs run).
func (p *Prover) recordStreamChunks() error {
	for _, q := range p.hostResident {
		n, err := p.handleOf(q).StreamChunk()
		if err != nil {
			return fmt.Errorf("the %s query's stream chunk: %w", q, err)
		}
		if p.streamChunks == nil {
			p.streamChunks = make(map[string]int, len(p.hostResident))
		}
		p.streamChunks[q] = n
	}
	return nil
}

// findHostResident asks each query's handle where its points went (after the upload,
// before any MSM can hold the handles).
func (p *Prover) findHostResident() {
	g1, g2 := int64(g1Bytes), int64(g2Bytes)
	for _, q := range []struct {
		name  string
		b     interface{ HostResident() (bool, error) }
		bytes int64
	}{{"h", p.h, int64(p.h.n) * g1}, {"l", p.l, int64(p.l.n) * g1}, {"a", p.a, int64(p.a.n) * g1},
		{"b_g1", p.bg1, int64(p.bg1.n) * g1}, {"b_g2", p.bg2, int64(p.bg2.n) * g2}} {
		if yes, err := q.b.HostResident(); err == nil && yes {
			p.hostResident = append(p.hostResident, q.name)
			p.hostBytes += q.bytes
		}
	}
}

// Under FILC2_MSM_STREAM_CHUNK=grow, stream buffers beyond the handles' default (768 MiB
// each) grow, once the scratch is reserved, up to maxStreamChunk points, leaving
// streamMargin of the device free.
const (
	maxStreamChunk = 1 << 24
	streamMargin   = 2 << 30
)

// growStreamChunks enlarges each host-resident query's stream buffers to streamGrowth's
// chunk where the device has room after the key and the scratch (the WindowPoSt's B_G2 on
// an 80 GB card: fewer chunks, each with the window size of a larger MSM).
func (p *Prover) growStreamChunks() error {
	for _, q := range p.hostResident {
		h := p.handleOf(q)
		cur, err := h.StreamChunk()
		if err != nil {
			return fmt.Errorf("the %s query's stream chunk: %w", q, err)
		}
		free, err := p.deviceFree()
		if err != nil {
			return err
		}
		pb := uint64(g1Bytes)
		if q == "b_g2" {
			pb = g2Bytes
		}
		if want := streamGrowth(h.n, cur, pb, free, streamMargin, maxStreamChunk); want > cur {
			if _, err := h.SetStreamChunk(want); err != nil {
				return fmt.Errorf("the %s query's stream chunk (%d points): %w", q, want, err)
			}
		}
	}
	return nil
}

// HostSpMV reports whether a, b, c are computed on the host (the matrices did not fit).
func (p *Prover) HostSpMV() bool { return p.dc == nil }

// DeviceBytes is the device memory the key, the circuit, its NTT tables and the MSM
// scratch hold (the scratch once: the queries share it; the kernel section's and the
// witness buffers are not counted).
func (p *Prover) DeviceBytes() (uint64, error) {
	var total uint64
	for _, b := range []interface{ DeviceBytes() (uint64, error) }{p.h, p.l, p.a, p.bg1, p.bg2} {
		n, err := b.DeviceBytes()
		if err != nil {
			return 0, err
		}
		total += n
	}
	if p.dc != nil {
		n, err := p.dc.DeviceBytes()
		if err != nil {
			return 0, err
		}
		total += n
	}
	info, err := p.domain.Info()
	if err != nil {
		return 0, err
	}
	return total + info.TableBytes, nil
}

// Close releases the device memory. Idempotent.
func (p *Prover) Close() error {
	spare := p.spare.close()
	p.gpu.Lock()
	work, folds := p.work, p.folds
	p.work, p.folds = nil, nil
	p.gpu.Unlock()
	errs := []error{work.free()}
	if folds != nil {
		errs = append(errs, folds.close())
	}
	if p.up != nil {
		errs = append(errs, p.up.close())
	}
	for _, s := range spare {
		errs = append(errs, s.Free())
	}
	if p.dc != nil {
		errs = append(errs, p.dc.Close())
	}
	for _, b := range []interface{ Close() error }{p.h, p.l, p.a, p.bg1, p.bg2, p.domain} {
		if b != nil && !isNilCloser(b) {
			errs = append(errs, b.Close())
		}
	}
	return errors.Join(errs...)
}

// isNilCloser reports a typed nil behind the interface (a key that failed half-way).
func isNilCloser(c interface{ Close() error }) bool {
	switch v := c.(type) {
	case *G1Bases:
		return v == nil
	case *G2Bases:
		return v == nil
	case *Domain:
		return v == nil
	}
	return false
}

// takeWitness returns a device buffer for one witness, a spare one if there is one, else
// a new one; with no device memory for it while another is out, it waits for that one.
func (p *Prover) takeWitness(ctx context.Context) (*FrBuffer, error) {
	for {
		if p.maxOut == 0 || p.out.Load() < p.maxOut {
			b, ok, closed := p.spare.take()
			switch {
			case closed:
				return nil, errors.New("ffi: the prover is closed")
			case ok:
				p.out.Add(1)
				return b, nil
			}
			b, err := AllocFr(p.device, p.shape.NumInputs+p.shape.NumAux)
			if err == nil {
				p.out.Add(1)
				return b, nil
			}
			if !errors.Is(err, ErrOutOfMemory) || p.out.Load() == 0 {
				return nil, fmt.Errorf("witness buffer on device %d: %w", p.device, err)
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-p.returned:
		}
	}
}

// giveWitness returns a witness buffer for reuse (or frees it).
func (p *Prover) giveWitness(b *FrBuffer) {
	if !p.spare.put(b) {
		b.Free()
	}
	p.out.Add(-1)
	select {
	case p.returned <- struct{}{}:
	default:
	}
}

// workLocked returns the kernel section's buffers, allocating them once (p.gpu held).
func (p *Prover) workLocked() (*workBuffers, error) {
	if p.work != nil {
		return p.work, nil
	}
	s := p.shape
	w := &workBuffers{}
	var err error
	alloc := func(dst **FrBuffer, n int) {
		if err == nil {
			*dst, err = AllocFr(p.device, max(n, 1))
		}
	}
	alloc(&w.a, s.Domain)
	alloc(&w.b, s.Domain)
	alloc(&w.c, s.Domain)
	alloc(&w.as, s.NumInputs+s.AAux)
	alloc(&w.bs, s.BInput+s.BAux)
	if err != nil {
		w.free()
		return nil, fmt.Errorf("work buffers on device %d: %w", p.device, err)
	}
	p.work = w
	return w, nil
}

// Prepared is one partition after Prepare: its witness on the device (and, with SpMV
// on the host, a, b, c and the query scalars in host memory) and the blinding.
type Prepared struct {
	p      *Prover
	w      *FrBuffer
	host   *hostScalars
	repeat *groth16.Repeat // the witness's Repeat, checked: the small MSMs fold its copies
	R, S   fr.Element
	Times  StageTimes
}

// hostScalars are the host SpMV's results.
type hostScalars struct {
	a, b, c []fr.Element // domain each
	as, bs  []fr.Element
}

// Release returns the device buffers of a partition that will not run.
func (x *Prepared) Release() {
	if x != nil && x.w != nil {
		x.p.giveWitness(x.w)
		x.w, x.host = nil, nil
	}
}

// Raw is one partition after RunGPU: the five sums.
type Raw struct {
	Sums  groth16.Sums
	R, S  fr.Element
	Times StageTimes
}

// Prepare is the CPU stage before the kernels: fresh blinding and the witness's upload
// (with SpMV on the host, also a, b, c and the query scalars).
func (p *Prover) Prepare(ctx context.Context, w *groth16.Assignment) (any, error) {
	var r, s fr.Element
	if _, err := r.SetRandom(); err != nil {
		return nil, fmt.Errorf("blinding r: %w", err)
	}
	if _, err := s.SetRandom(); err != nil {
		return nil, fmt.Errorf("blinding s: %w", err)
	}
	return p.prepare(ctx, w, r, s)
}

func (p *Prover) prepare(ctx context.Context, w *groth16.Assignment, r, s fr.Element) (*Prepared, error) {
	c := p.circuit
	if len(w.Inputs) != c.NumInputs || len(w.Aux) != c.NumAux {
		return nil, fmt.Errorf("ffi: assignment has %d inputs and %d aux, circuit has %d and %d",
			len(w.Inputs), len(w.Aux), c.NumInputs, c.NumAux)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x := &Prepared{p: p, R: r, S: s}
	// A checked Repeat uploads the witness up to its first copy and copies it on the
	// device (4 GB less over the bus for a padded 32GiB Window), and folds the small MSMs.
	var repeat *groth16.Repeat
	if w.Repeat != nil && w.Repeat.Check(w) == nil {
		rp := *w.Repeat
		repeat = &rp
		if p.fold {
			x.repeat = &rp
		}
	}
	if p.dc == nil {
		t0 := time.Now()
		m, n := p.shape.Domain, c.NumConstraints
		h := &hostScalars{a: make([]fr.Element, m), b: make([]fr.Element, m), c: make([]fr.Element, m)}
		if err := c.Eval(w.Inputs, w.Aux, h.a[:n], h.b[:n], h.c[:n], 0); err != nil {
			return nil, err
		}
		h.as, h.bs = groth16.QueryScalars(p.dens, w)
		x.host = h
		x.Times.ABC = time.Since(t0)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	t0 := time.Now()
	buf, err := p.takeWitness(ctx)
	if err != nil {
		return nil, err
	}
	x.Times.BufferWait = time.Since(t0)
	t0 = time.Now()
	aux := w.Aux
	if repeat != nil {
		aux = aux[:repeat.Start+repeat.Len]
	}
	if p.up != nil {
		if err = p.up.uploadAt(buf, 0, w.Inputs); err == nil {
			err = p.up.uploadAt(buf, c.NumInputs, aux)
		}
	} else if err = buf.UploadAt(0, w.Inputs); err == nil {
		err = buf.UploadAt(c.NumInputs, aux)
	}
	if err == nil && repeat != nil {
		err = buf.RepeatAt(c.NumInputs+repeat.Start, repeat.Len, repeat.Copies)
	}
	if err != nil {
		p.giveWitness(buf)
		return nil, fmt.Errorf("uploading the witness to device %d: %w", p.device, err)
	}
	x.w = buf
	x.Times.Upload = time.Since(t0)
	return x, nil
}

// RunGPU is the kernel section: SpMV, the H pipeline and the five MSMs on the device.
func (p *Prover) RunGPU(ctx context.Context, prepared any) (any, error) {
	x, ok := prepared.(*Prepared)
	if !ok || x.p != p {
		return nil, fmt.Errorf("ffi: prepared partition %T is not this prover's", prepared)
	}
	return p.runGPU(ctx, x)
}

func (p *Prover) runGPU(ctx context.Context, x *Prepared) (*Raw, error) {
	defer x.Release()
	if x.w == nil {
		return nil, errors.New("ffi: the prepared partition was released")
	}
	p.gpu.Lock()
	defer p.gpu.Unlock()
	wk, err := p.workLocked()
	if err != nil {
		return nil, err
	}
	raw := &Raw{R: x.R, S: x.S, Times: x.Times}
	st := &raw.Times
	t0 := time.Now()
	lap := func(dst *time.Duration) {
		now := time.Now()
		*dst += now.Sub(t0)
		t0 = now
	}
	// Between kernels the engine may lend the GPU to a critical job
	// (preempt.Point); the time lent is no kernel's.
	yield := func() {
		preempt.Point(ctx)
		t0 = time.Now()
	}
	if p.dc != nil {
		stream, err := p.domain.Stream()
		if err == nil {
			err = p.dc.Eval(x.w, wk.a, wk.b, wk.c, wk.as, wk.bs, p.shape.Domain, stream)
		}
		if err == nil {
			err = p.domain.Sync()
		}
		if err != nil {
			return nil, fmt.Errorf("SpMV: %w", err)
		}
		lap(&st.SpMV)
	} else {
		h := x.host
		for _, u := range []struct {
			dst *FrBuffer
			src []fr.Element
		}{{wk.a, h.a}, {wk.b, h.b}, {wk.c, h.c}, {wk.as, h.as}, {wk.bs, h.bs}} {
			if err := u.dst.Upload(u.src); err != nil {
				return nil, fmt.Errorf("uploading scalars to device %d: %w", p.device, err)
			}
		}
		lap(&st.Scalars)
	}
	// The witness's readers are the SpMV and the L MSM: L runs first and the buffer goes
	// back at once, so that the other worker's upload runs under the rest of this section
	// (an 80 GB card under a 32GiB key has room for one witness buffer only).
	s := &raw.Sums
	f := p.foldsOf(x)
	if err := p.witnessMSM(x, f, s, st); err != nil {
		return nil, err
	}
	lap(&st.MSML)
	x.Release()
	if p.testHook != nil {
		p.testHook(hookWitnessReturned)
	}
	// The H pipeline runs on the domain's stream (asynchronous); with p.overlap the A and
	// B MSMs run meanwhile on their queries' streams. They share no data: H works in a, b
	// and c, the MSMs read the A and B scalars.
	hb, err := p.domain.HDevice(wk.a, wk.b, wk.c)
	if err != nil {
		return nil, fmt.Errorf("H pipeline: %w", err)
	}
	if p.overlap {
		if err := p.scalarMSMs(f, wk, s, st, lap, func() {}); err != nil {
			_ = p.domain.Sync() // the pipeline still works in a, b, c: let it finish first
			return nil, err
		}
	}
	if err := p.domain.Sync(); err != nil {
		return nil, fmt.Errorf("H pipeline: %w", err)
	}
	lap(&st.H)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	yield()
	// The H MSM borrows a, b and c (H prepared in place, the others for its sort's pairs): its
	// scratch was reserved so.
	if s.H, err = p.h.MSMDeviceLent(hb.Pointer(), p.shape.Domain-1, p.hLend(hb)); err != nil {
		return nil, fmt.Errorf("H MSM: %w", err)
	}
	lap(&st.MSMH)
	yield()
	// A fault injected here (internal/fault, tests and soak runs only) fails the
	// section half done, through the same cleanup as a real kernel failure.
	if fault.Hit(ctx, fault.Section) {
		return nil, fault.Errorf(fault.Section, "after the H MSM on device %d", p.device)
	}
	if !p.overlap {
		if err := p.scalarMSMs(f, wk, s, st, lap, yield); err != nil {
			return nil, err
		}
	}
	return raw, nil
}

// hookWitnessReturned is the point of the section where the witness buffer has gone
// back (Prover.testHook).
const hookWitnessReturned = "witness returned"

// foldsOf returns the folded bases for x's checked Repeat, nil for a partition without
// one or where the folded bases find no room (every query then runs in full). p.gpu held.
func (p *Prover) foldsOf(x *Prepared) *foldSet {
	if x.repeat == nil {
		return nil
	}
	f, err := p.foldsFor(*x.repeat)
	if err != nil {
		return nil
	}
	return f
}

// witnessMSM is the L MSM, the section's last reader of the witness buffer.
func (p *Prover) witnessMSM(x *Prepared, f *foldSet, s *groth16.Sums, st *StageTimes) error {
	fl, _, _, _ := f.devices()
	sl, _, _ := f.spans()
	var err error
	if s.L, err = queryMSM(p.l, fl, sl, x.w.At(p.shape.NumInputs), p.shape.NumAux, st); err != nil {
		return fmt.Errorf("L MSM: %w", err)
	}
	return nil
}

// scalarMSMs runs the A, B_G1 and B_G2 MSMs of the section over the SpMV's compacted
// scalars (yield between B_G1 and B_G2 lends the GPU to a critical job when nothing
// else of this section is in flight).
func (p *Prover) scalarMSMs(f *foldSet, wk *workBuffers, s *groth16.Sums, st *StageTimes, lap func(*time.Duration),
	yield func()) error {
	nA, nB := p.shape.NumInputs+p.shape.AAux, p.shape.BInput+p.shape.BAux
	_, fa, fb, fb2 := f.devices()
	_, sa, sb := f.spans()
	var err error
	if s.A, err = queryMSM(p.a, fa, sa, wk.as.Pointer(), nA, st); err != nil {
		return fmt.Errorf("A MSM: %w", err)
	}
	lap(&st.MSMA)
	if s.BG1, err = queryMSM(p.bg1, fb, sb, wk.bs.Pointer(), nB, st); err != nil {
		return fmt.Errorf("B_G1 MSM: %w", err)
	}
	lap(&st.MSMBG1)
	yield()
	if s.BG2, err = queryMSM(p.bg2, fb2, sb, wk.bs.Pointer(), nB, st); err != nil {
		return fmt.Errorf("B_G2 MSM: %w", err)
	}
	lap(&st.MSMBG2)
	return nil
}

// Finish assembles the proof from the sums (CPU).
func (p *Prover) Finish(_ context.Context, raw any) (*groth16.Proof, error) {
	r, ok := raw.(*Raw)
	if !ok {
		return nil, fmt.Errorf("ffi: GPU output %T is not this prover's", raw)
	}
	return p.finish(r), nil
}

func (p *Prover) finish(r *Raw) *groth16.Proof {
	t0 := time.Now()
	proof := groth16.Assemble(&p.vk, &r.Sums, &r.R, &r.S)
	r.Times.Finish = time.Since(t0)
	return proof
}

// ProveTimed runs the three stages for one assignment with the given blinding.
func (p *Prover) ProveTimed(ctx context.Context, w *groth16.Assignment, r, s fr.Element) (*groth16.Proof, StageTimes, error) {
	x, err := p.prepare(ctx, w, r, s)
	if err != nil {
		return nil, StageTimes{}, err
	}
	raw, err := p.runGPU(ctx, x)
	if err != nil {
		return nil, x.Times, err
	}
	proof := p.finish(raw)
	return proof, raw.Times, nil
}

// KernelSplit says where the kernel section's time went (the engine records it per
// partition). With the L, A and B MSMs beside the H pipeline (FILC2_OVERLAP=1), their
// times are taken while it runs and h is what the pipeline took beyond them.
func (r *Raw) KernelSplit() ([]string, []time.Duration) {
	t := r.Times
	if t.Scalars > 0 {
		return []string{"host_scalars", "h", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2"},
			[]time.Duration{t.Scalars, t.H, t.MSMH, t.MSML, t.MSMA, t.MSMBG1, t.MSMBG2}
	}
	return []string{"spmv", "h", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2"},
		[]time.Duration{t.SpMV, t.H, t.MSMH, t.MSML, t.MSMA, t.MSMBG1, t.MSMBG2}
}

// PrepareSplit says where Prepare's time went (the engine records it per partition):
// the host SpMV where the matrices are not on the device, the wait for a device witness
// buffer, the upload.
func (r *Raw) PrepareSplit() ([]string, []time.Duration) {
	t := r.Times
	if t.ABC > 0 {
		return []string{"host_spmv", "buffer_wait", "upload"}, []time.Duration{t.ABC, t.BufferWait, t.Upload}
	}
	return []string{"buffer_wait", "upload"}, []time.Duration{t.BufferWait, t.Upload}
}

// CopiesWitness reports that Prepare copies the witness to the device (the engine
// may reuse its storage once Prepare returns).
func (p *Prover) CopiesWitness() bool { return true }

// HitsFault reports that the kernel section consults fault.Section itself
// (fault.Aware), midway, so that an injected failure exercises its cleanup.
func (p *Prover) HitsFault(pt fault.Point) bool { return pt == fault.Section }

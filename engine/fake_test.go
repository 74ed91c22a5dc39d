package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/internal/placement"
	"github.com/filc2/filc2/internal/preempt"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/groth16"
)

// fakeBackend pretends to prove: it sleeps where a real backend works, fails
// where a test tells it to, and counts what the engine asked of it. Its
// "proof" of partition k of job name is A = (tag(name)·1000 + k + 1)·G1, so
// a test can check that every partition's proof landed in its place.
type fakeBackend struct {
	circuitBytes int64
	partBytes    int64
	loadDelay    time.Duration
	synthDelay   time.Duration
	prepDelay    time.Duration
	gpuDelay     time.Duration
	finishDelay  time.Duration

	mu           sync.Mutex
	fail         map[string]Stage // "job/k" → the stage that fails
	loadErr      error            // LoadCircuit fails while set
	checkErr     error            // CheckC1 fails while set
	onSynth      func(job string, k int)
	inKernel     map[int]int // per GPU, RunGPU calls running now
	maxInKernel  map[int]int
	synthOrder   []string // "job/k", in the order synthesis started
	circuitLoads map[uint64]int
	proverLoads  map[string]int          // "gpu/size"
	closed       []string                // "circuit size" or "prover gpu/size"
	active       map[uint64]int          // calls into a size's circuit or provers running now
	prepared     int                     // Prepared values not yet consumed or released
	kernelGPU    map[string]int          // "job/k" → the GPU whose RunGPU proved it
	errs         []string                // misuse the fake detected
	copies       bool                    // provers say Prepare copies the witness
	recycled     []string                // "job/k" of the witnesses handed back
	failErr      error                   // what a stage told to fail wraps (nil: a plain error)
	yieldMid     bool                    // RunGPU has a preemption point halfway
	onKernel     func(job string, k int) // called as RunGPU starts
	kernels      int                     // RunGPU calls finished
	preempted    []string                // "job/k" of the sections another section ran inside
	deviceSlots  int                     // provers a GPU holds at once (0: unlimited); more is ErrDeviceMemory
	spill        bool                    // over deviceSlots, a load that may use host memory succeeds (host resident)
	onDevice     map[int]int             // per GPU, provers loaded and not closed
	keyBytes     int64                   // a circuit's KeyBytes (what a spilled prover may pin)
	gpuFails     map[int]int             // per GPU, RunGPU calls left to fail (−1: all)
	probeErr     error                   // ProbeDevice fails with it while set
	probes       []int                   // the GPUs ProbeDevice was asked about
	activeProver map[string]int          // "gpu/size" → calls into that prover running now
	synthGates   map[string]*par.Gate    // "job/k" → the CPU gate its synthesis was given (cpuGateOf)
	checkGates   map[string]*par.Gate    // job → the CPU gate its Check was given
}

// callProver counts a call into the prover of size on gpu (and into its
// size) until the returned function runs.
func (f *fakeBackend) callProver(gpu int, size uint64) func() {
	key := fmt.Sprintf("%d/%d", gpu, size)
	f.mu.Lock()
	f.active[size]++
	if f.activeProver == nil {
		f.activeProver = map[string]int{}
	}
	f.activeProver[key]++
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		f.active[size]--
		f.activeProver[key]--
		f.mu.Unlock()
	}
}

// ProbeDevice implements DeviceProber: it fails with probeErr while set.
func (f *fakeBackend) ProbeDevice(_ context.Context, gpu int, _ bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.probes = append(f.probes, gpu)
	return f.probeErr
}

func newFake() *fakeBackend {
	return &fakeBackend{circuitBytes: 300, partBytes: 100, fail: map[string]Stage{},
		inKernel: map[int]int{}, maxInKernel: map[int]int{}, circuitLoads: map[uint64]int{},
		proverLoads: map[string]int{}, active: map[uint64]int{}, kernelGPU: map[string]int{}}
}

func (f *fakeBackend) Name() string { return "fake" }

func (f *fakeBackend) Check(ctx context.Context, in Input) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.checkGates == nil {
		f.checkGates = map[string]*par.Gate{}
	}
	f.checkGates[nameOfInput(in)] = cpuGateOf(ctx)
	return f.checkErr
}

func (f *fakeBackend) CircuitBytes(CircuitSpec) (int64, error) { return f.circuitBytes, nil }

func (f *fakeBackend) LoadCircuit(ctx context.Context, p CircuitSpec, progress func(done, total int64)) (Circuit, error) {
	progress(0, 1)
	if err := sleep(ctx, f.loadDelay); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loadErr != nil {
		return nil, f.loadErr
	}
	f.circuitLoads[uint64(p.SectorSize)]++
	progress(1, 1)
	return &fakeCircuit{f: f, size: uint64(p.SectorSize)}, nil
}

func (f *fakeBackend) LoadProver(ctx context.Context, gpu int, c Circuit) (PartitionProver, error) {
	fc := c.(*fakeCircuit)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.deviceSlots > 0 && f.onDevice[gpu] >= f.deviceSlots {
		if !f.spill || placement.DeviceOnly(ctx) {
			return nil, fmt.Errorf("fake: GPU %d holds %d provers: %w", gpu, f.onDevice[gpu], ErrDeviceMemory)
		}
		f.proverLoads[fmt.Sprintf("%d/%d", gpu, fc.size)]++
		return &fakeProver{f: f, gpu: gpu, size: fc.size, host: true}, nil
	}
	if f.onDevice == nil {
		f.onDevice = map[int]int{}
	}
	f.onDevice[gpu]++
	f.proverLoads[fmt.Sprintf("%d/%d", gpu, fc.size)]++
	return &fakeProver{f: f, gpu: gpu, size: fc.size}, nil
}

// failing reports the error a stage of job/k is told to fail with.
func (f *fakeBackend) failing(job string, k int, s Stage) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail[fmt.Sprintf("%s/%d", job, k)] == s {
		if f.failErr != nil {
			return fmt.Errorf("fake %s failure: %w", s, f.failErr)
		}
		return fmt.Errorf("fake %s failure", s)
	}
	return nil
}

// call counts a call into a size's circuit or provers until the returned
// function runs, so that Close can tell it was not in use.
func (f *fakeBackend) call(size uint64) func() {
	f.mu.Lock()
	f.active[size]++
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		f.active[size]--
		f.mu.Unlock()
	}
}

type fakeCircuit struct {
	f    *fakeBackend
	size uint64
}

func (c *fakeCircuit) PartitionBytes() int64 { return c.f.partBytes }

// KeyBytes is what the CUDA backend's circuits say of their key's points.
func (c *fakeCircuit) KeyBytes() int64 {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	return c.f.keyBytes
}

func (c *fakeCircuit) Synthesize(ctx context.Context, in Input, k int) (*groth16.Assignment, error) {
	name := nameOfInput(in)
	c.f.mu.Lock()
	c.f.synthOrder = append(c.f.synthOrder, fmt.Sprintf("%s/%d", name, k))
	if c.f.synthGates == nil {
		c.f.synthGates = map[string]*par.Gate{}
	}
	c.f.synthGates[fmt.Sprintf("%s/%d", name, k)] = cpuGateOf(ctx)
	hook := c.f.onSynth
	c.f.mu.Unlock()
	defer c.f.call(c.size)()
	if hook != nil {
		hook(name, k)
	}
	delay := c.f.synthDelay
	if fp, ok := in.(*fakePoSt); ok {
		delay = fp.synth
	}
	err := sleep(ctx, delay)
	if err == nil {
		err = c.f.failing(name, k, StageSynthesis)
	}
	if err != nil {
		return nil, err
	}
	var tag fr.Element
	tag.SetUint64(fakeScalar(name, k))
	return &groth16.Assignment{Inputs: []fr.Element{tag}}, nil
}

func (c *fakeCircuit) Verify(in Input, k int, proof *groth16.Proof) error {
	defer c.f.call(c.size)()
	name := nameOfInput(in)
	if err := c.f.failing(name, k, StageVerify); err != nil {
		return err
	}
	if want := fakeProof(fakeScalar(name, k)); !proof.A.Equal(&want.A) {
		return fmt.Errorf("fake: partition %d of %s has another partition's proof", k, name)
	}
	return nil
}

// Recycle implements WitnessRecycler: it records the witness's partition.
func (c *fakeCircuit) Recycle(w *groth16.Assignment) {
	name, k := unScalar(w.Inputs[0].Uint64())
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	c.f.recycled = append(c.f.recycled, fmt.Sprintf("%s/%d", name, k))
}

func (c *fakeCircuit) Close() error {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	if c.f.active[c.size] != 0 {
		c.f.errs = append(c.f.errs, fmt.Sprintf("circuit %d closed during %d calls", c.size, c.f.active[c.size]))
	}
	c.f.closed = append(c.f.closed, fmt.Sprintf("circuit %d", c.size))
	return nil
}

type fakeProver struct {
	f    *fakeBackend
	gpu  int
	size uint64
	host bool // loaded over deviceSlots, in "host memory"
	shut bool // closed (under f.mu): a stage called after is misuse
}

// checkOpen records a stage run on a closed prover.
func (p *fakeProver) checkOpen(stage string) {
	p.f.mu.Lock()
	defer p.f.mu.Unlock()
	if p.shut {
		p.f.errs = append(p.f.errs, fmt.Sprintf("%s on closed prover %d/%d", stage, p.gpu, p.size))
	}
}

// HostBytes is what the CUDA prover says of its spilled queries: half the key.
func (p *fakeProver) HostBytes() int64 {
	if !p.host {
		return 0
	}
	p.f.mu.Lock()
	defer p.f.mu.Unlock()
	return p.f.keyBytes / 2
}

// HostResident is what the CUDA prover says of a key partly in host memory.
func (p *fakeProver) HostResident() []string {
	if p.host {
		return []string{"h"}
	}
	return nil
}

// StreamChunks is the CUDA prover's chunks of its host-resident queries.
func (p *fakeProver) StreamChunks() map[string]int {
	if p.host {
		return map[string]int{"h": 1 << 22}
	}
	return nil
}

// fakePrepared counts as outstanding until RunGPU takes it or the engine
// releases it; fakeRaw is what RunGPU hands to Finish.
type fakePrepared struct {
	f        *fakeBackend
	raw      fakeRaw
	consumed bool
}

type fakeRaw struct {
	scalar uint64
	name   string
	k      int
}

func (p *fakePrepared) Release() { p.take() }

// KernelSplit reports one step per partition, named after its index, so a test
// can check the engine records the backend's split.
func (r fakeRaw) KernelSplit() ([]string, []time.Duration) {
	return []string{"fake", fmt.Sprintf("k%d", r.k)}, []time.Duration{time.Millisecond, time.Duration(r.k)}
}

// PrepareSplit reports gpu_pre's steps the same way.
func (r fakeRaw) PrepareSplit() ([]string, []time.Duration) {
	return []string{"buffer_wait", "upload"}, []time.Duration{time.Duration(r.k), time.Microsecond}
}

func (p *fakePrepared) take() {
	p.f.mu.Lock()
	defer p.f.mu.Unlock()
	if p.consumed {
		p.f.errs = append(p.f.errs, "prepared partition used twice")
		return
	}
	p.consumed = true
	p.f.prepared--
}

func (p *fakeProver) Prepare(ctx context.Context, w *groth16.Assignment) (Prepared, error) {
	p.checkOpen("Prepare")
	defer p.f.callProver(p.gpu, p.size)()
	if err := sleep(ctx, p.f.prepDelay); err != nil {
		return nil, err
	}
	s := w.Inputs[0].Uint64()
	name, k := unScalar(s)
	if err := p.f.failing(name, k, StagePrepare); err != nil {
		return nil, err
	}
	p.f.mu.Lock()
	p.f.prepared++
	p.f.mu.Unlock()
	return &fakePrepared{f: p.f, raw: fakeRaw{scalar: s, name: name, k: k}}, nil
}

func (p *fakeProver) RunGPU(ctx context.Context, prep Prepared) (Raw, error) {
	p.checkOpen("RunGPU")
	defer p.f.callProver(p.gpu, p.size)()
	fp := prep.(*fakePrepared)
	fp.take()
	r := fp.raw
	p.f.mu.Lock()
	hook := p.f.onKernel
	p.f.mu.Unlock()
	if hook != nil {
		hook(r.name, r.k)
	}
	enter := func() {
		p.f.mu.Lock()
		p.f.inKernel[p.gpu]++
		p.f.maxInKernel[p.gpu] = max(p.f.maxInKernel[p.gpu], p.f.inKernel[p.gpu])
		p.f.mu.Unlock()
	}
	enter()
	var err error
	if p.f.yieldMid {
		// Two kernels with a preemption point between them, as ffi's section.
		err = sleep(ctx, p.f.gpuDelay/2)
		p.f.mu.Lock()
		p.f.inKernel[p.gpu]--
		before := p.f.kernels
		p.f.mu.Unlock()
		preempt.Point(ctx)
		p.f.mu.Lock()
		if p.f.kernels != before {
			p.f.preempted = append(p.f.preempted, fmt.Sprintf("%s/%d", r.name, r.k))
		}
		p.f.mu.Unlock()
		enter()
		if err == nil {
			err = sleep(ctx, p.f.gpuDelay-p.f.gpuDelay/2)
		}
	} else {
		err = sleep(ctx, p.f.gpuDelay)
	}
	p.f.mu.Lock()
	p.f.kernels++
	p.f.inKernel[p.gpu]--
	p.f.kernelGPU[fmt.Sprintf("%s/%d", r.name, r.k)] = p.gpu
	p.f.mu.Unlock()
	if err == nil {
		err = p.f.failing(r.name, r.k, StageGPU)
	}
	p.f.mu.Lock()
	if n := p.f.gpuFails[p.gpu]; err == nil && n != 0 {
		p.f.gpuFails[p.gpu] = max(n-1, -1)
		err = fmt.Errorf("fake: GPU %d's kernel section failed", p.gpu)
	}
	p.f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (p *fakeProver) Finish(ctx context.Context, raw Raw) (*groth16.Proof, error) {
	p.checkOpen("Finish")
	defer p.f.callProver(p.gpu, p.size)()
	fp := raw.(fakeRaw)
	if err := sleep(ctx, p.f.finishDelay); err != nil {
		return nil, err
	}
	if err := p.f.failing(fp.name, fp.k, StageFinish); err != nil {
		return nil, err
	}
	proof := fakeProof(fp.scalar)
	return &proof, nil
}

// CopiesWitness implements WitnessCopier as configured.
func (p *fakeProver) CopiesWitness() bool { return p.f.copies }

func (p *fakeProver) Close() error {
	p.f.mu.Lock()
	defer p.f.mu.Unlock()
	if n := p.f.activeProver[fmt.Sprintf("%d/%d", p.gpu, p.size)]; n != 0 {
		p.f.errs = append(p.f.errs, fmt.Sprintf("prover %d/%d closed during %d calls", p.gpu, p.size, n))
	}
	p.f.closed = append(p.f.closed, fmt.Sprintf("prover %d/%d", p.gpu, p.size))
	p.shut = true
	if p.f.onDevice != nil && !p.host {
		p.f.onDevice[p.gpu]--
	}
	return nil
}

// The fake's job names are short strings stored in replica_id; the scalar
// of partition k of a job packs the name and k so that stages can find them.

func fakeC1(name string, p abi.SealProof) *c1.Commit1Out {
	c := &c1.Commit1Out{RegisteredProof: p.Name,
		VanillaProofs: c1.VanillaProofs{Key: p.VanillaKey(), Partitions: make([][]c1.Proof, p.Partitions)}}
	copy(c.ReplicaID[:], name)
	return c
}

func nameOf(c *c1.Commit1Out) string { return strings.TrimRight(string(c.ReplicaID[:]), "\x00") }

// nameOfInput is the fake job name of a PoRep or fakePoSt input.
func nameOfInput(in Input) string {
	switch in := in.(type) {
	case *PoRep:
		return nameOf(in.C1)
	case *fakePoSt:
		return in.name
	}
	panic(fmt.Sprintf("fake: input %T", in))
}

// fakePoSt is a PoSt-like input for the fake backend: a one-run job of kind
// kind on a circuit of its own, whose synthesis takes synth.
type fakePoSt struct {
	name  string
	kind  Kind
	size  uint64
	synth time.Duration
}

func (p *fakePoSt) Kind() Kind { return p.kind }
func (p *fakePoSt) Circuit() CircuitSpec {
	return CircuitSpec{Kind: p.kind, SectorSize: p.size, Name: "fake-" + p.kind.String()}
}
func (p *fakePoSt) Partitions() int { return 1 }
func (p *fakePoSt) Fingerprint() [32]byte {
	var f [32]byte
	copy(f[:], p.name)
	return f
}

func fakeScalar(name string, k int) uint64 {
	if len(name) > 6 {
		panic("fake job names have at most 6 bytes")
	}
	var v uint64
	for i := range len(name) {
		v |= uint64(name[i]) << (8 * (i + 1))
	}
	return v | uint64(k)
}

func unScalar(s uint64) (string, int) {
	var b []byte
	for i := 1; i < 8 && (s>>(8*i))&0xff != 0; i++ {
		b = append(b, byte(s>>(8*i)))
	}
	return string(b), int(s & 0xff)
}

func fakeProof(s uint64) groth16.Proof {
	_, _, g1, g2 := bls.Generators()
	var p groth16.Proof
	p.A.ScalarMultiplication(&g1, new(big.Int).SetUint64(s+1))
	p.B, p.C = g2, g1
	return p
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Test helpers.

var (
	proof32G = mustProof("StackedDrg32GiBV1_1") // 10 partitions
	proof2K  = mustProof("StackedDrg2KiBV1_1")  // 1 partition
)

func mustProof(name string) abi.SealProof {
	p, err := abi.ParseName(name)
	if err != nil {
		panic(err)
	}
	return p
}

func testConfig(gpus ...int) Config {
	cfg := DefaultConfig()
	cfg.GPU.Devices = gpus
	cfg.Synthesis.Workers = 4
	cfg.Memory.Budget = 1000
	cfg.Params.Dir = "/nonexistent"
	cfg.Queue.RetainFinished = time.Hour
	return cfg
}

func newTestEngine(t *testing.T, cfg Config, f *fakeBackend, opts ...Option) *Engine {
	t.Helper()
	opts = append([]Option{WithLogger(slog.New(slog.DiscardHandler))}, opts...)
	e, err := New(cfg, f, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, msg := range f.errs {
			t.Errorf("fake backend: %s", msg)
		}
		if f.prepared != 0 {
			t.Errorf("fake backend: %d prepared partitions neither run nor released", f.prepared)
		}
	})
	return e
}

func submit(t *testing.T, e *Engine, name string, p abi.SealProof, prio Priority) JobID {
	t.Helper()
	id, err := e.Submit(context.Background(), Request{ID: name, Commit1: fakeC1(name, p), Priority: prio})
	if err != nil {
		t.Fatalf("submit %s: %v", name, err)
	}
	return id
}

func await(t *testing.T, e *Engine, id JobID) (Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := e.Await(ctx, id)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		t.Fatalf("await %s: timed out; status %+v", id, e.Status())
	}
	return r, err
}

// eventually polls cond until it holds or 10 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// checkProof checks that r's proof bytes hold the fake proof of every
// partition of job name, in partition order.
func checkProof(t *testing.T, r Result, name string, p abi.SealProof) {
	t.Helper()
	if r.State != JobSucceeded {
		t.Fatalf("%s: state %v, err %v", name, r.State, r.Err)
	}
	proofs, err := groth16.DecodeProofs(r.Proof, p.Partitions)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for k := range proofs {
		want := fakeProof(fakeScalar(name, k))
		if !proofs[k].A.Equal(&want.A) {
			t.Fatalf("%s: partition %d holds another proof", name, k)
		}
	}
	if len(r.Partitions) != p.Partitions {
		t.Fatalf("%s: %d partition timings, want %d", name, len(r.Partitions), p.Partitions)
	}
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

//go:build cuda

package ffi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/testparams"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
)

// sealC1 seals a fresh 2KiB sector and returns its C1 output, through the JSON.
func sealC1(t testing.TB, p abi.SealProof, sector uint64, seed byte) *c1.Commit1Out {
	t.Helper()
	var ticket, s [32]byte
	ticket[1], s[0] = byte(sector)+1, seed
	out, _ := testparams.SealC1(t, p, 1000, sector, ticket, s)
	return out
}

// TestBackend2KiB: a full 2KiB proof through the CUDA backend verifies with the CPU
// verifier, and with the same blinding r, s it is byte for byte the CPU backend's proof
// (so every one of the five sums and the H polynomial agree with the reference). A
// second sector's proof on the same resident key verifies too; a proof of sector a
// does not verify for sector b.
func TestBackend2KiB(t *testing.T) {
	ctx := context.Background()
	p, err := abi.ParseName("StackedDrg2KiBV1_1")
	if err != nil {
		t.Fatal(err)
	}
	dir := testparams.Dir(t, p)
	be, err := NewBackendOn(0)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	pr, err := c2.Load(ctx, p, c2.LoadOptions{ParamsDir: dir, Backend: be})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	t.Logf("load with the CUDA backend: %v", time.Since(t0))

	a, b := sealC1(t, p, 1, 3), sealC1(t, p, 2, 4)
	for _, c := range []*c1.Commit1Out{a, b} {
		t0 := time.Now()
		proof, _, err := pr.Prove(ctx, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("prove through c2 on cuda: %v", time.Since(t0))
		if err := c2.VerifyC1Proof(pr.PVK, c, proof); err != nil {
			t.Fatalf("CUDA proof does not verify: %v", err)
		}
	}
	proofA, _, err := pr.Prove(ctx, a, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.VerifyC1Proof(pr.PVK, b, proofA); !errors.Is(err, c2.ErrInvalid) {
		t.Fatalf("sector a's proof against sector b: %v", err)
	}

	// The same r, s on both backends give the same proof.
	in, err := porep.PartitionInputFromC1(a, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c2.Witness(pr.Shape, in, pr.Circuit)
	if err != nil {
		t.Fatal(err)
	}
	var r, s fr.Element
	r.SetRandom()
	s.SetRandom()
	gp, err := LoadProver(ctx, 0, pr.PK, pr.Circuit)
	if err != nil {
		t.Fatal(err)
	}
	defer gp.Close()
	var times []StageTimes
	var gpuProof *groth16.Proof
	for i := 0; i < 4; i++ { // the first run pays for allocations; report the others
		pf, st, err := gp.ProveTimed(ctx, w, r, s)
		if err != nil {
			t.Fatal(err)
		}
		gpuProof, times = pf, append(times, st)
	}
	cpu := groth16.CPU{}
	srs, err := cpu.LoadSRS(ctx, pr.PK, pr.Circuit)
	if err != nil {
		t.Fatal(err)
	}
	t0 = time.Now()
	cpuProof, err := cpu.Prove(ctx, srs, w, r, s)
	if err != nil {
		t.Fatal(err)
	}
	cpuTime := time.Since(t0)
	if !gpuProof.A.Equal(&cpuProof.A) || !gpuProof.B.Equal(&cpuProof.B) || !gpuProof.C.Equal(&cpuProof.C) {
		t.Fatal("the CUDA proof differs from the CPU proof with the same r, s")
	}
	for _, st := range times[1:] {
		fmt.Printf("BENCH c2-2kib backend=cuda total_ms=%.2f abc=%.2f upload=%.2f gpu=%.2f spmv=%.2f h=%.2f msm_h=%.2f msm_l=%.2f msm_a=%.2f msm_bg1=%.2f msm_bg2=%.2f finish=%.2f cpu_prove_ms=%.0f\n",
			ms(st.Total()), ms(st.ABC), ms(st.Upload), ms(st.GPU()), ms(st.SpMV), ms(st.H), ms(st.MSMH), ms(st.MSML), ms(st.MSMA),
			ms(st.MSMBG1), ms(st.MSMBG2), ms(st.Finish), ms(cpuTime))
	}
	// The host-SpMV path (matrices that do not fit on the device) gives the same proof.
	hp, err := LoadProver(ctx, 0, pr.PK, pr.Circuit)
	if err != nil {
		t.Fatal(err)
	}
	// One scratch for the five queries, reserved at load: the H handle owns it, the
	// others report their points only, and proofs do not grow it.
	hpH, err := hp.h.DeviceBytes()
	if err != nil {
		t.Fatal(err)
	}
	gpH, _ := gp.h.DeviceBytes()
	if hp.ScratchBytes() == 0 || gpH != hpH || gp.ScratchBytes() != hp.ScratchBytes() {
		t.Errorf("scratch: reserved %d (after 5 proofs %d), H handle %d at load, %d after 5 proofs", hp.ScratchBytes(),
			gp.ScratchBytes(), hpH, gpH)
	}
	fresh, err := UploadG1On(0, pr.PK.L) // no call yet: its points only
	if err != nil {
		t.Fatal(err)
	}
	pointsOnly, _ := fresh.DeviceBytes()
	fresh.Close()
	if lb, _ := gp.l.DeviceBytes(); lb != pointsOnly {
		t.Errorf("the L handle holds %d bytes after 5 proofs, its points %d: a scratch of its own", lb, pointsOnly)
	}
	if fp, db := hp.Footprint(), hpH; fp <= db {
		t.Errorf("Footprint %d not above the H handle's %d", fp, db)
	}
	hp.dc.Close()
	hp.dc = nil
	hostProof, hst, err := hp.ProveTimed(ctx, w, r, s)
	hp.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !hostProof.A.Equal(&cpuProof.A) || !hostProof.B.Equal(&cpuProof.B) || !hostProof.C.Equal(&cpuProof.C) {
		t.Fatal("the host-SpMV CUDA proof differs from the CPU proof with the same r, s")
	}
	fmt.Printf("BENCH c2-2kib backend=cuda-host-spmv total_ms=%.2f abc=%.2f upload=%.2f gpu=%.2f\n",
		ms(hst.Total()), ms(hst.ABC), ms(hst.Upload), ms(hst.GPU()))
	if hr := gp.HostResident(); len(hr) != 0 {
		t.Errorf("the 2KiB key went to host memory: %v", hr)
	}
	// Every query in host memory (a key larger than the device), its MSMs streaming the
	// points through the device whole, in chunks of 4099 (a short last chunk) and gathering
	// them over the bus: the same proof.
	sp, err := loadProver(ctx, 0, pr.Circuit, func(p *Prover) error {
		p.vk = pr.PK.VK
		var err error
		for _, q := range []struct {
			dst **G1Bases
			pts []bls.G1Affine
		}{{&p.h, pr.PK.H}, {&p.l, pr.PK.L}, {&p.a, pr.PK.A}, {&p.bg1, pr.PK.BG1}} {
			if *q.dst, err = UploadG1HostResident(0, q.pts); err != nil {
				return err
			}
		}
		p.bg2, err = UploadG2HostResident(0, pr.PK.BG2)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if hr := sp.HostResident(); len(hr) != 5 {
		t.Errorf("host-resident queries %v, want all five", hr)
	}
	// The load's chunks, as StreamChunks reports them: each query's whole (default) size.
	if sc := sp.StreamChunks(); len(sc) != len(sp.HostResident()) {
		t.Errorf("StreamChunks %v for host-resident queries %v", sc, sp.HostResident())
	} else {
		for _, q := range sp.HostResident() {
			if got, err := sp.handleOf(q).StreamChunk(); err != nil || sc[q] != got {
				t.Errorf("StreamChunks[%s] = %d, the handle streams in chunks of %d (%v)", q, sc[q], got, err)
			}
		}
	}
	for _, chunk := range []int{-1, 4099, 0} {
		for _, q := range sp.HostResident() {
			h := sp.handleOf(q)
			if chunk >= 0 {
				if _, err := h.SetStreamChunk(chunk); err != nil {
					t.Fatal(err)
				}
			}
			if got, err := h.StreamChunk(); err != nil || (chunk >= 0 && got != min(chunk, h.n)) || (chunk < 0 && got != h.n) {
				t.Errorf("the %s query (%d points) streams in chunks of %d (%v), asked %d", q, h.n, got, err, chunk)
			}
		}
		pf, _, err := sp.ProveTimed(ctx, w, r, s)
		if err != nil {
			t.Fatal(err)
		}
		if !pf.A.Equal(&cpuProof.A) || !pf.B.Equal(&cpuProof.B) || !pf.C.Equal(&cpuProof.C) {
			t.Fatalf("the CUDA proof from host-resident queries (stream chunk %d) differs from the CPU proof", chunk)
		}
	}
	// Small buffers grow back to the whole query where the device has room (the load's
	// growStreamChunks after the scratch is reserved), and prove the same.
	for _, q := range sp.HostResident() {
		if _, err := sp.handleOf(q).SetStreamChunk(512); err != nil {
			t.Fatal(err)
		}
	}
	if err := sp.growStreamChunks(); err != nil {
		t.Fatal(err)
	}
	for _, q := range sp.HostResident() {
		h := sp.handleOf(q)
		if got, err := h.StreamChunk(); err != nil || got != min(h.n, maxStreamChunk) {
			t.Errorf("the %s query (%d points) streams in chunks of %d (%v) after growStreamChunks", q, h.n, got, err)
		}
	}
	if pf, _, err := sp.ProveTimed(ctx, w, r, s); err != nil {
		t.Fatal(err)
	} else if !pf.A.Equal(&cpuProof.A) || !pf.B.Equal(&cpuProof.B) || !pf.C.Equal(&cpuProof.C) {
		t.Fatal("the CUDA proof from host-resident queries with grown stream buffers differs from the CPU proof")
	}
	sp.Close()
	if gp.HostSpMV() {
		t.Error("the 2KiB circuit's matrices were not made resident")
	}
	if sc := gp.StreamChunks(); sc != nil {
		t.Errorf("StreamChunks %v of a prover with every query on the device", sc)
	}
	if n, err := gp.DeviceBytes(); err != nil || n == 0 {
		t.Errorf("DeviceBytes: %d, %v", n, err)
	}

	// The stages one at a time, as the engine calls them, and their misuse.
	x, err := gp.Prepare(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gp.RunGPU(ctx, "not prepared"); err == nil {
		t.Error("RunGPU accepted a foreign value")
	}
	raw, err := gp.RunGPU(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gp.RunGPU(ctx, x); err == nil {
		t.Error("RunGPU ran a released partition twice")
	}
	stage, err := gp.Finish(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.VerifyPartition(pr.PVK, p, a.ReplicaID, a.CommD, a.CommR, a.Seed, 0, stage); err != nil {
		t.Fatalf("staged proof: %v", err)
	}
	dropped, err := gp.Prepare(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	dropped.(*Prepared).Release() // a job cancelled between stages
	short := &groth16.Assignment{Inputs: w.Inputs, Aux: w.Aux[:len(w.Aux)-1]}
	if _, err := gp.Prepare(ctx, short); err == nil {
		t.Error("Prepare accepted a short assignment")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := gp.Prepare(cctx, w); !errors.Is(err, context.Canceled) {
		t.Errorf("Prepare on a cancelled context: %v", err)
	}
	if err := gp.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := gp.Prepare(ctx, w); err == nil {
		t.Error("Prepare on a closed prover succeeded")
	}
	if err := gp.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// partition2KiB loads the 2KiB PoRep circuit and its test key on the CPU backend (closed
// with the test) and returns it with the witness of partition 0 of a sector sealC1 seals
// (sector, seed) and a random blinding r, s.
func partition2KiB(t *testing.T, sector uint64, seed byte) (*c2.Prover, *groth16.Assignment, fr.Element, fr.Element) {
	t.Helper()
	p, err := abi.ParseName("StackedDrg2KiBV1_1")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := c2.Load(context.Background(), p, c2.LoadOptions{ParamsDir: testparams.Dir(t, p), Backend: groth16.CPU{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pr.Close() })
	in, err := porep.PartitionInputFromC1(sealC1(t, p, sector, seed), 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c2.Witness(pr.Shape, in, pr.Circuit)
	if err != nil {
		t.Fatal(err)
	}
	var r, s fr.Element
	r.SetRandom()
	s.SetRandom()
	return pr, w, r, s
}

// TestBackendMSMVariants: with FILC2_MSM_VARIANT set, a prover's five MSMs run that
// first accumulation kernel (the batch-affine ones, the FP64 product), with FILC2_MSM_SORT
// that sort (atomic, binned, radix), and the 2KiB proof is still the CPU proof byte for byte with
// the same r, s; values out of range are refused at load.
func TestBackendMSMVariants(t *testing.T) {
	e := newEnvProofs(t, 5)
	for v := 1; v <= 13; v++ {
		e.check(t, "FILC2_MSM_VARIANT", fmt.Sprint(v), 1)
	}
	for v := 1; v <= 3; v++ {
		e.check(t, "FILC2_MSM_SORT", fmt.Sprint(v), 1)
	}
	for _, bad := range []string{"14", "-1", "affine"} {
		e.refused(t, "FILC2_MSM_VARIANT", bad)
	}
	e.refused(t, "FILC2_MSM_SORT", "4")
}

// TestBackendOverlap: with the L, A and B MSMs beside the H pipeline (FILC2_OVERLAP=1) as
// with them after the H MSM (0, and unset), the 2KiB proof is the CPU proof byte for byte;
// other values are refused at load.
func TestBackendOverlap(t *testing.T) {
	e := newEnvProofs(t, 9)
	for _, v := range []string{"0", "1", ""} {
		e.check(t, "FILC2_OVERLAP", v, 3)
	}
	e.refused(t, "FILC2_OVERLAP", "yes")
}

// TestBackendLeanScratch: with the MSM scratch sized for the H MSM (FILC2_MSM_SCRATCH=h: H
// lent its scalars, prepared in place) as with the split MSMs' worst cases reserved (worst),
// and with auto (and unset), which keeps the worst case where the whole key fits anyway, as
// the 2KiB key does, the 2KiB proof is the CPU proof byte for byte; other values are refused
// at load.
func TestBackendLeanScratch(t *testing.T) {
	e := newEnvProofs(t, 13)
	e.onLoad = func(t *testing.T, val string, p *Prover) {
		if got, want := p.ScratchSizedForH(), val == "h"; got != want {
			t.Errorf("FILC2_MSM_SCRATCH=%q: scratch sized for H %v, want %v", val, got, want)
		}
	}
	for _, v := range []string{"h", "worst", "auto", ""} {
		e.check(t, "FILC2_MSM_SCRATCH", v, 3)
	}
	e.refused(t, "FILC2_MSM_SCRATCH", "lean")
}

// TestBackendWitnessReturnedEarly: with room for one witness buffer (an 80 GB card under
// a 32GiB key), the next partition's upload runs inside this partition's kernel section —
// the section gives the buffer back once the L MSM has read it — and every proof, in
// either overlap order, is the CPU proof byte for byte.
func TestBackendWitnessReturnedEarly(t *testing.T) {
	e := newEnvProofs(t, 11)
	for _, overlap := range []string{"0", "1"} {
		t.Run("overlap="+overlap, func(t *testing.T) {
			ctx := context.Background()
			t.Setenv("FILC2_OVERLAP", overlap)
			gp, err := LoadProver(ctx, 0, e.pr.PK, e.pr.Circuit)
			if err != nil {
				t.Fatal(err)
			}
			defer gp.Close()
			gp.maxOut = 1
			x1, err := gp.prepare(ctx, e.w, e.r, e.s)
			if err != nil {
				t.Fatal(err)
			}
			type prepared struct {
				x   *Prepared
				err error
			}
			next := make(chan prepared, 1)
			var x2 *Prepared
			gp.testHook = func(point string) {
				if point != hookWitnessReturned || x2 != nil {
					return
				}
				go func() {
					x, err := gp.prepare(ctx, e.w, e.r, e.s)
					next <- prepared{x, err}
				}()
				select {
				case p := <-next:
					if p.err != nil {
						t.Errorf("the second partition's prepare: %v", p.err)
					}
					x2 = p.x
				case <-time.After(20 * time.Second):
					t.Error("the second partition's upload did not run inside the first's kernel section")
				}
			}
			raws := make([]*Raw, 0, 2)
			raw, err := gp.runGPU(ctx, x1)
			if err != nil {
				t.Fatal(err)
			}
			raws = append(raws, raw)
			if x2 == nil {
				t.Fatal("the section never handed its witness buffer to a second partition")
			}
			if raw, err = gp.runGPU(ctx, x2); err != nil {
				t.Fatal(err)
			}
			raws = append(raws, raw)
			for i, raw := range raws {
				got := gp.finish(raw)
				if !got.A.Equal(&e.want.A) || !got.B.Equal(&e.want.B) || !got.C.Equal(&e.want.C) {
					t.Errorf("proof %d: the CUDA proof differs from the CPU proof with the same r, s", i)
				}
			}
			if n := gp.out.Load(); n != 0 {
				t.Errorf("%d witness buffers still out after both sections", n)
			}
		})
	}
}

// envProofs proves a 2KiB partition with provers loaded under an environment variable and
// compares with the CPU proof for the same r, s.
type envProofs struct {
	pr   *c2.Prover
	w    *groth16.Assignment
	r, s fr.Element
	want *groth16.Proof
	// onLoad, where set, checks each prover check loads before it proves.
	onLoad func(t *testing.T, val string, p *Prover)
}

func newEnvProofs(t *testing.T, seed byte) *envProofs {
	t.Helper()
	ctx := context.Background()
	pr, w, r, s := partition2KiB(t, 1, seed)
	cpu := groth16.CPU{}
	srs, err := cpu.LoadSRS(ctx, pr.PK, pr.Circuit)
	if err != nil {
		t.Fatal(err)
	}
	want, err := cpu.Prove(ctx, srs, w, r, s)
	if err != nil {
		t.Fatal(err)
	}
	return &envProofs{pr: pr, w: w, r: r, s: s, want: want}
}

// check loads a prover with env=val and proves n times, each proof against the CPU's.
func (e *envProofs) check(t *testing.T, env, val string, n int) {
	t.Helper()
	ctx := context.Background()
	t.Setenv(env, val)
	defer os.Unsetenv(env)
	gp, err := LoadProver(ctx, 0, e.pr.PK, e.pr.Circuit)
	if err != nil {
		t.Fatalf("%s=%q: %v", env, val, err)
	}
	defer gp.Close()
	if e.onLoad != nil {
		e.onLoad(t, val, gp)
	}
	for i := 0; i < n; i++ {
		got, _, err := gp.ProveTimed(ctx, e.w, e.r, e.s)
		if err != nil {
			t.Fatalf("%s=%q: %v", env, val, err)
		}
		if !got.A.Equal(&e.want.A) || !got.B.Equal(&e.want.B) || !got.C.Equal(&e.want.C) {
			t.Errorf("%s=%q, proof %d: the CUDA proof differs from the CPU proof with the same r, s", env, val, i)
		}
	}
}

// refused checks that a prover does not load with env=val, and says why.
func (e *envProofs) refused(t *testing.T, env, val string) {
	t.Helper()
	t.Setenv(env, val)
	defer os.Unsetenv(env)
	gp, err := LoadProver(context.Background(), 0, e.pr.PK, e.pr.Circuit)
	if err == nil || !strings.Contains(err.Error(), env) {
		if gp != nil {
			gp.Close()
		}
		t.Errorf("%s=%s: load gave %v", env, val, err)
	}
}

// TestSyntheticProver: a key generated on the device with the circuit's lengths proves
// (every stage at full size) and its proof does not verify under the real key.
func TestSyntheticProver(t *testing.T) {
	ctx := context.Background()
	p, _ := abi.ParseName("StackedDrg2KiBV1_1")
	dir := testparams.Dir(t, p)
	pr, err := c2.Load(ctx, p, c2.LoadOptions{ParamsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	sp, err := LoadSyntheticProver(ctx, 0, pr.Circuit, 42)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	a := sealC1(t, p, 3, 5)
	in, err := porep.PartitionInputFromC1(a, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c2.Witness(pr.Shape, in, pr.Circuit)
	if err != nil {
		t.Fatal(err)
	}
	var r, s fr.Element
	r.SetRandom()
	s.SetRandom()
	proof, st, err := sp.ProveTimed(ctx, w, r, s)
	if err != nil {
		t.Fatal(err)
	}
	if st.GPU() <= 0 {
		t.Errorf("no GPU time: %+v", st)
	}
	if err := c2.VerifyPartition(pr.PVK, p, a.ReplicaID, a.CommD, a.CommR, a.Seed, 0, proof); err == nil {
		t.Fatal("a synthetic key's proof verified under the real key")
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// TestDeviceCircuit: a, b, c and the compacted query scalars by SpMV on the device equal
// the host's (r1cs.Circuit.Eval, groth16.QueryScalars) for the 2KiB circuit and a real
// witness, with the padding zero.
func TestDeviceCircuit(t *testing.T) {
	ctx := context.Background()
	p, _ := abi.ParseName("StackedDrg2KiBV1_1")
	dir := testparams.Dir(t, p)
	pr, err := c2.Load(ctx, p, c2.LoadOptions{ParamsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	c := pr.Circuit
	in, err := porep.PartitionInputFromC1(sealC1(t, p, 4, 6), 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c2.Witness(pr.Shape, in, c)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := UploadCircuit(0, c)
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	m := groth16.ShapeOf(c.Stats()).Domain
	bufs := evalBuffers(t, dc, m)
	// Garbage in the outputs first: the padding must be written.
	junk := make([]fr.Element, m)
	for i := range junk {
		junk[i].SetUint64(uint64(i) + 1)
	}
	for _, b := range bufs[1:4] {
		if err := b.Upload(junk); err != nil {
			t.Fatal(err)
		}
	}
	if err := bufs[0].UploadAt(0, w.Inputs); err != nil {
		t.Fatal(err)
	}
	if err := bufs[0].UploadAt(c.NumInputs, w.Aux); err != nil {
		t.Fatal(err)
	}
	if err := dc.Eval(bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], m, nil); err != nil {
		t.Fatal(err)
	}
	n := c.NumConstraints
	want := [3][]fr.Element{make([]fr.Element, m), make([]fr.Element, m), make([]fr.Element, m)}
	if err := c.Eval(w.Inputs, w.Aux, want[0][:n], want[1][:n], want[2][:n], 0); err != nil {
		t.Fatal(err)
	}
	as, bs := groth16.QueryScalars(groth16.DensitiesOf(c), w)
	for i, exp := range [][]fr.Element{want[0], want[1], want[2], as, bs} {
		got := make([]fr.Element, len(exp))
		if err := bufs[i+1].Download(got); err != nil {
			t.Fatal(err)
		}
		for j := range exp {
			if !got[j].Equal(&exp[j]) {
				t.Fatalf("vector %d element %d (of %d, %d constraints): device %v, host %v", i, j, len(exp), n, got[j].String(), exp[j].String())
			}
		}
	}
	if b, err := dc.DeviceBytes(); err != nil || b == 0 {
		t.Errorf("DeviceBytes %d, %v", b, err)
	}
	if err := dc.Eval(bufs[0], bufs[4], bufs[2], bufs[3], bufs[4], bufs[5], m, nil); err == nil {
		t.Error("Eval accepted a short output buffer")
	}
	if err := dc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := dc.Eval(bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], m, nil); err == nil {
		t.Error("Eval on a closed circuit succeeded")
	}
}

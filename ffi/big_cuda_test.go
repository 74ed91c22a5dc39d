//go:build cuda

package ffi

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
)

// TestBigPartitionCPUEqualsGPU (FILC2_BIG=StackedDrg32GiBV1_1, say; the recorded
// circuit cached in $FILC2_PCE, default /tmp/filc2-pce): one partition of a sparse
// sector of a production size proved on the GPU with a key set up on the GPU, and on
// the host's CPU with the same key (downloaded) and the same r, s: the two proofs are
// byte for byte equal and verify. Needs about 80 GB of host memory at 32GiB.
func TestBigPartitionCPUEqualsGPU(t *testing.T) {
	name := os.Getenv("FILC2_BIG")
	if name == "" {
		t.Skip("set FILC2_BIG to a proof type (a 32GiB partition on the CPU takes minutes on 16 cores)")
	}
	ctx := context.Background()
	p, err := abi.ParseName(name)
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("FILC2_PCE")
	if dir == "" {
		dir = "/tmp/filc2-pce"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	step := func(what string, t0 time.Time) {
		fmt.Printf("BIG %s %s %.2fs rss=%.1fGiB\n", p.Name, what, time.Since(t0).Seconds(), float64(rssBytes())/(1<<30))
	}
	t0 := time.Now()
	in := porep.SparseInput{Proof: p, ProverID: porep.ProverID(1000), SectorID: 1}
	in.Seed[0], in.Ticket[0] = 1, 2
	out, _, err := porep.SparseC1(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := porep.VerifyVanilla(ctx, out); err != nil {
		t.Fatal(err)
	}
	step("sparse_c1_and_vanilla", t0)
	t0 = time.Now()
	c, err := c2.LoadCircuit(ctx, p, c2.FilesIn(dir, p).PCE)
	if err != nil {
		t.Fatal(err)
	}
	step("circuit", t0)
	tox, err := groth16.SeededToxic(1)
	if err != nil {
		t.Fatal(err)
	}
	t0 = time.Now()
	gp, err := SetupProver(ctx, 0, c, &tox)
	if err != nil {
		t.Fatal(err)
	}
	step("gpu_setup", t0)
	if devs, err := Devices(); err == nil {
		fmt.Printf("BIG %s device_used_after_setup=%.1fGiB\n", p.Name, float64(devs[0].Memory-devs[0].Free)/(1<<30))
	}
	t0 = time.Now()
	pin, err := porep.PartitionInputFromC1(out, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c2.Witness(porep.ShapeOf(p), pin, c)
	if err != nil {
		t.Fatal(err)
	}
	step("witness", t0)
	var r, s fr.Element
	r.SetUint64(0x1234567)
	s.SetUint64(0x89abcdef)
	r.Square(&r)
	s.Square(&s)
	t0 = time.Now()
	gpuProof, st, err := gp.ProveTimed(ctx, w, r, s)
	if err != nil {
		t.Fatal(err)
	}
	step(fmt.Sprintf("gpu_prove(kernels=%.3fs)", st.GPU().Seconds()), t0)
	pvk, err := groth16.Prepare(gp.VerifyingKey())
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.VerifyPartition(pvk, p, out.ReplicaID, out.CommD, out.CommR, out.Seed, 0, gpuProof); err != nil {
		t.Fatalf("the GPU proof does not verify: %v", err)
	}
	t0 = time.Now()
	pk, err := gp.ProvingKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gp.Close()
	step("key_download", t0)
	t0 = time.Now()
	cpu := groth16.CPU{}
	srs, err := cpu.LoadSRS(ctx, pk, c)
	if err != nil {
		t.Fatal(err)
	}
	cpuProof, err := cpu.Prove(ctx, srs, w, r, s)
	if err != nil {
		t.Fatal(err)
	}
	step("cpu_prove", t0)
	ga, gb := gpuProof.Bytes(), cpuProof.Bytes()
	if ga != gb {
		t.Fatalf("%s partition 0: the GPU proof %x differs from the CPU proof %x with the same key and r, s", p.Name, ga, gb)
	}
	fmt.Printf("BIG %s partition 0: GPU and CPU proofs equal, verified: %x\n", p.Name, ga)
}

// rssBytes is this process's resident memory.
func rssBytes() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, rss uint64
	fmt.Sscan(string(b), &size, &rss)
	return rss * uint64(os.Getpagesize())
}

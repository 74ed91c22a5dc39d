//go:build cuda

package ffi

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/internal/testparams"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
)

// TestEngineCUDA: 2KiB jobs through the engine on the CUDA backend with two GPU
// workers sharing the GPU's lock: every proof verifies, and the lock was never held
// by both workers at once.
func TestEngineCUDA(t *testing.T) {
	ctx := context.Background()
	p, _ := abi.ParseName("StackedDrg2KiBV1_1")
	dir := testparams.Dir(t, p)
	cfg := engine.DefaultConfig()
	cfg.Params.Dir = dir
	cfg.GPU.Devices = []int{0}
	cfg.GPU.WorkersPerGPU = 2
	cfg.Synthesis.Workers = 4
	cfg.Memory.Budget = 16 * engine.GiB
	gpu := engine.Staged{
		Label: "cuda",
		Load: func(ctx context.Context, gpu int, pk *groth16.ProvingKey, c *r1cs.Circuit) (engine.PartitionProver, error) {
			return LoadProver(ctx, gpu, pk, c)
		},
		Working: HostWorkingBytes,
	}
	e, err := engine.New(cfg, &engine.Proofs{ParamsDir: dir, GPU: gpu}, engine.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const jobs = 6
	c1s := make([]*c1.Commit1Out, jobs)
	for i := range c1s {
		c1s[i] = sealC1(t, p, uint64(10+i), byte(i+1))
	}
	pr, err := c2.Load(ctx, p, c2.LoadOptions{ParamsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	t0 := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, jobs)
	for i := range c1s {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id, err := e.Submit(ctx, engine.Request{ID: fmt.Sprintf("job-%d", i), Commit1: c1s[i], ProofType: p})
			if err != nil {
				errs[i] = err
				return
			}
			r, err := e.Await(ctx, id)
			if err != nil {
				errs[i] = err
				return
			}
			errs[i] = c2.VerifyC1Proof(pr.PVK, c1s[i], r.Proof)
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("job %d: %v", i, err)
		}
	}
	wall := time.Since(t0)
	st := e.Status()
	l := st.GPUs[0].Lock
	if l.MaxHolders != 1 || l.Acquisitions < jobs {
		t.Errorf("GPU lock %+v: want one holder at a time, ≥ %d acquisitions", l, jobs)
	}
	fmt.Printf("BENCH engine-2kib backend=cuda jobs=%d wall_s=%.2f s_per_proof=%.3f gpu_busy_s=%.3f\n",
		jobs, wall.Seconds(), wall.Seconds()/jobs, l.Busy.Seconds())
}

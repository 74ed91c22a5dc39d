package c2_test

import (
	"context"
	"testing"
	"time"

	"github.com/filc2/filc2/proofs/abi"
	. "github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
)

// BenchmarkC2_2KiB is one 2KiB SealCommit2 on the CPU, stage by stage: the
// README's table. Setup runs once before the timer (about a minute on 2 cores).
func BenchmarkC2_2KiB(b *testing.B) {
	ctx := context.Background()
	p, _ := abi.ParseName("StackedDrg2KiBV1_1")
	dir := b.TempDir()
	t0 := time.Now()
	if _, _, err := Setup(ctx, p, dir, SetupOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(time.Since(t0).Seconds(), "setup-s")
	pr, err := Load(ctx, p, LoadOptions{ParamsDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	out := sealC1(b, p, 1, 9)
	in, err := porep.PartitionInputFromC1(out, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var synth, verify time.Duration
	var st groth16.StageTimes
	for b.Loop() {
		t0 := time.Now()
		w, err := Witness(pr.Shape, in, pr.Circuit)
		if err != nil {
			b.Fatal(err)
		}
		synth += time.Since(t0)
		proof, s, err := groth16.ProveTimed(ctx, pr.PK, pr.Circuit, w)
		if err != nil {
			b.Fatal(err)
		}
		st = s
		t0 = time.Now()
		if err := VerifyPartition(pr.PVK, p, out.ReplicaID, out.CommD, out.CommR, out.Seed, 0, proof); err != nil {
			b.Fatal(err)
		}
		verify += time.Since(t0)
	}
	for _, m := range []struct {
		name string
		d    time.Duration
	}{{"synthesis", synth / time.Duration(b.N)}, {"spmv", st.ABC}, {"ntt", st.H}, {"msm-h", st.MSMH}, {"msm-l", st.MSML},
		{"msm-a", st.MSMA}, {"msm-b1", st.MSMBG1}, {"msm-b2", st.MSMBG2}, {"verify", verify / time.Duration(b.N)}} {
		b.ReportMetric(m.d.Seconds(), m.name+"-s")
	}
}

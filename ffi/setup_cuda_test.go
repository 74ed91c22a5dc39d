//go:build cuda

package ffi

import (
	"bytes"
	"context"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/testparams"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
)

// seededReader is a deterministic io.Reader for reproducible toxic waste.
type seededReader struct{ r *rand.ChaCha8 }

func newSeededReader(seed byte) *seededReader {
	var s [32]byte
	s[0] = seed
	return &seededReader{rand.NewChaCha8(s)}
}

func (s *seededReader) Read(p []byte) (int, error) { return s.r.Read(p) }

// fixedBaseScalars are random scalars and the edge cases of the signed recoding:
// 0, 1, r − 1, (r − 1)/2 and its successor, 2^15, 2^16 − 1, 2^16·(2^15 + 1), all-ones
// windows below the top.
func fixedBaseScalars(n int) []fr.Element {
	s := randomFr(n)
	r := fr.Modulus()
	one := big.NewInt(1)
	half := new(big.Int).Rsh(r, 1)
	edges := []*big.Int{big.NewInt(0), one, new(big.Int).Sub(r, one), half, new(big.Int).Add(half, one),
		big.NewInt(1 << 15), big.NewInt(1<<16 - 1), new(big.Int).Lsh(big.NewInt(1<<15+1), 16),
		new(big.Int).Sub(new(big.Int).Lsh(one, 240), one)}
	for i, e := range edges {
		s[i] = bigFr(e)
	}
	return s
}

// FixedBaseG1/G2 give s·G for every scalar, as gnark computes it, across chunk
// boundaries of the batch inversion (n not a multiple of 64); a wrong table is refused.
func TestFixedBase(t *testing.T) {
	_, _, g1, g2 := bls.Generators()
	var k fr.Element
	k.SetUint64(123457)
	var g bls.G1Affine
	g.ScalarMultiplication(&g1, k.BigInt(new(big.Int)))
	t1 := groth16.NewG1Table(&g)
	t2 := groth16.NewG2Table(&g2)
	n := 5000
	if testing.Short() {
		n = 700
	}
	s := fixedBaseScalars(n)
	b1, err := FixedBaseG1(0, t1.Points(), s)
	if err != nil {
		t.Fatal(err)
	}
	defer b1.Close()
	got1, err := b1.Points(0, n)
	if err != nil {
		t.Fatal(err)
	}
	want1 := make([]bls.G1Affine, n)
	parallel(n, func(i int) { want1[i].ScalarMultiplication(&g, s[i].BigInt(new(big.Int))) })
	mismatches(t, "G1 fixed base", got1, want1, func(i int) string { return s[i].String() })
	s2 := s[:n/4]
	b2, err := FixedBaseG2(0, t2.Points(), s2)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	got2, err := b2.Points(0, len(s2))
	if err != nil {
		t.Fatal(err)
	}
	want2 := make([]bls.G2Affine, len(s2))
	parallel(len(s2), func(i int) { want2[i].ScalarMultiplication(&g2, s2[i].BigInt(new(big.Int))) })
	mismatches(t, "G2 fixed base", got2, want2, func(i int) string { return s2[i].String() })
	if _, err := FixedBaseG1(0, t1.Points()[1:], s); err == nil {
		t.Fatal("a short table was accepted")
	}
}

// The GPU setup is the CPU setup: at 2KiB and 8MiB, the key SetupProver makes on the
// device from NewToxic(stream) equals groth16.Setup's from the same stream, point for
// point; the resident key proves a sealed sector's partition and its verifying key
// verifies the proof.
func TestSetupProverEqualsCPU(t *testing.T) {
	ctx := context.Background()
	names := []string{"StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1"}
	if testing.Short() {
		names = names[:1]
	}
	for i, name := range names {
		p, err := abi.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		c, err := c2.LoadCircuit(ctx, p, c2.FilesIn(testparams.Dir(t, p), p).PCE)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		want, err := groth16.Setup(ctx, c, groth16.WithRandom(newSeededReader(byte(i+1))))
		if err != nil {
			t.Fatal(err)
		}
		cpuTime := time.Since(t0)
		tox, err := groth16.NewToxic(newSeededReader(byte(i + 1)))
		if err != nil {
			t.Fatal(err)
		}
		t0 = time.Now()
		gp, err := SetupProver(ctx, 0, c, &tox)
		if err != nil {
			t.Fatal(err)
		}
		gpuTime := time.Since(t0)
		got, err := gp.ProvingKey(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var x, y bytes.Buffer
		want.WriteTo(&x)
		got.WriteTo(&y)
		if !bytes.Equal(x.Bytes(), y.Bytes()) {
			t.Fatalf("%s: the GPU setup's key differs from the CPU setup's for the same toxic waste", name)
		}
		t.Logf("%s: setup on the CPU %v, on the GPU %v; keys equal (%d bytes)", name, cpuTime, gpuTime, x.Len())

		out := sealC1(t, p, 3, 5)
		in, err := porep.PartitionInputFromC1(out, 0)
		if err != nil {
			t.Fatal(err)
		}
		w, err := c2.Witness(porep.ShapeOf(p), in, c)
		if err != nil {
			t.Fatal(err)
		}
		var r, s fr.Element
		r.SetRandom()
		s.SetRandom()
		proof, _, err := gp.ProveTimed(ctx, w, r, s)
		if err != nil {
			t.Fatal(err)
		}
		pvk, err := groth16.Prepare(gp.VerifyingKey())
		if err != nil {
			t.Fatal(err)
		}
		if err := c2.VerifyPartition(pvk, p, out.ReplicaID, out.CommD, out.CommR, out.Seed, 0, proof); err != nil {
			t.Fatalf("%s: a proof with the GPU-made key does not verify: %v", name, err)
		}
		gp.Close()
	}
}

//go:build cuda

package ffi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
)

// randomCircuit is a circuit of the given row lengths (the same in A, B and C, rotated)
// over random variables and coefficients: 1, −1 and general ones.
func randomCircuit(rng *rand.Rand, lens []int, inputs, aux int) *r1cs.Circuit {
	c := &r1cs.Circuit{NumInputs: inputs, NumAux: aux, NumConstraints: len(lens),
		AAux: r1cs.NewBitset(aux), BInput: r1cs.NewBitset(inputs), BAux: r1cs.NewBitset(aux)}
	one, minus := fr.One(), fr.One()
	minus.Neg(&minus)
	c.Coeffs = append(c.Coeffs, one, minus)
	for range 20 {
		var x fr.Element
		x.SetUint64(rng.Uint64())
		c.Coeffs = append(c.Coeffs, x)
	}
	for k, m := range c.Matrices() {
		m.RowPtr = []uint32{0}
		for i := range lens {
			for range lens[(i+k)%len(lens)] {
				m.Col = append(m.Col, uint32(rng.IntN(inputs+aux)))
				m.Val = append(m.Val, uint32(rng.IntN(len(c.Coeffs))))
			}
			m.RowPtr = append(m.RowPtr, uint32(len(m.Col)))
		}
	}
	for j := 0; j < aux; j += 3 {
		c.AAux.Set(j)
		c.BAux.Set(aux - 1 - j)
	}
	c.BInput.Set(0)
	return c
}

// evalBuffers allocates DeviceCircuit.Eval's vectors on device 0, freed with the test:
// the witness, a, b and c over a domain of m, the A and B scalars.
func evalBuffers(t *testing.T, dc *DeviceCircuit, m int) []*FrBuffer {
	t.Helper()
	nA, nB := dc.QueryLens()
	bufs := make([]*FrBuffer, 6)
	for i, n := range []int{dc.Vars(), m, m, m, nA, nB} {
		b, err := AllocFr(0, n)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Free() })
		bufs[i] = b
	}
	return bufs
}

// TestDeviceCircuitLongRows: rows of every length around the warp-per-row threshold
// (31, 32, 33 entries) and far past it, mixed with short and empty ones, give the host's
// a, b, c, with the long rows run a warp per row and, for comparison, thread per row.
func TestDeviceCircuitLongRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), 7))
	var lens []int
	for _, l := range []int{0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 255, 256, 1000} {
		for range 1 + rng.IntN(40) {
			lens = append(lens, l)
		}
	}
	rng.Shuffle(len(lens), func(i, j int) { lens[i], lens[j] = lens[j], lens[i] })
	c := randomCircuit(rng, lens, 3, 5000)
	w := randomFr(c.NumInputs + c.NumAux)
	w[0] = fr.One()
	dc, err := UploadCircuit(0, c)
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	m := 1
	for m < c.NumConstraints {
		m <<= 1
	}
	bufs := evalBuffers(t, dc, m)
	if err := bufs[0].Upload(w); err != nil {
		t.Fatal(err)
	}
	n := c.NumConstraints
	want := [3][]fr.Element{make([]fr.Element, m), make([]fr.Element, m), make([]fr.Element, m)}
	if err := c.Eval(w[:c.NumInputs], w[c.NumInputs:], want[0][:n], want[1][:n], want[2][:n], 0); err != nil {
		t.Fatal(err)
	}
	check := func(how string) {
		for i := range 3 {
			got := make([]fr.Element, m)
			poison(got)
			if err := bufs[i+1].Download(got); err != nil {
				t.Fatal(err)
			}
			mismatches(t, fmt.Sprintf("%s, matrix %c", how, "ABC"[i]), got, want[i], func(j int) string {
				return fmt.Sprintf("row of %d entries", lens[(j+i)%len(lens)])
			})
		}
	}
	junk := make([]fr.Element, m)
	poison(junk)
	for _, split := range []bool{true, false} {
		for _, b := range bufs[1:4] {
			if err := b.Upload(junk); err != nil {
				t.Fatal(err)
			}
		}
		if split {
			if err := dc.Eval(bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], m, nil); err != nil {
				t.Fatal(err)
			}
		} else if _, err := dc.bench(bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], m, false, 1); err != nil {
			t.Fatal(err)
		}
		check(map[bool]string{true: "warp per long row", false: "thread per row"}[split])
	}
}

// TestSpMVBench (FILC2_BENCH=1) times the 32GiB circuit's SpMV on a random witness, part by
// part, with the long rows a warp each and thread per row. Lines start with BENCH spmv.
func TestSpMVBench(t *testing.T) {
	if os.Getenv("FILC2_BENCH") != "1" {
		t.Skip("set FILC2_BENCH=1")
	}
	p, _ := abi.ParseName("StackedDrg32GiBV1_1")
	t0 := time.Now()
	c, err := c2.RecordCircuit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("BENCH spmv recorded %s in %.1f s: %d constraints, nnz A %d B %d C %d\n", p.Name, time.Since(t0).Seconds(),
		c.NumConstraints, c.A.NNZ(), c.B.NNZ(), c.C.NNZ())
	dc, err := UploadCircuit(0, c)
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	m := groth16.ShapeOf(c.Stats()).Domain
	bufs := evalBuffers(t, dc, m)
	w, err := deviceScalars(0, 0, dc.Vars(), 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := bufs[0].Upload(w); err != nil {
		t.Fatal(err)
	}
	for _, split := range []bool{true, false} {
		ms, err := dc.bench(bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], m, split, 5)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("BENCH spmv split=%v A=%.1f B=%.1f C=%.1f gatherA=%.1f gatherB=%.1f total_ms=%.1f\n", split,
			ms[0], ms[1], ms[2], ms[3], ms[4], ms[5])
	}
}

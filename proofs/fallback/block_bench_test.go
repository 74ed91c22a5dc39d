package fallback

import (
	"testing"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/r1cs"
)

// 32GiB Window blocks (10 challenges, 10 levels of arity 8 each): what the
// vanilla check and the witness synthesis cost a sector, 2349 of which make
// a partition.
func window32GiB(b *testing.B, sectors int) (*Partition, Randomness) {
	b.Helper()
	p, err := abi.ParsePoStName("StackedDrgWindow32GiBV1_1")
	if err != nil {
		b.Fatal(err)
	}
	r := MaskRandomness([32]byte{9, 31: 0xff})
	vs := make([]*SectorVanilla, sectors)
	for i := range vs {
		vs[i] = sparseVanilla(b, p, uint64(i+1), i, r)
	}
	pt, err := NewPartition(p, vs, 0)
	if err != nil {
		b.Fatal(err)
	}
	return pt, r
}

// BenchmarkCheckWindow32GiB reports the check's cost per block (sector) over
// 64 sectors, on all cores.
func BenchmarkCheckWindow32GiB(b *testing.B) {
	pt, r := window32GiB(b, 64)
	b.ResetTimer()
	for range b.N {
		if err := pt.Check(r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pt.Real), "ns/block")
}

func BenchmarkWitnessBlockWindow32GiB(b *testing.B) {
	pt, _ := window32GiB(b, 1)
	in, err := pt.CircuitInput()
	if err != nil {
		b.Fatal(err)
	}
	l, err := r1cs.New(r1cs.Count).Measure(func(m *r1cs.System) error { return synthesizeBlock(m, &in.Blocks[0]) })
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		cs := r1cs.New(r1cs.Witness, r1cs.WithCapacity(l.Aux, l.Constraints))
		if err := synthesizeBlock(cs, &in.Blocks[0]); err != nil {
			b.Fatal(err)
		}
	}
}

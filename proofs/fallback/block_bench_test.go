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

// BenchmarkWitnessWindow32GiB reports the witness synthesis's cost per block
// on one goroutine, over 12 sectors: "traced" as Synthesize runs it (the
// paths' hashes computed together ahead, blockTracer), "direct" each hash in
// its gadget call.
func BenchmarkWitnessWindow32GiB(b *testing.B) {
	pt, _ := window32GiB(b, 12)
	in, err := pt.CircuitInput()
	if err != nil {
		b.Fatal(err)
	}
	blocks := in.Blocks[:12]
	l, err := r1cs.New(r1cs.Count).Measure(func(m *r1cs.System) error { return synthesizeBlock(m, &blocks[0], nil) })
	if err != nil {
		b.Fatal(err)
	}
	for _, traced := range []bool{true, false} {
		name := map[bool]string{true: "traced", false: "direct"}[traced]
		b.Run(name, func(b *testing.B) {
			for range b.N {
				cs := r1cs.New(r1cs.Witness, r1cs.WithCapacity(len(blocks)*l.Aux, len(blocks)*l.Constraints))
				if traced {
					err = synthesizeChunk(cs, blocks, 0, nil, func() {})
				} else {
					for i := range blocks {
						if err = synthesizeBlock(cs, &blocks[i], nil); err != nil {
							break
						}
					}
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(blocks)), "ns/block")
		})
	}
}

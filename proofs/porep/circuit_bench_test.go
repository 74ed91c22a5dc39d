package porep

import (
	"runtime"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/r1cs"
)

// benchSynthesize synthesises one blank partition of p in mode m per iteration,
// with storage presized as c2.Witness presizes it, and reports the heap the
// finished System holds.
func benchSynthesize(b *testing.B, name string, m r1cs.Mode) {
	p, err := abi.ParseName(name)
	if err != nil {
		b.Fatal(err)
	}
	s := ShapeOf(p)
	in := s.Blank()
	// Size the value storage as c2.Witness does, from a count-mode pass.
	counter := r1cs.New(r1cs.Count)
	if err := Synthesize(counter, s, in); err != nil {
		b.Fatal(err)
	}
	counter.Finish()
	st := counter.Stats()
	b.ReportAllocs()
	b.ResetTimer()
	var heap uint64
	for b.Loop() {
		cs := r1cs.New(m, r1cs.WithCapacity(st.Aux, st.Constraints))
		if err := Synthesize(cs, s, in); err != nil {
			b.Fatal(err)
		}
		if err := cs.Finish(); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = max(heap, ms.HeapAlloc)
		runtime.KeepAlive(cs)
	}
	b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
}

func BenchmarkSynthesize2KiB(b *testing.B) {
	for _, m := range []r1cs.Mode{r1cs.Witness, r1cs.Record, r1cs.Count} {
		b.Run(m.String(), func(b *testing.B) { benchSynthesize(b, "StackedDrg2KiBV1_1", m) })
	}
}

// BenchmarkSynthesize32GiBWitness is one 32GiB partition in witness mode (~4 GiB of values).
func BenchmarkSynthesize32GiBWitness(b *testing.B) {
	benchSynthesize(b, "StackedDrg32GiBV1_1", r1cs.Witness)
}

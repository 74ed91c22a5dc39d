package post

import (
	"testing"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/fallback"
	"github.com/filc2/filc2/proofs/r1cs"
)

// BenchmarkWindow32GiB times what a 32GiB Window partition costs the CPU
// before its GPU section, on all cores: the vanilla check of 64 sectors
// (reported per sector) and the witness synthesis of the whole partition
// (2349 blocks, the 64 sectors padded as a short partition is: 64 blocks
// synthesised, the last one's copies made by copying its values), and the
// witness of a one-sector partition, with the witness storage sized as the
// engine sizes it.
func BenchmarkWindow32GiB(b *testing.B) {
	p, err := abi.ParsePoStName("StackedDrgWindow32GiBV1_1")
	if err != nil {
		b.Fatal(err)
	}
	r := fallback.MaskRandomness([32]byte{3, 31: 0xff})
	req, err := SparseRequest(p, r, 64, 0)
	if err != nil {
		b.Fatal(err)
	}
	pt, err := Prepare(req)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("check", func(b *testing.B) {
		for range b.N {
			if pt, err = Prepare(req); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/sector")
	})
	st, err := CountCircuit(p)
	if err != nil {
		b.Fatal(err)
	}
	c := &r1cs.Circuit{NumInputs: st.Inputs, NumAux: st.Aux, NumConstraints: st.Constraints}
	// One sector: one block synthesised, its 2348 copies made by RepeatLast.
	req1, err := SparseRequest(p, r, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	pt1, err := Prepare(req1)
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []struct {
		name string
		pt   *fallback.Partition
	}{{"witness", pt}, {"witness-1-sector", pt1}} {
		b.Run(w.name, func(b *testing.B) {
			for range b.N {
				if _, err := Witness(w.pt, c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

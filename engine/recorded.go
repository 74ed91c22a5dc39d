package engine

import (
	"context"
	"fmt"
	"os"
	"sync"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/r1cs"
)

// recordedCircuits loads the recorded circuits of the backends that make their
// own keys (Synthetic, SetupKey): cached in a directory (recorded and written
// there the first time) or recorded at every load, with the progress of long
// loads reported.
type recordedCircuits struct {
	pceDir   string // c2.PCEName files; "": record at every load, keep none on disk
	progress func(stage string, done, total int64)

	mu    sync.Mutex
	stats map[uint64]r1cs.Stats // circuit counts by sector size, for circuitBytes
}

// circuitBytes is the cached recorded circuit's size, or an estimate from the
// circuit's counts (a count-mode synthesis, once per size: 20 s at 32GiB), plus
// the key when the GPU backend keeps it on the host (a WholeProof); a shared
// key's G1 queries are prefixes of one array (a synthetic key's).
func (r *recordedCircuits) circuitBytes(p abi.SealProof, gpu GPUBackend, shared bool) (int64, error) {
	pce := ""
	if r.pceDir != "" {
		pce = c2.FilesIn(r.pceDir, p).PCE
	}
	return recordedBytes(pce, gpu, shared, func() (r1cs.Stats, error) { return r.circuitStats(p) })
}

// recordedBytes is the size of the recorded circuit at pce ("" or absent: an
// estimate from the counts stats gives), plus the key when the GPU backend
// keeps it on the host (a WholeProof). stats is called only when needed.
func recordedBytes(pce string, gpu GPUBackend, shared bool, stats func() (r1cs.Stats, error)) (int64, error) {
	_, host := gpu.(WholeProof)
	n := int64(-1)
	if pce != "" {
		if fi, err := os.Stat(pce); err == nil {
			n = fi.Size()
		}
	}
	if n >= 0 && !host {
		return n, nil
	}
	st, err := stats()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		n = int64(st.Constraints) * pceBytesPerConstraint
	}
	if host {
		n += keyBytes(st, shared)
	}
	return n, nil
}

// keyBytes is the size of a proving key of a circuit of counts st in host
// memory; a shared key's G1 queries are prefixes of one array.
func keyBytes(st r1cs.Stats, shared bool) int64 {
	l := groth16.ShapeOf(st).Lengths()
	g1 := l[0] + l[1] + l[2] + l[3]
	if shared {
		g1 = max(l[0], l[1], l[2], l[3])
	}
	return int64(g1)*bls.SizeOfG1AffineUncompressed + int64(l[4])*bls.SizeOfG2AffineUncompressed
}

// pceBytesPerConstraint is about what a recorded PoRep circuit holds per
// constraint (CSR of A, B and C, ~5.5 entries a row, and the row pointers):
// 57 bytes at 2KiB as at 32GiB.
const pceBytesPerConstraint = 57

func (r *recordedCircuits) circuitStats(p abi.SealProof) (r1cs.Stats, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st, ok := r.stats[uint64(p.SectorSize)]; ok {
		return st, nil
	}
	shape := porep.ShapeOf(p)
	cs := r1cs.New(r1cs.Count)
	if err := porep.Synthesize(cs, shape, shape.Blank()); err != nil {
		return r1cs.Stats{}, fmt.Errorf("counting the %s circuit: %w", p.Name, err)
	}
	if err := cs.Finish(); err != nil {
		return r1cs.Stats{}, fmt.Errorf("counting the %s circuit: %w", p.Name, err)
	}
	if r.stats == nil {
		r.stats = map[uint64]r1cs.Stats{}
	}
	r.stats[uint64(p.SectorSize)] = cs.Stats()
	return cs.Stats(), nil
}

// load returns p's recorded circuit, from the cache directory when it is there.
func (r *recordedCircuits) load(ctx context.Context, p abi.SealProof, progress func(done, total int64)) (*r1cs.Circuit, error) {
	tell := func(stage string, done, total int64) {
		progress(done, total)
		if r.progress != nil {
			r.progress(stage, done, total)
		}
	}
	record := porep.WithProgress(func(done, total int) {
		tell("recording the "+p.Name+" circuit (challenges)", int64(done), int64(total))
	})
	var c *r1cs.Circuit
	var err error
	if r.pceDir == "" {
		c, err = c2.RecordCircuit(ctx, p, record)
	} else {
		path := c2.FilesIn(r.pceDir, p).PCE
		if _, serr := os.Stat(path); serr == nil {
			tell("reading the recorded "+p.Name+" circuit", 0, 1)
		} else if err = os.MkdirAll(r.pceDir, 0o755); err != nil {
			return nil, fmt.Errorf("engine: the recorded-circuit cache: %w", err)
		}
		c, err = c2.LoadCircuit(ctx, p, path, record)
	}
	if err != nil {
		return nil, err
	}
	tell("circuit "+p.Name+" loaded", 1, 1)
	return c, nil
}

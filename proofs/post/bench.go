package post

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/fallback"
)

// SparseRequest returns a request over sectors sparse TEST FIXTURE sectors
// (fallback.SparseSectorTree) numbered from 1, with vanilla proofs for r in
// partition k: what a benchmark proves without sealing anything.
func SparseRequest(p abi.PoStProof, r fallback.Randomness, sectors, k int) (*Request, error) {
	if p.Kind == abi.Winning {
		sectors, k = 1, 0
	}
	if sectors < 1 || sectors > p.SectorCount {
		return nil, fmt.Errorf("post: %d sectors, a %s partition holds 1 to %d", sectors, p.Name, p.SectorCount)
	}
	req := &Request{Proof: p, Randomness: r, Partition: k, Vanilla: make([]*fallback.SectorVanilla, sectors)}
	errs := make([]error, sectors)
	par.Each(sectors, 0, func(i int) {
		id := uint64(i + 1)
		chs := fallback.VanillaChallenges(p, r, id, k*p.SectorCount+i)
		var seed [32]byte
		copy(seed[:], "filc2 bench post")
		binary.LittleEndian.PutUint64(seed[24:], id)
		tree, err := fallback.SparseSectorTree(p, seed, chs)
		if err == nil {
			req.Vanilla[i], err = fallback.GenerateSectorVanilla(p, id, tree, chs)
		}
		errs[i] = err
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return req, nil
}

// BenchResult is what Bench measured: each proof's timing and end-to-end
// latency (check, synthesis, proving and verification), and their summary.
type BenchResult struct {
	Proof   string          `json:"proof_type"`
	Backend string          `json:"backend"`
	Sectors int             `json:"sectors"`
	Timings []Timing        `json:"timings"`
	Latency []time.Duration `json:"latency_ns"`
	Summary LatencySummary  `json:"summary"`
}

// LatencySummary sums up latencies.
type LatencySummary struct {
	Min    time.Duration `json:"min_ns"`
	Median time.Duration `json:"median_ns"`
	P99    time.Duration `json:"p99_ns"`
	Max    time.Duration `json:"max_ns"`
}

// Summarize returns the summary of latencies (zero for none).
func Summarize(lat []time.Duration) LatencySummary {
	if len(lat) == 0 {
		return LatencySummary{}
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return LatencySummary{Min: s[0], Median: at(0.5), P99: at(0.99), Max: s[len(s)-1]}
}

// Bench proves req n times in a row, one after the other, and measures each.
// onProof, if not nil, is called after each proof.
func Bench(ctx context.Context, pr *Prover, req *Request, n int, onProof func(i int, t Timing, latency time.Duration)) (*BenchResult, error) {
	res := &BenchResult{Proof: req.Proof.Name, Backend: pr.Backend(), Sectors: len(req.Vanilla)}
	for i := range n {
		t0 := time.Now()
		_, t, err := pr.Prove(ctx, req)
		if err != nil {
			return res, fmt.Errorf("proof %d: %w", i, err)
		}
		lat := time.Since(t0)
		res.Timings = append(res.Timings, t)
		res.Latency = append(res.Latency, lat)
		if onProof != nil {
			onProof(i, t, lat)
		}
	}
	res.Summary = Summarize(res.Latency)
	return res, nil
}

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/ffi"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/fallback"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/post"
)

func benchPostCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "post",
		Usage:     "measure WindowPoSt / WinningPoSt latency on sparse test sectors",
		UsageText: "filc2 bench post --post-proof NAME [--sectors N] [--proofs M] [--setup-key | --params-dir DIR] [--backend auto|cpu|cuda] [--json]",
		Description: "Builds a partition of sparse TEST FIXTURE sectors (a full Window partition by default, one sector for\n" +
			"Winning) with vanilla proofs for a fixed randomness, then proves it --proofs times one after the other,\n" +
			"each proof checked, synthesised, proved and verified, and reports each latency and their min, median, p99\n" +
			"and max. The key comes from --params-dir, or with --setup-key from a Groth16 setup made at load (on the\n" +
			"GPU for cuda) from seeded toxic waste: no .params needed, nothing written.\n\n" +
			"  filc2 bench post --post-proof StackedDrgWindow32GiBV1_1 --setup-key --backend cuda --proofs 5",
		Flags: []ucli.Flag{
			postProofFlag(true),
			&ucli.IntFlag{Name: "sectors", Usage: "sectors in the partition (default: a full Window partition; Winning proves one)"},
			&ucli.IntFlag{Name: "proofs", Usage: "proofs to make", Value: 5},
			&ucli.BoolFlag{Name: "setup-key", Usage: "make the key by a setup at load (on the GPU for cuda) instead of reading --params-dir"},
			paramsDirFlag(),
			&ucli.StringFlag{Name: "backend", Usage: "auto, cpu or cuda", Value: "auto"},
			&ucli.BoolFlag{Name: "json", Usage: "print the result as JSON on stdout"},
		},
		OnUsageError: onUsageError,
		Action:       benchPostAction,
	}
}

func benchPostAction(c *ucli.Context) error {
	p, err := parsePoStProof(c)
	if err != nil {
		return usageError(err)
	}
	sectors := c.Int("sectors")
	if sectors == 0 {
		sectors = p.SectorCount
		if p.Kind == abi.Winning {
			sectors = 1
		}
	}
	if sectors < 1 || sectors > p.SectorCount || (p.Kind == abi.Winning && sectors != 1) {
		return usageErrorf("--sectors %d: a %s partition holds 1 to %d", sectors, p.Name, map[bool]int{true: 1, false: p.SectorCount}[p.Kind == abi.Winning])
	}
	if c.Int("proofs") < 1 {
		return usageErrorf("--proofs %d: want at least 1", c.Int("proofs"))
	}
	be, err := backendFor(c.String("backend"))
	if err != nil {
		return usageError(err)
	}
	var staged *stagedBackend
	if be.Name() == "cuda" {
		staged = &stagedBackend{Backend: be}
		be = staged
	}
	log := c.App.ErrWriter
	t0 := time.Now()
	r := fallback.MaskRandomness([32]byte{'f', 'i', 'l', 'c', '2', 31: 0xff})
	req, err := post.SparseRequest(p, r, sectors, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "built %d sparse sector(s) and their vanilla proofs in %v\n", sectors, time.Since(t0).Round(time.Millisecond))
	t0 = time.Now()
	var pr *post.Prover
	if c.Bool("setup-key") {
		pr, err = setupKeyProver(c.Context, c, p, be)
	} else {
		pr, err = post.Load(c.Context, p, post.LoadOptions{ParamsDir: c.String("params-dir"), Backend: be})
	}
	if err != nil {
		return err
	}
	defer pr.Close()
	fmt.Fprintf(log, "loaded %s on %s in %v\n", p.Name, pr.Backend(), time.Since(t0).Round(time.Millisecond))
	res, err := post.Bench(c.Context, pr, req, c.Int("proofs"), func(i int, t post.Timing, lat time.Duration) {
		fmt.Fprintf(log, "proof %d: %v (%s)\n", i, lat.Round(time.Millisecond), formatTiming(t))
		if staged != nil {
			st, ms := staged.last, func(d time.Duration) string { return d.Round(time.Millisecond).String() }
			fmt.Fprintf(log, "  stages: host abc %s, upload %s, kernel section %s (spmv %s, scalars %s, h %s, msm h %s l %s a %s b1 %s b2 %s), finish %s\n",
				ms(st.ABC), ms(st.Upload), ms(st.GPU()), ms(st.SpMV), ms(st.Scalars), ms(st.H), ms(st.MSMH), ms(st.MSML), ms(st.MSMA), ms(st.MSMBG1), ms(st.MSMBG2), ms(st.Finish))
			if i == 0 && len(staged.resident) > 0 {
				fmt.Fprintf(log, "  host-resident queries (points a copy to the GPU): %s\n", formatChunks(staged.resident, staged.chunks))
			}
		}
	})
	if err != nil {
		return err
	}
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	s := res.Summary
	fmt.Fprintf(c.App.Writer, "%s, %d sector(s), %s: %d proofs, latency min %v, median %v, p99 %v, max %v\n", p.Name, sectors, res.Backend,
		len(res.Latency), s.Min.Round(time.Millisecond), s.Median.Round(time.Millisecond), s.P99.Round(time.Millisecond), s.Max.Round(time.Millisecond))
	return nil
}

// setupKeyProver records p's circuit and makes a key from seeded toxic waste
// in memory: on the GPU (ffi.SetupProver) for the cuda backend, else on the host.
func setupKeyProver(ctx context.Context, c *ucli.Context, p abi.PoStProof, be groth16.Backend) (*post.Prover, error) {
	prog := newProgress()
	circuit, err := post.RecordCircuit(ctx, p, func(done, total int) { prog.Update("recording circuit", int64(done), int64(total)) })
	prog.Done()
	if err != nil {
		return nil, err
	}
	t, err := groth16.SeededToxic(1)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(c.App.ErrWriter, testParamsWarning)
	if be.Name() == "cuda" {
		gp, err := ffi.SetupProver(ctx, 0, circuit, &t, groth16.WithProgress(prog.Update))
		prog.Done()
		if err != nil {
			return nil, err
		}
		return post.NewProver(p, circuit, gp.VerifyingKey(), be, gp)
	}
	pk, err := groth16.SetupFromToxic(ctx, circuit, &t, groth16.WithProgress(prog.Update))
	prog.Done()
	if err != nil {
		return nil, err
	}
	srs, err := be.LoadSRS(ctx, pk, circuit)
	if err != nil {
		return nil, err
	}
	return post.NewProver(p, circuit, &pk.VK, be, srs)
}

// stagedBackend is the CUDA backend keeping the stage times of its last proof.
type stagedBackend struct {
	groth16.Backend
	last     ffi.StageTimes
	resident []string       // the prover's host-resident queries, in the key's order
	chunks   map[string]int // and their stream chunks
}

func (b *stagedBackend) Prove(ctx context.Context, srs groth16.SRS, w *groth16.Assignment, r, s fr.Element) (*groth16.Proof, error) {
	p, ok := srs.(*ffi.Prover)
	if !ok {
		return b.Backend.Prove(ctx, srs, w, r, s)
	}
	proof, st, err := p.ProveTimed(ctx, w, r, s)
	b.last, b.resident, b.chunks = st, p.HostResident(), p.StreamChunks()
	return proof, err
}

// formatChunks writes the host-resident queries, in their order, with their
// stream chunks ("b_g2 4194304"; 0: read over the bus).
func formatChunks(resident []string, chunks map[string]int) string {
	parts := make([]string, len(resident))
	for i, q := range resident {
		parts[i] = fmt.Sprintf("%s %d", q, chunks[q])
	}
	return strings.Join(parts, ", ")
}

package cli

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/porep"
)

func demoCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "demo",
		Usage: "seal a 2KiB sector, set up test parameters once, prove and verify: the whole job in one command",
		Description: "Seals a 2KiB sector of random data, makes test parameters the first time (cached in\n" +
			"$XDG_CACHE_HOME/filc2, else ~/.cache/filc2), runs SealCommit2 and verifies the proof.\n" + testParamsWarning,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "registered-proof", Aliases: []string{"p"}, Usage: "proof type to demo (a small one)", Value: "StackedDrg2KiBV1_1"},
			&ucli.StringFlag{Name: "cache-dir", Usage: "where the demo keeps its test parameters (default: $XDG_CACHE_HOME/filc2)"},
			&ucli.StringFlag{Name: "backend", Usage: "auto, cpu or cuda", Value: "auto"},
		},
		OnUsageError: onUsageError,
		Action:       demoAction,
	}
}

func cacheDir(c *ucli.Context) (string, error) {
	if d := c.String("cache-dir"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (%v): pass --cache-dir", err)
	}
	return filepath.Join(d, "filc2"), nil
}

func demoAction(c *ucli.Context) error {
	p, err := parseProof(c)
	if err != nil {
		return usageError(err)
	}
	if p.Nodes > porep.MaxSealNodes {
		return usageErrorf("the demo seals its own sector: pick a size up to 512MiB, not %s", p.Name)
	}
	be, err := backendFor(c.String("backend"))
	if err != nil {
		return usageError(err)
	}
	base, err := cacheDir(c)
	if err != nil {
		return err
	}
	dir := filepath.Join(base, "demo-params")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	w := c.App.ErrWriter
	type step struct {
		name string
		d    time.Duration
	}
	var steps []step
	timed := func(name string, f func() error) error {
		t0 := time.Now()
		err := f()
		steps = append(steps, step{name, time.Since(t0)})
		return err
	}

	// 1. Seal a sector of random data.
	data := make([]byte, p.SectorSize)
	if _, err := rand.Read(data); err != nil {
		return err
	}
	for i := 31; i < len(data); i += 32 {
		data[i] &= 0x3f // fr32: every node below 2^254
	}
	var ticket, seed [32]byte
	rand.Read(ticket[:])
	rand.Read(seed[:])
	ticket[31] &= 0x3f
	seed[31] &= 0x3f
	const miner, sector = 1000, 1
	var sec *porep.Sector
	pr := newProgress()
	if err := timed("seal "+p.Name, func() error {
		var err error
		sec, err = porep.Seal(c.Context, porep.SealInput{Proof: p, ProverID: porep.ProverID(miner), SectorID: sector, Ticket: ticket, Data: data}, pr.Update)
		return err
	}); err != nil {
		return err
	}
	pr.Done()
	out, err := sec.Commit1(seed)
	if err != nil {
		return err
	}

	// 2. Test parameters, made once.
	files := c2.FilesIn(dir, p)
	if _, err := os.Stat(files.VK); err != nil {
		fmt.Fprintf(w, "first run: generating test parameters in %s (a few minutes, once).\n%s\n", dir, testParamsWarning)
		if err := timed("setup (first run only)", func() error {
			_, _, err := c2.Setup(c.Context, p, dir, c2.SetupOptions{Force: true, Progress: pr.Update})
			pr.Done()
			return err
		}); err != nil {
			return err
		}
	}

	// 3. Prove and verify.
	var prover *c2.Prover
	if err := timed("load parameters", func() error {
		var err error
		prover, err = c2.Load(c.Context, p, c2.LoadOptions{ParamsDir: dir, Backend: be})
		return err
	}); err != nil {
		return err
	}
	defer prover.Close()
	if err := timed("vanilla check", func() error { return porep.VerifyVanilla(c.Context, out) }); err != nil {
		return err
	}
	var proof []byte
	var timings []c2.PartitionTiming
	if err := timed("prove ("+prover.Backend()+")", func() error {
		var err error
		proof, timings, err = prover.Prove(c.Context, out, nil)
		return err
	}); err != nil {
		return err
	}
	if err := timed("verify", func() error { return c2.VerifyC1Proof(prover.PVK, out, proof) }); err != nil {
		return err
	}

	tw := tabwriter.NewWriter(c.App.Writer, 0, 2, 2, ' ', 0)
	for _, s := range steps {
		fmt.Fprintf(tw, "%s\t%v\n", s.name, s.d.Round(time.Millisecond))
	}
	for _, t := range timings {
		fmt.Fprintf(tw, "  partition %d\tsynthesis %v, prove %v, verify %v\n", t.Partition,
			t.Synthesis.Round(time.Millisecond), t.Prove.Round(time.Millisecond), t.Verify.Round(time.Millisecond))
	}
	tw.Flush()
	fmt.Fprintf(c.App.Writer, "%d-byte proof for %s sector %d (comm_r %x)\nproof verified\n", len(proof), p.Name, sector, sec.CommR[:])
	return nil
}

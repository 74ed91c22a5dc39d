package cli

import (
	"encoding/json"
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/fallback"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/r1cs"
	"github.com/filc2/filc2/proofs/update"
)

// countSet returns how many of the named flags are set.
func countSet(c *ucli.Context, names ...string) int {
	n := 0
	for _, name := range names {
		if c.IsSet(name) {
			n++
		}
	}
	return n
}

func circuitCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "circuit",
		Usage: "inspect the PoRep, PoSt and SnapDeals circuits",
		Subcommands: []*ucli.Command{{
			Name:  "info",
			Usage: "synthesise a proof type's circuit in count mode and print its shape as JSON",
			Description: "Counts are those bellperson's prover sees: constraints include the trailing input\n" +
				"constraints, inputs include ONE. They come from synthesising the real circuit, never a formula.\n" +
				"With --digest the canonical R1CS digest (SHA-256, spec §2.5) is streamed in a second pass.\n" +
				"Give --registered-proof for a PoRep circuit, --post-proof for a FallbackPoSt (Window, Winning) one or\n" +
				"--update-proof for a SnapDeals (EmptySectorUpdate) one.",
			Flags: []ucli.Flag{
				registeredProofFlag(false),
				postProofFlag(false),
				updateProofFlag(false),
				&ucli.BoolFlag{Name: "digest", Usage: "also compute the canonical R1CS digest (a second synthesis pass)"},
			},
			Action: circuitInfo,
		}},
	}
}

func registeredProofFlag(required bool) *ucli.StringFlag {
	return &ucli.StringFlag{
		Name:     "registered-proof",
		Aliases:  []string{"p"},
		Usage:    "proof type, by name (StackedDrg32GiBV1_1) or number (8)",
		Required: required,
	}
}

func parseProof(c *ucli.Context) (abi.SealProof, error) {
	p, err := abi.ParseName(c.String("registered-proof"))
	if err != nil {
		return abi.SealProof{}, fmt.Errorf("--registered-proof: %w", err)
	}
	return p, nil
}

// circuitInfoJSON is what circuit info prints.
type circuitInfoJSON struct {
	r1cs.Stats
	DomainLog2 int    `json:"domain_log2"`
	Digest     string `json:"r1cs_sha256,omitempty"`
}

func circuitInfo(c *ucli.Context) error {
	if n := countSet(c, "registered-proof", "post-proof", "update-proof"); n != 1 {
		return usageErrorf("give one of --registered-proof (PoRep), --post-proof (WindowPoSt, WinningPoSt) or --update-proof (SnapDeals)")
	}
	var synthesize func(cs *r1cs.System, progress func(done, total int)) error
	if c.IsSet("update-proof") {
		p, err := parseUpdateProof(c)
		if err != nil {
			return usageError(err)
		}
		synthesize = func(cs *r1cs.System, progress func(done, total int)) error {
			progress(0, 1)
			err := update.Synthesize(cs, p, update.Blank(p))
			progress(1, 1)
			return err
		}
	} else if c.IsSet("post-proof") {
		p, err := parsePoStProof(c)
		if err != nil {
			return usageError(err)
		}
		synthesize = func(cs *r1cs.System, progress func(done, total int)) error {
			return fallback.Synthesize(cs, p, fallback.Blank(p), fallback.WithProgress(progress))
		}
	} else {
		p, err := parseProof(c)
		if err != nil {
			return usageError(err)
		}
		shape := porep.ShapeOf(p)
		synthesize = func(cs *r1cs.System, progress func(done, total int)) error {
			return porep.Synthesize(cs, shape, shape.Blank(), porep.WithProgress(progress))
		}
	}
	pr := newProgress()
	synth := func(cs *r1cs.System, stage string) error {
		err := synthesize(cs, func(done, total int) {
			pr.Update(stage, int64(done), int64(total))
		})
		if err == nil {
			err = cs.Finish()
		}
		pr.Done()
		return err
	}
	cs := r1cs.New(r1cs.Count)
	if err := synth(cs, "counting"); err != nil {
		return err
	}
	st := cs.Stats()
	out := circuitInfoJSON{Stats: st, DomainLog2: st.DomainLog2()}
	if c.Bool("digest") {
		ds := r1cs.New(r1cs.Count, r1cs.WithDigest(r1cs.Header{NumInputs: st.Inputs, NumAux: st.Aux, NumConstraints: st.Constraints}, 0))
		if err := synth(ds, "digesting"); err != nil {
			return err
		}
		d, err := ds.Digest()
		if err != nil {
			return err
		}
		out.Digest = d.Hex()
	}
	enc := json.NewEncoder(c.App.Writer)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

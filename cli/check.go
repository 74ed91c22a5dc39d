package cli

import (
	"fmt"
	"os"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/porep"
)

func checkCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "check",
		Usage:     "check a C1 output without proving: structure, vanilla proofs and (--circuit) every constraint",
		ArgsUsage: " ",
		Description: "Decodes the C1 file strictly, runs the vanilla checks that `filc2 prove` runs before proving\n" +
			"(challenges, parents, Merkle paths, labels, encoding) and, with --circuit, synthesises partition K\n" +
			"(default: every partition) in Check mode, evaluating every constraint of the real circuit with no key\n" +
			"(each challenge's share on its own core: a 32GiB partition takes about a minute on 2 cores).\n" +
			"Prints `ok`, or `invalid: ` and the first failure: the JSON path of the bad value, or the partition,\n" +
			"index and namespace of the first unsatisfied constraint. Exit 0 only when ok, 1 when invalid, 2 when\n" +
			"the file cannot be read. With --miner-id (and --sector-id, default the wrapper's SectorNum) the\n" +
			"replica_id is checked too.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "c1", Usage: "the C1 output (raw SealCommitPhase1Output JSON or lotus-bench's wrapper)", Required: true},
			&ucli.IntFlag{Name: "partition", Usage: "with --circuit: check only partition K (default: all)", Value: -1},
			&ucli.BoolFlag{Name: "circuit", Usage: "also synthesise in Check mode and evaluate every constraint"},
			&ucli.IntFlag{Name: "workers", Usage: "goroutines for the vanilla and circuit checks (0: all cores)"},
			&ucli.Uint64Flag{Name: "miner-id", Usage: "check the replica_id against this miner"},
			&ucli.Uint64Flag{Name: "sector-id", Usage: "with --miner-id: the sector number (default: the wrapper's)"},
		},
		OnUsageError: onUsageError,
		Action:       checkAction,
	}
}

func checkAction(c *ucli.Context) error {
	if c.IsSet("partition") && !c.Bool("circuit") {
		return usageErrorf("--partition goes with --circuit")
	}
	t0 := time.Now()
	b, err := os.ReadFile(c.String("c1"))
	if err != nil {
		return usageError(err)
	}
	stage := func(name, detail string, start time.Time) {
		fmt.Fprintf(c.App.ErrWriter, "%-8s ok  %6.2fs  %s\n", name, time.Since(start).Seconds(), detail)
	}
	out, w, err := c1.DecodeWrapped(b)
	if err == nil {
		err = out.Validate()
	}
	if err != nil {
		return printCheck(c, err)
	}
	p, err := out.ProofType()
	if err != nil {
		return printCheck(c, err)
	}
	parts := []int{c.Int("partition")}
	switch {
	case parts[0] >= p.Partitions:
		return usageErrorf("--partition %d: %s has partitions 0 to %d", parts[0], p.Name, p.Partitions-1)
	case parts[0] < 0:
		parts = parts[:0]
		for k := range p.Partitions {
			parts = append(parts, k)
		}
	}
	stage("decode", fmt.Sprintf("%s, %d partitions of %d challenges", p.Name, p.Partitions, p.ChallengesPerPartition), t0)
	if err := checkIDs(c, p, out, w); err != nil {
		return printCheck(c, err)
	}
	t0 = time.Now()
	if err := porep.VerifyVanilla(c.Context, out, porep.VanillaWorkers(c.Int("workers"))); err != nil {
		return printCheck(c, err)
	}
	stage("vanilla", "challenges, parents, paths, labels, encoding", t0)
	if c.Bool("circuit") {
		for _, k := range parts {
			t0 = time.Now()
			if err := porep.CheckPartition(c.Context, out, k, c.Int("workers")); err != nil {
				return printCheck(c, err)
			}
			stage("circuit", fmt.Sprintf("partition %d: every constraint satisfied, public inputs the verifier's", k), t0)
		}
	}
	fmt.Fprintln(c.App.Writer, "ok")
	return nil
}

// printCheck prints `invalid: REASON` for a failed check (exit 1), or returns
// a cancelled context's error.
func printCheck(c *ucli.Context, err error) error {
	if c.Context.Err() != nil {
		return c.Context.Err()
	}
	fmt.Fprintf(c.App.Writer, "invalid: %v\n", err)
	return &ExitError{Code: 1}
}

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/ffi"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/paramcache"
	"github.com/filc2/filc2/proofs/porep"
)

func paramsDirFlag() *ucli.StringFlag {
	return &ucli.StringFlag{
		Name:    "params-dir",
		Usage:   "Groth16 parameter directory",
		Value:   paramcache.DefaultDir,
		EnvVars: []string{paramcache.EnvDir},
	}
}

func proveCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "prove",
		Usage: "run SealCommit2: turn a C1 output into the proof bytes lotus puts on chain",
		Description: "Reads a C1 output (raw SealCommitPhase1Output JSON or lotus-bench's {\"SectorNum\",\"Phase1Out\",\"SectorSize\"}\n" +
			"wrapper), checks its vanilla proofs, then for each partition synthesises the witness, proves and verifies the\n" +
			"proof against the .vk. The output (192 bytes per partition) is written only when every partition verified.\n" +
			"The official parameter files are used when present (their digests are checked once and remembered); files\n" +
			"that differ from parameters.json (test parameters from `filc2 setup`) are used with a loud warning, or\n" +
			"refused with --strict-params. With --miner-id and --sector-id the C1's replica_id is checked against them.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "c1", Usage: "C1 output file", Required: true},
			&ucli.StringFlag{Name: "out", Usage: "proof output file (- for stdout, the summary then on stderr); checked before proving", Required: true},
			&ucli.BoolFlag{Name: "hex", Usage: "write the proof as hex instead of raw bytes"},
			paramsDirFlag(),
			&ucli.Uint64Flag{Name: "sector-id", Usage: "sector number, to check the C1's replica_id (default: the wrapper's SectorNum)"},
			&ucli.Uint64Flag{Name: "miner-id", Usage: "miner actor id, to check the C1's replica_id"},
			&ucli.StringFlag{Name: "backend", Usage: "auto, cpu or cuda", Value: "auto"},
			&ucli.BoolFlag{Name: "json", Usage: "print the timing summary as JSON on stdout"},
			&ucli.BoolFlag{Name: "strict-params", Usage: "refuse parameter files whose digest differs from parameters.json"},
		},
		OnUsageError: onUsageError,
		Action:       proveAction,
	}
}

// readC1 reads and decodes a C1 file; the wrapper may be nil.
func readC1(path string) (*c1.Commit1Out, *c1.Wrapper, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	out, w, err := c1.DecodeWrapped(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, w, nil
}

// checkIDs compares the C1's replica_id with the one the miner and sector ids
// imply, when both are known.
func checkIDs(c *ucli.Context, p abi.SealProof, out *c1.Commit1Out, w *c1.Wrapper) error {
	sector, haveSector := c.Uint64("sector-id"), c.IsSet("sector-id")
	if !haveSector && w != nil {
		sector, haveSector = uint64(w.SectorNum), true
	}
	if !c.IsSet("miner-id") || !haveSector {
		return nil
	}
	want := porep.ReplicaID(porep.ProverID(c.Uint64("miner-id")), sector, out.Ticket, out.CommD, p.PoRepID())
	if want != out.ReplicaID {
		return fmt.Errorf("the C1's replica_id %x is not that of miner %d sector %d (%x): check --miner-id and --sector-id",
			out.ReplicaID[:], c.Uint64("miner-id"), sector, want[:])
	}
	return nil
}

// backendFor picks the proving backend.
func backendFor(name string) (groth16.Backend, error) {
	switch name {
	case "cpu":
		return groth16.CPU{}, nil
	case "auto":
		if b, err := ffi.NewBackend(); err == nil {
			return b, nil
		}
		return groth16.CPU{}, nil
	case "cuda":
		return ffi.NewBackend()
	}
	return nil, fmt.Errorf("--backend %q: want auto, cpu or cuda", name)
}

// checkParams compares the parameter files' digests with parameters.json.
func checkParams(ctx context.Context, p abi.SealProof, f c2.Files, strict bool, log *slog.Logger) error {
	for _, pf := range []struct {
		path string
		want abi.ParamsFile
	}{{f.VK, p.VKFile()}, {f.Params, p.ParamsFile()}} {
		if _, err := os.Stat(pf.path); err != nil {
			return fmt.Errorf("%s: %w; run `filc2 params fetch -p %s` (official) or `filc2 setup -p %s --out DIR` (test)", pf.path, err, p.Name, p.Name)
		}
		pr := newProgress()
		pr.bytes = true
		st, _ := os.Stat(pf.path)
		d, err := paramcache.DefaultDigestCache().Digest(ctx, pf.path, func(n int64) { pr.Update("checking "+pf.want.Name, n, st.Size()) })
		pr.Done()
		if err != nil {
			return err
		}
		if d != pf.want.Digest {
			if strict {
				return fmt.Errorf("%s: digest %s, parameters.json has %s: not the official file (--strict-params)", pf.path, d, pf.want.Digest)
			}
			log.Warn("NOT THE OFFICIAL PARAMETERS: proofs will verify only under this .vk, never on chain", "file", pf.path, "digest", d, "official", pf.want.Digest)
		}
	}
	return nil
}

// proveSummary is prove's --json output.
type proveSummary struct {
	ProofType  string               `json:"registered_proof"`
	Backend    string               `json:"backend"`
	Bytes      int                  `json:"proof_bytes"`
	Out        string               `json:"out"`
	QueueNS    time.Duration        `json:"queue_ns"`
	LoadNS     time.Duration        `json:"load_ns"`
	VanillaNS  time.Duration        `json:"vanilla_check_ns"`
	TotalNS    time.Duration        `json:"total_ns"`
	Partitions []c2.PartitionTiming `json:"partitions"`
}

func proveAction(c *ucli.Context) error {
	start := time.Now()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	out, w, err := readC1(c.String("c1"))
	if err != nil {
		return err
	}
	p, err := out.ProofType()
	if err != nil {
		return err
	}
	if err := out.Validate(); err != nil {
		return err
	}
	if err := checkIDs(c, p, out, w); err != nil {
		return err
	}
	t0 := time.Now()
	if err := porep.VerifyVanilla(c.Context, out); err != nil {
		return err
	}
	vanilla := time.Since(t0)
	be, err := backendFor(c.String("backend"))
	if err != nil {
		return usageError(err)
	}
	dst, err := openProofOut(c, c.String("out"))
	if err != nil {
		return err
	}
	defer dst.abort()
	files := c2.FilesIn(c.String("params-dir"), p)
	if err := checkParams(c.Context, p, files, c.Bool("strict-params"), log); err != nil {
		return err
	}
	t0 = time.Now()
	pr, err := c2.Load(c.Context, p, c2.LoadOptions{ParamsDir: c.String("params-dir"), Backend: be})
	if err != nil {
		return err
	}
	defer pr.Close()
	load := time.Since(t0)
	prog := newProgress()
	prog.Update("partitions", 0, int64(p.Partitions))
	proof, timings, err := pr.Prove(c.Context, out, func(t c2.PartitionTiming) {
		prog.Update("partitions", int64(t.Partition+1), int64(p.Partitions))
	})
	prog.Done()
	if err != nil {
		return err
	}
	if err := dst.write(proof, c.Bool("hex")); err != nil {
		return err
	}
	sum := proveSummary{ProofType: p.Name, Backend: pr.Backend(), Bytes: len(proof), Out: c.String("out"),
		LoadNS: load, VanillaNS: vanilla, TotalNS: time.Since(start), Partitions: timings}
	if c.Bool("json") {
		enc := json.NewEncoder(dst.summary())
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	printSummary(c.App.ErrWriter, &sum)
	return nil
}

func printSummary(w io.Writer, s *proveSummary) {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "partition\tsynthesis\tprove\tverify\t\n")
	for _, t := range s.Partitions {
		fmt.Fprintf(tw, "%d\t%v\t%v\t%v\t\n", t.Partition, t.Synthesis.Round(time.Millisecond), t.Prove.Round(time.Millisecond), t.Verify.Round(time.Millisecond))
	}
	tw.Flush()
	fmt.Fprintf(w, "%s: %d proof bytes written to %s (%s backend; vanilla check %v, load %v, total %v)\n",
		s.ProofType, s.Bytes, s.Out, s.Backend, s.VanillaNS.Round(time.Millisecond), s.LoadNS.Round(time.Millisecond), s.TotalNS.Round(time.Millisecond))
}

// readProofFile reads a proof file: raw bytes, or hex text.
func readProofFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b)%groth16.ProofSize != 0 {
		if h, err := decodeHex(string(b)); err == nil {
			return h, nil
		}
	}
	return b, nil
}

func verifyCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "verify",
		Usage: "verify a proof against the public data of its C1 output",
		Description: "Computes each partition's public inputs from the C1 (replica_id, comm_d, comm_r, seed) and checks the\n" +
			"proof under the .vk. Prints one line, `verified` or `invalid: REASON`; exit 0 only when verified, 1 when\n" +
			"invalid, 2 for unusable arguments. With --miner-id and --sector-id the replica_id is checked against them.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "c1", Usage: "C1 output file", Required: true},
			&ucli.StringFlag{Name: "proof", Usage: "proof file (raw bytes or hex)", Required: true},
			paramsDirFlag(),
			&ucli.Uint64Flag{Name: "sector-id", Usage: "sector number, to check the C1's replica_id"},
			&ucli.Uint64Flag{Name: "miner-id", Usage: "miner actor id, to check the C1's replica_id"},
		},
		OnUsageError: onUsageError,
		Action:       verifyAction,
	}
}

func verifyAction(c *ucli.Context) error {
	out, w, err := readC1(c.String("c1"))
	if err != nil {
		return usageError(err)
	}
	p, err := out.ProofType()
	if err != nil {
		return usageError(err)
	}
	proof, err := readProofFile(c.String("proof"))
	if err != nil {
		return usageError(err)
	}
	f := c2.FilesIn(c.String("params-dir"), p)
	vk, err := groth16.ReadVerifyingKeyFile(f.VK, porep.PublicInputCount(p.ChallengesPerPartition)+1)
	if err != nil {
		return usageError(err)
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		return usageError(err)
	}
	verdict := checkIDs(c, p, out, w)
	if verdict == nil {
		verdict = c2.VerifyC1Proof(pvk, out, proof)
	}
	return printVerdict(c, verdict)
}

// printVerdict prints `verified` or `invalid: REASON` and sets the exit code.
func printVerdict(c *ucli.Context, err error) error {
	if err == nil {
		fmt.Fprintln(c.App.Writer, "verified")
		return nil
	}
	msg := strings.TrimPrefix(err.Error(), c2.ErrInvalid.Error()+": ")
	fmt.Fprintf(c.App.Writer, "invalid: %s\n", msg)
	return &ExitError{Code: 1}
}

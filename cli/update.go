package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/snap"
	"github.com/filc2/filc2/proofs/snark"
	"github.com/filc2/filc2/proofs/update"
)

func updateProofFlag(required bool) *ucli.StringFlag {
	return &ucli.StringFlag{
		Name:     "update-proof",
		Usage:    "SnapDeals update proof type, as go-state-types names it (StackedDrg32GiBV1) or its number (3)",
		Required: required,
	}
}

func parseUpdateProof(c *ucli.Context) (abi.UpdateProof, error) {
	p, err := abi.ParseUpdateName(c.String("update-proof"))
	if err != nil {
		return p, fmt.Errorf("--update-proof: %w", err)
	}
	return p, nil
}

// updateCommitmentFlags are the three commitments of an update.
func updateCommitmentFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "comm-r-old", Usage: "the sector key's comm_r (its sealed CID before the update): 64 hex digits or bagboea4b…"},
		&ucli.StringFlag{Name: "comm-r-new", Usage: "the updated sector's comm_r (the new sealed CID): 64 hex digits or bagboea4b…"},
		&ucli.StringFlag{Name: "comm-d-new", Usage: "the new data's comm_d (the new unsealed CID): 64 hex digits or baga6ea4s…"},
	}
}

// parseUpdateCommitments reads --comm-r-old, --comm-r-new and --comm-d-new.
func parseUpdateCommitments(c *ucli.Context) (update.Commitments, error) {
	var pub update.Commitments
	for _, f := range []struct {
		name string
		dst  *[32]byte
		kind commitment
	}{{"comm-r-old", &pub.CommROld, commR}, {"comm-r-new", &pub.CommRNew, commR}, {"comm-d-new", &pub.CommDNew, commD}} {
		if !c.IsSet(f.name) {
			return pub, fmt.Errorf("--%s is required", f.name)
		}
		v, err := parseCommitment(f.name, c.String(f.name), f.kind)
		if err != nil {
			return pub, err
		}
		*f.dst = v
	}
	return pub, nil
}

// readUpdateVanillas reads --vanilla: one file holding a JSON array of
// base64 strings (curio's snap-vproof.json, lotus's ReplicaVanillaProofs),
// or one file of bincode per partition, in partition order.
func readUpdateVanillas(p abi.UpdateProof, paths []string) ([]*update.PartitionProof, error) {
	if len(paths) == 0 {
		return nil, errors.New("--vanilla: give the vanilla proofs (a JSON array of base64 strings, or one bincode file per partition)")
	}
	var raw [][]byte
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--vanilla: %w", err)
		}
		if t := strings.TrimSpace(string(b)); len(paths) == 1 && strings.HasPrefix(t, "[") {
			if err := json.Unmarshal([]byte(t), &raw); err != nil {
				return nil, fmt.Errorf("--vanilla %s: not a JSON array of base64 strings: %v", path, err)
			}
			break
		}
		raw = append(raw, b)
	}
	if len(raw) != p.Partitions {
		return nil, fmt.Errorf("--vanilla: %d partition proofs, %s has %d partitions (give them all, in partition order)", len(raw), p.Name, p.Partitions)
	}
	out := make([]*update.PartitionProof, len(raw))
	for k, b := range raw {
		var err error
		if out[k], err = update.DecodePartitionProof(b); err != nil {
			return nil, fmt.Errorf("--vanilla, partition %d: %w", k, err)
		}
	}
	return out, nil
}

func proveUpdateCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "prove-update",
		Usage:     "prove a SnapDeals update (ProveReplicaUpdate2) from its vanilla proofs",
		UsageText: "filc2 prove-update --update-proof NAME --comm-r-old R --comm-r-new R --comm-d-new D --vanilla FILE [--vanilla FILE...] --out FILE [--params-dir DIR] [--backend B]",
		Description: "Reads the partition vanilla proofs (bincode PartitionProof, what GenerateUpdateVanillaProofs returns): one\n" +
			"file holding a JSON array of base64 strings, as curio's snap-vproof.json, or one file per partition in partition\n" +
			"order. Checks every partition first (comm_r from comm_c and the tree R roots, each path opening its challenge,\n" +
			"the encoding new = old + data·rho, tree D through the apex tree), then for each partition synthesises the\n" +
			"EmptySectorUpdate circuit, proves and verifies the proof against the .vk; only then writes the 192·partitions\n" +
			"bytes, in partition order (what lotus and curio put on chain). Commitments are 64 hex digits or CIDs.",
		Flags: append(append([]ucli.Flag{updateProofFlag(true)}, updateCommitmentFlags()...),
			&ucli.StringSliceFlag{Name: "vanilla", Usage: "the vanilla proofs: a JSON array file, or one file per partition (repeat)"},
			&ucli.StringFlag{Name: "out", Usage: "proof output file (- for stdout, the summary then on stderr); checked before proving", Required: true},
			&ucli.BoolFlag{Name: "hex", Usage: "write the proof as hex instead of raw bytes"},
			paramsDirFlag(),
			&ucli.StringFlag{Name: "backend", Usage: "auto, cpu or cuda", Value: "auto"},
			&ucli.BoolFlag{Name: "json", Usage: "print the timing summary as JSON on stdout"},
		),
		OnUsageError: onUsageError,
		Action:       proveUpdateAction,
	}
}

// updateSummary is what prove-update reports.
type updateSummary struct {
	ProofType  string        `json:"proof_type"`
	Backend    string        `json:"backend"`
	Partitions int           `json:"partitions"`
	Out        string        `json:"out"`
	LoadNS     time.Duration `json:"load_ns"`
	snap.Timing
	TotalNS time.Duration `json:"total_ns"`
}

func proveUpdateAction(c *ucli.Context) error {
	start := time.Now()
	if c.NArg() > 0 {
		return usageErrorf("unexpected arguments %q: every input is a flag (see --help)", c.Args().Slice())
	}
	p, err := parseUpdateProof(c)
	if err != nil {
		return usageError(err)
	}
	pub, err := parseUpdateCommitments(c)
	if err != nil {
		return usageError(err)
	}
	vs, err := readUpdateVanillas(p, c.StringSlice("vanilla"))
	if err != nil {
		return usageError(err)
	}
	req := &snap.Request{Proof: p, Commitments: pub, Vanilla: vs}
	t0 := time.Now()
	if err := snap.Check(req); err != nil { // before a key is loaded
		return err
	}
	check := time.Since(t0)
	be, err := backendFor(c.String("backend"))
	if err != nil {
		return usageError(err)
	}
	dst, err := openProofOut(c, c.String("out"))
	if err != nil {
		return err
	}
	defer dst.abort()
	t0 = time.Now()
	pr, err := snap.Load(c.Context, p, snap.LoadOptions{ParamsDir: c.String("params-dir"), Backend: be})
	if err != nil {
		return fmt.Errorf("%w (make test parameters with `filc2 setup --update-proof %s`)", err, p.Name)
	}
	defer pr.Close()
	load := time.Since(t0)
	var proof []byte
	var timing snap.Timing
	for k := range p.Partitions {
		b, t, err := pr.ProvePartition(c.Context, req, k)
		timing.Synthesis += t.Synthesis
		timing.Prove += t.Prove
		timing.Verify += t.Verify
		if err != nil {
			return fmt.Errorf("partition %d: %w", k, err)
		}
		proof = append(proof, b...)
		if p.Partitions > 1 && !c.Bool("json") {
			fmt.Fprintf(c.App.ErrWriter, "partition %d of %d proved and verified\n", k+1, p.Partitions)
		}
	}
	timing.Check = check
	if err := dst.write(proof, c.Bool("hex")); err != nil {
		return err
	}
	sum := updateSummary{ProofType: p.Name, Backend: pr.Backend(), Partitions: p.Partitions, Out: c.String("out"),
		LoadNS: load, Timing: timing, TotalNS: time.Since(start)}
	if c.Bool("json") {
		enc := json.NewEncoder(dst.summary())
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	fmt.Fprintf(c.App.ErrWriter, "%s, %d partition(s) on %s: proved and verified in %v (check %v, synthesis %v, prove %v, verify %v; load %v)\nwrote %s (%d bytes)\n",
		p.Name, p.Partitions, pr.Backend(), ms(sum.TotalNS), ms(timing.Check), ms(timing.Synthesis), ms(timing.Prove), ms(timing.Verify),
		ms(load), c.String("out"), len(proof))
	return nil
}

func verifyUpdateCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "verify-update",
		Usage:     "verify a SnapDeals update proof against its commitments, as the chain does",
		UsageText: "filc2 verify-update --update-proof NAME --comm-r-old R --comm-r-new R --comm-d-new D --proof HEX|@FILE [--vk FILE] [--params-dir DIR]",
		Description: "Builds each partition's public inputs (k | h_select, comm_r_old, comm_d_new, comm_r_new) and verifies the\n" +
			"192-byte proof of each, in partition order, under the verifying key.\n" +
			"Prints exactly one line on stdout: \"verified\", or \"invalid: REASON\".\n" +
			"Exit status: 0 verified, 1 invalid, 2 the command line or the verifying key is unusable.",
		Flags: append(append([]ucli.Flag{updateProofFlag(true)}, updateCommitmentFlags()...),
			&ucli.StringFlag{Name: "proof", Usage: "the proof: hex, or @FILE holding hex or raw bytes (@- for stdin)"},
			&ucli.StringFlag{Name: "vk", Usage: "verifying key file (default: the proof type's official .vk in --params-dir)"},
			paramsDirFlag(),
		),
		OnUsageError: onUsageError,
		Action:       verifyUpdateAction,
	}
}

func verifyUpdateAction(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("unexpected arguments %q: every input is a flag (see --help)", c.Args().Slice())
	}
	p, err := parseUpdateProof(c)
	if err != nil {
		return usageError(err)
	}
	pub, err := parseUpdateCommitments(c)
	if err != nil {
		return usageError(err)
	}
	if !c.IsSet("proof") {
		return usageErrorf("--proof is required")
	}
	proof, err := readBytesArg("proof", c.String("proof"))
	if err != nil {
		return usageError(err)
	}
	pvk, err := loadVKFile(c, p.Name, p.VKFile(), snap.NumInputs,
		"make test parameters with `filc2 setup --update-proof "+p.Name+"`")
	if err != nil {
		return usageError(err)
	}
	err = snap.Verify(pvk, p, pub, proof)
	switch {
	case err == nil:
		fmt.Fprintln(c.App.Writer, "verified")
		return nil
	case errors.Is(err, snap.ErrInvalid):
		fmt.Fprintf(c.App.Writer, "invalid: %s\n", strings.TrimPrefix(err.Error(), snap.ErrInvalid.Error()+": "))
		return &ExitError{Code: 1}
	}
	return usageError(err)
}

// setupUpdate is `filc2 setup --update-proof`.
func setupUpdate(c *ucli.Context, p abi.UpdateProof, dir string, opts snark.SetupOptions) error {
	return runSetup(c, opts, func(opts snark.SetupOptions) (snark.Files, error) {
		f, _, err := snap.Setup(c.Context, p, dir, opts)
		return f, err
	})
}

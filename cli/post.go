package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	commcid "github.com/filecoin-project/go-fil-commcid"
	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/internal/atomicfile"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/fallback"
	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/post"
	"github.com/filc2/filc2/proofs/snark"
)

// randomnessNote is what every PoSt command says of its --randomness.
const randomnessNote = "The randomness is 64 hex digits; its top two bits are cleared (r[31] &= 0x3f) as lotus and curio do\n" +
	"before handing it to a prover, and a note says so when that changed it."

func postProofFlag(required bool) *ucli.StringFlag {
	return &ucli.StringFlag{
		Name:     "post-proof",
		Usage:    "PoSt proof type, as go-state-types names it (StackedDrgWindow32GiBV1_1, StackedDrgWinning32GiBV1) or its number (13, 3)",
		Required: required,
	}
}

func parsePoStProof(c *ucli.Context) (abi.PoStProof, error) {
	p, err := abi.ParsePoStName(c.String("post-proof"))
	if err != nil {
		return p, fmt.Errorf("--post-proof: %w", err)
	}
	return p, nil
}

// parseRandomness reads --randomness and clears its top two bits, saying so
// on stderr when that changed it.
func parseRandomness(c *ucli.Context) (fallback.Randomness, error) {
	if !c.IsSet("randomness") {
		return fallback.Randomness{}, errors.New("--randomness is required (64 hex digits)")
	}
	r, err := parseHex32("randomness", c.String("randomness"))
	if err != nil {
		return r, err
	}
	m := fallback.MaskRandomness(r)
	if m != r {
		fmt.Fprintf(c.App.ErrWriter, "note: cleared the top two bits of --randomness (r[31] &= 0x3f, as lotus and curio do): using %x\n", m)
	}
	return m, nil
}

func postCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "post",
		Usage: "PoSt fixtures: vanilla proofs of a sector",
		Subcommands: []*ucli.Command{{
			Name:      "vanilla",
			Usage:     "write a sector's WindowPoSt or WinningPoSt vanilla proof, as generate_single_vanilla_proof does",
			UsageText: "filc2 post vanilla (--sector-dir DIR | --sparse --sector-id N) --post-proof NAME --randomness HEX [--sector-index I] --out FILE",
			Description: "Derives the sector's challenges from the randomness (10 for Window, 66 for Winning; Window V1's depend on\n" +
				"the sector's position --sector-index in the proof, V1_1's do not) and opens each in tree R-last, writing the\n" +
				"bincode FallbackPoStSectorProof that rust-fil-proofs' generate_single_vanilla_proof returns for it.\n" +
				"--sector-dir is a directory `filc2 seal` wrote (its replica and commitments.json); tree R-last is rebuilt\n" +
				"from the replica. --sparse builds a TEST FIXTURE instead, for any size (32GiB and 64GiB in milliseconds):\n" +
				"a sector tree of which only the challenged leaves exist, every other node pseudo-random; its comm_r\n" +
				"(printed, with the CID) commits to nothing and its proofs are worthless on chain.\n" + randomnessNote,
			Flags: []ucli.Flag{
				postProofFlag(true),
				&ucli.StringFlag{Name: "randomness", Usage: "PoSt randomness, 64 hex digits"},
				&ucli.StringFlag{Name: "sector-dir", Usage: "a sector directory `filc2 seal` wrote"},
				&ucli.BoolFlag{Name: "sparse", Usage: "build a sparse TEST FIXTURE sector instead (see above)"},
				&ucli.Uint64Flag{Name: "sector-id", Usage: "with --sparse: the sector number", Value: 1},
				&ucli.IntFlag{Name: "sector-index", Usage: "Window V1: the sector's position among the proof's sectors (partition × sector count + i)"},
				&ucli.StringFlag{Name: "out", Usage: "output file", Required: true},
			},
			OnUsageError: onUsageError,
			Action:       postVanillaAction,
		}},
	}
}

// sealedSectorTree rebuilds a sealed sector's tree R-last from a `filc2 seal` directory.
func sealedSectorTree(dir string, p abi.PoStProof) (*fallback.SectorTree, uint64, error) {
	b, err := os.ReadFile(filepath.Join(dir, "commitments.json"))
	if err != nil {
		return nil, 0, fmt.Errorf("--sector-dir: %w (want a directory `filc2 seal` wrote)", err)
	}
	var cm commitmentsJSON
	if err := json.Unmarshal(b, &cm); err != nil {
		return nil, 0, fmt.Errorf("--sector-dir: commitments.json: %w", err)
	}
	switch {
	case cm.Sparse:
		return nil, 0, fmt.Errorf("--sector-dir %s is a sparse PoRep fixture without a replica: use `filc2 post vanilla --sparse`", dir)
	case cm.SectorSize != uint64(p.SectorSize):
		return nil, 0, fmt.Errorf("--sector-dir holds a %d-byte sector (%s), %s is for %d-byte sectors", cm.SectorSize, cm.RegisteredProof, p.Name, p.SectorSize)
	}
	var commC, commRLast [32]byte
	if commC, err = parseHex32("sector-dir comm_c", cm.CommC); err == nil {
		commRLast, err = parseHex32("sector-dir comm_r_last", cm.CommRLast)
	}
	if err != nil {
		return nil, 0, err
	}
	replica, err := os.ReadFile(filepath.Join(dir, "sealed"))
	if err != nil {
		return nil, 0, fmt.Errorf("--sector-dir: %w", err)
	}
	if uint64(len(replica)) != uint64(p.SectorSize) {
		return nil, 0, fmt.Errorf("--sector-dir: sealed is %d bytes, the sector is %d", len(replica), p.SectorSize)
	}
	leaves := make([]fr.Element, p.Nodes)
	for i := range leaves {
		if leaves[i], err = fr.LittleEndian.Element((*[32]byte)(replica[32*i:])); err != nil {
			return nil, 0, fmt.Errorf("--sector-dir: sealed node %d is not a field element", i)
		}
	}
	tree, err := merkle.BuildPoseidon(leaves, merkle.Shape{Base: p.Tree.Base, Sub: p.Tree.Sub, Top: p.Tree.Top})
	if err != nil {
		return nil, 0, err
	}
	root := tree.Root()
	var got [32]byte
	fr.LittleEndian.PutElement(&got, root)
	if got != commRLast {
		return nil, 0, fmt.Errorf("--sector-dir: the replica's tree R-last has root %x, commitments.json says comm_r_last %x", got, commRLast)
	}
	return &fallback.SectorTree{
		CommC: commC, CommRLast: commRLast,
		Leaf: func(i uint64) fallback.Domain {
			var d fallback.Domain
			copy(d[:], replica[32*i:32*i+32])
			return d
		},
		Path: func(i uint64) (merkle.Path, error) { return tree.Path(int(i)) },
	}, cm.SectorID, nil
}

func postVanillaAction(c *ucli.Context) error {
	p, err := parsePoStProof(c)
	if err != nil {
		return usageError(err)
	}
	r, err := parseRandomness(c)
	if err != nil {
		return usageError(err)
	}
	if c.IsSet("sector-index") && (p.Kind != abi.Window || p.APIVersion != abi.APIVersion1_0_0) {
		return usageErrorf("--sector-index changes only Window V1 challenges; %s's do not depend on it", p.Name)
	}
	idx := c.Int("sector-index")
	if idx < 0 {
		return usageErrorf("--sector-index %d: want 0 or more", idx)
	}
	var (
		tree     *fallback.SectorTree
		sectorID uint64
	)
	switch dir := c.String("sector-dir"); {
	case dir != "" && c.Bool("sparse"):
		return usageErrorf("give --sector-dir or --sparse, not both")
	case dir != "":
		if c.IsSet("sector-id") {
			return usageErrorf("--sector-id goes with --sparse; a sealed sector's id is in its commitments.json")
		}
		if tree, sectorID, err = sealedSectorTree(dir, p); err != nil {
			return err
		}
	case c.Bool("sparse"):
		sectorID = c.Uint64("sector-id")
	default:
		return usageErrorf("give --sector-dir DIR (a sector `filc2 seal` wrote) or --sparse")
	}
	chs := fallback.VanillaChallenges(p, r, sectorID, idx)
	if tree == nil {
		seed := [32]byte{'f', 'i', 'l', 'c', '2', ' ', 'p', 'o', 's', 't'}
		copy(seed[16:], strconv.FormatUint(sectorID, 10))
		if tree, err = fallback.SparseSectorTree(p, seed, chs); err != nil {
			return err
		}
	}
	v, err := fallback.GenerateSectorVanilla(p, sectorID, tree, chs)
	if err != nil {
		return err
	}
	b := v.Encode()
	if err := atomicfile.Write(c.String("out"), 0o644, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return err
	}
	rCID, err := commRCID(v.CommR)
	if err != nil {
		return err
	}
	what := "vanilla proof"
	if c.Bool("sparse") {
		what = "vanilla proof of a sparse TEST FIXTURE sector"
	}
	fmt.Fprintf(c.App.Writer, "wrote %s: %s %s of sector %d, %d challenges, %d bytes\ncomm_r %x (%s)\n",
		c.String("out"), p.Name, what, sectorID, len(chs), len(b), v.CommR, rCID)
	return nil
}

func provePostCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "prove-post",
		Usage:     "prove one WindowPoSt partition or a WinningPoSt from vanilla proofs",
		UsageText: "filc2 prove-post --post-proof NAME --randomness HEX --vanilla FILE [--vanilla FILE...] [--partition K] --out FILE [--params-dir DIR] [--backend B]",
		Description: "Reads the vanilla proofs (bincode FallbackPoStSectorProof, one file per sector, in the order the verifier\n" +
			"lists the sectors; for Winning the one challenged sector), checks them as rust-fil-proofs does before\n" +
			"proving (paths, comm_r = Poseidon2(comm_c, comm_r_last), leaf indices = the challenges), pads a short\n" +
			"Window partition by repeating the last sector, synthesises the FallbackPoSt circuit, proves, verifies\n" +
			"the proof against the .vk and only then writes its 192 bytes (what lotus and curio put on chain for the\n" +
			"partition). --partition is the Window partition index, which Window V1 challenges depend on.\n" + randomnessNote,
		Flags: []ucli.Flag{
			postProofFlag(true),
			&ucli.StringFlag{Name: "randomness", Usage: "PoSt randomness, 64 hex digits"},
			&ucli.StringSliceFlag{Name: "vanilla", Usage: "a sector's vanilla proof file (repeat, or separate with commas)"},
			&ucli.IntFlag{Name: "partition", Usage: "Window partition index"},
			&ucli.StringFlag{Name: "out", Usage: "proof output file (- for stdout, the summary then on stderr); checked before proving", Required: true},
			&ucli.BoolFlag{Name: "hex", Usage: "write the proof as hex instead of raw bytes"},
			paramsDirFlag(),
			&ucli.StringFlag{Name: "backend", Usage: "auto, cpu or cuda", Value: "auto"},
			&ucli.BoolFlag{Name: "json", Usage: "print the timing summary as JSON on stdout"},
		},
		OnUsageError: onUsageError,
		Action:       provePostAction,
	}
}

// postSummary is what prove-post reports.
type postSummary struct {
	ProofType string        `json:"proof_type"`
	Backend   string        `json:"backend"`
	Sectors   int           `json:"sectors"`
	Partition int           `json:"partition"`
	Out       string        `json:"out"`
	LoadNS    time.Duration `json:"load_ns"`
	post.Timing
	TotalNS time.Duration `json:"total_ns"`
}

func readVanillas(paths []string) ([]*fallback.SectorVanilla, error) {
	if len(paths) == 0 {
		return nil, errors.New("--vanilla: give at least one vanilla proof file")
	}
	out := make([]*fallback.SectorVanilla, len(paths))
	for i, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--vanilla: %w", err)
		}
		if out[i], err = fallback.DecodeSectorVanilla(b); err != nil {
			return nil, fmt.Errorf("--vanilla %s: %w", path, err)
		}
	}
	return out, nil
}

func provePostAction(c *ucli.Context) error {
	start := time.Now()
	p, err := parsePoStProof(c)
	if err != nil {
		return usageError(err)
	}
	r, err := parseRandomness(c)
	if err != nil {
		return usageError(err)
	}
	k, err := parsePartition(c, p)
	if err != nil {
		return usageError(err)
	}
	vs, err := readVanillas(c.StringSlice("vanilla"))
	if err != nil {
		return usageError(err)
	}
	req := &post.Request{Proof: p, Randomness: r, Vanilla: vs, Partition: k}
	t0 := time.Now()
	pt, err := post.Prepare(req) // checked once, before a key is loaded
	if err != nil {
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
	pr, err := post.Load(c.Context, p, post.LoadOptions{ParamsDir: c.String("params-dir"), Backend: be})
	if err != nil {
		return fmt.Errorf("%w (make test parameters with `filc2 setup --post-proof %s`)", err, p.Name)
	}
	defer pr.Close()
	load := time.Since(t0)
	proof, timing, err := pr.ProvePartition(c.Context, pt, r)
	timing.Check = check
	if err != nil {
		return err
	}
	if err := dst.write(proof, c.Bool("hex")); err != nil {
		return err
	}
	sum := postSummary{ProofType: p.Name, Backend: pr.Backend(), Sectors: len(vs), Partition: k, Out: c.String("out"),
		LoadNS: load, Timing: timing, TotalNS: time.Since(start)}
	if c.Bool("json") {
		enc := json.NewEncoder(dst.summary())
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	fmt.Fprintf(c.App.ErrWriter, "%s partition %d of %d sector(s) on %s: proved and verified in %v (%s; load %v)\nwrote %s (%d bytes)\n",
		p.Name, k, len(vs), pr.Backend(), sum.TotalNS.Round(time.Millisecond), formatTiming(timing), load.Round(time.Millisecond), c.String("out"), len(proof))
	return nil
}

func verifyPostCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "verify-post",
		Usage:     "verify a WindowPoSt partition or WinningPoSt proof against its sectors, as the chain does",
		UsageText: "filc2 verify-post --post-proof NAME --randomness HEX --sector ID:COMMR[,ID:COMMR...] [--partition K] --proof HEX|@FILE [--vk FILE] [--params-dir DIR]",
		Description: "Derives the public inputs (each sector's comm_r and challenges, the partition padded by repeating its\n" +
			"last sector) and verifies the 192-byte proof under the verifying key. Sectors are listed in the order they\n" +
			"were proved, each as its number and comm_r (64 hex digits or a CID, bagboea4b…); Winning takes one.\n" +
			"Prints exactly one line on stdout: \"verified\", or \"invalid: REASON\".\n" +
			"Exit status: 0 verified, 1 invalid, 2 the command line or the verifying key is unusable.\n" + randomnessNote,
		Flags: []ucli.Flag{
			postProofFlag(true),
			&ucli.StringFlag{Name: "randomness", Usage: "PoSt randomness, 64 hex digits"},
			&ucli.StringSliceFlag{Name: "sector", Usage: "a proved sector, ID:COMMR (repeat, or separate with commas)"},
			&ucli.IntFlag{Name: "partition", Usage: "Window partition index"},
			&ucli.StringFlag{Name: "proof", Usage: "the proof: hex, or @FILE holding hex or raw bytes (@- for stdin)"},
			&ucli.StringFlag{Name: "vk", Usage: "verifying key file (default: the proof type's official .vk in --params-dir)"},
			paramsDirFlag(),
		},
		OnUsageError: onUsageError,
		Action:       verifyPostAction,
	}
}

func parseSectors(specs []string) ([]fallback.PublicSector, error) {
	if len(specs) == 0 {
		return nil, errors.New("--sector: give at least one ID:COMMR")
	}
	out := make([]fallback.PublicSector, len(specs))
	for i, s := range specs {
		id, comm, ok := strings.Cut(s, ":")
		if !ok {
			return nil, fmt.Errorf("--sector %q: want ID:COMMR", s)
		}
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--sector %q: %q is not a sector number", s, id)
		}
		cr, err := parseCommitment("sector", comm, commR)
		if err != nil {
			return nil, err
		}
		out[i] = fallback.PublicSector{ID: n, CommR: cr}
	}
	return out, nil
}

func verifyPostAction(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("unexpected arguments %q: every input is a flag (see --help)", c.Args().Slice())
	}
	p, err := parsePoStProof(c)
	if err != nil {
		return usageError(err)
	}
	r, err := parseRandomness(c)
	if err != nil {
		return usageError(err)
	}
	sectors, err := parseSectors(c.StringSlice("sector"))
	if err != nil {
		return usageError(err)
	}
	if p.Kind == abi.Winning && len(sectors) != 1 {
		return usageErrorf("--sector: %s proves one sector, got %d", p.Name, len(sectors))
	}
	if len(sectors) > p.SectorCount {
		return usageErrorf("--sector: %d sectors, a %s partition holds at most %d", len(sectors), p.Name, p.SectorCount)
	}
	k, err := parsePartition(c, p)
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
	pvk, err := loadVKFile(c, p.Name, p.VKFile(), fallback.NumInputs(p),
		"fetch it with `filc2 params fetch --vk-only --post-proof "+p.Name+"` (or make test parameters with `filc2 setup --post-proof "+p.Name+"`)")
	if err != nil {
		return usageError(err)
	}
	err = post.Verify(pvk, p, r, sectors, k, proof)
	switch {
	case err == nil:
		fmt.Fprintln(c.App.Writer, "verified")
		return nil
	case errors.Is(err, post.ErrInvalid):
		fmt.Fprintf(c.App.Writer, "invalid: %s\n", strings.TrimPrefix(err.Error(), post.ErrInvalid.Error()+": "))
		return &ExitError{Code: 1}
	}
	return usageError(err)
}

// setupPoSt is `filc2 setup --post-proof`.
func setupPoSt(c *ucli.Context, p abi.PoStProof, dir string, opts snark.SetupOptions) error {
	return runSetup(c, opts, func(opts snark.SetupOptions) (snark.Files, error) {
		f, _, err := post.Setup(c.Context, p, dir, opts)
		return f, err
	})
}

// runSetup runs a kind's setup with progress on stderr and prints the files
// it wrote.
func runSetup(c *ucli.Context, opts snark.SetupOptions, setup func(snark.SetupOptions) (snark.Files, error)) error {
	pr := newProgress()
	opts.Progress = pr.Update
	f, err := setup(opts)
	pr.Done()
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "wrote %s\nwrote %s\nwrote %s\n", f.Params, f.VK, f.PCE)
	return nil
}

func commRCID(commR [32]byte) (string, error) {
	c, err := commcid.ReplicaCommitmentV1ToCID(commR[:])
	if err != nil {
		return "", err
	}
	return c.String(), nil
}

// parsePartition reads --partition: any index for Window, 0 for Winning.
func parsePartition(c *ucli.Context, p abi.PoStProof) (int, error) {
	k := c.Int("partition")
	if k < 0 || (k > 0 && p.Kind == abi.Winning) {
		return 0, fmt.Errorf("--partition %d is not a partition of %s (Window partitions count from 0; Winning has only 0)", k, p.Name)
	}
	return k, nil
}

// formatTiming prints where a PoSt proof's time went.
func formatTiming(t post.Timing) string {
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return fmt.Sprintf("check %v, synthesis %v, prove %v, verify %v", ms(t.Check), ms(t.Synthesis), ms(t.Prove), ms(t.Verify))
}

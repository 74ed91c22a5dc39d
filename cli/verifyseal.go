package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/paramcache"
	"github.com/filc2/filc2/proofs/porep"
)

func verifySealCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "verify-seal",
		Usage:     "verify a seal (PoRep) proof against a sector's public data, as the chain does",
		UsageText: "filc2 verify-seal (--registered-proof P | --sector-size S --porep-id HEX --api-version V) --comm-r R --comm-d D (--miner-id N | --prover-id HEX) --sector-id N --ticket HEX --seed HEX --proof HEX|@FILE [--vk FILE]",
		Description: "Computes the replica id and the public inputs of every partition from the given data, decodes\n" +
			"the partitions × 192 proof bytes strictly and verifies each partition under the verifying key.\n" +
			"Prints exactly one line on stdout: \"verified\", or \"invalid: REASON\".\n" +
			"Exit status: 0 verified, 1 invalid, 2 the command line or the verifying key is unusable.\n\n" +
			"The proof type comes from --registered-proof, or from --sector-size with --porep-id and\n" +
			"--api-version given independently (as other chains pair them), the challenge kind from --challenges.\n" +
			"comm_r and comm_d are 64 hex digits (the 32-byte little-endian value) or CIDs (bagboea4b…, baga6ea4s…).\n" +
			"The prover id is --miner-id's LEB128 encoding in 32 bytes, or --prover-id given in hex.\n" +
			"The official .vk in the parameter cache is used unless --vk names another; fetch it with\n" +
			"`filc2 params fetch --vk-only -p PROOF`. NI-PoRep proofs are checked in their raw form (partitions ×\n" +
			"192 bytes, as C2 outputs them), not SnarkPack-aggregated as they go on chain.",
		Flags: []ucli.Flag{
			registeredProofFlag(false),
			&ucli.StringFlag{Name: "sector-size", Usage: "instead of --registered-proof: sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB or bytes)"},
			&ucli.StringFlag{Name: "porep-id", Usage: "with --sector-size: the porep_id, 64 hex digits"},
			&ucli.StringFlag{Name: "api-version", Usage: "with --sector-size: proofs-API version, 1.0.0, 1.1.0 or 1.2.0"},
			&ucli.StringFlag{Name: "challenges", Value: "interactive", Usage: "with --sector-size: challenge kind, interactive, synthetic or non-interactive"},
			&ucli.StringFlag{Name: "comm-r", Usage: "sealed sector commitment: 64 hex digits or a CID (bagboea4b…)"},
			&ucli.StringFlag{Name: "comm-d", Usage: "unsealed sector commitment: 64 hex digits or a CID (baga6ea4s…)"},
			&ucli.StringFlag{Name: "miner-id", Usage: "miner actor id (1000 or f01000); gives the prover id"},
			&ucli.StringFlag{Name: "prover-id", Usage: "instead of --miner-id: the prover id in hex (up to 32 bytes, zero-padded on the right)"},
			&ucli.StringFlag{Name: "sector-id", Usage: "sector number"},
			&ucli.StringFlag{Name: "ticket", Usage: "seal randomness (ticket), 64 hex digits"},
			&ucli.StringFlag{Name: "seed", Usage: "interactive randomness (seed), 64 hex digits; not used by NI-PoRep"},
			&ucli.StringFlag{Name: "proof", Usage: "the proof: hex, or @FILE holding hex or raw bytes (@- for stdin)"},
			&ucli.StringFlag{Name: "vk", Usage: "verifying key file (default: the proof type's official .vk in --params-dir)"},
			&ucli.StringFlag{
				Name:    "params-dir",
				Usage:   "parameter cache directory, where the default --vk is looked for",
				Value:   paramcache.DefaultDir,
				EnvVars: []string{paramcache.EnvDir},
			},
		},
		OnUsageError: onUsageError,
		Action:       verifySeal,
	}
}

// sealShape returns the proof type and the graph of the command line's
// proof type: --registered-proof, or --sector-size, --porep-id,
// --api-version and --challenges.
func sealShape(c *ucli.Context) (abi.SealProof, [32]byte, *porep.Graph, error) {
	var none [32]byte
	byName, bySize := c.IsSet("registered-proof"), c.IsSet("sector-size")
	switch {
	case byName && bySize:
		return abi.SealProof{}, none, nil, errors.New("give --registered-proof or --sector-size, not both")
	case byName:
		for _, f := range []string{"porep-id", "api-version", "challenges"} {
			if c.IsSet(f) {
				return abi.SealProof{}, none, nil, fmt.Errorf("--%s goes with --sector-size, not --registered-proof", f)
			}
		}
		p, err := parseProof(c)
		if err != nil {
			return abi.SealProof{}, none, nil, err
		}
		g, err := porep.NewGraphFor(p)
		return p, p.PoRepID(), g, err
	case bySize:
		size, err := parseSectorSize(c.String("sector-size"))
		if err != nil {
			return abi.SealProof{}, none, nil, err
		}
		if !c.IsSet("porep-id") || !c.IsSet("api-version") {
			return abi.SealProof{}, none, nil, errors.New("--sector-size needs --porep-id and --api-version")
		}
		porepID, err := parseHex32("porep-id", c.String("porep-id"))
		if err != nil {
			return abi.SealProof{}, none, nil, err
		}
		api, err := parseAPIVersion(c.String("api-version"))
		if err != nil {
			return abi.SealProof{}, none, nil, err
		}
		kind, err := parseChallengeKind(c.String("challenges"))
		if err != nil {
			return abi.SealProof{}, none, nil, err
		}
		p, err := abi.BySectorSize(size, kind)
		if err != nil {
			return abi.SealProof{}, none, nil, fmt.Errorf("--sector-size: %w", err)
		}
		p.APIVersion = api // the shape is the size's; the graph follows api
		g, err := porep.NewGraph(p.Nodes, porepID, api)
		return p, porepID, g, err
	}
	return abi.SealProof{}, none, nil, errors.New("give --registered-proof, or --sector-size with --porep-id and --api-version")
}

// sealPublic reads the sector's public data from the command line.
func sealPublic(c *ucli.Context, p abi.SealProof, porepID [32]byte) (porep.SealPublic, error) {
	in := porep.SealPublic{PoRepID: porepID}
	var missing []string
	need := []string{"comm-r", "comm-d", "sector-id", "ticket", "proof"}
	if p.ChallengeKind != abi.NonInteractive {
		need = append(need, "seed")
	}
	for _, f := range need {
		if !c.IsSet(f) {
			missing = append(missing, "--"+f)
		}
	}
	if !c.IsSet("miner-id") && !c.IsSet("prover-id") {
		missing = append(missing, "--miner-id (or --prover-id)")
	}
	if len(missing) > 0 {
		return in, fmt.Errorf("missing %v", missing)
	}
	var err error
	if in.CommR, err = parseCommitment("comm-r", c.String("comm-r"), commR); err != nil {
		return in, err
	}
	if in.CommD, err = parseCommitment("comm-d", c.String("comm-d"), commD); err != nil {
		return in, err
	}
	switch {
	case c.IsSet("miner-id") && c.IsSet("prover-id"):
		return in, errors.New("give --miner-id or --prover-id, not both")
	case c.IsSet("miner-id"):
		id, err := parseMinerID(c.String("miner-id"))
		if err != nil {
			return in, err
		}
		in.ProverID = porep.ProverID(id)
	default:
		if in.ProverID, err = parseProverID(c.String("prover-id")); err != nil {
			return in, err
		}
	}
	if in.SectorID, err = strconv.ParseUint(c.String("sector-id"), 10, 64); err != nil {
		return in, fmt.Errorf("--sector-id %q: want a sector number", c.String("sector-id"))
	}
	if in.Ticket, err = parseHex32("ticket", c.String("ticket")); err != nil {
		return in, err
	}
	if c.IsSet("seed") {
		if in.Seed, err = parseHex32("seed", c.String("seed")); err != nil {
			return in, err
		}
	}
	return in, nil
}

// loadVK reads and prepares the verifying key of p: --vk, else the official
// file in --params-dir.
func loadVK(c *ucli.Context, p abi.SealProof) (*groth16.PreparedVerifyingKey, error) {
	return loadVKFile(c, p.Name, p.VKFile(), porep.PublicInputCount(p.ChallengesPerPartition)+1, "fetch it with `filc2 params fetch --vk-only -p "+p.Name+"`")
}

// loadVKFile reads and prepares a verifying key of numInputs inputs: --vk,
// else the official file in --params-dir. A file under its official name
// whose digest differs from parameters.json (test parameters) is used with a
// warning. fetchHint says how to get the file.
func loadVKFile(c *ucli.Context, name string, official abi.ParamsFile, numInputs int, fetchHint string) (*groth16.PreparedVerifyingKey, error) {
	path := c.String("vk")
	if path == "" {
		path = filepath.Join(c.String("params-dir"), official.Name)
	}
	if filepath.Base(path) == official.Name {
		err := paramcache.VerifyFile(c.Context, path, official, nil)
		var mismatch *paramcache.DigestMismatchError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("verifying key %s not found: %s, or pass --vk", path, fetchHint)
		case errors.As(err, &mismatch):
			// Test parameters (filc2 setup) carry the official names: say so, and go on.
			fmt.Fprintf(c.App.ErrWriter, "WARNING: %s is not the official verifying key (digest %s, parameters.json has %s): a proof it accepts will not verify on chain\n",
				mismatch.Path, mismatch.Got, mismatch.Want)
		case err != nil:
			return nil, err
		}
	}
	vk, err := groth16.ReadVerifyingKeyFile(path, numInputs, groth16.WithSubgroupChecks())
	if err != nil {
		return nil, fmt.Errorf("verifying key: %w (want the .vk of %s, %s)", err, name, official.Name)
	}
	return groth16.Prepare(vk)
}

func verifySeal(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("unexpected arguments %q: every input is a flag (see --help)", c.Args().Slice())
	}
	p, porepID, g, err := sealShape(c)
	if err != nil {
		return usageError(err)
	}
	in, err := sealPublic(c, p, porepID)
	if err != nil {
		return usageError(err)
	}
	proof, err := readBytesArg("proof", c.String("proof"))
	if err != nil {
		return usageError(err)
	}
	vk, err := loadVK(c, p)
	if err != nil {
		return usageError(err)
	}
	err = porep.VerifySeal(vk, g, p, in, proof)
	var bad *porep.InvalidSealError
	switch {
	case err == nil:
		fmt.Fprintln(c.App.Writer, "verified")
		return nil
	case errors.As(err, &bad):
		fmt.Fprintln(c.App.Writer, "invalid: "+bad.Reason)
		return &ExitError{Code: 1}
	}
	return usageError(err)
}

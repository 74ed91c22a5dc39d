package cli

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	commcid "github.com/filecoin-project/go-fil-commcid"
	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/internal/atomicfile"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/porep"
)

func sealCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "seal",
		Usage: "seal a small sector (or build a sparse test sector of any size) and write its C1 output",
		Description: "Runs PreCommit and SealCommitPhase1 exactly as rust-fil-proofs does, for 2KiB, 8MiB and 512MiB\n" +
			"sectors. DIR receives: sealed (the replica), commitments.json (hex and CIDs, ids, ticket, seed) and\n" +
			"c1.json (lotus-bench's {\"SectorNum\",\"Phase1Out\",\"SectorSize\"} file, which `filc2 prove` reads).\n" +
			"Without --data the sector is committed capacity (zeros). Ticket and seed are random unless given.\n\n" +
			"--sparse builds a TEST FIXTURE instead, for any size (32GiB and 64GiB in about a second): only the\n" +
			"nodes the C1 opens exist (the challenges and their parents, their labels computed as the sealer does,\n" +
			"sparse trees C and R-last with every other node pseudo-random; the data a pseudo-random 128 KiB block\n" +
			"repeated, or zeros with --cc). Its c1.json passes every vanilla check and satisfies the circuit, so it\n" +
			"proves like a real sector's; but it is cheap only because the seed is known before the trees are built,\n" +
			"which the chain never allows: its comm_r commits to nothing and its proofs are worth nothing on chain.\n" +
			"Interactive proof types only (V1, V1_1): synthetic and NI-PoRep challenges come from comm_r itself.\n" +
			"No sealed file is written.",
		Flags: []ucli.Flag{
			registeredProofFlag(true),
			&ucli.StringFlag{Name: "out", Usage: "output directory (created if needed)", Required: true},
			&ucli.Uint64Flag{Name: "miner-id", Usage: "miner actor id (the prover id is its LEB128 encoding)", Value: 1000},
			&ucli.Uint64Flag{Name: "sector-id", Usage: "sector number", Value: 1},
			&ucli.StringFlag{Name: "ticket", Usage: "sealing randomness, 64 hex digits (default: random)"},
			&ucli.StringFlag{Name: "seed", Usage: "interactive randomness, 64 hex digits (default: random)"},
			&ucli.StringFlag{Name: "data", Usage: "fr32-padded unsealed sector data, exactly the sector size (default: zeros)"},
			&ucli.BoolFlag{Name: "sparse", Usage: "build a sparse TEST FIXTURE sector of any size instead of sealing (see above)"},
			&ucli.BoolFlag{Name: "cc", Usage: "with --sparse: committed capacity (zero data) instead of a pseudo-random block"},
		},
		OnUsageError: onUsageError,
		Action:       sealAction,
	}
}

// commitmentsJSON is commitments.json.
type commitmentsJSON struct {
	RegisteredProof string `json:"registered_proof"`
	SectorSize      uint64 `json:"sector_size"`
	MinerID         uint64 `json:"miner_id"`
	SectorID        uint64 `json:"sector_id"`
	Ticket          string `json:"ticket"`
	Seed            string `json:"seed"`
	ReplicaID       string `json:"replica_id"`
	CommD           string `json:"comm_d"`
	CommDCID        string `json:"comm_d_cid"`
	CommR           string `json:"comm_r"`
	CommRCID        string `json:"comm_r_cid"`
	CommC           string `json:"comm_c"`
	CommRLast       string `json:"comm_r_last"`
	// Sparse marks a sparse test-fixture sector (seal --sparse): no replica exists.
	Sparse bool `json:"sparse,omitempty"`
}

func randomOr(c *ucli.Context, flag string) ([32]byte, error) {
	if s := c.String(flag); s != "" {
		return parseHex32(flag, s)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return b, err
	}
	b[31] &= 0x3f // a field element, like real randomness after Filecoin's draw
	return b, nil
}

func sealAction(c *ucli.Context) error {
	p, err := parseProof(c)
	if err != nil {
		return usageError(err)
	}
	ticket, err := randomOr(c, "ticket")
	if err != nil {
		return usageError(err)
	}
	seed, err := randomOr(c, "seed")
	if err != nil {
		return usageError(err)
	}
	proverID, sectorID := porep.ProverID(c.Uint64("miner-id")), c.Uint64("sector-id")
	var (
		out                *c1.Commit1Out
		replicaID, replica []byte
		commD, commR       [32]byte
		commC, commRLast   [32]byte
	)
	switch {
	case c.Bool("sparse"):
		if c.IsSet("data") {
			return usageErrorf("--sparse makes its own data: drop --data (or use --cc for zeros)")
		}
		in := porep.SparseInput{Proof: p, ProverID: proverID, SectorID: sectorID, Ticket: ticket, Seed: seed, CommittedCapacity: c.Bool("cc")}
		var sec *porep.SparseSector
		if out, sec, err = porep.SparseC1(c.Context, in); err != nil {
			return err
		}
		replicaID, commD, commR, commC, commRLast = sec.ReplicaID[:], sec.CommD, sec.CommR, sec.CommC, sec.CommRLast
	case c.Bool("cc"):
		return usageErrorf("--cc goes with --sparse; a sealed sector without --data is committed capacity already")
	default:
		in := porep.SealInput{Proof: p, ProverID: proverID, SectorID: sectorID, Ticket: ticket}
		if path := c.String("data"); path != "" {
			if in.Data, err = os.ReadFile(path); err != nil {
				return err
			}
		}
		pr := newProgress()
		sec, err := porep.Seal(c.Context, in, porep.SealProgress(pr.Update))
		pr.Done()
		if err != nil {
			return err
		}
		if out, err = sec.Commit1(seed); err != nil {
			return err
		}
		replicaID, replica, commD, commR, commC, commRLast = sec.ReplicaID[:], sec.Replica, sec.CommD, sec.CommR, sec.CommC, sec.CommRLast
	}
	raw, err := c1.Encode(out)
	if err != nil {
		return err
	}
	wrapped := c1.EncodeWrapper(int64(sectorID), uint64(p.SectorSize), raw)

	dCID, err := commcid.DataCommitmentV1ToCID(commD[:])
	if err != nil {
		return err
	}
	rCID, err := commcid.ReplicaCommitmentV1ToCID(commR[:])
	if err != nil {
		return err
	}
	h := hex.EncodeToString
	cm := commitmentsJSON{
		RegisteredProof: p.Name, SectorSize: uint64(p.SectorSize), MinerID: c.Uint64("miner-id"), SectorID: sectorID,
		Ticket: h(ticket[:]), Seed: h(seed[:]), ReplicaID: h(replicaID),
		CommD: h(commD[:]), CommDCID: dCID.String(), CommR: h(commR[:]), CommRCID: rCID.String(),
		CommC: h(commC[:]), CommRLast: h(commRLast[:]), Sparse: c.Bool("sparse"),
	}
	cmJSON, err := json.MarshalIndent(cm, "", "  ")
	if err != nil {
		return err
	}
	dir := c.String("out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	type file struct {
		name string
		b    []byte
	}
	files := []file{{"c1.json", wrapped}, {"commitments.json", append(cmJSON, '\n')}}
	if replica != nil {
		files = append(files, file{"sealed", replica})
	}
	for _, f := range files {
		if err := atomicfile.Write(filepath.Join(dir, f.name), 0o644, func(w io.Writer) error { _, err := w.Write(f.b); return err }); err != nil {
			return err
		}
	}
	what := "sealed"
	if cm.Sparse {
		what = "built the sparse TEST FIXTURE"
	}
	fmt.Fprintf(c.App.Writer, "%s %s sector %d of miner %d in %s\ncomm_d %s (%s)\ncomm_r %s (%s)\n",
		what, p.Name, sectorID, cm.MinerID, dir, cm.CommD, cm.CommDCID, cm.CommR, cm.CommRCID)
	return nil
}

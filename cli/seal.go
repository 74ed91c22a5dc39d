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
		Usage: "seal a small sector and write its replica, commitments and C1 output (for tests and demos)",
		Description: "Runs PreCommit and SealCommitPhase1 exactly as rust-fil-proofs does, for 2KiB, 8MiB and 512MiB\n" +
			"sectors. DIR receives: sealed (the replica), commitments.json (hex and CIDs, ids, ticket, seed) and\n" +
			"c1.json (lotus-bench's {\"SectorNum\",\"Phase1Out\",\"SectorSize\"} file, which `filc2 prove` reads).\n" +
			"Without --data the sector is committed capacity (zeros). Ticket and seed are random unless given.",
		Flags: []ucli.Flag{
			registeredProofFlag(true),
			&ucli.StringFlag{Name: "out", Usage: "output directory (created if needed)", Required: true},
			&ucli.Uint64Flag{Name: "miner-id", Usage: "miner actor id (the prover id is its LEB128 encoding)", Value: 1000},
			&ucli.Uint64Flag{Name: "sector-id", Usage: "sector number", Value: 1},
			&ucli.StringFlag{Name: "ticket", Usage: "sealing randomness, 64 hex digits (default: random)"},
			&ucli.StringFlag{Name: "seed", Usage: "interactive randomness, 64 hex digits (default: random)"},
			&ucli.StringFlag{Name: "data", Usage: "fr32-padded unsealed sector data, exactly the sector size (default: zeros)"},
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
	in := porep.SealInput{Proof: p, ProverID: porep.ProverID(c.Uint64("miner-id")), SectorID: c.Uint64("sector-id"), Ticket: ticket}
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
	out, err := sec.Commit1(seed)
	if err != nil {
		return err
	}
	raw, err := c1.Encode(out)
	if err != nil {
		return err
	}
	wrapped := c1.EncodeWrapper(int64(in.SectorID), uint64(p.SectorSize), raw)

	dCID, err := commcid.DataCommitmentV1ToCID(sec.CommD[:])
	if err != nil {
		return err
	}
	rCID, err := commcid.ReplicaCommitmentV1ToCID(sec.CommR[:])
	if err != nil {
		return err
	}
	h := hex.EncodeToString
	cm := commitmentsJSON{
		RegisteredProof: p.Name, SectorSize: uint64(p.SectorSize), MinerID: c.Uint64("miner-id"), SectorID: in.SectorID,
		Ticket: h(ticket[:]), Seed: h(seed[:]), ReplicaID: h(sec.ReplicaID[:]),
		CommD: h(sec.CommD[:]), CommDCID: dCID.String(), CommR: h(sec.CommR[:]), CommRCID: rCID.String(),
		CommC: h(sec.CommC[:]), CommRLast: h(sec.CommRLast[:]),
	}
	cmJSON, err := json.MarshalIndent(cm, "", "  ")
	if err != nil {
		return err
	}
	dir := c.String("out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{{"sealed", sec.Replica}, {"c1.json", wrapped}, {"commitments.json", append(cmJSON, '\n')}} {
		if err := atomicfile.Write(filepath.Join(dir, f.name), 0o644, func(w io.Writer) error { _, err := w.Write(f.b); return err }); err != nil {
			return err
		}
	}
	fmt.Fprintf(c.App.Writer, "sealed %s sector %d of miner %d in %s\ncomm_d %s (%s)\ncomm_r %s (%s)\n",
		p.Name, in.SectorID, cm.MinerID, dir, cm.CommD, cm.CommDCID, cm.CommR, cm.CommRCID)
	return nil
}

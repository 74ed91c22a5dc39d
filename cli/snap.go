package cli

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	commcid "github.com/filecoin-project/go-fil-commcid"
	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/internal/atomicfile"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/snap"
	"github.com/filc2/filc2/proofs/update"
)

// The files `filc2 snap encode` writes beside the new replica.
const (
	snapVanillaFile = "snap-vproof.json" // a JSON array of base64 bincode PartitionProofs, as curio's
	snapUpdateFile  = "update.json"      // updateJSON
)

// updateJSON describes an encoded update: what prove-update and
// verify-update take.
type updateJSON struct {
	UpdateProof string `json:"update_proof"`
	SectorSize  uint64 `json:"sector_size"`
	MinerID     uint64 `json:"miner_id"`
	SectorID    uint64 `json:"sector_id"`
	CommROld    string `json:"comm_r_old"`
	CommROldCID string `json:"comm_r_old_cid"`
	CommRNew    string `json:"comm_r_new"`
	CommRNewCID string `json:"comm_r_new_cid"`
	CommDNew    string `json:"comm_d_new"`
	CommDNewCID string `json:"comm_d_new_cid"`
	// Periodic marks a periodic TEST FIXTURE update (no replica written).
	Periodic bool `json:"periodic,omitempty"`
}

func snapCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "snap",
		Usage: "SnapDeals fixtures: encode new data into a committed-capacity sector",
		Subcommands: []*ucli.Command{{
			Name:  "encode",
			Usage: "encode data into a sector `filc2 seal` wrote, and write the update's vanilla proofs",
			UsageText: "filc2 snap encode --sealed DIR (--data FILE | --random-data SEED) --out DIR\n" +
				"   filc2 snap encode --periodic --update-proof NAME [--seed N] --out DIR",
			Description: "Takes the sealed replica of a sector `filc2 seal` wrote (its sector key) and new fr32-padded data of exactly\n" +
				"the sector size, and does what rust-fil-proofs' encode_into and GenerateUpdateVanillaProofs do: tree D over\n" +
				"the data (comm_d_new), the new replica (each node = the sector key's node + the data's node · rho of the\n" +
				"node's high bits, rho from comm_d_new and comm_r_old), its tree R (comm_r_new = Poseidon2(comm_c, root)),\n" +
				"and every partition's vanilla proof. Writes in DIR: sealed (the new replica), " + snapVanillaFile + " (the vanilla\n" +
				"proofs as curio stores them: a JSON array of base64 strings, in partition order) and " + snapUpdateFile + " (the\n" +
				"update proof type and comm_r_old, comm_r_new, comm_d_new, each also as a CID). The sizes held in memory:\n" +
				"2KiB and 8MiB (512MiB takes a few GiB and minutes). --random-data SEED encodes seeded pseudo-random\n" +
				"fr32 data instead of a file (fixtures).\n" +
				"\n" +
				"--periodic makes a TEST FIXTURE update of any size, 32GiB and 64GiB included, in seconds and without a\n" +
				"sealed sector: a seeded sector key block and data block, each repeated over the sector, encoded as above\n" +
				"(update.EncodePeriodic). The update is whole and consistent — every partition's vanilla proof passes the\n" +
				"check and the proofs verify — but its sector key is no sealed replica. It writes " + snapVanillaFile + " and\n" +
				snapUpdateFile + " (marked periodic), no replica.",
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "sealed", Usage: "a sector directory `filc2 seal` wrote (committed capacity or not)"},
				&ucli.BoolFlag{Name: "periodic", Usage: "a periodic TEST FIXTURE update of --update-proof's size instead of --sealed (any size)"},
				&ucli.StringFlag{Name: "update-proof", Usage: "with --periodic: the update proof type (StackedDrg32GiBV1 … or 0-4)"},
				&ucli.Uint64Flag{Name: "seed", Usage: "with --periodic: the fixture's seed", Value: 1},
				&ucli.StringFlag{Name: "data", Usage: "fr32-padded new data, exactly the sector size"},
				&ucli.Uint64Flag{Name: "random-data", Usage: "encode seeded pseudo-random fr32 data instead of --data (fixtures)"},
				&ucli.StringFlag{Name: "out", Usage: "output directory (created if needed)", Required: true},
			},
			OnUsageError: onUsageError,
			Action:       snapEncodeAction,
		}},
	}
}

// randomFr32 is n bytes of seeded pseudo-random data with every 32-byte
// node's top two bits cleared (fr32).
func randomFr32(n, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, seed^0xda7a))
	b := make([]byte, n)
	for i := 0; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], rng.Uint64())
	}
	for i := 31; i < len(b); i += 32 {
		b[i] &= 0x3f
	}
	return b
}

// readSealedSector reads a `filc2 seal` directory: its commitments and the
// replica's nodes.
func readSealedSector(dir string) (*commitmentsJSON, abi.SealProof, []fr.Element, error) {
	var cm commitmentsJSON
	b, err := os.ReadFile(filepath.Join(dir, "commitments.json"))
	if err == nil {
		err = json.Unmarshal(b, &cm)
	}
	if err != nil {
		return nil, abi.SealProof{}, nil, fmt.Errorf("--sealed: commitments.json: %w (want a directory `filc2 seal` wrote)", err)
	}
	if cm.Sparse {
		return nil, abi.SealProof{}, nil, fmt.Errorf("--sealed %s is a sparse PoRep fixture without a replica", dir)
	}
	p, err := abi.ParseName(cm.RegisteredProof)
	if err != nil {
		return nil, p, nil, fmt.Errorf("--sealed: commitments.json: %w", err)
	}
	replica, err := os.ReadFile(filepath.Join(dir, "sealed"))
	if err != nil {
		return nil, p, nil, fmt.Errorf("--sealed: %w", err)
	}
	if uint64(len(replica)) != uint64(p.SectorSize) {
		return nil, p, nil, fmt.Errorf("--sealed: sealed is %d bytes, a %s sector %d", len(replica), p.Name, p.SectorSize)
	}
	nodes := make([]fr.Element, p.Nodes)
	for i := range nodes {
		if nodes[i], err = fr.LittleEndian.Element((*[32]byte)(replica[32*i:])); err != nil {
			return nil, p, nil, fmt.Errorf("--sealed: sealed node %d is not a field element", i)
		}
	}
	return &cm, p, nodes, nil
}

func snapEncodeAction(c *ucli.Context) error {
	if c.Args().Present() {
		return usageErrorf("unexpected arguments %q (see %s --help)", c.Args().Slice(), c.Command.HelpName)
	}
	if c.Bool("periodic") {
		return snapEncodePeriodic(c)
	}
	switch {
	case !c.IsSet("sealed"):
		return usageErrorf("give --sealed DIR (or --periodic --update-proof NAME for a fixture)")
	case c.IsSet("update-proof") || c.IsSet("seed"):
		return usageErrorf("--update-proof and --seed go with --periodic; with --sealed the update type is the sector's")
	}
	cm, sp, key, err := readSealedSector(c.String("sealed"))
	if err != nil {
		return usageError(err)
	}
	up, err := abi.UpdateForSeal(sp.Proof)
	if err != nil {
		return usageError(err)
	}
	if up.Nodes > 1<<24 {
		return usageErrorf("%s: a %d GiB sector does not fit in memory here; snap encode takes 2KiB, 8MiB or 512MiB sectors", up.Name, up.SectorSize>>30)
	}
	var raw []byte
	switch {
	case c.IsSet("data") == c.IsSet("random-data"):
		return usageErrorf("give --data FILE or --random-data SEED")
	case c.IsSet("data"):
		if raw, err = os.ReadFile(c.String("data")); err != nil {
			return usageError(fmt.Errorf("--data: %w", err))
		}
	default:
		raw = randomFr32(uint64(up.SectorSize), c.Uint64("random-data"))
	}
	if uint64(len(raw)) != uint64(up.SectorSize) {
		return usageErrorf("--data is %d bytes, the sector is %d (give fr32-padded data of exactly the sector size)", len(raw), up.SectorSize)
	}
	data := make([]merkle.Node, up.Nodes)
	for i := range data {
		copy(data[i][:], raw[32*i:])
		if data[i][31]&0xc0 != 0 {
			return usageErrorf("--data node %d has its top two bits set: the data is not fr32-padded", i)
		}
	}
	commC, err := parseHex32("sealed comm_c", cm.CommC)
	if err != nil {
		return err
	}
	commCEl, err := fr.LittleEndian.Element(&commC)
	if err != nil {
		return fmt.Errorf("--sealed: comm_c is not a field element")
	}
	pr := newProgress()
	pr.Update("encoding", 0, 2)
	r, err := update.Encode(up, commCEl, key, data)
	if err != nil {
		pr.Done()
		return err
	}
	if got := hex.EncodeToString(r.CommROld[:]); got != cm.CommR {
		pr.Done()
		return fmt.Errorf("--sealed: the replica's comm_r is %s, commitments.json says %s: the sector directory is inconsistent", got, cm.CommR)
	}
	pr.Update("vanilla proofs", 1, 2)
	vanilla := make([][]byte, up.Partitions)
	for k := range up.Partitions {
		pp, err := r.PartitionProof(k)
		if err != nil {
			pr.Done()
			return err
		}
		vanilla[k] = pp.Encode()
	}
	pr.Done()

	replica := make([]byte, 32*len(r.Replica))
	for i := range r.Replica {
		fr.LittleEndian.PutElement((*[32]byte)(replica[32*i:]), r.Replica[i])
	}
	dir := c.String("out")
	uj, err := writeUpdate(dir, updateJSON{UpdateProof: up.Name, SectorSize: uint64(up.SectorSize), MinerID: cm.MinerID, SectorID: cm.SectorID},
		r.Commitments, vanilla, replica)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "encoded %s sector %d of miner %d into %s (%s, %d partitions)\ncomm_r_old %s (%s)\ncomm_r_new %s (%s)\ncomm_d_new %s (%s)\n",
		sp.Name, cm.SectorID, cm.MinerID, dir, up.Name, up.Partitions, uj.CommROld, uj.CommROldCID, uj.CommRNew, uj.CommRNewCID, uj.CommDNew, uj.CommDNewCID)
	return nil
}

// snapEncodePeriodic is snap encode --periodic: a periodic fixture update's
// vanilla proofs and commitments.
func snapEncodePeriodic(c *ucli.Context) error {
	switch {
	case c.IsSet("sealed") || c.IsSet("data") || c.IsSet("random-data"):
		return usageErrorf("--periodic makes its own sector key and data: it does not go with --sealed, --data or --random-data")
	case !c.IsSet("update-proof"):
		return usageErrorf("--periodic needs --update-proof NAME (StackedDrg2KiBV1 … StackedDrg64GiBV1, or 0-4)")
	}
	up, err := abi.ParseUpdateName(c.String("update-proof"))
	if err != nil {
		return usageError(fmt.Errorf("--update-proof: %w", err))
	}
	pr := newProgress()
	pr.Update("encoding a periodic "+up.Name+" update", 0, 1)
	req, _, err := snap.PeriodicRequest(up, c.Uint64("seed"))
	pr.Done()
	if err != nil {
		return err
	}
	vanilla := make([][]byte, len(req.Vanilla))
	for k, pp := range req.Vanilla {
		vanilla[k] = pp.Encode()
	}
	dir := c.String("out")
	uj, err := writeUpdate(dir, updateJSON{UpdateProof: up.Name, SectorSize: uint64(up.SectorSize), Periodic: true}, req.Commitments, vanilla, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "a periodic %s TEST FIXTURE update (seed %d, %d partitions) in %s\ncomm_r_old %s (%s)\ncomm_r_new %s (%s)\ncomm_d_new %s (%s)\n",
		up.Name, c.Uint64("seed"), up.Partitions, dir, uj.CommROld, uj.CommROldCID, uj.CommRNew, uj.CommRNewCID, uj.CommDNew, uj.CommDNewCID)
	return nil
}

// writeUpdate completes uj with the commitments (hex and CIDs) and writes
// in dir, each atomically: the vanilla proofs (snapVanillaFile), uj
// (snapUpdateFile) and the new replica when there is one ("sealed").
func writeUpdate(dir string, uj updateJSON, cm update.Commitments, vanilla [][]byte, replica []byte) (updateJSON, error) {
	oldCID, err1 := commcid.ReplicaCommitmentV1ToCID(cm.CommROld[:])
	newCID, err2 := commcid.ReplicaCommitmentV1ToCID(cm.CommRNew[:])
	dCID, err3 := commcid.DataCommitmentV1ToCID(cm.CommDNew[:])
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			return uj, err
		}
	}
	h := hex.EncodeToString
	uj.CommROld, uj.CommROldCID = h(cm.CommROld[:]), oldCID.String()
	uj.CommRNew, uj.CommRNewCID = h(cm.CommRNew[:]), newCID.String()
	uj.CommDNew, uj.CommDNewCID = h(cm.CommDNew[:]), dCID.String()
	ujb, err := json.MarshalIndent(uj, "", "  ")
	if err != nil {
		return uj, err
	}
	vjb, err := json.Marshal(vanilla) // [][]byte: base64 strings, as Go's json writes them and curio stores them
	if err != nil {
		return uj, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return uj, err
	}
	files := []struct {
		name string
		b    []byte
	}{{snapVanillaFile, append(vjb, '\n')}, {snapUpdateFile, append(ujb, '\n')}}
	if replica != nil {
		files = append([]struct {
			name string
			b    []byte
		}{{"sealed", replica}}, files...)
	}
	for _, f := range files {
		if err := atomicfile.Write(filepath.Join(dir, f.name), 0o644, func(w io.Writer) error { _, err := w.Write(f.b); return err }); err != nil {
			return uj, err
		}
	}
	return uj, nil
}

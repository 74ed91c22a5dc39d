package lotus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/google/uuid"
	"github.com/ipfs/go-cid"

	"github.com/filc2/filc2/plugin"
)

// The PoSt task types of lotus's sealtasks: a worker started with
// --windowpost or --winningpost serves them and nothing else.
const (
	TTGenerateWindowPoSt  TaskType = "post/v0/windowproof"
	TTGenerateWinningPoSt TaskType = "post/v0/winningproof"
)

// PostSectorChallenge is lotus's storiface.PostSectorChallenge: a sector
// and the leaf challenges its vanilla proof answers.
type PostSectorChallenge struct {
	SealProof    abi.RegisteredSealProof
	SectorNumber abi.SectorNumber
	SealedCID    cid.Cid
	Challenge    []uint64
	Update       bool
}

// WindowPoStResult is lotus's storiface.WindowPoStResult.
type WindowPoStResult struct {
	PoStProofs proof.PoStProof
	Skipped    []abi.SectorID
}

// SectorFileType is lotus's storiface.SectorFileType, a bit set.
type SectorFileType int

// The file types a PoSt's vanilla proof reads (lotus's storiface values).
const (
	FTSealed      SectorFileType = 1 << 1
	FTCache       SectorFileType = 1 << 2
	FTUpdate      SectorFileType = 1 << 3
	FTUpdateCache SectorFileType = 1 << 4
)

// SectorStorageInfo is lotus's storiface.SectorStorageInfo: a storage path
// holding a sector, with the URLs of the storage node serving it.
type SectorStorageInfo struct {
	ID       string
	URLs     []string
	BaseURLs []string
	Weight   uint64

	CanSeal  bool
	CanStore bool

	Primary bool

	AllowTypes  []string
	DenyTypes   []string
	AllowMiners []string
	DenyMiners  []string
}

// SingleVanillaParams is the body of a storage node's POST
// /remote/vanilla/single (lotus's paths.SingleVanillaParams); the answer is
// the sector's vanilla proof, a bincode FallbackPoStSectorProof.
type SingleVanillaParams struct {
	Miner     abi.ActorID
	Sector    PostSectorChallenge
	ProofType abi.RegisteredPoStProof
}

// VanillaSource produces a sector's PoSt vanilla proof for its challenges.
type VanillaSource interface {
	SingleVanilla(ctx context.Context, miner abi.ActorID, sector PostSectorChallenge, ppt abi.RegisteredPoStProof) ([]byte, error)
}

// SectorFinder is the miner's sector index (StorageFindSector).
type SectorFinder interface {
	StorageFindSector(ctx context.Context, sector abi.SectorID, ft SectorFileType, ssize abi.SectorSize, allowFetch bool) ([]SectorStorageInfo, error)
}

// RemoteVanilla reads vanilla proofs as a lotus PoSt worker without local
// storage does (paths.Remote.GenerateSingleVanillaProof): the miner's index
// says which storage paths hold the sector's sealed and cache files (update
// files for an updated sector), and each path's storage node is asked in
// turn with POST BASEURL/vanilla/single, carrying the miner's API token.
type RemoteVanilla struct {
	Index  SectorFinder
	Header http.Header  // sent with each request (Authorization: Bearer <miner token>)
	Client *http.Client // nil: http.DefaultClient
}

// SingleVanilla implements VanillaSource.
func (r *RemoteVanilla) SingleVanilla(ctx context.Context, miner abi.ActorID, s PostSectorChallenge, ppt abi.RegisteredPoStProof) ([]byte, error) {
	sid := abi.SectorID{Miner: miner, Number: s.SectorNumber}
	ft := FTSealed | FTCache
	if s.Update {
		ft = FTUpdate | FTUpdateCache
	}
	infos, err := r.Index.StorageFindSector(ctx, sid, ft, 0, false)
	if err != nil {
		return nil, fmt.Errorf("finding sector %d: %w", s.SectorNumber, err)
	}
	body, err := json.Marshal(SingleVanillaParams{Miner: miner, Sector: s, ProofType: ppt})
	if err != nil {
		return nil, err
	}
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	var errs []error
	for _, info := range infos {
		for _, base := range info.BaseURLs {
			b, err := r.post(ctx, client, base+"/vanilla/single", body)
			if err == nil {
				return b, nil
			}
			if !errors.Is(err, errNoSector) {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("sector %d: no storage node has it (%d paths in the index)", s.SectorNumber, len(infos))
	}
	return nil, fmt.Errorf("sector %d: %w", s.SectorNumber, errors.Join(errs...))
}

var errNoSector = errors.New("not found on this storage node")

func (r *RemoteVanilla) post(ctx context.Context, client *http.Client, url string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(string(body)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	for k, v := range r.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, plugin.MaxPoStVanilla+1))
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, errNoSector
	case err != nil:
		return nil, fmt.Errorf("%s: reading the answer: %w", url, err)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("%s: %s: %s", url, resp.Status, strings.TrimSpace(string(b)))
	case len(b) > plugin.MaxPoStVanilla:
		return nil, fmt.Errorf("%s: a vanilla proof over %d bytes", url, plugin.MaxPoStVanilla)
	case len(b) == 0:
		return nil, fmt.Errorf("%s: an empty vanilla proof", url)
	}
	return b, nil
}

// maxVanillaReads bounds the vanilla proofs read at once for a WindowPoSt
// (2349 sectors of a 32GiB partition; lotus's default challenge throttle is
// 128).
const maxVanillaReads = 128

// readVanilla reads the vanilla proofs of sectors, at most maxVanillaReads
// at once; a sector whose read fails is skipped (nil in the result) and
// named in the second result.
func (w *Worker) readVanilla(ctx context.Context, ppt abi.RegisteredPoStProof, miner abi.ActorID, sectors []PostSectorChallenge) ([][]byte, []abi.SectorID) {
	out := make([][]byte, len(sectors))
	var mu sync.Mutex
	var skipped []abi.SectorID
	sem := make(chan struct{}, maxVanillaReads)
	var wg sync.WaitGroup
	for i, s := range sectors {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			v, err := w.cfg.Vanilla.SingleVanilla(ctx, miner, s, ppt)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				skipped = append(skipped, abi.SectorID{Miner: miner, Number: s.SectorNumber})
				w.log.Error("reading a PoSt vanilla proof", "sector", s.SectorNumber, "error", err)
				return
			}
			out[i] = v
		}()
	}
	wg.Wait()
	return out, skipped
}

// provePoSt proves one PoSt through the prover and waits for it.
func (w *Worker) provePoSt(ctx context.Context, kind string, req plugin.PoStRequest, miner abi.ActorID) ([]byte, error) {
	id := plugin.JobID(fmt.Sprintf("lotus-%s-%s", kind, uuid.NewString()))
	t0 := time.Now()
	if _, err := w.prover.Submit(ctx, plugin.ProveRequest{ID: id, Sector: plugin.SectorRef{ID: abi.SectorID{Miner: miner}}, PoSt: &req}); err != nil {
		return nil, err
	}
	res, err := w.prover.Await(ctx, id)
	if err != nil {
		if ctx.Err() != nil {
			w.prover.Cancel(context.Background(), id)
		}
		return nil, err
	}
	w.log.Info("PoSt proved", "kind", kind, "job", id, "sectors", len(req.VanillaProofs), "time", time.Since(t0).String())
	return res.Proof, nil
}

// served reports an error unless the worker serves task tt.
func (w *Worker) served(tt TaskType) error {
	for _, t := range w.cfg.Tasks {
		if t == tt {
			return nil
		}
	}
	return fmt.Errorf("this worker does not serve %s (start it with %s)", tt, map[TaskType]string{TTGenerateWindowPoSt: "--windowpost", TTGenerateWinningPoSt: "--winningpost", TTProveReplicaUpdate2: "--prove-replica-update2", TTCommit2: "no --no-commit2, and without --windowpost or --winningpost"}[tt])
}

// GenerateWindowPoSt implements the Worker API as lotus's LocalWorker does:
// it reads each sector's vanilla proof for its challenges (VanillaSource),
// and when some cannot be read answers only Skipped, with no error (the
// miner then re-checks the sectors and calls again without them);
// otherwise it proves partition partitionIdx from the vanilla proofs and
// returns the 192-byte proof, verified before it is returned.
func (w *Worker) GenerateWindowPoSt(ctx context.Context, ppt abi.RegisteredPoStProof, miner abi.ActorID, sectors []PostSectorChallenge, partitionIdx int, randomness abi.PoStRandomness) (WindowPoStResult, error) {
	if err := w.served(TTGenerateWindowPoSt); err != nil {
		return WindowPoStResult{}, err
	}
	vs, skipped := w.readVanilla(ctx, ppt, miner, sectors)
	if len(skipped) > 0 {
		w.log.Error("could not read some challenged sectors; answering them skipped", "skipped", len(skipped), "of", len(sectors))
		return WindowPoStResult{Skipped: skipped}, nil
	}
	pb, err := w.provePoSt(ctx, "wdpost", plugin.PoStRequest{ProofType: ppt, Randomness: randomness, VanillaProofs: vs, Partition: partitionIdx}, miner)
	if err != nil {
		return WindowPoStResult{}, fmt.Errorf("generate window PoSt with vanilla proofs: %w", err)
	}
	return WindowPoStResult{PoStProofs: proof.PoStProof{PoStProof: ppt, ProofBytes: pb}}, nil
}

// GenerateWinningPoSt implements the Worker API as lotus's LocalWorker
// does: the vanilla proof of each challenged sector (normally one), then
// the proof; a sector that cannot be read is an error.
func (w *Worker) GenerateWinningPoSt(ctx context.Context, ppt abi.RegisteredPoStProof, miner abi.ActorID, sectors []PostSectorChallenge, randomness abi.PoStRandomness) ([]proof.PoStProof, error) {
	if err := w.served(TTGenerateWinningPoSt); err != nil {
		return nil, err
	}
	vs, skipped := w.readVanilla(ctx, ppt, miner, sectors)
	if len(skipped) > 0 {
		return nil, fmt.Errorf("get winning sector %d vanilla failed (see the worker's log)", skipped[0].Number)
	}
	pb, err := w.provePoSt(ctx, "winpost", plugin.PoStRequest{ProofType: ppt, Randomness: randomness, VanillaProofs: vs}, miner)
	if err != nil {
		return nil, err
	}
	return []proof.PoStProof{{PoStProof: ppt, ProofBytes: pb}}, nil
}

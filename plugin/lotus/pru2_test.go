package lotus_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/lotus"
	"github.com/filc2/filc2/plugin/plugintest"
	"github.com/filc2/filc2/proofs/update"
)

// updateCIDs are an update's commitments as lotus passes them.
func updateCIDs(t *testing.T, pub update.Commitments) (sectorKey, newSealed, newUnsealed cid.Cid) {
	t.Helper()
	var err1, err2, err3 error
	sectorKey, err1 = commcid.ReplicaCommitmentV1ToCID(pub.CommROld[:])
	newSealed, err2 = commcid.ReplicaCommitmentV1ToCID(pub.CommRNew[:])
	newUnsealed, err3 = commcid.DataCommitmentV1ToCID(pub.CommDNew[:])
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return
}

// A worker started with seal/v0/provereplicaupdate/2 serves ProveReplicaUpdate2
// as lotus's: the task type and its PR2 resources; a CallID at once, the
// update proof (verified) through ReturnProveReplicaUpdate2 on its second
// attempt; vanilla proofs of another update refused at once. A C2-only
// worker refuses the call.
func TestLotusWorkerProveReplicaUpdate2(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 2KiB update test parameters and proves on the CPU")
	}
	params := plugintest.SnapParams(t)
	miner := plugintest.NewLotusMiner(t)
	svc := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, QueueSize: 4, ParamsDir: params})
	t.Cleanup(func() { svc.Close() })
	info, err := lotus.ParseMinerAPIInfo(miner.APIInfo)
	if err != nil {
		t.Fatal(err)
	}
	mc, closer, err := lotus.DialMiner(context.Background(), info)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closer)
	env := map[string]string{"PR2_2K_MAX_CONCURRENT": "3"}
	w, err := lotus.NewWorker(lotus.WorkerConfig{
		Prover: plugin.NewServer(svc, "test"), Miner: mc, Name: "pr2-worker",
		Tasks:          []lotus.TaskType{lotus.TTCommit2, lotus.TTProveReplicaUpdate2},
		Lookup:         func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		ReturnInterval: 20 * time.Millisecond, HeartbeatInterval: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(w.RPCHandler())
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx, srv.URL+plugin.RPCPath) }()
	t.Cleanup(func() { cancel(); <-ran; w.Close() })
	api := miner.WaitConnected(t, 10*time.Second).API

	tt, err := api.TaskTypes(ctx)
	if _, ok := tt[lotus.TTProveReplicaUpdate2]; err != nil || !ok || len(tt) != 2 {
		t.Fatalf("TaskTypes %v %v", tt, err)
	}
	wi, err := api.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r := wi.Resources.Resources[lotus.TTProveReplicaUpdate2][abi.RegisteredSealProof_StackedDrg2KiBV1_1]; r.MaxConcurrent != 3 {
		t.Fatalf("Info's 2KiB PR2 resources %+v", r)
	}
	if r := wi.Resources.Resources[lotus.TTCommit2][abi.RegisteredSealProof_StackedDrg2KiBV1_1]; r.MaxConcurrent == 3 {
		t.Fatal("the PR2 override changed C2's resources")
	}

	pub, vanilla := plugintest.SnapVanilla(t, 1)
	_, vanilla2 := plugintest.SnapVanilla(t, 2)
	key, sealed, unsealed := updateCIDs(t, pub)
	sector := plugintest.Sector(5)
	if _, err := api.ProveReplicaUpdate2(ctx, sector, key, sealed, unsealed, vanilla2); err == nil || !strings.Contains(err.Error(), "vanilla proof of partition 0") {
		t.Fatalf("another update's vanilla: %v", err)
	}
	miner.FailReturns.Store(1)
	ci, err := api.ProveReplicaUpdate2(ctx, sector, key, sealed, unsealed, vanilla)
	if err != nil || ci.Sector != sector.ID {
		t.Fatalf("ProveReplicaUpdate2: %v %v", ci, err)
	}
	r := miner.WaitReturn(t, 2*time.Minute)
	if r.Method != "ReturnProveReplicaUpdate2" || r.Call != ci || r.Err != nil || r.Attempt != 2 {
		t.Fatalf("return %+v", r)
	}
	if err := plugintest.VerifySnap(t, pub, r.Proof); err != nil {
		t.Fatalf("the returned proof: %v", err)
	}

	// A C2-only worker does not serve it.
	c2only, err := lotus.NewWorker(lotus.WorkerConfig{Prover: plugin.NewServer(svc, "test"), Miner: mc, Name: "c2"})
	if err != nil {
		t.Fatal(err)
	}
	defer c2only.Close()
	if _, err := c2only.ProveReplicaUpdate2(ctx, sector, key, sealed, unsealed, vanilla); err == nil || !strings.Contains(err.Error(), "does not serve") {
		t.Fatalf("a C2 worker: %v", err)
	}
}

package lotus_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-jsonrpc"
	"github.com/google/uuid"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/lotus"
	"github.com/filc2/filc2/plugin/plugintest"
)

// lotusWorker runs a LotusWorker over a LocalService proving with prove,
// registered with a fake miner; it returns the miner, the worker and the
// miner's connection to it.
func lotusWorker(t *testing.T, prove plugin.ProveFunc, queue int) (*plugintest.LotusMiner, *lotus.Worker, *plugintest.ConnectedWorker) {
	t.Helper()
	miner := plugintest.NewLotusMiner(t)
	svc := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, QueueSize: queue, Prove: prove})
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
	env := map[string]string{"C2_32G_MAX_CONCURRENT": "2"}
	w, err := lotus.NewWorker(lotus.WorkerConfig{
		Prover:            plugin.NewServer(svc, "test"),
		Miner:             mc,
		Name:              "test-worker",
		Lookup:            func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		ReturnInterval:    20 * time.Millisecond,
		HeartbeatInterval: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(w.RPCHandler())
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx, srv.URL+plugin.RPCPath) }()
	t.Cleanup(func() {
		cancel()
		if err := <-ran; err != nil {
			t.Errorf("Run: %v", err)
		}
		w.Close()
	})
	return miner, w, miner.WaitConnected(t, 10*time.Second)
}

// The worker registers, answers the miner's calls with lotus's shapes,
// refuses callers without the miner's admin token, proves in the
// background and returns results (retrying), reports failures and a full
// queue with lotus's error codes, and registers again when the miner
// restarts.
func TestLotusWorker(t *testing.T) {
	a, _ := plugintest.Sealed(t)
	g := plugintest.NewGate()
	miner, w, cw := lotusWorker(t, g.Prove, 1)
	ctx := context.Background()
	api := cw.API

	if v, err := api.Version(ctx); err != nil || v != plugin.NewAPIVersion(1, 7, 0) {
		t.Fatalf("Version %v %v", v, err)
	}
	if tt, err := api.TaskTypes(ctx); err != nil || len(tt) != 1 || tt[lotus.TTCommit2] != struct{}{} {
		t.Fatalf("TaskTypes %v %v", tt, err)
	}
	if p, err := api.Paths(ctx); err != nil || p == nil || len(p) != 0 {
		t.Fatalf("Paths %#v %v", p, err)
	}
	info, err := api.Info(ctx)
	if err != nil || info.Hostname != "test-worker" || info.IgnoreResources || info.Resources.CPUs == 0 || info.Resources.MemPhysical == 0 || info.Resources.GPUs == nil {
		t.Fatalf("Info %+v %v", info, err)
	}
	if r := info.Resources.Resources[lotus.TTCommit2][8]; r.MaxConcurrent != 2 || r.MinMemory != 30<<30 {
		t.Fatalf("Info's 32GiB C2 resources %+v", r)
	}
	s1, err1 := api.Session(ctx)
	s2, err2 := api.ProcessSession(ctx)
	if err1 != nil || err2 != nil || s1 != s2 || s1 == (uuid.UUID{}) {
		t.Fatalf("sessions %v %v %v %v", s1, err1, s2, err2)
	}
	if err := api.SetEnabled(ctx, false); err != nil {
		t.Fatal(err)
	}
	if on, _ := api.Enabled(ctx); on {
		t.Fatal("enabled after SetEnabled(false)")
	}
	if _, err := api.Session(ctx); err == nil || !strings.Contains(err.Error(), "disabled") {
		t.Fatalf("Session while disabled: %v", err)
	}
	if s, err := api.ProcessSession(ctx); err != nil || s != s1 {
		t.Fatalf("ProcessSession while disabled: %v %v", s, err)
	}
	api.SetEnabled(ctx, true)

	// Callers without the miner's admin token.
	for name, h := range map[string]http.Header{
		"no token":     nil,
		"forged token": {"Authorization": []string{"Bearer " + miner.Token + "x"}},
	} {
		var other lotus.WorkerStruct
		closer, err := jsonrpc.NewMergeClient(ctx, cw.URL, lotus.Namespace, []any{&other.Internal}, h)
		if err != nil {
			t.Fatal(err)
		}
		_, err = other.Version(ctx)
		closer()
		if err == nil || !(strings.Contains(err.Error(), "admin") || strings.Contains(err.Error(), "401")) {
			t.Errorf("%s: Version answered %v", name, err)
		}
	}

	// Bad input is refused at once.
	if _, err := api.SealCommit2(ctx, plugintest.Sector(1), a[:len(a)-10]); err == nil || !strings.Contains(err.Error(), "bad input") {
		t.Fatalf("truncated C1: %v", err)
	}
	if _, err := api.SealCommit2(ctx, plugintest.Sector(2), a); err == nil || !strings.Contains(err.Error(), "another sector") {
		t.Fatalf("C1 of another sector: %v", err)
	}

	// A proof, returned on the third attempt.
	miner.FailReturns.Store(2)
	ci, err := api.SealCommit2(ctx, plugintest.Sector(1), a)
	if err != nil || ci.Sector != plugintest.Sector(1).ID || ci.ID == (uuid.UUID{}) {
		t.Fatalf("SealCommit2: %+v %v", ci, err)
	}
	id := plugin.JobID("lotus-" + ci.String())
	g.WaitRunning(t, id)
	if w.InFlight() != 1 {
		t.Fatalf("in flight: %d", w.InFlight())
	}
	g.Open(id, nil)
	r := miner.WaitReturn(t, 10*time.Second)
	if r.Call != ci || string(r.Proof) != "proof of "+string(id) || r.Err != nil || r.Attempt != 3 {
		t.Fatalf("return %+v", r)
	}

	// A failed proof is returned with code 0 and the worker's name; a full
	// queue with the temporary code 100.
	ciFail, err := api.SealCommit2(ctx, plugintest.Sector(1), a)
	if err != nil {
		t.Fatal(err)
	}
	idFail := plugin.JobID("lotus-" + ciFail.String())
	g.WaitRunning(t, idFail)
	ciQueued, err := api.SealCommit2(ctx, plugintest.Sector(1), a)
	if err != nil {
		t.Fatal(err)
	}
	ciBusy, err := api.SealCommit2(ctx, plugintest.Sector(1), a)
	if err != nil {
		t.Fatal(err)
	}
	r = miner.WaitReturn(t, 10*time.Second)
	if r.Call != ciBusy || r.Err == nil || r.Err.Code != lotus.ErrTempUnknown || !strings.Contains(r.Err.Message, "busy") || r.Proof != nil {
		t.Fatalf("busy return %+v (%+v)", r, r.Err)
	}
	g.Open(idFail, errors.New("the GPU caught fire"))
	r = miner.WaitReturn(t, 10*time.Second)
	if r.Call != ciFail || r.Err == nil || r.Err.Code != lotus.ErrUnknown || !strings.Contains(r.Err.Message, "the GPU caught fire") ||
		!strings.Contains(r.Err.Message, "[name: test-worker]") {
		t.Fatalf("failure return %+v (%+v)", r, r.Err)
	}
	idQueued := plugin.JobID("lotus-" + ciQueued.String())
	g.WaitRunning(t, idQueued)

	// The miner restarts: the worker registers again once it is quiet.
	miner.Restart()
	select {
	case <-miner.Connected:
		t.Fatal("registered again while a call was in flight")
	case <-time.After(200 * time.Millisecond):
	}
	g.Open(idQueued, nil)
	if r := miner.WaitReturn(t, 10*time.Second); r.Call != ciQueued || r.Err != nil {
		t.Fatalf("queued return %+v", r)
	}
	if err := api.WaitQuiet(ctx); err != nil {
		t.Fatal(err)
	}
	miner.WaitConnected(t, 10*time.Second)
	plugintest.WaitFor(t, 5*time.Second, "the second registration", func() bool { return w.Registrations() == 2 })
	if w.InFlight() != 0 {
		t.Fatalf("in flight %d", w.InFlight())
	}

	// Closing: the session becomes lotus's ClosedWorkerID and new calls are
	// refused.
	w.Close()
	if s, err := api.Session(ctx); err != nil || s != (uuid.UUID{}) {
		t.Fatalf("Session after Close: %v %v", s, err)
	}
	if _, err := api.SealCommit2(ctx, plugintest.Sector(1), a); err == nil {
		t.Fatal("SealCommit2 after Close succeeded")
	}
}

// A miner whose API version is not 1.5.x is refused, as lotus-worker does.
func TestLotusWorkerMinerVersion(t *testing.T) {
	w, err := lotus.NewWorker(lotus.WorkerConfig{Prover: plugintest.ErrProver{}, Miner: oldMiner{}, Name: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Run(context.Background(), "http://127.0.0.1:1/rpc/v0"); err == nil || !strings.Contains(err.Error(), "want 1.5.0") {
		t.Fatalf("Run: %v", err)
	}
	if _, err := lotus.NewWorker(lotus.WorkerConfig{Prover: plugintest.ErrProver{}, Miner: oldMiner{}, Name: "w",
		Lookup: func(k string) (string, bool) { return "lots", k == "C2_MIN_MEMORY" }}); err == nil || !strings.Contains(err.Error(), "C2_MIN_MEMORY") {
		t.Fatalf("bad resource override: %v", err)
	}
}

type oldMiner struct{ lotus.Miner }

func (oldMiner) Version(context.Context) (lotus.APIVersionInfo, error) {
	return lotus.APIVersionInfo{Version: "1.20.0", APIVersion: plugin.NewAPIVersion(1, 2, 0)}, nil
}

// A worker that stops with a call in flight leaves it in CallsFile; the
// next worker on that file reports it to the miner as
// ErrTempWorkerRestart, as lotus's workers do. Two workers cannot share
// the file.
func TestLotusWorkerRestartReportsLostCalls(t *testing.T) {
	a, _ := plugintest.Sealed(t)
	g := plugintest.NewGate()
	miner := plugintest.NewLotusMiner(t)
	svc := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, QueueSize: 4, Prove: g.Prove})
	t.Cleanup(func() { svc.Close() })
	info, _ := lotus.ParseMinerAPIInfo(miner.APIInfo)
	mc, closer, err := lotus.DialMiner(context.Background(), info)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closer)
	calls := t.TempDir() + "/worker-calls.json"
	cfg := lotus.WorkerConfig{Prover: plugin.NewServer(svc, "test"), Miner: mc, Name: "w1", CallsFile: calls,
		ReturnInterval: 20 * time.Millisecond, HeartbeatInterval: time.Hour}
	start := func(name string) (*lotus.Worker, *plugintest.ConnectedWorker, func()) {
		cfg.Name = name
		w, err := lotus.NewWorker(cfg)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(w.RPCHandler())
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan error, 1)
		go func() { ran <- w.Run(ctx, srv.URL+plugin.RPCPath) }()
		return w, miner.WaitConnected(t, 10*time.Second), func() {
			cancel()
			<-ran
			w.Close()
			srv.Close()
		}
	}
	w1, cw, stop1 := start("w1")
	if _, err := lotus.NewWorker(cfg); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("a second worker on the same calls file: %v", err)
	}
	ci, err := cw.API.SealCommit2(context.Background(), plugintest.Sector(1), a)
	if err != nil {
		t.Fatal(err)
	}
	g.WaitRunning(t, plugin.JobID("lotus-"+ci.String()))
	stop1()
	plugintest.WaitFor(t, 5*time.Second, "the first worker to let go of its call", func() bool { return w1.InFlight() == 0 })
	_, _, stop2 := start("w2")
	defer stop2()
	r := miner.WaitReturn(t, 10*time.Second)
	if r.Call != ci || r.Err == nil || r.Err.Code != lotus.ErrTempWorkerRestart || !strings.Contains(r.Err.Message, "restarted") {
		t.Fatalf("lost call: %+v (%+v)", r, r.Err)
	}
	plugintest.WaitFor(t, 5*time.Second, "the calls file to empty", func() bool {
		b, err := os.ReadFile(calls)
		return err == nil && string(b) == "[]"
	})
}

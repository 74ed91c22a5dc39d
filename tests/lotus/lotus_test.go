// Package lotus tests filc2's lotus adapters against lotus v1.34.0's own
// code: its api, api/client and storage/sealer/storiface packages (which
// build without filecoin-ffi). It is a module of its own so that filc2's
// main module never depends on lotus. Run it with ./build.sh lotus-test
// (GONOSUMDB=github.com/filecoin-project/lotus: the sum database has no
// entry for lotus v1.34.0).
package lotus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	commcid "github.com/filecoin-project/go-fil-commcid"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/gbrlsnchs/jwt/v3"
	"github.com/google/uuid"

	lapi "github.com/filecoin-project/lotus/api"
	"github.com/filecoin-project/lotus/api/client"
	"github.com/filecoin-project/lotus/api/v0api"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"

	"github.com/filc2/filc2/plugin"
	flotus "github.com/filc2/filc2/plugin/lotus"
	"github.com/filc2/filc2/plugin/plugintest"
	fabi "github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/fallback"
)

func TestMain(m *testing.M) {
	code := m.Run()
	plugintest.Cleanup()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// filc2Binary builds cmd/filc2 in the main module (../..), with the main
// module's own dependency versions.
func filc2Binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "filc2-lotus-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "filc2")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/filc2")
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build ./cmd/filc2 in the main module: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// jwtPayload and the signing are lotus's (node/impl/common/common.go).
type jwtPayload struct {
	Allow []auth.Permission
}

// miner plays the lotus miner with lotus's own API structs: a
// StorageMinerStruct behind lotus's permission proxy and JWT auth, whose
// WorkerConnect does what lotus's does (node/impl/remoteworker.go and
// Manager.AddWorker): an admin token of its own, client.NewWorkerRPCV0,
// the version check, then Session, TaskTypes and Info.
type miner struct {
	secret  *jwt.HMACSHA
	token   string // admin, as `lotus-miner auth api-info --perm admin`
	apiInfo string
	session uuid.UUID
	url     string // the miner's HTTP server, whose /remote is its storage node

	mu      sync.Mutex
	commR   map[abi.SectorNumber][32]byte // the comm_r of each sector /remote/vanilla/single served
	missing map[abi.SectorNumber]bool     // sectors the storage node fails to read
	reads   int                           // vanilla/single requests served

	connected chan connected
	returns   chan returned
}

type connected struct {
	url    string
	worker v0api.Worker
	info   storiface.WorkerInfo
	tasks  map[sealtasks.TaskType]struct{}
}

type returned struct {
	call  storiface.CallID
	proof storiface.Proof
	err   *storiface.CallError
}

func newMiner(t *testing.T) *miner {
	t.Helper()
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i*7 + 1)
	}
	m := &miner{secret: jwt.NewHS256(key), session: uuid.New(), connected: make(chan connected, 4), returns: make(chan returned, 16)}
	tok, err := jwt.Sign(&jwtPayload{Allow: lapi.AllPermissions}, m.secret)
	if err != nil {
		t.Fatal(err)
	}
	m.token = string(tok)

	var impl lapi.StorageMinerStruct
	impl.CommonStruct.Internal.AuthVerify = m.authVerify
	impl.CommonStruct.Internal.Version = func(context.Context) (lapi.APIVersion, error) {
		return lapi.APIVersion{Version: "1.34.0+filc2-test", APIVersion: lapi.MinerAPIVersion0, BlockDelay: 30, Agent: "lotus"}, nil
	}
	impl.CommonStruct.Internal.Session = func(context.Context) (uuid.UUID, error) { return m.session, nil }
	impl.Internal.WorkerConnect = m.workerConnect
	impl.Internal.ReturnSealCommit2 = func(ctx context.Context, call storiface.CallID, proof storiface.Proof, cerr *storiface.CallError) error {
		m.returns <- returned{call, proof, cerr}
		return nil
	}
	impl.Internal.ReturnProveReplicaUpdate2 = func(ctx context.Context, call storiface.CallID, proof storiface.ReplicaUpdateProof, cerr *storiface.CallError) error {
		m.returns <- returned{call, storiface.Proof(proof), cerr}
		return nil
	}
	impl.Internal.StorageFindSector = func(ctx context.Context, sid abi.SectorID, ft storiface.SectorFileType, _ abi.SectorSize, _ bool) ([]storiface.SectorStorageInfo, error) {
		if ft != storiface.FTSealed|storiface.FTCache || sid.Miner != plugintest.Miner {
			return nil, fmt.Errorf("StorageFindSector %v for file types %v: the test holds sealed and cache files of miner %d", sid, ft, plugintest.Miner)
		}
		return []storiface.SectorStorageInfo{{ID: "store-1", URLs: []string{m.url + "/remote"}, BaseURLs: []string{m.url + "/remote"},
			Weight: 10, CanStore: true, Primary: true}}, nil
	}
	m.commR, m.missing = map[abi.SectorNumber][32]byte{}, map[abi.SectorNumber]bool{}
	rpc := jsonrpc.NewServer(jsonrpc.WithServerErrors(lapi.RPCErrors))
	rpc.Register("Filecoin", lapi.PermissionedStorMinerAPI(&impl))
	mux := http.NewServeMux()
	mux.Handle("/rpc/v0", &auth.Handler{Verify: m.authVerify, Next: rpc.ServeHTTP})
	mux.Handle("POST /remote/vanilla/single", &auth.Handler{Verify: m.authVerify, Next: m.vanillaSingle})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	m.url = srv.URL
	host, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	m.apiInfo = m.token + ":/ip4/" + host + "/tcp/" + port + "/http"
	return m
}

// vanillaSingle plays a lotus storage node's POST /remote/vanilla/single
// (paths.FetchHandler, admin only): the vanilla proof of the sector for the
// challenges in the request, from a sparse fixture sector of its number.
func (m *miner) vanillaSingle(w http.ResponseWriter, r *http.Request) {
	if !auth.HasPerm(r.Context(), nil, lapi.PermAdmin) {
		http.Error(w, "unauthorized: admin needed", http.StatusUnauthorized)
		return
	}
	var params struct { // lotus's paths.SingleVanillaParams
		Miner     abi.ActorID
		Sector    storiface.PostSectorChallenge
		ProofType abi.RegisteredPoStProof
	}
	if err := json.NewDecoder(r.Body).Decode(&params); err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	p, err := fabi.LookupPoSt(params.ProofType)
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	n := params.Sector.SectorNumber
	m.mu.Lock()
	m.reads++
	missing := m.missing[n]
	m.mu.Unlock()
	if missing {
		http.Error(w, fmt.Sprintf("reading sector %d: input/output error", n), 500)
		return
	}
	var seed [32]byte
	seed[0], seed[1] = byte(n), 0x5e
	tree, err := fallback.SparseSectorTree(p, seed, params.Sector.Challenge)
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	v, err := fallback.GenerateSectorVanilla(p, uint64(n), tree, params.Sector.Challenge)
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	m.mu.Lock()
	m.commR[n] = v.CommR
	m.mu.Unlock()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Write(v.Encode())
}

func (m *miner) authVerify(_ context.Context, token string) ([]auth.Permission, error) {
	var p jwtPayload
	if _, err := jwt.Verify([]byte(token), m.secret, &p); err != nil {
		return nil, fmt.Errorf("JWT Verification failed: %w", err)
	}
	return p.Allow, nil
}

func (m *miner) workerConnect(ctx context.Context, url string) error {
	tok, err := jwt.Sign(&jwtPayload{Allow: []auth.Permission{lapi.PermAdmin}}, m.secret) // AuthNew(ctx, ["admin"])
	if err != nil {
		return err
	}
	headers := http.Header{}
	headers.Add("Authorization", "Bearer "+string(tok))
	w, _, err := client.NewWorkerRPCV0(context.TODO(), url, headers)
	if err != nil {
		return fmt.Errorf("creating jsonrpc client: %w", err)
	}
	wver, err := w.Version(ctx)
	if err != nil {
		return err
	}
	if !wver.EqMajorMinor(lapi.WorkerAPIVersion0) {
		return fmt.Errorf("unsupported worker api version: %s (expected %s)", wver, lapi.WorkerAPIVersion0)
	}
	sess, err := w.Session(ctx)
	if err != nil {
		return fmt.Errorf("getting worker session: %w", err)
	}
	if sess == (uuid.UUID{}) {
		return errors.New("worker already closed")
	}
	tasks, err := w.TaskTypes(ctx)
	if err != nil {
		return fmt.Errorf("getting worker tasks: %w", err)
	}
	info, err := w.Info(ctx)
	if err != nil {
		return fmt.Errorf("getting worker info: %w", err)
	}
	m.connected <- connected{url: url, worker: w, info: info, tasks: tasks}
	return nil
}

type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// proc is a running filc2 process.
type proc struct {
	log    *logBuffer
	exited chan struct{} // closed when it exits; err is then set
	err    error
}

// start runs the filc2 binary with args and FILC2_PATH home; t's cleanup
// stops it with SIGTERM and requires a clean exit.
func start(t *testing.T, home string, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(filc2Binary(t), args...)
	cmd.Env = append(append(os.Environ(), plugin.EnvHome+"="+home), env...)
	p := &proc{log: new(logBuffer), exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
			if p.err != nil {
				t.Errorf("filc2 %s exited with %v", args[0], p.err)
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Errorf("filc2 %s did not stop on SIGTERM", args[0])
		}
		if t.Failed() {
			t.Logf("filc2 %s log:\n%s", args[0], p.log)
		}
	})
	return p
}

// filc2's mirrors of lotus's types have lotus's JSON, and its C2 resource
// table is lotus's ParseResourceEnv's.
func TestMirroredTypes(t *testing.T) {
	id := uuid.New()
	pairs := []struct{ ours, theirs any }{
		{flotus.CallID{Sector: abi.SectorID{Miner: 1000, Number: 42}, ID: id}, storiface.CallID{Sector: abi.SectorID{Miner: 1000, Number: 42}, ID: id}},
		{flotus.CallError{Code: flotus.ErrTempWorkerRestart, Message: "m"}, *storiface.Err(storiface.ErrTempWorkerRestart, errors.New("m"))},
		{plugin.SectorRef{ID: abi.SectorID{Miner: 1, Number: 2}, ProofType: 8}, storiface.SectorRef{ID: abi.SectorID{Miner: 1, Number: 2}, ProofType: 8}},
		{flotus.WorkerAPIVersion, lapi.WorkerAPIVersion0},
		{flotus.MinerAPIVersion, lapi.MinerAPIVersion0},
		{flotus.TTCommit2, sealtasks.TTCommit2},
		{flotus.TTProveReplicaUpdate2, sealtasks.TTProveReplicaUpdate2},
		{flotus.TTGenerateWindowPoSt, sealtasks.TTGenerateWindowPoSt},
		{flotus.TTGenerateWinningPoSt, sealtasks.TTGenerateWinningPoSt},
		{flotus.FTSealed | flotus.FTCache | flotus.FTUpdate | flotus.FTUpdateCache, storiface.FTSealed | storiface.FTCache | storiface.FTUpdate | storiface.FTUpdateCache},
		{flotus.PostSectorChallenge{SealProof: 8, SectorNumber: 3, Challenge: []uint64{1, 2}, Update: true},
			storiface.PostSectorChallenge{SealProof: 8, SectorNumber: 3, Challenge: []uint64{1, 2}, Update: true}},
		{flotus.WindowPoStResult{Skipped: []abi.SectorID{{Miner: 1, Number: 2}}}, storiface.WindowPoStResult{Skipped: []abi.SectorID{{Miner: 1, Number: 2}}}},
		{flotus.SectorStorageInfo{ID: "s", URLs: []string{"u"}, BaseURLs: []string{"b"}, Weight: 2, CanStore: true, Primary: true, AllowTypes: []string{"sealed"}},
			storiface.SectorStorageInfo{ID: "s", URLs: []string{"u"}, BaseURLs: []string{"b"}, Weight: 2, CanStore: true, Primary: true, AllowTypes: []string{"sealed"}}},
		{flotus.StoragePath{ID: "x", Weight: 1, LocalPath: "/p", CanSeal: true}, storiface.StoragePath{ID: "x", Weight: 1, LocalPath: "/p", CanSeal: true}},
		{flotus.RemoteCommit2Params{Sector: abi.SectorID{Miner: 1, Number: 2}, ProofType: 5, Commit1Out: []byte("c1")},
			lapi.RemoteCommit2Params{Sector: abi.SectorID{Miner: 1, Number: 2}, ProofType: 5, Commit1Out: []byte("c1")}},
		{flotus.APIVersionInfo{Version: "v", APIVersion: flotus.MinerAPIVersion, BlockDelay: 30, Agent: "lotus"},
			lapi.APIVersion{Version: "v", APIVersion: lapi.MinerAPIVersion0, BlockDelay: 30, Agent: "lotus"}},
		{flotus.WorkerInfo{Hostname: "h", Resources: flotus.WorkerResources{MemPhysical: 1, MemUsed: 2, MemSwap: 3, MemSwapUsed: 4, CPUs: 5, GPUs: []string{"g"}}},
			storiface.WorkerInfo{Hostname: "h", Resources: storiface.WorkerResources{MemPhysical: 1, MemUsed: 2, MemSwap: 3, MemSwapUsed: 4, CPUs: 5, GPUs: []string{"g"}}}},
	}
	for _, p := range pairs {
		a, _ := json.Marshal(p.ours)
		b, _ := json.Marshal(p.theirs)
		if !bytes.Equal(a, b) {
			t.Errorf("%T: %s\nlotus's %T: %s", p.ours, a, p.theirs, b)
		}
	}
	for _, env := range []map[string]string{
		{},
		{"C2_32G_MIN_MEMORY": "1000", "C2_MIN_MEMORY": "7", "C2_GPU_UTILIZATION": "0.5", "C2_64G_MAX_CONCURRENT": "3", "C2_MAX_PARALLELISM_GPU": "2",
			"PR2_32G_MIN_MEMORY": "2000", "PR2_MAX_CONCURRENT": "4"},
	} {
		ours, err := flotus.TaskResources(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, flotus.TTCommit2, flotus.TTProveReplicaUpdate2)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := storiface.ParseResourceEnv(func(k, _ string) (string, bool) { v, ok := env[k]; return v, ok })
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []flotus.TaskType{flotus.TTCommit2, flotus.TTProveReplicaUpdate2} {
			a, _ := json.Marshal(ours[tt])
			b, _ := json.Marshal(theirs[sealtasks.TaskType(tt)])
			if !bytes.Equal(a, b) {
				t.Errorf("env %v: %s resources\nfilc2: %s\nlotus: %s", env, tt, a, b)
			}
		}
	}
}

// `filc2 worker` against lotus's client code: it registers with the miner,
// the miner dials it back with client.NewWorkerRPCV0 and gets lotus's
// answers, SealCommit2 answers a CallID and ReturnSealCommit2 brings a
// proof that verifies.
func TestWorker(t *testing.T) {
	params := plugintest.Params(t)
	m := newMiner(t)
	home := filepath.Join(t.TempDir(), "home")
	p := start(t, home, []string{"MINER_API_INFO=" + m.apiInfo},
		"worker", "--listen", "127.0.0.1:0", "--params-dir", params, "--backend", "cpu", "--name", "filc2-test")
	var c connected
	select {
	case c = <-m.connected:
	case <-p.exited:
		t.Fatalf("filc2 worker exited: %v", p.err)
	case <-time.After(2 * time.Minute):
		t.Fatal("filc2 worker did not register")
	}
	ctx := context.Background()
	w := c.worker
	if v, err := w.Version(ctx); err != nil || v != lapi.WorkerAPIVersion0 {
		t.Fatalf("Version %v %v", v, err)
	}
	if len(c.tasks) != 1 || c.tasks[sealtasks.TTCommit2] != struct{}{} {
		t.Fatalf("TaskTypes %v", c.tasks)
	}
	if c.info.Hostname != "filc2-test" || c.info.IgnoreResources || c.info.Resources.MemPhysical == 0 || c.info.Resources.CPUs == 0 {
		t.Fatalf("Info %+v", c.info)
	}
	spec := c.info.Resources.ResourceSpec(abi.RegisteredSealProof_StackedDrg32GiBV1_1, sealtasks.TTCommit2)
	if spec != storiface.ResourceTable[sealtasks.TTCommit2][abi.RegisteredSealProof_StackedDrg32GiBV1_1] {
		t.Fatalf("32GiB C2 resources %+v", spec)
	}
	if p, err := w.Paths(ctx); err != nil || len(p) != 0 {
		t.Fatalf("Paths %v %v", p, err)
	}
	s1, err1 := w.Session(ctx)
	s2, err2 := w.ProcessSession(ctx)
	if on, err := w.Enabled(ctx); err1 != nil || err2 != nil || s1 != s2 || !on || err != nil {
		t.Fatalf("Session %v %v, ProcessSession %v %v, Enabled %v %v", s1, err1, s2, err2, on, err)
	}

	c1o := plugintest.SealC1(t, 5, 11)
	sector := storiface.SectorRef{ID: abi.SectorID{Miner: plugintest.Miner, Number: 5}, ProofType: abi.RegisteredSealProof_StackedDrg2KiBV1_1}
	if _, err := w.SealCommit2(ctx, storiface.SectorRef{ID: abi.SectorID{Miner: 1001, Number: 5}, ProofType: sector.ProofType}, c1o); err == nil ||
		!strings.Contains(err.Error(), "another sector") {
		t.Fatalf("a C1 of another miner: %v", err)
	}
	t0 := time.Now()
	call, err := w.SealCommit2(ctx, sector, c1o)
	if err != nil || call.Sector != sector.ID || call.ID == (uuid.UUID{}) {
		t.Fatalf("SealCommit2 %v %v", call, err)
	}
	select {
	case r := <-m.returns:
		if r.call != call || r.err != nil {
			t.Fatalf("ReturnSealCommit2 %v %v", r.call, r.err)
		}
		if err := plugintest.Verify(t, c1o, r.proof); err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Minute):
		t.Fatal("no ReturnSealCommit2")
	}
	t.Logf("SealCommit2 through lotus's client: a verifying proof returned in %v", time.Since(t0).Round(time.Millisecond))
}

// `filc2 worker --prove-replica-update2 --no-commit2` against lotus's client
// code: TaskTypes is the update task alone, Info carries lotus's PR2 table,
// ProveReplicaUpdate2 (lotus's storiface types: the three CIDs and
// ReplicaVanillaProofs) answers a CallID, and ReturnProveReplicaUpdate2
// brings an update proof that verifies; vanilla proofs of another update
// are refused at once.
func TestUpdateWorker(t *testing.T) {
	params := plugintest.SnapParams(t)
	m := newMiner(t)
	home := filepath.Join(t.TempDir(), "home")
	p := start(t, home, []string{"MINER_API_INFO=" + m.apiInfo},
		"worker", "--listen", "127.0.0.1:0", "--params-dir", params, "--backend", "cpu", "--prove-replica-update2", "--no-commit2")
	var c connected
	select {
	case c = <-m.connected:
	case <-p.exited:
		t.Fatalf("filc2 worker exited: %v", p.err)
	case <-time.After(2 * time.Minute):
		t.Fatal("filc2 worker did not register")
	}
	if len(c.tasks) != 1 || c.tasks[sealtasks.TTProveReplicaUpdate2] != struct{}{} {
		t.Fatalf("TaskTypes %v", c.tasks)
	}
	spec := c.info.Resources.ResourceSpec(abi.RegisteredSealProof_StackedDrg32GiBV1_1, sealtasks.TTProveReplicaUpdate2)
	if spec != storiface.ResourceTable[sealtasks.TTProveReplicaUpdate2][abi.RegisteredSealProof_StackedDrg32GiBV1_1] {
		t.Fatalf("32GiB PR2 resources %+v", spec)
	}
	ctx := context.Background()
	pub, vanilla := plugintest.SnapVanilla(t, 1)
	_, vanilla2 := plugintest.SnapVanilla(t, 2)
	key, _ := commcid.ReplicaCommitmentV1ToCID(pub.CommROld[:])
	sealed, _ := commcid.ReplicaCommitmentV1ToCID(pub.CommRNew[:])
	unsealed, _ := commcid.DataCommitmentV1ToCID(pub.CommDNew[:])
	sector := storiface.SectorRef{ID: abi.SectorID{Miner: plugintest.Miner, Number: 7}, ProofType: abi.RegisteredSealProof_StackedDrg2KiBV1_1}
	if _, err := c.worker.ProveReplicaUpdate2(ctx, sector, key, sealed, unsealed, storiface.ReplicaVanillaProofs(vanilla2)); err == nil ||
		!strings.Contains(err.Error(), "vanilla proof of partition 0") {
		t.Fatalf("another update's vanilla proofs: %v", err)
	}
	call, err := c.worker.ProveReplicaUpdate2(ctx, sector, key, sealed, unsealed, storiface.ReplicaVanillaProofs(vanilla))
	if err != nil || call.Sector != sector.ID {
		t.Fatalf("ProveReplicaUpdate2 %v %v", call, err)
	}
	select {
	case r := <-m.returns:
		if r.call != call || r.err != nil {
			t.Fatalf("ReturnProveReplicaUpdate2 %v %v", r.call, r.err)
		}
		if err := plugintest.VerifySnap(t, pub, r.proof); err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Minute):
		t.Fatal("no ReturnProveReplicaUpdate2")
	}
	if _, err := c.worker.SealCommit2(ctx, sector, []byte("{}")); err == nil || !strings.Contains(err.Error(), "does not serve") {
		t.Fatalf("SealCommit2 on an update-only worker: %v", err)
	}
}

// `filc2 serve`'s /remote-commit2 answers the request lotus's sealing
// pipeline makes (storage/pipeline/states_sealing.go): lotus's
// RemoteCommit2Params JSON, POSTed with http.DefaultClient, no
// Authorization header; the body of the 200 is the proof.
func TestRemoteCommit2Endpoint(t *testing.T) {
	params := plugintest.Params(t)
	home := filepath.Join(t.TempDir(), "home")
	cmd := exec.Command(filc2Binary(t), "auth", "create-token", "--perm", "write")
	cmd.Env = append(os.Environ(), plugin.EnvHome+"="+home)
	tok, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, home, nil, "serve", "--listen", "127.0.0.1:0", "--params-dir", params, "--backend", "cpu")
	var base string
	for deadline := time.Now().Add(time.Minute); base == ""; {
		if b, err := os.ReadFile(filepath.Join(home, "api")); err == nil {
			base = strings.TrimSuffix(strings.TrimSpace(string(b)), plugin.RPCPath)
			break
		}
		select {
		case <-p.exited:
			t.Fatalf("filc2 serve exited: %v", p.err)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("filc2 serve did not start")
		}
	}
	endpoint := base + flotus.RemoteCommit2Path + "?token=" + strings.TrimSpace(string(tok))

	c1o := plugintest.SealC1(t, 6, 12)
	reqData := lapi.RemoteCommit2Params{
		ProofType:  abi.RegisteredSealProof_StackedDrg2KiBV1_1,
		Sector:     abi.SectorID{Miner: plugintest.Miner, Number: 6},
		Commit1Out: c1o,
	}
	commit2 := func(reqData lapi.RemoteCommit2Params) (*http.Response, []byte) {
		t.Helper()
		reqBody, err := json.Marshal(&reqData)
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequest("POST", endpoint, bytes.NewReader(reqBody))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	bad := reqData
	bad.Sector.Number = 7
	if resp, body := commit2(bad); resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "another sector") {
		t.Fatalf("another sector's C1: %s %s", resp.Status, body)
	}
	t0 := time.Now()
	resp, proof := commit2(reqData)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("remote commit2 received non-200 http response %s: %s", resp.Status, proof)
	}
	if err := plugintest.Verify(t, c1o, proof); err != nil {
		t.Fatal(err)
	}
	t.Logf("RemoteCommit2Endpoint: a verifying proof in %v", time.Since(t0).Round(time.Millisecond))
}

// `filc2 worker --windowpost --winningpost` against lotus's client code: it
// registers as a PoSt worker, and for the miner's GenerateWindowPoSt and
// GenerateWinningPoSt it reads each sector's vanilla proof from the storage
// node the miner's StorageFindSector names (/remote/vanilla/single) and
// returns proofs that verify; a sector the storage node cannot read comes
// back skipped, without an error, as lotus's worker answers.
func TestPoStWorker(t *testing.T) {
	params := plugintest.PoStParams(t)
	m := newMiner(t)
	home := filepath.Join(t.TempDir(), "home")
	p := start(t, home, []string{"MINER_API_INFO=" + m.apiInfo},
		"worker", "--windowpost", "--winningpost", "--listen", "127.0.0.1:0", "--params-dir", params, "--backend", "cpu", "--name", "filc2-post")
	var c connected
	select {
	case c = <-m.connected:
	case <-p.exited:
		t.Fatalf("filc2 worker exited: %v", p.err)
	case <-time.After(2 * time.Minute):
		t.Fatal("filc2 worker did not register")
	}
	if len(c.tasks) != 2 || c.tasks[sealtasks.TTGenerateWindowPoSt] != struct{}{} || c.tasks[sealtasks.TTGenerateWinningPoSt] != struct{}{} {
		t.Fatalf("TaskTypes %v", c.tasks)
	}
	ctx := context.Background()
	w := c.worker
	// The miner masks the randomness and derives the challenges
	// (manager_post.go, GeneratePoStFallbackSectorChallenges).
	rand := abi.PoStRandomness(bytes.Repeat([]byte{0xa5}, 32))
	rand[31] &= 0x3f
	var masked fallback.Randomness
	copy(masked[:], rand)
	challenges := func(p fabi.PoStProof, nums ...abi.SectorNumber) []storiface.PostSectorChallenge {
		var out []storiface.PostSectorChallenge
		for i, n := range nums {
			out = append(out, storiface.PostSectorChallenge{SealProof: abi.RegisteredSealProof_StackedDrg2KiBV1_1, SectorNumber: n,
				Challenge: fallback.VanillaChallenges(p, masked, uint64(n), i)})
		}
		return out
	}
	public := func(nums ...abi.SectorNumber) []fallback.PublicSector {
		m.mu.Lock()
		defer m.mu.Unlock()
		var out []fallback.PublicSector
		for _, n := range nums {
			out = append(out, fallback.PublicSector{ID: uint64(n), CommR: m.commR[n]})
		}
		return out
	}

	wp := plugintest.WindowPoSt
	t0 := time.Now()
	res, err := w.GenerateWindowPoSt(ctx, wp.Proof, plugintest.Miner, challenges(wp, 3), 0, rand)
	if err != nil || len(res.Skipped) != 0 || res.PoStProofs.PoStProof != wp.Proof {
		t.Fatalf("GenerateWindowPoSt: %+v %v", res, err)
	}
	if err := plugintest.VerifyPoSt(t, wp, masked, public(3), 0, res.PoStProofs.ProofBytes); err != nil {
		t.Fatalf("the WindowPoSt proof: %v", err)
	}
	t.Logf("GenerateWindowPoSt through lotus's client: a verifying proof in %v", time.Since(t0).Round(time.Millisecond))
	if err := plugintest.VerifyPoSt(t, wp, masked, public(4), 0, res.PoStProofs.ProofBytes); err == nil {
		t.Fatal("the WindowPoSt proof verifies for another sector")
	}

	// A sector the storage node cannot read: skipped, no error, no proof.
	m.mu.Lock()
	m.missing[9] = true
	m.mu.Unlock()
	res, err = w.GenerateWindowPoSt(ctx, wp.Proof, plugintest.Miner, challenges(wp, 3, 9), 0, rand)
	if err != nil || len(res.Skipped) != 1 || res.Skipped[0] != (abi.SectorID{Miner: plugintest.Miner, Number: 9}) || len(res.PoStProofs.ProofBytes) != 0 {
		t.Fatalf("GenerateWindowPoSt with an unreadable sector: %+v %v", res, err)
	}

	np := plugintest.WinningPoSt
	proofs, err := w.GenerateWinningPoSt(ctx, np.Proof, plugintest.Miner, challenges(np, 5), rand)
	if err != nil || len(proofs) != 1 || proofs[0].PoStProof != np.Proof {
		t.Fatalf("GenerateWinningPoSt: %+v %v", proofs, err)
	}
	if err := plugintest.VerifyPoSt(t, np, masked, public(5), 0, proofs[0].ProofBytes); err != nil {
		t.Fatalf("the WinningPoSt proof: %v", err)
	}
	if _, err := w.GenerateWinningPoSt(ctx, np.Proof, plugintest.Miner, challenges(np, 9), rand); err == nil {
		t.Fatal("GenerateWinningPoSt of an unreadable sector succeeded")
	}
	// A PoSt worker does no C2.
	if _, err := w.SealCommit2(ctx, storiface.SectorRef{ID: abi.SectorID{Miner: plugintest.Miner, Number: 1}, ProofType: abi.RegisteredSealProof_StackedDrg2KiBV1_1}, []byte("{}")); err == nil ||
		!strings.Contains(err.Error(), "does not serve") {
		t.Fatalf("SealCommit2 on a PoSt worker: %v", err)
	}
}

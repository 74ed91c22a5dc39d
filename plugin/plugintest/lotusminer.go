package plugintest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/google/uuid"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/lotus"
)

// LotusMiner is a fake lotus miner on loopback for worker tests, made of
// filc2's mirrors of lotus's types (tests/lotus plays the miner with
// lotus's own): it serves the miner methods a worker calls (Version,
// Session, AuthVerify, WorkerConnect, ReturnSealCommit2) at /rpc/v0 behind
// lotus-style JWT auth, and on WorkerConnect dials the worker back with an
// admin token it signs, checking the worker's Version as lotus does.
type LotusMiner struct {
	URL     string // http://127.0.0.1:PORT/rpc/v0
	APIInfo string // TOKEN:/ip4/127.0.0.1/tcp/PORT/http, for --miner-api
	Token   string // an admin token of this miner
	Secret  []byte

	// Connected receives each worker that registered, Returns each
	// ReturnSealCommit2 the miner accepted.
	Connected chan *ConnectedWorker
	Returns   chan LotusReturn
	// FailReturns makes the next n ReturnSealCommit2 calls fail.
	FailReturns atomic.Int32

	h *minerHandler
}

// ConnectedWorker is a worker the fake miner dialled back.
type ConnectedWorker struct {
	URL string
	API *lotus.WorkerStruct
}

// LotusReturn is one accepted ReturnSealCommit2 or ReturnProveReplicaUpdate2.
type LotusReturn struct {
	Method  string // "ReturnSealCommit2" or "ReturnProveReplicaUpdate2"
	Call    lotus.CallID
	Proof   plugin.Proof
	Err     *lotus.CallError
	Attempt int // 1 for the first call for this CallID
}

// NewLotusMiner starts a fake miner; t's cleanup stops it.
func NewLotusMiner(t testing.TB) *LotusMiner {
	t.Helper()
	m := &LotusMiner{
		Secret:    make([]byte, 32),
		Connected: make(chan *ConnectedWorker, 16),
		Returns:   make(chan LotusReturn, 64),
	}
	rand.Read(m.Secret)
	tok, err := plugin.NewToken(m.Secret, plugin.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	m.Token = tok
	m.h = &minerHandler{m: m, attempts: map[lotus.CallID]int{}}
	m.h.session.Store(uuid.New())
	rpc := jsonrpc.NewServer()
	rpc.Register(lotus.Namespace, m.h)
	mux := http.NewServeMux()
	mux.Handle(plugin.RPCPath, &auth.Handler{Verify: plugin.TokenVerifier(m.Secret), Next: rpc.ServeHTTP})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		m.h.closeWorkers()
		srv.Close()
	})
	host, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	m.URL = srv.URL + plugin.RPCPath
	m.APIInfo = fmt.Sprintf("%s:/ip4/%s/tcp/%s/http", tok, host, port)
	return m
}

// Restart gives the miner a new session, as a restarted miner has: a
// worker registers again.
func (m *LotusMiner) Restart() { m.h.session.Store(uuid.New()) }

// WaitConnected waits for the next registration.
func (m *LotusMiner) WaitConnected(t testing.TB, d time.Duration) *ConnectedWorker {
	t.Helper()
	select {
	case w := <-m.Connected:
		return w
	case <-time.After(d):
		t.Fatalf("no worker registered within %v", d)
		return nil
	}
}

// WaitReturn waits for the next accepted ReturnSealCommit2.
func (m *LotusMiner) WaitReturn(t testing.TB, d time.Duration) LotusReturn {
	t.Helper()
	select {
	case r := <-m.Returns:
		return r
	case <-time.After(d):
		t.Fatalf("no ReturnSealCommit2 within %v", d)
		return LotusReturn{}
	}
}

// minerHandler holds the fake miner's RPC methods (and only those: go-jsonrpc
// registers every exported method).
type minerHandler struct {
	m       *LotusMiner
	session atomic.Value // uuid.UUID

	mu       sync.Mutex
	attempts map[lotus.CallID]int
	closers  []jsonrpc.ClientCloser
}

func needAdmin(ctx context.Context, method string) error {
	if !auth.HasPerm(ctx, nil, plugin.PermAdmin) {
		return fmt.Errorf("missing permission to invoke '%s' (need 'admin')", method)
	}
	return nil
}

func (h *minerHandler) Version(ctx context.Context) (lotus.APIVersionInfo, error) {
	return lotus.APIVersionInfo{Version: "1.34.0+filc2-fake-miner", APIVersion: lotus.MinerAPIVersion, BlockDelay: 30}, nil
}

func (h *minerHandler) Session(ctx context.Context) (uuid.UUID, error) {
	return h.session.Load().(uuid.UUID), nil
}

func (h *minerHandler) AuthVerify(ctx context.Context, token string) ([]auth.Permission, error) {
	return plugin.TokenVerifier(h.m.Secret)(ctx, token)
}

func (h *minerHandler) WorkerConnect(ctx context.Context, url string) error {
	if err := needAdmin(ctx, "WorkerConnect"); err != nil {
		return err
	}
	// As lotus's connectRemoteWorker: an admin token of our own, HTTP, and
	// the worker's version checked on major and minor.
	tok, err := plugin.NewToken(h.m.Secret, plugin.AllPermissions)
	if err != nil {
		return err
	}
	api := new(lotus.WorkerStruct)
	closer, err := jsonrpc.NewMergeClient(ctx, url, lotus.Namespace, []any{&api.Internal},
		http.Header{"Authorization": []string{"Bearer " + tok}}, jsonrpc.WithNoReconnect(), jsonrpc.WithTimeout(30*time.Second))
	if err != nil {
		return err
	}
	v, err := api.Version(ctx)
	if err != nil {
		closer()
		return err
	}
	if !v.EqMajorMinor(lotus.WorkerAPIVersion) {
		closer()
		return fmt.Errorf("unsupported worker api version: %s (expected %s)", v, lotus.WorkerAPIVersion)
	}
	if _, err := api.Session(ctx); err != nil {
		closer()
		return fmt.Errorf("getting worker session: %w", err)
	}
	h.mu.Lock()
	h.closers = append(h.closers, closer)
	h.mu.Unlock()
	select {
	case h.m.Connected <- &ConnectedWorker{URL: url, API: api}:
	default:
	}
	return nil
}

func (h *minerHandler) ReturnSealCommit2(ctx context.Context, callID lotus.CallID, proof plugin.Proof, cerr *lotus.CallError) error {
	return h.ret(ctx, "ReturnSealCommit2", callID, proof, cerr)
}

func (h *minerHandler) ReturnProveReplicaUpdate2(ctx context.Context, callID lotus.CallID, proof plugin.Proof, cerr *lotus.CallError) error {
	return h.ret(ctx, "ReturnProveReplicaUpdate2", callID, proof, cerr)
}

func (h *minerHandler) ret(ctx context.Context, method string, callID lotus.CallID, proof plugin.Proof, cerr *lotus.CallError) error {
	if err := needAdmin(ctx, method); err != nil {
		return err
	}
	h.mu.Lock()
	h.attempts[callID]++
	n := h.attempts[callID]
	h.mu.Unlock()
	if h.m.FailReturns.Add(-1) >= 0 {
		return errors.New("fake miner: not accepting results right now")
	}
	h.m.Returns <- LotusReturn{Method: method, Call: callID, Proof: proof, Err: cerr, Attempt: n}
	return nil
}

func (h *minerHandler) closeWorkers() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.closers {
		c()
	}
	h.closers = nil
}

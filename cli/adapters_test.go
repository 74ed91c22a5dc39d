package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/lotus"
	"github.com/filc2/filc2/plugin/plugintest"
	cuzkv1 "github.com/filc2/filc2/plugin/proto/cuzk/v1"
)

// `filc2 serve` started as docs/curio.md says, facing lotus and curio at
// once: the documented token + curl Version call (docs/cli.md); the
// documented RemoteCommit2Endpoint request (docs/lotus.md), whose proof
// verifies, and its refusals; and a client of our .proto, made as curio
// makes its own, getting a verifying proof through Prove while the other
// proof kinds are refused.
func TestServeLotusAndCurio(t *testing.T) {
	params := plugintest.Params(t)
	t.Setenv("FIL_PROOFS_PARAMETER_CACHE", params)
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv(plugin.EnvHome, home)
	sockDir, err := os.MkdirTemp("", "f2g")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "cuzk.sock")

	start := docSnippet(t, "curio.md", "curio-serve")
	if plain := strings.TrimSpace(docSnippet(t, "cli.md", "serve-start")); !strings.HasPrefix(start, plain+" ") {
		t.Fatalf("docs/cli.md's %q is not docs/curio.md's %q less --grpc-listen", plain, start)
	}
	args := docArgs(t, replaceAll(t, start, "127.0.0.1:9830", "127.0.0.1:0", "127.0.0.1:9820", "unix://"+sock))
	if args[0] != "serve" {
		t.Fatalf("args %q", args)
	}
	s := startServe(t, home, args[1:]...)
	hostport := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), plugin.RPCPath)
	ctx := context.Background()

	t.Run("token and curl", func(t *testing.T) {
		out := runDoc(t, t.TempDir(), replaceAll(t, docSnippet(t, "cli.md", "serve-version"), "127.0.0.1:9830", hostport))
		if !strings.Contains(out, `"result":{"Version":"`+Version+`","APIVersion":256}`) {
			t.Fatalf("Version: %s", out)
		}
	})

	t.Run("remote-commit2", func(t *testing.T) {
		url := "http://" + hostport + lotus.RemoteCommit2Path
		for _, tc := range []struct {
			what, query, body string
			code              int
		}{
			{"no token", "", `{}`, 401},
			{"read token", "?token=" + createToken(t, "read"), `{}`, 403},
			{"not JSON", "?token=" + createToken(t, "write"), `{"Sector":`, 400},
			{"empty C1", "?token=" + createToken(t, "write"), `{"Sector":{"Miner":1000,"Number":1},"ProofType":5}`, 400},
		} {
			resp, err := http.Post(url+tc.query, "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.code {
				t.Errorf("%s: %d %s", tc.what, resp.StatusCode, b)
			}
		}
		dir := t.TempDir()
		c1o := plugintest.SealC1(t, 1, 7)
		if err := os.WriteFile(filepath.Join(dir, "c1.json"), c1o, 0o644); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		out := runDoc(t, dir, replaceAll(t, docSnippet(t, "lotus.md", "remote-commit2"), "127.0.0.1:9830", hostport))
		if strings.TrimSpace(out) != "verified" {
			t.Fatalf("output %q", out)
		}
		proof, err := os.ReadFile(filepath.Join(dir, "proof.bin"))
		if err != nil || len(proof) != 192 {
			t.Fatalf("proof.bin: %d bytes, %v", len(proof), err)
		}
		if err := plugintest.Verify(t, c1o, proof); err != nil {
			t.Fatal(err)
		}
		t.Logf("remote-commit2: a verifying proof in %v", time.Since(t0).Round(time.Millisecond))
	})

	t.Run("curio gRPC", func(t *testing.T) {
		conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20), grpc.MaxCallSendMsgSize(256<<20)))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		c := cuzkv1.NewProvingEngineClient(conn)
		c1o := plugintest.SealC1(t, 2, 8)
		// curio's PoRepSnarkCuzk: the C1 in lotus-bench's Commit2In wrapper.
		wrapped, _ := json.Marshal(struct {
			SectorNum  int64
			Phase1Out  []byte
			SectorSize uint64
		}{2, c1o, 2048})
		req := &cuzkv1.SubmitProofRequest{
			RequestId: "porep-1000-2", ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT, SectorSize: 2048,
			RegisteredProof: uint64(plugintest.Proof.Proof), Priority: cuzkv1.Priority_NORMAL,
			VanillaProof: wrapped, SectorNumber: 2, MinerId: plugintest.Miner,
		}
		// A PoSt or SnapDeals request whose vanilla proof is no bincode, or
		// an update without its commitments, is bad input (those kinds are
		// proved end to end in plugin/curio's and tests/lotus's tests).
		for k, want := range map[cuzkv1.ProofKind]codes.Code{cuzkv1.ProofKind_SNAP_DEALS_UPDATE: codes.InvalidArgument,
			cuzkv1.ProofKind_WINDOW_POST_PARTITION: codes.InvalidArgument, cuzkv1.ProofKind_WINNING_POST: codes.InvalidArgument} {
			other := &cuzkv1.SubmitProofRequest{RequestId: "other", ProofKind: k, RegisteredProof: 3, VanillaProofs: [][]byte{{1}}, Randomness: make([]byte, 32)}
			if k == cuzkv1.ProofKind_WINDOW_POST_PARTITION {
				other.RegisteredProof = 13 // StackedDrgWindow32GiBV1_1
			}
			if _, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: other}); status.Code(err) != want {
				t.Errorf("%s: %v, want %v", k, err, want)
			}
		}
		t0 := time.Now()
		resp, err := c.Prove(ctx, &cuzkv1.ProveRequest{Submit: req})
		if err != nil {
			t.Fatal(err)
		}
		res := resp.GetResult()
		if res.GetStatus() != cuzkv1.AwaitProofResponse_COMPLETED || res.GetJobId() != "porep-1000-2" || res.GetTotalMs() == 0 || res.GetGpuComputeMs() == 0 {
			t.Fatalf("Prove: %v", res)
		}
		if err := plugintest.Verify(t, c1o, res.GetProof()); err != nil {
			t.Fatal(err)
		}
		t.Logf("gRPC Prove: a verifying proof in %v (%d ms proving)", time.Since(t0).Round(time.Millisecond), res.GetGpuComputeMs())
		st, err := c.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
		if err != nil || len(st.GetQueues()) != 1 || st.GetQueues()[0].GetPending()+st.GetQueues()[0].GetInProgress() != 0 ||
			st.GetTotalProofsCompleted() != 2 || len(st.GetLoadedSrs()) != 1 || st.GetLoadedSrs()[0].GetCircuitId() != "porep-2k" ||
			st.GetLoadedSrs()[0].GetSizeBytes() == 0 {
			t.Fatalf("GetStatus: %v %v", st, err)
		}
		m, err := c.GetMetrics(ctx, &cuzkv1.GetMetricsRequest{})
		if err != nil || !strings.Contains(m.GetPrometheusText(), "filc2_plugin_up 1") || !strings.Contains(m.GetPrometheusText(), `filc2_remote_commit2_requests_total{code="200"} 1`) {
			t.Fatalf("GetMetrics: %v", err)
		}
	})
}

// `filc2 worker` started as docs/lotus.md says, against a fake lotus miner
// on loopback: it registers, answers the documented curl Version call with
// the miner's token, refuses bad input, and returns a proof that verifies
// through ReturnSealCommit2. (tests/lotus does the same with lotus's own
// client code.)
func TestWorker(t *testing.T) {
	params := plugintest.Params(t)
	t.Setenv("FIL_PROOFS_PARAMETER_CACHE", params)
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv(plugin.EnvHome, home)
	miner := plugintest.NewLotusMiner(t)

	args := docArgs(t, replaceAll(t, docSnippet(t, "lotus.md", "worker-start"), "0.0.0.0:3456", "127.0.0.1:0"))
	cmd := exec.Command(plugintest.Binary(t), args...)
	cmd.Env = append(os.Environ(), "MINER_API_INFO="+miner.APIInfo)
	log := new(lockedBuffer)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("worker exited with %v", err)
			}
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Errorf("the worker did not stop on SIGTERM")
		}
		if t.Failed() {
			t.Logf("worker log:\n%s", log)
		}
	})
	var cw *plugintest.ConnectedWorker
	select {
	case cw = <-miner.Connected:
	case err := <-done:
		t.Fatalf("the worker exited: %v\n%s", err, log)
	case <-time.After(time.Minute):
		t.Fatalf("the worker did not register\n%s", log)
	}
	hostport := strings.TrimSuffix(strings.TrimPrefix(cw.URL, "http://"), plugin.RPCPath)
	ctx := context.Background()

	out := runDoc(t, t.TempDir(), replaceAll(t, docSnippet(t, "lotus.md", "worker-version"), "127.0.0.1:3456", hostport), "MINER_API_INFO="+miner.APIInfo)
	if !strings.Contains(out, `"result":67328`) {
		t.Fatalf("Version: %s", out)
	}
	info, err := cw.API.Info(ctx)
	if err != nil || info.Hostname == "" || info.Resources.CPUs == 0 || len(info.Resources.Resources[lotus.TTCommit2]) != 15 {
		t.Fatalf("Info: %+v %v", info, err)
	}
	c1o := plugintest.SealC1(t, 3, 9)
	if _, err := cw.API.SealCommit2(ctx, sectorRef(4), c1o); err == nil || !strings.Contains(err.Error(), "another sector") {
		t.Fatalf("a C1 of another sector: %v", err)
	}
	t0 := time.Now()
	ci, err := cw.API.SealCommit2(ctx, sectorRef(3), c1o)
	if err != nil {
		t.Fatal(err)
	}
	r := miner.WaitReturn(t, 5*time.Minute)
	if r.Call != ci || r.Err != nil {
		t.Fatalf("ReturnSealCommit2: %+v (%+v)", r, r.Err)
	}
	if err := plugintest.Verify(t, c1o, r.Proof); err != nil {
		t.Fatal(err)
	}
	t.Logf("worker: a verifying proof returned in %v", time.Since(t0).Round(time.Millisecond))
	resp, err := http.Get("http://" + hostport + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(b, []byte("filc2_worker_registrations_total 1")) {
		t.Fatalf("metrics:\n%s", b)
	}
	// The miner sees the return before the worker forgets the call, so the
	// calls file empties a moment after WaitReturn.
	plugintest.WaitFor(t, 10*time.Second, "the calls file to empty", func() bool {
		b, err := os.ReadFile(filepath.Join(home, workerCallsFile))
		return err == nil && string(b) == "[]"
	})
}

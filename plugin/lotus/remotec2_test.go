package lotus_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/lotus"
	"github.com/filc2/filc2/plugin/plugintest"
	"github.com/filc2/filc2/proofs/c2"
)

// remoteC2 serves NewRemoteCommit2Handler over p and returns its URL and a
// token of each permission.
func remoteC2(t *testing.T, p plugin.Prover, max int64, reg prometheus.Registerer) (string, map[string]string) {
	t.Helper()
	secret := make([]byte, 32)
	rand.Read(secret)
	srv := httptest.NewServer(lotus.NewRemoteCommit2Handler(lotus.RemoteCommit2Config{
		Prover: p, Verify: plugin.TokenVerifier(secret), MaxRequestSize: max, Registry: reg,
	}))
	t.Cleanup(srv.Close)
	toks := map[string]string{}
	for _, perm := range plugin.AllPermissions {
		perms, _ := plugin.PermissionsUpTo(perm)
		toks[string(perm)], _ = plugin.NewToken(secret, perms)
	}
	return srv.URL + lotus.RemoteCommit2Path, toks
}

func remoteParams(t *testing.T, miner, number uint64, proof abi.RegisteredSealProof, c1o []byte) []byte {
	t.Helper()
	b, err := json.Marshal(lotus.RemoteCommit2Params{Sector: abi.SectorID{Miner: abi.ActorID(miner), Number: abi.SectorNumber(number)}, ProofType: proof, Commit1Out: c1o})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// post sends what lotus sends: a JSON POST with no Authorization header
// (the token, if any, in the URL), or with the header when header is set.
func post(t *testing.T, url string, body []byte, header string) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if header != "" {
		req.Header.Set("Authorization", "Bearer "+header)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

// The status codes of the RemoteCommit2Endpoint, over a fake prover.
func TestRemoteCommit2Statuses(t *testing.T) {
	a, _ := plugintest.Sealed(t)
	svc := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, QueueSize: 4,
		Prove: func(ctx context.Context, r *plugin.Request) (plugin.Proof, []c2.PartitionTiming, error) {
			return plugin.Proof("proof of sector " + r.Sector.String()), nil, nil
		}})
	t.Cleanup(func() { svc.Close() })
	reg := prometheus.NewRegistry()
	url, toks := remoteC2(t, plugin.NewServer(svc, "test"), 1<<20, reg)
	good := remoteParams(t, plugintest.Miner, 1, plugintest.Proof.Proof, a)

	code, body, _ := post(t, url+"?token="+toks["write"], good, "")
	if code != 200 || string(body) != "proof of sector "+plugintest.Sector(1).String() {
		t.Fatalf("good request: %d %q", code, body)
	}
	if code, body, _ := post(t, url, good, toks["admin"]); code != 200 {
		t.Fatalf("with an Authorization header: %d %q", code, body)
	}
	for _, tc := range []struct {
		what  string
		url   string
		body  []byte
		token string
		code  int
		want  string
	}{
		{"no token", url, good, "", 401, "?token="},
		{"forged token", url + "?token=" + toks["write"] + "x", good, "", 401, ""},
		{"read token", url + "?token=" + toks["read"], good, "", 403, "write"},
		{"not JSON", url, []byte("{not json"), toks["write"], 400, "RemoteCommit2Params"},
		{"wrong sector", url, remoteParams(t, plugintest.Miner, 2, plugintest.Proof.Proof, a), toks["write"], 400, "another sector"},
		{"wrong proof type", url, remoteParams(t, plugintest.Miner, 1, abi.RegisteredSealProof_StackedDrg32GiBV1_1, a), toks["write"], 400, "wrong sector size"},
		{"unknown proof type", url, remoteParams(t, plugintest.Miner, 1, 99, a), toks["write"], 400, "Sector.ProofType"},
		{"truncated C1", url, remoteParams(t, plugintest.Miner, 1, plugintest.Proof.Proof, a[:len(a)/2]), toks["write"], 400, "Commit1Out"},
		{"empty C1", url, remoteParams(t, plugintest.Miner, 1, plugintest.Proof.Proof, nil), toks["write"], 400, "empty"},
		{"too large", url, make([]byte, 2<<20), toks["write"], 400, "over the limit"},
		{"too large without a token", url, make([]byte, 2<<20), "", 401, "?token="},
	} {
		code, body, _ := post(t, tc.url, tc.body, tc.token)
		if code != tc.code || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s: %d %q, want %d and %q", tc.what, code, body, tc.code, tc.want)
		}
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
	if n := counter(t, reg, "filc2_remote_commit2_requests_total", "400"); n != 7 {
		t.Errorf("400s counted: %v", n)
	}

	// Busy and unavailable provers: 503 with Retry-After; a failed proof: 500.
	for _, tc := range []struct {
		err  error
		code int
	}{
		{&plugin.BusyError{Queued: 4, Capacity: 4}, 503},
		{&plugin.UnavailableError{Msg: "restarting"}, 503},
		{&plugin.InternalError{Msg: "the proof does not verify"}, 500},
	} {
		url, toks := remoteC2(t, plugintest.ErrProver{Err: tc.err}, 0, nil)
		code, body, h := post(t, url+"?token="+toks["write"], good, "")
		if code != tc.code || !strings.Contains(string(body), tc.err.Error()) || (code == 503) != (h.Get("Retry-After") != "") {
			t.Errorf("%T: %d %q %v", tc.err, code, body, h)
		}
	}
}

// A client that goes away cancels its job.
func TestRemoteCommit2ClientGone(t *testing.T) {
	a, _ := plugintest.Sealed(t)
	g := plugintest.NewGate()
	svc := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, QueueSize: 4, Prove: g.Prove})
	t.Cleanup(func() { svc.Close() })
	srv := plugin.NewServer(svc, "test")
	url, toks := remoteC2(t, srv, 0, nil)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"?token="+toks["write"], bytes.NewReader(remoteParams(t, plugintest.Miner, 1, plugintest.Proof.Proof, a)))
	done := make(chan error, 1)
	go func() {
		_, err := http.DefaultClient.Do(req)
		done <- err
	}()
	select {
	case <-g.Running():
	case <-time.After(10 * time.Second):
		t.Fatal("the job did not start")
	}
	cancel()
	<-done
	plugintest.WaitFor(t, 5*time.Second, "the job to be cancelled", func() bool {
		st, _ := srv.Status(context.Background())
		return st.Totals.Cancelled == 1 && len(st.Running) == 0
	})
}

// counter reads one labelled series of a counter in reg.
func counter(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetValue() == label {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// Without a write token the request is refused before its body is read: a
// 1 GB body that never comes is answered 401 (or 403) at once.
func TestRemoteCommit2RefusedBeforeBody(t *testing.T) {
	url, toks := remoteC2(t, plugintest.ErrProver{Err: errors.New("unused")}, 0, nil)
	host := strings.TrimPrefix(strings.TrimSuffix(url, lotus.RemoteCommit2Path), "http://")
	for _, tc := range []struct {
		query string
		code  int
	}{{"", 401}, {"?token=" + toks["write"] + "x", 401}, {"?token=" + toks["read"], 403}} {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "POST %s%s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{", lotus.RemoteCommit2Path, tc.query)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil || resp.StatusCode != tc.code {
			t.Errorf("%q with its body not sent: %v %v, want %d at once", tc.query, resp, err, tc.code)
		}
	}
}

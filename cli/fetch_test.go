package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
)

// gatewayServer serves body for every CID and records the paths asked for.
func gatewayServer(t *testing.T, status int, body string) (url string, paths func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path)
		mu.Unlock()
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/ipfs/", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

func TestParamsFetchDigestMismatch(t *testing.T) {
	t.Setenv("FILC2_DIGEST_CACHE", filepath.Join(t.TempDir(), "digests.json"))
	p, _ := abi.ParseName("StackedDrg2KiBV1_1")
	gw, paths := gatewayServer(t, http.StatusOK, "not the verifying key")
	dir := filepath.Join(t.TempDir(), "params")
	out, err := run(t, "params", "fetch", "-p", p.Name, "--vk-only", "--gateway", gw, "--dir", dir)
	if err == nil || !strings.Contains(err.Error(), p.VKFile().Name) || !strings.Contains(err.Error(), p.VKFile().Digest) {
		t.Fatalf("err %v, out %q", err, out)
	}
	if got := paths(); len(got) != 1 || got[0] != "/ipfs/"+p.VKFile().CID {
		t.Fatalf("requests %v, want the vk's CID %s only", got, p.VKFile().CID)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Fatalf("left %v behind", es)
	}
	// A stale file stays as it is when the replacement fails.
	stale := filepath.Join(dir, p.VKFile().Name)
	os.WriteFile(stale, []byte("stale"), 0o644)
	if _, err := run(t, "params", "fetch", "-p", p.Name, "--vk-only", "--gateway", gw, "--dir", dir); err == nil {
		t.Fatal("fetch succeeded")
	}
	if b, _ := os.ReadFile(stale); string(b) != "stale" {
		t.Fatalf("stale file now %q", b)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Fatalf("dir holds %v", es)
	}
}

func TestParamsFetchBothFilesAndErrors(t *testing.T) {
	t.Setenv("FILC2_DIGEST_CACHE", "off")
	t.Setenv("IPFS_GATEWAY", "")
	p, _ := abi.ParseName("8") // StackedDrg32GiBV1_1
	gw, paths := gatewayServer(t, http.StatusNotFound, "no such CID")
	dir := t.TempDir()
	_, err := run(t, "params", "fetch", "-p", "8", "--gateway", gw, "--dir", dir)
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "--gateway") {
		t.Fatalf("err %v", err)
	}
	if got := paths(); len(got) != 1 || got[0] != "/ipfs/"+p.VKFile().CID {
		t.Fatalf("requests %v: the .vk goes first and a 404 is not retried", got)
	}

	// $IPFS_GATEWAY is the default --gateway.
	t.Setenv("IPFS_GATEWAY", strings.TrimSuffix(gw, "/"))
	if _, err := run(t, "params", "fetch", "-p", "8", "--dir", dir); err == nil || len(paths()) != 2 {
		t.Fatalf("IPFS_GATEWAY not used: %v, %v", err, paths())
	}

	for _, args := range [][]string{
		{"params", "fetch", "--dir", dir},
		{"params", "fetch", "-p", "StackedDrg3KiBV1", "--dir", dir},
		{"params", "fetch", "-p", "8", "--gateway", "proofs.filecoin.io/ipfs", "--dir", dir},
		{"params", "fetch", "-p", "8", "--bogus"},
		{"params", "fetch", "-p", "8", "extra"},
	} {
		if _, err := run(t, args...); exitCode(err) != 2 {
			t.Errorf("%v: exit %d (%v), want 2", args, exitCode(err), err)
		}
	}
}

// --post-proof fetches a PoSt type's files by their parameters.json CIDs.
func TestParamsFetchPoSt(t *testing.T) {
	t.Setenv("FILC2_DIGEST_CACHE", filepath.Join(t.TempDir(), "digests.json"))
	p, _ := abi.ParsePoStName("StackedDrgWindow32GiBV1_1")
	gw, paths := gatewayServer(t, http.StatusOK, "not the verifying key")
	dir := t.TempDir()
	if _, err := run(t, "params", "fetch", "--post-proof", p.Name, "--vk-only", "--gateway", gw, "--dir", dir); err == nil || !strings.Contains(err.Error(), p.VKFile().Digest) {
		t.Fatalf("err %v", err)
	}
	if got := paths(); len(got) != 1 || got[0] != "/ipfs/"+p.VKFile().CID || !strings.Contains(p.VKFile().Name, "proof-of-spacetime-fallback") {
		t.Fatalf("requests %v, want the vk's CID %s", got, p.VKFile().CID)
	}
	if _, err := run(t, "params", "fetch", "--post-proof", "13", "-p", "8", "--dir", dir); err == nil {
		t.Fatal("both --post-proof and -p accepted")
	}
}

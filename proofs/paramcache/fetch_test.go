package paramcache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/filc2/filc2/proofs/abi"
)

// fastRetries shortens back-off and stall detection for the test and gives
// it its own digest cache.
func fastRetries(t *testing.T) {
	t.Helper()
	b, m, r, s := retryBase, retryMax, maxRetries, stallTimeout
	retryBase, retryMax, maxRetries, stallTimeout = time.Millisecond, 4*time.Millisecond, 3, 2*time.Second
	t.Cleanup(func() { retryBase, retryMax, maxRetries, stallTimeout = b, m, r, s })
	t.Setenv(EnvDigestCache, filepath.Join(t.TempDir(), "digests.json"))
}

// testFile returns random content and its parameters.json entry.
func testFile(t *testing.T, n int) ([]byte, abi.ParamsFile) {
	t.Helper()
	content := make([]byte, n)
	r := rand.New(rand.NewPCG(uint64(n), 7))
	for i := range content {
		content[i] = byte(r.Uint32())
	}
	d, err := Digest(context.Background(), bytes.NewReader(content), nil)
	if err != nil {
		t.Fatal(err)
	}
	return content, abi.ParamsFile{Name: "v28-test.params", CID: "QmTestCid", Digest: d, SectorSize: 2048}
}

// serve answers /ipfs/<cid> with handle, counting requests.
func serve(t *testing.T, f abi.ParamsFile, handle func(w http.ResponseWriter, r *http.Request, n int)) (gateway string, requests *atomic.Int32) {
	t.Helper()
	requests = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(requests.Add(1))
		if r.URL.Path != "/ipfs/"+f.CID {
			http.NotFound(w, r)
			return
		}
		handle(w, r, n)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/ipfs/", requests
}

func serveContent(w http.ResponseWriter, r *http.Request, content []byte) {
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(content))
}

// dirNames lists dir, hidden temporary files included.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func wantOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	got := dirNames(t, dir)
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Fatalf("dir holds %v, want %v", got, names)
	}
}

func TestFetchSuccess(t *testing.T) {
	fastRetries(t)
	content, f := testFile(t, 3<<20+17)
	gw, reqs := serve(t, f, func(w http.ResponseWriter, r *http.Request, _ int) { serveContent(w, r, content) })
	dir := filepath.Join(t.TempDir(), "params") // created by Fetch
	var last, total int64
	err := Fetch(context.Background(), strings.TrimSuffix(gw, "/"), dir, f, func(d, tot int64) { last, total = d, tot })
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, f.Name))
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("file: %v, %d bytes", err, len(got))
	}
	if last != int64(len(content)) || total != int64(len(content)) {
		t.Errorf("progress ended at %d of %d", last, total)
	}
	wantOnly(t, dir, f.Name)
	if fi, _ := os.Stat(filepath.Join(dir, f.Name)); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	// The download was remembered: a check needs no hashing.
	hashed := false
	d, err := DefaultDigestCache().Digest(context.Background(), filepath.Join(dir, f.Name), func(int64) { hashed = true })
	if err != nil || d != f.Digest || hashed {
		t.Errorf("cached digest %s, %v, hashed %v", d, err, hashed)
	}
	if reqs.Load() != 1 {
		t.Errorf("%d requests", reqs.Load())
	}
}

func TestFetchAlreadyPresent(t *testing.T) {
	fastRetries(t)
	content, f := testFile(t, 1000)
	gw, reqs := serve(t, f, func(w http.ResponseWriter, r *http.Request, _ int) { serveContent(w, r, content) })
	dir := t.TempDir()
	path := filepath.Join(dir, f.Name)
	os.WriteFile(path, content, 0o600)
	if err := Fetch(context.Background(), gw, dir, f, nil); err != nil {
		t.Fatal(err)
	}
	if reqs.Load() != 0 {
		t.Fatalf("%d requests for a file already present", reqs.Load())
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("present file was rewritten: mode %v", fi.Mode())
	}
	// A present file with another digest is replaced.
	os.WriteFile(path, []byte("stale"), 0o644)
	if err := Fetch(context.Background(), gw, dir, f, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, content) || reqs.Load() != 1 {
		t.Fatalf("stale file: %d bytes after %d requests", len(got), reqs.Load())
	}
	wantOnly(t, dir, f.Name)
}

func TestFetchDigestMismatch(t *testing.T) {
	fastRetries(t)
	content, f := testFile(t, 5000)
	other := append([]byte(nil), content...)
	other[4000] ^= 1
	gw, reqs := serve(t, f, func(w http.ResponseWriter, r *http.Request, _ int) { serveContent(w, r, other) })
	dir := t.TempDir()
	err := Fetch(context.Background(), gw, dir, f, nil)
	if err == nil || !strings.Contains(err.Error(), f.Name) || !strings.Contains(err.Error(), f.Digest) || !strings.Contains(err.Error(), "digest") {
		t.Fatalf("err %v", err)
	}
	wantOnly(t, dir)
	if reqs.Load() != 1 {
		t.Errorf("%d requests: a mismatch is not retried", reqs.Load())
	}
}

// hangUp sends the headers of the whole content and only its first n bytes,
// then drops the connection.
func hangUp(t *testing.T, w http.ResponseWriter, content []byte, n int) {
	w.Header().Set("Content-Length", fmt.Sprint(len(content)))
	w.WriteHeader(http.StatusOK)
	w.Write(content[:n])
	w.(http.Flusher).Flush()
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Error(err)
		return
	}
	conn.Close()
}

func TestFetchTruncatedResumes(t *testing.T) {
	fastRetries(t)
	content, f := testFile(t, 200_000)
	var ranges []string
	gw, reqs := serve(t, f, func(w http.ResponseWriter, r *http.Request, n int) {
		ranges = append(ranges, r.Header.Get("Range"))
		if n == 1 {
			hangUp(t, w, content, 70_000)
			return
		}
		serveContent(w, r, content)
	})
	dir := t.TempDir()
	if err := Fetch(context.Background(), gw, dir, f, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, f.Name)); !bytes.Equal(got, content) {
		t.Fatal("content differs")
	}
	if reqs.Load() != 2 || ranges[1] != "bytes=70000-" {
		t.Errorf("requests %d, ranges %q", reqs.Load(), ranges)
	}
	wantOnly(t, dir, f.Name)
}

// TestFetchTruncatedNoRange checks a server that ignores Range: the second
// attempt starts over and the hash restarts with it.
func TestFetchTruncatedNoRange(t *testing.T) {
	fastRetries(t)
	content, f := testFile(t, 100_000)
	gw, _ := serve(t, f, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			hangUp(t, w, content, 30_000)
			return
		}
		w.Write(content) // 200, whole body, whatever the Range
	})
	dir := t.TempDir()
	if err := Fetch(context.Background(), gw, dir, f, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, f.Name)); !bytes.Equal(got, content) {
		t.Fatal("content differs")
	}
}

func TestFetchTruncatedGivesUp(t *testing.T) {
	fastRetries(t)
	content, f := testFile(t, 10_000)
	gw, reqs := serve(t, f, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Length", fmt.Sprint(len(content)+10))
		w.WriteHeader(http.StatusOK) // the whole body, 10 bytes short, each time
		w.Write(content)
	})
	dir := t.TempDir()
	err := Fetch(context.Background(), gw, dir, f, nil)
	if err == nil || !strings.Contains(err.Error(), "truncated") || !strings.Contains(err.Error(), f.Name) {
		t.Fatalf("err %v", err)
	}
	if got := reqs.Load(); got != int32(maxRetries+1) {
		t.Errorf("%d requests, want %d", got, maxRetries+1)
	}
	wantOnly(t, dir)
}

func TestFetchRetries500(t *testing.T) {
	fastRetries(t)
	content, f := testFile(t, 4096)
	gw, reqs := serve(t, f, func(w http.ResponseWriter, r *http.Request, n int) {
		switch n {
		case 1:
			http.Error(w, "boom", http.StatusInternalServerError)
		case 2:
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		default:
			serveContent(w, r, content)
		}
	})
	dir := t.TempDir()
	if err := Fetch(context.Background(), gw, dir, f, nil); err != nil {
		t.Fatal(err)
	}
	if reqs.Load() != 3 {
		t.Errorf("%d requests", reqs.Load())
	}
	wantOnly(t, dir, f.Name)
}

func TestFetchNotFoundIsPermanent(t *testing.T) {
	fastRetries(t)
	_, f := testFile(t, 10)
	gw, reqs := serve(t, f, func(w http.ResponseWriter, r *http.Request, _ int) { http.NotFound(w, r) })
	dir := t.TempDir()
	err := Fetch(context.Background(), gw, dir, f, nil)
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "--gateway") {
		t.Fatalf("err %v", err)
	}
	if reqs.Load() != 1 {
		t.Errorf("%d requests", reqs.Load())
	}
	wantOnly(t, dir)
}

func TestFetchCancel(t *testing.T) {
	fastRetries(t)
	content, f := testFile(t, 1<<20)
	release := make(chan struct{})
	defer close(release)
	gw, _ := serve(t, f, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Length", fmt.Sprint(len(content)))
		w.Write(content[:1000])
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := Fetch(ctx, gw, dir, f, func(done, _ int64) {
		if done > 0 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	wantOnly(t, dir)
}

func TestFetchStall(t *testing.T) {
	fastRetries(t)
	stallTimeout = 50 * time.Millisecond
	content, f := testFile(t, 2000)
	gw, reqs := serve(t, f, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("Content-Length", fmt.Sprint(len(content)))
			w.Write(content[:10])
			w.(http.Flusher).Flush()
			<-r.Context().Done() // then nothing
			return
		}
		serveContent(w, r, content)
	})
	dir := t.TempDir()
	if err := Fetch(context.Background(), gw, dir, f, nil); err != nil {
		t.Fatal(err)
	}
	if reqs.Load() != 2 {
		t.Errorf("%d requests", reqs.Load())
	}
}

func TestFileURL(t *testing.T) {
	f := abi.ParamsFile{Name: "x.vk", CID: "QmX"}
	for gw, want := range map[string]string{
		DefaultGateway:                    "https://proofs.filecoin.io/ipfs/QmX",
		"https://ipfs.io/ipfs":            "https://ipfs.io/ipfs/QmX",
		"http://127.0.0.1:8080/ipfs/":     "http://127.0.0.1:8080/ipfs/QmX",
		"https://proofs.filecoin.io/ipfs": "https://proofs.filecoin.io/ipfs/QmX",
	} {
		if got, err := FileURL(gw, f); err != nil || got != want {
			t.Errorf("FileURL(%q) = %q, %v; want %q", gw, got, err, want)
		}
	}
	for _, gw := range []string{"", "proofs.filecoin.io/ipfs/", "ftp://x/ipfs/", "https:///ipfs/"} {
		if _, err := FileURL(gw, f); err == nil {
			t.Errorf("FileURL(%q) succeeded", gw)
		}
	}
}

func TestGatewayFromEnvironment(t *testing.T) {
	t.Setenv(EnvGateway, "")
	if Gateway() != DefaultGateway {
		t.Fatal(Gateway())
	}
	t.Setenv(EnvGateway, "http://localhost:8080/ipfs/")
	if Gateway() != "http://localhost:8080/ipfs/" {
		t.Fatal(Gateway())
	}
}

func TestParseContentRange(t *testing.T) {
	for s, want := range map[string][3]int64{
		"bytes 10-99/100": {10, 100, 1},
		"bytes 0-0/*":     {0, -1, 1},
		"bytes */100":     {0, 0, 0},
		"items 1-2/3":     {0, 0, 0},
		"":                {0, 0, 0},
	} {
		start, size, ok := parseContentRange(s)
		okv := int64(0)
		if ok {
			okv = 1
		}
		if okv != want[2] || (ok && (start != want[0] || size != want[1])) {
			t.Errorf("parseContentRange(%q) = %d, %d, %v", s, start, size, ok)
		}
	}
}

func TestFetchRemovesStaleTemporaries(t *testing.T) {
	fastRetries(t)
	content, f := testFile(t, 100)
	gw, _ := serve(t, f, func(w http.ResponseWriter, r *http.Request, _ int) { serveContent(w, r, content) })
	dir := t.TempDir()
	stale := filepath.Join(dir, "."+f.Name+tmpInfix+"123")
	live := filepath.Join(dir, "."+f.Name+tmpInfix+"456")
	other := filepath.Join(dir, ".other.params"+tmpInfix+"789")
	for _, p := range []string{stale, live, other} {
		os.WriteFile(p, []byte("partial"), 0o600)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stale, old, old)
	os.Chtimes(other, old, old)
	if err := Fetch(context.Background(), gw, dir, f, nil); err != nil {
		t.Fatal(err)
	}
	wantOnly(t, dir, filepath.Base(other), filepath.Base(live), f.Name)
}

package paramcache

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/filc2/filc2/proofs/abi"
)

const abcDigest = "ba80a53f981c4d0d6a2797b69f12f6e9" // BLAKE2b-512("abc"), first 32 hex digits

// hashes returns a Digest call that reports whether it hashed.
func hashes(t *testing.T, c *DigestCache, path string) (string, bool) {
	t.Helper()
	hashed := false
	d, err := c.Digest(context.Background(), path, func(int64) { hashed = true })
	if err != nil {
		t.Fatal(err)
	}
	return d, hashed
}

func TestDigestCacheHitAndInvalidation(t *testing.T) {
	dir := t.TempDir()
	cachePath := filepath.Join(dir, "cache", "digests.json")
	c := NewDigestCache(cachePath)
	path := filepath.Join(dir, "a.params")
	os.WriteFile(path, []byte("abc"), 0o644)

	if d, hashed := hashes(t, c, path); d != abcDigest || !hashed {
		t.Fatalf("first: %s hashed=%v", d, hashed)
	}
	if d, hashed := hashes(t, c, path); d != abcDigest || hashed {
		t.Fatalf("second: %s hashed=%v", d, hashed)
	}
	// A fresh cache object reads the file written by the first.
	if d, hashed := hashes(t, NewDigestCache(cachePath), path); d != abcDigest || hashed {
		t.Fatalf("reopened: %s hashed=%v", d, hashed)
	}
	// The key is the absolute path: a relative spelling hits too.
	wd, _ := os.Getwd()
	t.Chdir(dir)
	if d, hashed := hashes(t, c, "a.params"); d != abcDigest || hashed {
		t.Fatalf("relative: %s hashed=%v", d, hashed)
	}
	t.Chdir(wd)

	// A rewrite of the same size with the mtime put back: on Linux the change
	// time catches it.
	st, _ := os.Stat(path)
	if runtime.GOOS == "linux" {
		os.WriteFile(path, []byte("abd"), 0o644)
		os.Chtimes(path, st.ModTime(), st.ModTime())
		if st2, _ := os.Stat(path); !st2.ModTime().Equal(st.ModTime()) || st2.Size() != st.Size() {
			t.Fatal("could not restore mtime")
		}
		if d, hashed := hashes(t, c, path); !hashed || d == abcDigest {
			t.Fatalf("after rewrite with mtime restored: %s hashed=%v", d, hashed)
		}
		os.WriteFile(path, []byte("abc"), 0o644)
		hashes(t, c, path)
	}
	// A different mtime is caught everywhere.
	os.WriteFile(path, []byte("abd"), 0o644)
	os.Chtimes(path, st.ModTime(), st.ModTime().Add(time.Second))
	if d, hashed := hashes(t, c, path); !hashed || d == abcDigest {
		t.Fatalf("after rewrite: %s hashed=%v", d, hashed)
	}
	// A size change is caught.
	os.WriteFile(path, []byte("abcd"), 0o644)
	if _, hashed := hashes(t, c, path); !hashed {
		t.Fatal("size change not noticed")
	}
}

func TestDigestCacheCorruptFile(t *testing.T) {
	dir := t.TempDir()
	cachePath := filepath.Join(dir, "digests.json")
	path := filepath.Join(dir, "a.vk")
	os.WriteFile(path, []byte("abc"), 0o644)
	for _, junk := range []string{"{not json", `{"version":99,"entries":{}}`, `{"version":1}`, `[1,2]`, ""} {
		os.WriteFile(cachePath, []byte(junk), 0o644)
		c := NewDigestCache(cachePath)
		if d, hashed := hashes(t, c, path); d != abcDigest || !hashed {
			t.Fatalf("%q: %s hashed=%v", junk, d, hashed)
		}
		// Rewritten as a valid cache.
		b, _ := os.ReadFile(cachePath)
		var f digestFile
		if err := json.Unmarshal(b, &f); err != nil || f.Version != digestCacheVersion || f.Entries[path] == nil {
			t.Fatalf("%q: rewritten as %s (%v)", junk, b, err)
		}
		if _, hashed := hashes(t, c, path); hashed {
			t.Fatalf("%q: not cached after rewrite", junk)
		}
	}
	// A forged entry with a malformed digest is dropped, not returned.
	os.WriteFile(cachePath, []byte(strings.Replace(mustRead(t, cachePath), abcDigest, "zz", 1)), 0o644)
	if d, hashed := hashes(t, NewDigestCache(cachePath), path); d != abcDigest || !hashed {
		t.Fatalf("malformed entry: %s hashed=%v", d, hashed)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDigestCacheUnwritable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.vk")
	os.WriteFile(path, []byte("abc"), 0o644)
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	c := NewDigestCache(filepath.Join(blocker, "sub", "digests.json")) // parent is a file
	if d, hashed := hashes(t, c, path); d != abcDigest || !hashed {
		t.Fatalf("%s hashed=%v", d, hashed)
	}
	off := NewDigestCache("")
	for range 2 {
		if _, hashed := hashes(t, off, path); !hashed {
			t.Fatal("disabled cache answered")
		}
	}
}

func TestDigestCachePrunesGoneFiles(t *testing.T) {
	dir := t.TempDir()
	cachePath := filepath.Join(dir, "digests.json")
	c := NewDigestCache(cachePath)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("abc"), 0o644)
	os.WriteFile(b, []byte("xyz"), 0o644)
	hashes(t, c, a)
	os.Remove(a)
	hashes(t, c, b)
	f := c.load()
	if _, ok := f.Entries[a]; ok || f.Entries[b] == nil || len(f.Entries) != 1 {
		t.Fatalf("entries %v", f.Entries)
	}
}

func TestDigestCacheMissingFile(t *testing.T) {
	c := NewDigestCache(filepath.Join(t.TempDir(), "d.json"))
	if _, err := c.Digest(context.Background(), filepath.Join(t.TempDir(), "nope"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err %v", err)
	}
	if _, err := c.Digest(context.Background(), t.TempDir(), nil); err == nil {
		t.Fatal("a directory hashed")
	}
}

func TestCheckedDigestAndVerifyFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDigestCache, filepath.Join(dir, "digests.json"))
	path := filepath.Join(dir, "good.vk")
	os.WriteFile(path, []byte("abc"), 0o644)
	if d, err := CheckedDigest(context.Background(), path); err != nil || d != abcDigest {
		t.Fatalf("CheckedDigest = %s, %v", d, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "digests.json")); err != nil {
		t.Fatalf("no cache file: %v", err)
	}
	f := abi.ParamsFile{Name: "good.vk", Digest: abcDigest}
	if err := VerifyFile(context.Background(), path, f, nil); err != nil {
		t.Fatal(err)
	}
	f.Digest = "00000000000000000000000000000000"
	var m *DigestMismatchError
	if err := VerifyFile(context.Background(), path, f, nil); !errors.As(err, &m) || m.Got != abcDigest || !strings.Contains(err.Error(), path) {
		t.Fatalf("mismatch: %v", err)
	}
	if err := VerifyFile(context.Background(), filepath.Join(dir, "gone.vk"), f, nil); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
}

func TestDigestCachePath(t *testing.T) {
	t.Setenv(EnvDigestCache, "")
	t.Setenv("XDG_CACHE_HOME", "/x/cache")
	if p := DigestCachePath(); p != "/x/cache/filc2/param-digests.json" {
		t.Fatal(p)
	}
	t.Setenv(EnvDigestCache, "/y/d.json")
	if p := DigestCachePath(); p != "/y/d.json" {
		t.Fatal(p)
	}
	t.Setenv(EnvDigestCache, "off")
	if p := DigestCachePath(); p != "" || DefaultDigestCache().Path() != "" {
		t.Fatal(p)
	}
}

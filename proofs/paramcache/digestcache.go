package paramcache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/filc2/filc2/internal/atomicfile"
	"github.com/filc2/filc2/proofs/abi"
)

// EnvDigestCache names the environment variable that moves the digest cache
// file: a path, or "off" to disable caching (every check then hashes).
const EnvDigestCache = "FILC2_DIGEST_CACHE"

// digestCacheVersion is the format version of the cache file.
const digestCacheVersion = 1

// maxDigestEntries bounds the cache file; the oldest entries go first.
const maxDigestEntries = 512

// DigestCachePath returns where the digest cache lives: $FILC2_DIGEST_CACHE,
// else $XDG_CACHE_HOME/filc2/param-digests.json (~/.cache/… when unset); ""
// when caching is off or no cache directory is known.
func DigestCachePath() string {
	if p := os.Getenv(EnvDigestCache); p != "" {
		if p == "off" {
			return ""
		}
		return p
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "filc2", "param-digests.json")
}

// DigestCache remembers the digests of files, keyed by absolute path, size
// and modification time (and, on Linux, inode and change time), so that a
// 47 GB .params file is hashed once rather than on every run. It is safe for
// concurrent use; processes sharing the file may lose each other's entries,
// which only costs a re-hash.
type DigestCache struct {
	path string // "" disables the cache
	mu   sync.Mutex
}

// NewDigestCache returns a cache kept in the JSON file at path ("" for none).
func NewDigestCache(path string) *DigestCache { return &DigestCache{path: path} }

// Path returns the cache file's path, "" when the cache is disabled.
func (c *DigestCache) Path() string { return c.path }

var (
	defaultCacheMu sync.Mutex
	defaultCache   *DigestCache
)

// DefaultDigestCache returns the cache at DigestCachePath(), re-reading the
// environment on every call.
func DefaultDigestCache() *DigestCache {
	defaultCacheMu.Lock()
	defer defaultCacheMu.Unlock()
	p := DigestCachePath()
	if defaultCache == nil || defaultCache.path != p {
		defaultCache = NewDigestCache(p)
	}
	return defaultCache
}

// CheckedDigest returns the digest (as Digest) of the file at path, from the
// default digest cache when the file has not changed since it was hashed.
func CheckedDigest(ctx context.Context, path string) (string, error) {
	return DefaultDigestCache().Digest(ctx, path, nil)
}

// fileKey identifies one version of a file. A rewrite in place changes the
// change time, a replacement the inode, even when size and mtime are kept.
type fileKey struct {
	Size    int64  `json:"size"`
	MtimeNS int64  `json:"mtime_ns"`
	Inode   uint64 `json:"inode,omitempty"`
	CtimeNS int64  `json:"ctime_ns,omitempty"`
}

func keyOf(fi fs.FileInfo) fileKey {
	k := fileKey{Size: fi.Size(), MtimeNS: fi.ModTime().UnixNano()}
	k.Inode, k.CtimeNS = statExtra(fi)
	return k
}

type digestEntry struct {
	fileKey
	Digest string `json:"digest"`
	Seq    uint64 `json:"seq"` // insertion order, for eviction
}

type digestFile struct {
	Version int                     `json:"version"`
	Entries map[string]*digestEntry `json:"entries"`
}

// load reads the cache file; a missing, unreadable or corrupt file reads as
// empty (it is rewritten by the next store).
func (c *DigestCache) load() digestFile {
	empty := digestFile{Version: digestCacheVersion, Entries: map[string]*digestEntry{}}
	b, err := os.ReadFile(c.path)
	if err != nil {
		return empty
	}
	var f digestFile
	if json.Unmarshal(b, &f) != nil || f.Version != digestCacheVersion || f.Entries == nil {
		return empty
	}
	for p, e := range f.Entries {
		if e == nil || len(e.Digest) != 32 {
			delete(f.Entries, p)
		}
	}
	return f
}

// lookup returns the cached digest of abs if its key matches.
func (c *DigestCache) lookup(abs string, k fileKey) (string, bool) {
	if c.path == "" {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.load().Entries[abs]
	if !ok || e.fileKey != k {
		return "", false
	}
	return e.Digest, true
}

// store records digest for abs at key k, dropping entries of files that are
// gone or changed, and rewrites the cache file atomically.
func (c *DigestCache) store(abs string, k fileKey, digest string) error {
	if c.path == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.load()
	var seq uint64
	for p, e := range f.Entries {
		seq = max(seq, e.Seq)
		if p == abs {
			continue
		}
		if fi, err := os.Stat(p); err != nil || keyOf(fi) != e.fileKey {
			delete(f.Entries, p)
		}
	}
	f.Entries[abs] = &digestEntry{fileKey: k, Digest: digest, Seq: seq + 1}
	for len(f.Entries) > maxDigestEntries {
		oldest := ""
		for p, e := range f.Entries {
			if oldest == "" || e.Seq < f.Entries[oldest].Seq {
				oldest = p
			}
		}
		delete(f.Entries, oldest)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return fmt.Errorf("digest cache: %w", err)
	}
	return atomicfile.Write(c.path, 0o644, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// Digest returns the digest of the file at path: the cached one when path's
// size, mtime (and inode and ctime) are those it was hashed at, else a fresh
// hash, which is then remembered if the file did not change while hashed.
// progress is as for Digest and is not called on a cache hit. A cache file
// that cannot be written costs only the caching, not the result.
func (c *DigestCache) Digest(ctx context.Context, path string, progress func(n int64)) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !before.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	k := keyOf(before)
	if d, ok := c.lookup(abs, k); ok {
		return d, nil
	}
	d, err := Digest(ctx, f, progress)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if after, err := os.Stat(abs); err == nil && keyOf(after) == k {
		c.store(abs, k, d) // best effort
	}
	return d, nil
}

// Remember records that the file at path, as it is now, has digest d. Fetch
// calls it after renaming a verified download into place.
func (c *DigestCache) Remember(path, d string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return err
	}
	return c.store(abs, keyOf(fi), d)
}

// DigestMismatchError reports a parameter file whose digest is not the one
// parameters.json gives.
type DigestMismatchError struct {
	Path      string // the file checked
	Got, Want string // its digest and the parameters.json one
}

func (e *DigestMismatchError) Error() string {
	return fmt.Sprintf("%s: digest %s, parameters.json says %s: the file is corrupt or another version; delete it and fetch it again (filc2 params fetch)", e.Path, e.Got, e.Want)
}

// VerifyFile checks the file at path against f's parameters.json digest
// through the default digest cache. It returns nil when they match, an error
// satisfying errors.Is(err, fs.ErrNotExist) when the file is absent, and a
// *DigestMismatchError when it differs. progress is as for Digest.
func VerifyFile(ctx context.Context, path string, f abi.ParamsFile, progress func(n int64)) error {
	d, err := DefaultDigestCache().Digest(ctx, path, progress)
	if err != nil {
		return err
	}
	if d != f.Digest {
		return &DigestMismatchError{Path: path, Got: d, Want: f.Digest}
	}
	return nil
}

// isMismatch reports whether err is a *DigestMismatchError.
func isMismatch(err error) bool {
	var m *DigestMismatchError
	return errors.As(err, &m)
}

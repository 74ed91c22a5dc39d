package paramcache

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/blake2b"

	"github.com/filc2/filc2/proofs/abi"
)

// DefaultGateway is the IPFS HTTP gateway lotus fetches parameters from
// (go-paramfetch's gateway constant); a file's URL is the gateway followed
// by its CID.
const DefaultGateway = "https://proofs.filecoin.io/ipfs/"

// EnvGateway names the environment variable that overrides DefaultGateway,
// as it does for go-paramfetch (lotus fetch-params).
const EnvGateway = "IPFS_GATEWAY"

// Gateway returns $IPFS_GATEWAY, else DefaultGateway.
func Gateway() string {
	if g := os.Getenv(EnvGateway); g != "" {
		return g
	}
	return DefaultGateway
}

// FileURL returns the URL of f under an http(s) gateway such as
// DefaultGateway; a missing trailing slash is added.
func FileURL(gateway string, f abi.ParamsFile) (string, error) {
	u, err := url.Parse(gateway)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("gateway %q: want an http(s) URL such as %s", gateway, DefaultGateway)
	}
	if f.CID == "" {
		return "", fmt.Errorf("%s has no CID in parameters.json", f.Name)
	}
	if !strings.HasSuffix(gateway, "/") {
		gateway += "/"
	}
	return gateway + f.CID, nil
}

// Retry and stall tuning; variables so that tests can shorten them.
var (
	retryBase    = time.Second      // first back-off
	retryMax     = 30 * time.Second // back-off ceiling
	maxRetries   = 6                // consecutive failed attempts without progress
	stallTimeout = 2 * time.Minute  // an attempt that receives nothing this long fails
)

// httpClient has no overall timeout: a 47 GB download takes as long as it
// takes; stalls are caught by stallTimeout instead.
var httpClient = &http.Client{}

// Fetch makes dir hold f, downloaded by CID from gateway ("" for Gateway()).
// A file already there with the right digest is kept without a request; one
// with another digest is replaced. The download streams into a temporary file
// in dir (hashed on the way), resumes with a Range request after a dropped
// connection, retries transient failures (network errors, 408, 429, 5xx, a
// truncated body) with exponential back-off, and is renamed to f.Name only
// once its BLAKE2b-512 digest matches parameters.json: the final name never
// holds a partial or wrong file. On any error, cancellation included, the
// temporary file is removed. progress, if not nil, gets the bytes received
// and the total (−1 while unknown).
func Fetch(ctx context.Context, gateway, dir string, f abi.ParamsFile, progress func(done, total int64)) error {
	if gateway == "" {
		gateway = Gateway()
	}
	u, err := FileURL(gateway, f)
	if err != nil {
		return err
	}
	final := filepath.Join(dir, f.Name)
	switch err := VerifyFile(ctx, final, f, nil); {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist), isMismatch(err):
	default:
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("fetch %s: %w", f.Name, err)
	}
	removeStale(dir, f.Name)
	tmp, err := os.CreateTemp(dir, "."+f.Name+tmpInfix+"*")
	if err != nil {
		return fmt.Errorf("fetch %s: %w", f.Name, err)
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	d := &download{url: u, file: tmp, hash: mustBlake2b512(), progress: progress}
	if err := d.run(ctx); err != nil {
		return fmt.Errorf("fetch %s from %s: %w", f.Name, u, err)
	}
	got := hex.EncodeToString(d.hash.Sum(nil))[:32]
	if got != f.Digest {
		return fmt.Errorf("fetch %s from %s: downloaded %d bytes with digest %s, parameters.json says %s: the gateway served another file; try again or another --gateway", f.Name, u, d.done, got, f.Digest)
	}
	err = tmp.Chmod(0o644)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), final)
	}
	if err != nil {
		return fmt.Errorf("fetch %s: %w", f.Name, err)
	}
	committed = true
	DefaultDigestCache().Remember(final, got) // best effort: the next check is free
	return nil
}

// tmpInfix follows the dot and file name in a download's temporary name.
const tmpInfix = ".fetch-"

// removeStale deletes temporary files of name that a killed fetch left in
// dir. A live fetch writes to its file at least every stallTimeout, so one
// untouched for twice that is dead.
func removeStale(dir, name string) {
	matches, _ := filepath.Glob(filepath.Join(dir, "."+name+tmpInfix+"*"))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > 2*stallTimeout {
			os.Remove(m)
		}
	}
}

func mustBlake2b512() hash.Hash {
	h, err := blake2b.New512(nil)
	if err != nil {
		panic(err)
	}
	return h
}

// download is one file's transfer into file, across attempts.
type download struct {
	url      string
	file     *os.File
	hash     hash.Hash // of file's content so far
	done     int64     // bytes in file
	noRange  bool      // the server mishandled a Range request: always start over
	progress func(done, total int64)
}

// transientError is a failure worth retrying; after, when set, is the delay
// the server asked for (Retry-After).
type transientError struct {
	err   error
	after time.Duration
}

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

// run retries attempts until the body is complete, a permanent error occurs,
// ctx ends, or maxRetries attempts in a row fail without receiving a byte.
func (d *download) run(ctx context.Context) error {
	backoff := retryBase
	failures := 0
	for {
		before := d.done
		err := d.attempt(ctx)
		if err == nil {
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		var te *transientError
		if !errors.As(err, &te) {
			return err
		}
		if d.done > before {
			failures, backoff = 0, retryBase
		}
		failures++
		if failures > maxRetries {
			return fmt.Errorf("giving up after %d attempts without progress: %w", failures, err)
		}
		wait := backoff
		if te.after > wait {
			wait = min(te.after, retryMax)
		}
		backoff = min(2*backoff, retryMax)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// restart empties the file and the hash, to receive the body from byte 0.
func (d *download) restart() error {
	if _, err := d.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := d.file.Truncate(0); err != nil {
		return err
	}
	d.hash.Reset()
	d.done = 0
	return nil
}

// attempt makes one GET, resuming at d.done when it can, and appends the
// body to the file.
func (d *download) attempt(parent context.Context) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var stalled atomic.Bool
	watchdog := time.AfterFunc(stallTimeout, func() { stalled.Store(true); cancel() })
	defer watchdog.Stop()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "filc2")
	// No transparent gzip: Range offsets and Content-Length must count the
	// file's own bytes.
	req.Header.Set("Accept-Encoding", "identity")
	if d.noRange && d.done > 0 {
		if err := d.restart(); err != nil {
			return err
		}
	}
	if d.done > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(d.done, 10)+"-")
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return d.wrapNetErr(err, &stalled)
	}
	defer resp.Body.Close()

	total := int64(-1)
	switch {
	case resp.StatusCode == http.StatusOK:
		if d.done > 0 { // the server ignored Range: take the whole body
			if err := d.restart(); err != nil {
				return err
			}
		}
		if resp.ContentLength >= 0 {
			total = resp.ContentLength
		}
	case resp.StatusCode == http.StatusPartialContent && d.done > 0:
		start, size, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != d.done {
			d.noRange = true
			return &transientError{err: fmt.Errorf("server answered Range bytes=%d- with Content-Range %q", d.done, resp.Header.Get("Content-Range"))}
		}
		total = size
		if total < 0 && resp.ContentLength >= 0 {
			total = d.done + resp.ContentLength
		}
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && d.done > 0:
		d.noRange = true
		return &transientError{err: fmt.Errorf("server refused Range bytes=%d-: %s", d.done, resp.Status)}
	case resp.StatusCode == http.StatusRequestTimeout, resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode >= 500:
		return &transientError{err: fmt.Errorf("GET: %s", resp.Status), after: retryAfter(resp.Header.Get("Retry-After"))}
	case resp.StatusCode == http.StatusNotFound, resp.StatusCode == http.StatusGone:
		return fmt.Errorf("GET: %s: the gateway does not serve this CID; try another --gateway (or $%s)", resp.Status, EnvGateway)
	default:
		return fmt.Errorf("GET: unexpected %s; check the gateway URL or try another --gateway (or $%s)", resp.Status, EnvGateway)
	}
	if d.progress != nil {
		d.progress(d.done, total)
	}
	buf := make([]byte, 1<<20)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			watchdog.Reset(stallTimeout)
			if _, err := d.file.Write(buf[:n]); err != nil {
				return fmt.Errorf("write %s: %w", d.file.Name(), err)
			}
			d.hash.Write(buf[:n])
			d.done += int64(n)
			if d.progress != nil {
				d.progress(d.done, total)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return d.wrapNetErr(rerr, &stalled)
		}
	}
	if total >= 0 && d.done != total {
		return &transientError{err: fmt.Errorf("body ended at byte %d of %d: truncated", d.done, total)}
	}
	return nil
}

// wrapNetErr classifies a request or body error: cancellation of the parent
// is returned as is; anything else, stalls included, is transient.
func (d *download) wrapNetErr(err error, stalled *atomic.Bool) error {
	if stalled.Load() {
		return &transientError{err: fmt.Errorf("no data for %v", stallTimeout)}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &transientError{err: fmt.Errorf("body ended at byte %d: truncated (%w)", d.done, err)}
	}
	return &transientError{err: err}
}

// parseContentRange parses "bytes START-END/SIZE"; size is −1 for "*".
func parseContentRange(s string) (start, size int64, ok bool) {
	rest, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, sz, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, false
	}
	a, _, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(a, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	size = -1
	if sz != "*" {
		if size, err = strconv.ParseInt(sz, 10, 64); err != nil {
			return 0, 0, false
		}
	}
	return start, size, true
}

// retryAfter parses a Retry-After header given in seconds; 0 otherwise.
func retryAfter(s string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// Package paramcache finds and checks Groth16 parameter files in the local
// parameter cache, the directory filecoin-proofs, lotus and curio share
// ($FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters).
// It owns the file digests of parameters.json; formats are package groth16's.
//
// Fetch downloads a file by CID from an IPFS HTTP gateway (DefaultGateway,
// $IPFS_GATEWAY) atomically, checking its digest before it takes its name.
// CheckedDigest and VerifyFile hash a file once and then answer from a small
// per-user JSON cache, $XDG_CACHE_HOME/filc2/param-digests.json (moved or
// disabled with $FILC2_DIGEST_CACHE), keyed by the file's absolute path, size,
// mtime and, on Linux, inode and ctime; Check always hashes.
package paramcache

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/crypto/blake2b"

	"github.com/filc2/filc2/proofs/abi"
)

// DefaultDir is the parameter cache directory filecoin-proofs uses.
const DefaultDir = "/var/tmp/filecoin-proof-parameters"

// EnvDir names the environment variable that overrides DefaultDir.
const EnvDir = "FIL_PROOFS_PARAMETER_CACHE"

// Dir returns the parameter cache directory from the environment.
func Dir() string {
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	return DefaultDir
}

// Digest returns the parameters.json digest of r's content: the first 32 hex
// digits of its BLAKE2b-512. progress, if not nil, gets the bytes hashed so far.
func Digest(ctx context.Context, r io.Reader, progress func(n int64)) (string, error) {
	h, _ := blake2b.New512(nil)
	buf := make([]byte, 4<<20)
	var done int64
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := r.Read(buf)
		h.Write(buf[:n])
		done += int64(n)
		if progress != nil && n > 0 {
			progress(done)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// FileDigest returns the digest of the file at path.
func FileDigest(ctx context.Context, path string, progress func(n int64)) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return Digest(ctx, f, progress)
}

// Status is the outcome of checking one file.
type Status int

// The outcomes of Check.
const (
	Missing  Status = iota // not in the directory
	OK                     // digest matches parameters.json
	Mismatch               // present with another digest
)

func (s Status) String() string {
	return [...]string{"missing", "ok", "MISMATCH"}[s]
}

// Result is the check of one parameters.json entry.
type Result struct {
	File   abi.ParamsFile
	Path   string
	Size   int64
	Status Status
	Digest string // computed, when present
}

// Check hashes every parameters.json file present in dir. start is called
// before each file is hashed (with its size), progress as it is hashed.
func Check(ctx context.Context, dir string, files []abi.ParamsFile, start func(f abi.ParamsFile, size int64), progress func(n int64)) ([]Result, error) {
	var out []Result
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		r := Result{File: f, Path: path}
		st, err := os.Stat(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			out = append(out, r)
			continue
		case err != nil:
			return out, err
		}
		r.Size = st.Size()
		if start != nil {
			start(f, st.Size())
		}
		d, err := FileDigest(ctx, path, progress)
		if err != nil {
			return out, fmt.Errorf("%s: %w", path, err)
		}
		r.Digest = d
		r.Status = Mismatch
		if d == f.Digest {
			r.Status = OK
		}
		out = append(out, r)
	}
	return out, nil
}

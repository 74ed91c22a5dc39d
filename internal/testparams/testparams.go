// Package testparams gives tests one shared set of test Groth16 parameters
// per proof type and machine: the first test binary that asks makes them with
// c2.Setup (about a minute for 2KiB on 2 cores) under a file lock, every other
// one — in this or a parallel package — reuses them. The directory is
// $FILC2_TEST_PARAMS, else filc2-test-params-v1 in the system temp directory.
package testparams

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c2"
)

// Env names the directory to keep test parameters in.
const Env = "FILC2_TEST_PARAMS"

// Dir returns a directory holding p's test .params, .vk and PCE.
func Dir(t testing.TB, p abi.SealProof) string {
	t.Helper()
	dir := os.Getenv(Env)
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "filc2-test-params-v1")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	f := c2.FilesIn(dir, p)
	if exists(f.VK) && exists(f.Params) && exists(f.PCE) {
		return dir
	}
	t0 := time.Now()
	if _, _, err := c2.Setup(context.Background(), p, dir, c2.SetupOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "testparams: set up %s test parameters in %s in %v\n", p.Name, dir, time.Since(t0).Round(time.Millisecond))
	return dir
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

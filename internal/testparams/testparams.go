// Package testparams gives tests one shared set of test Groth16 parameters
// per proof type and machine: the first test binary that asks makes them with
// c2.Setup (about a minute for 2KiB on 2 cores), or snap.Setup for an update
// circuit, under a file lock; every other one — in this or a parallel package —
// reuses them. The directory is $FILC2_TEST_PARAMS, else filc2-test-params-v1
// in the system temp directory.
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
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/snap"
	"github.com/filc2/filc2/proofs/snark"
)

// Env names the directory to keep test parameters in.
const Env = "FILC2_TEST_PARAMS"

// Dir returns a directory holding p's test .params, .vk and PCE.
func Dir(t testing.TB, p abi.SealProof) string {
	t.Helper()
	f := c2.FilesIn("", p)
	return shared(t, "", p.Name, []string{f.VK, f.Params, f.PCE}, func(dir string) error {
		_, _, err := c2.Setup(context.Background(), p, dir, c2.SetupOptions{Force: true})
		return err
	})
}

// SnapDir returns a directory holding the update circuit p's .params, .vk and
// PCE from a setup seeded by seed (groth16.SeededToxic): the same files on
// every machine, shared like Dir's (a subdirectory per seed).
func SnapDir(t testing.TB, p abi.UpdateProof, seed uint64) string {
	t.Helper()
	f := snap.FilesIn("", p)
	return shared(t, fmt.Sprintf("snap-seed-%d", seed), p.Name, []string{f.VK, f.Params, f.PCE}, func(dir string) error {
		toxic, err := groth16.SeededToxic(seed)
		if err != nil {
			return err
		}
		_, _, err = snap.Setup(context.Background(), p, dir, snark.SetupOptions{Toxic: &toxic, Force: true})
		return err
	})
}

// shared returns the shared directory (sub inside it) once it holds files,
// calling setup there first if it does not: under the directory's file lock,
// so that one test binary of those running at once sets up and the others wait.
func shared(t testing.TB, sub, what string, files []string, setup func(dir string) error) string {
	t.Helper()
	root := os.Getenv(Env)
	if root == "" {
		root = filepath.Join(os.TempDir(), "filc2-test-params-v1")
	}
	dir := filepath.Join(root, sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(root, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	have := true
	for _, f := range files {
		have = have && exists(filepath.Join(dir, f))
	}
	if have {
		return dir
	}
	t0 := time.Now()
	if err := setup(dir); err != nil {
		t.Fatalf("setting up %s test parameters in %s: %v", what, dir, err)
	}
	fmt.Fprintf(os.Stderr, "testparams: set up %s test parameters in %s in %v\n", what, dir, time.Since(t0).Round(time.Millisecond))
	return dir
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Package plugintest helps tests that run filc2's serving processes: the
// filc2 binary, built once per test binary; 2KiB test parameters, made once
// per test binary; and sealed 2KiB C1 outputs. Call Cleanup from TestMain.
package plugintest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/filc2/filc2/internal/testparams"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
)

// EnvParams names a directory to keep the 2KiB test parameters in between
// runs (made there when missing); see package testparams.
const EnvParams = testparams.Env

// Miner is the miner id SealC1's sectors belong to.
const Miner = 1000

// Proof is the proof type of SealC1's sectors, StackedDrg2KiBV1_1.
var Proof = mustParse("StackedDrg2KiBV1_1")

func mustParse(name string) abi.SealProof {
	p, err := abi.ParseName(name)
	if err != nil {
		panic(err)
	}
	return p
}

var (
	mu      sync.Mutex
	temps   []string
	binOnce sync.Once
	binPath string
	binErr  error
)

func tempDir(pattern string) (string, error) {
	d, err := os.MkdirTemp("", pattern)
	if err == nil {
		mu.Lock()
		temps = append(temps, d)
		mu.Unlock()
	}
	return d, err
}

// Cleanup removes what Binary and Params made.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	for _, d := range temps {
		os.RemoveAll(d)
	}
	temps = nil
}

// Binary builds github.com/filc2/filc2/cmd/filc2 with the go command that
// runs the tests (once per test binary) and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := tempDir("filc2-bin-")
		if err != nil {
			binErr = err
			return
		}
		goTool, err := exec.LookPath("go")
		if err != nil {
			binErr = fmt.Errorf("no go command to build filc2 with: %w", err)
			return
		}
		t0 := time.Now()
		path := filepath.Join(dir, "filc2")
		cmd := exec.Command(goTool, "build", "-o", path, "github.com/filc2/filc2/cmd/filc2")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build ./cmd/filc2: %v\n%s", err, out)
			return
		}
		binPath = path
		fmt.Fprintf(os.Stderr, "plugintest: built %s in %v\n", path, time.Since(t0).Round(time.Millisecond))
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// Params returns a directory with StackedDrg2KiBV1_1 test parameters,
// shared between test binaries through package testparams.
func Params(t testing.TB) string {
	t.Helper()
	return testparams.Dir(t, Proof)
}

// SealC1 seals a 2KiB sector of Miner (ticket and seed from sector and
// seed) and returns its C1 output as SealCommit1 writes it.
func SealC1(t testing.TB, sector uint64, seed byte) []byte {
	t.Helper()
	var ticket, s [32]byte
	ticket[1], ticket[2], s[0] = byte(sector)+1, byte(sector>>8), seed
	_, b := testparams.SealC1(t, Proof, Miner, sector, ticket, s)
	return b
}

// Verify checks proof against the C1 it was made from, under the .vk in
// the Params directory.
func Verify(t testing.TB, c1JSON, proof []byte) error {
	t.Helper()
	c, err := c1.Decode(c1JSON)
	if err != nil {
		return err
	}
	p, err := c.ProofType()
	if err != nil {
		return err
	}
	vk, err := groth16.ReadVerifyingKeyFile(c2.FilesIn(Params(t), p).VK, porep.PublicInputCount(p.ChallengesPerPartition)+1)
	if err != nil {
		return err
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		return err
	}
	return c2.VerifyC1Proof(pvk, c, proof)
}

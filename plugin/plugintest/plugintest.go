// Package plugintest helps tests that run filc2's serving processes: the
// filc2 binary, built once per test binary; 2KiB test parameters, made once
// per test binary; and sealed 2KiB C1 outputs. Call Cleanup from TestMain.
package plugintest

import (
	"context"
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
	"github.com/filc2/filc2/proofs/fallback"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/post"
	"github.com/filc2/filc2/proofs/snark"
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

// The PoSt types PoStParams makes test parameters for.
var (
	WindowPoSt  = mustPoSt("StackedDrgWindow2KiBV1_1")
	WinningPoSt = mustPoSt("StackedDrgWinning2KiBV1")
)

func mustPoSt(name string) abi.PoStProof {
	p, err := abi.ParsePoStName(name)
	if err != nil {
		panic(err)
	}
	return p
}

var (
	postOnce sync.Once
	postDir  string
	postErr  error
)

// PoStParams returns a directory with test parameters (a seeded setup) of
// WindowPoSt and WinningPoSt, made once per test binary.
func PoStParams(t testing.TB) string {
	t.Helper()
	postOnce.Do(func() {
		dir, err := tempDir("filc2-post-params-")
		if err != nil {
			postErr = err
			return
		}
		for _, p := range []abi.PoStProof{WindowPoSt, WinningPoSt} {
			toxic, err := groth16.SeededToxic(5)
			if err != nil {
				postErr = err
				return
			}
			if _, _, err := post.Setup(context.Background(), p, dir, snark.SetupOptions{Toxic: &toxic}); err != nil {
				postErr = fmt.Errorf("setup %s: %w", p.Name, err)
				return
			}
		}
		postDir = dir
	})
	if postErr != nil {
		t.Fatal(postErr)
	}
	return postDir
}

// PoStVanilla returns the bincode vanilla proofs of n sparse sectors for
// partition k of p under randomness r (masked), and their public side.
func PoStVanilla(t testing.TB, p abi.PoStProof, r [32]byte, n, k int) ([][]byte, []fallback.PublicSector) {
	t.Helper()
	req, err := post.SparseRequest(p, fallback.MaskRandomness(r), n, k)
	if err != nil {
		t.Fatal(err)
	}
	var raw [][]byte
	var pubs []fallback.PublicSector
	for _, v := range req.Vanilla {
		raw = append(raw, v.Encode())
		pubs = append(pubs, fallback.PublicSector{ID: v.SectorID, CommR: v.CommR})
	}
	return raw, pubs
}

// VerifyPoSt checks a PoSt proof of partition k for sectors under the .vk
// in the PoStParams directory.
func VerifyPoSt(t testing.TB, p abi.PoStProof, r [32]byte, sectors []fallback.PublicSector, k int, proof []byte) error {
	t.Helper()
	pvk, err := snark.ReadVerifyingKey(post.FilesIn(PoStParams(t), p).VK, fallback.NumInputs(p))
	if err != nil {
		return err
	}
	return post.Verify(pvk, p, fallback.MaskRandomness(r), sectors, k, proof)
}

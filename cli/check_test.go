package cli

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/filc2/filc2/ffi"
	"github.com/filc2/filc2/proofs/c1"
)

// seal --sparse writes a 2KiB fixture (no sealed file, commitments marked
// sparse) whose c1.json `check --circuit` passes; one flipped sibling makes
// check say invalid, naming its JSON path, with exit 1; --sparse refuses
// synthetic PoRep and --data, --cc needs --sparse.
func TestSealSparseCheck(t *testing.T) {
	dir := t.TempDir()
	out, err := run(t, "seal", "--sparse", "-p", "StackedDrg2KiBV1_1", "--out", dir, "--miner-id", "1234", "--sector-id", "9",
		"--ticket", strings.Repeat("0b", 32), "--seed", strings.Repeat("0c", 32))
	if err != nil || !strings.Contains(out, "sparse TEST FIXTURE") {
		t.Fatalf("seal --sparse: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "sealed")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a sparse sector wrote a sealed file")
	}
	var cm commitmentsJSON
	b, err := os.ReadFile(filepath.Join(dir, "commitments.json"))
	if err != nil || json.Unmarshal(b, &cm) != nil || !cm.Sparse || cm.SectorID != 9 || cm.MinerID != 1234 {
		t.Fatalf("commitments.json %+v: %v", cm, err)
	}
	path := filepath.Join(dir, "c1.json")
	out, err = run(t, "check", "--c1", path, "--circuit", "--miner-id", "1234")
	if err != nil || !strings.HasSuffix(out, "ok\n") || !strings.Contains(out, "partition 0: every constraint satisfied") {
		t.Fatalf("check --circuit: %v\n%s", err, out)
	}
	if out, err = run(t, "check", "--c1", path, "--miner-id", "77"); exitCode(err) != 1 || !strings.Contains(out, "invalid: ") || !strings.Contains(out, "replica_id") {
		t.Fatalf("check with another miner: %v\n%s", err, out)
	}

	raw, w, err := c1.DecodeWrapped(mustRead(t, path))
	if err != nil {
		t.Fatal(err)
	}
	raw.VanillaProofs.Partitions[0][1].CommRLastProof.Data.Single.Path.Path[1].Hashes[0][5] ^= 1
	enc, err := c1.Encode(raw)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, c1.EncodeWrapper(w.SectorNum, w.SectorSize, enc), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, "check", "--c1", bad, "--circuit")
	if exitCode(err) != 1 || !strings.Contains(out, "invalid: porep: vanilla_proofs.StackedDrg2KiBV1[0][1].comm_r_last_proof.data.Single.path") {
		t.Fatalf("check of a flipped sibling: %v\n%s", err, out)
	}

	for _, args := range [][]string{
		{"check", "--c1", filepath.Join(dir, "missing.json")},
		{"check", "--c1", path, "--partition", "0"},
		{"check", "--c1", path, "--circuit", "--partition", "1"},
		{"seal", "--cc", "-p", "StackedDrg2KiBV1_1", "--out", t.TempDir()},
		{"seal", "--sparse", "--data", path, "-p", "StackedDrg2KiBV1_1", "--out", t.TempDir()},
	} {
		if out, err := run(t, args...); exitCode(err) != 2 {
			t.Errorf("%v: %v (want a usage error)\n%s", args, err, out)
		}
	}
	if out, err := run(t, "seal", "--sparse", "-p", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep", "--out", t.TempDir()); err == nil || !strings.Contains(err.Error(), "interactive") {
		t.Fatalf("seal --sparse of synthetic PoRep: %v\n%s", err, out)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// setup's --backend is checked before any work; cuda needs a CUDA build.
func TestSetupBackendFlag(t *testing.T) {
	out := t.TempDir()
	if o, err := run(t, "setup", "-p", "StackedDrg2KiBV1_1", "--out", out, "--backend", "tpu"); exitCode(err) != 2 || !strings.Contains(err.Error(), `"tpu"`) {
		t.Fatalf("--backend tpu: %v\n%s", err, o)
	}
	if !ffi.Compiled() {
		if o, err := run(t, "setup", "-p", "StackedDrg2KiBV1_1", "--out", out, "--backend", "cuda"); exitCode(err) != 2 || !strings.Contains(err.Error(), "without CUDA") {
			t.Fatalf("--backend cuda without CUDA: %v\n%s", err, o)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(out, "*")); len(m) != 0 {
		t.Fatalf("a refused setup wrote %v", m)
	}
}

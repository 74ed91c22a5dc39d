package cli

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The whole CLI path on a 2KiB sector: setup → seal → prove → verify and
// verify-seal with the same public data; the proof file has 192 bytes per
// partition; a flipped byte and another sector's data are invalid.
func TestCLIEndToEnd2KiB(t *testing.T) {
	dir := t.TempDir()
	params := filepath.Join(dir, "params")
	t.Setenv("FILC2_DIGEST_CACHE", "off")
	if out, err := run(t, "setup", "-p", "StackedDrg2KiBV1_1", "--out", params); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	if _, err := run(t, "setup", "-p", "StackedDrg2KiBV1_1", "--out", params); err == nil {
		t.Fatal("second setup without --force succeeded")
	}
	seal := func(name, sector, seed string) commitmentsJSON {
		out := filepath.Join(dir, name)
		if o, err := run(t, "seal", "-p", "StackedDrg2KiBV1_1", "--out", out, "--miner-id", "1234", "--sector-id", sector,
			"--ticket", strings.Repeat("0a", 32), "--seed", seed); err != nil {
			t.Fatalf("seal: %v\n%s", err, o)
		}
		var cm commitmentsJSON
		b, err := os.ReadFile(filepath.Join(out, "commitments.json"))
		if err != nil || json.Unmarshal(b, &cm) != nil {
			t.Fatalf("commitments.json: %v", err)
		}
		return cm
	}
	a := seal("a", "7", strings.Repeat("01", 32))
	b := seal("b", "8", strings.Repeat("02", 32))
	c1a, c1b := filepath.Join(dir, "a", "c1.json"), filepath.Join(dir, "b", "c1.json")
	proof := filepath.Join(dir, "a.proof")

	out, err := run(t, "prove", "--c1", c1a, "--out", proof, "--params-dir", params, "--miner-id", "1234", "--backend", "cpu", "--json")
	if err != nil {
		t.Fatalf("prove: %v\n%s", err, out)
	}
	var sum proveSummary
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &sum); err != nil || len(sum.Partitions) != 1 {
		t.Fatalf("prove --json: %v in %q", err, out)
	}
	raw, err := os.ReadFile(proof)
	if err != nil || len(raw) != 192 {
		t.Fatalf("proof file: %d bytes, %v", len(raw), err)
	}
	// A wrong miner id is caught before proving.
	if _, err := run(t, "prove", "--c1", c1a, "--out", proof+".x", "--params-dir", params, "--miner-id", "99"); err == nil || !strings.Contains(err.Error(), "replica_id") {
		t.Fatalf("wrong miner: %v", err)
	}
	if _, err := os.Stat(proof + ".x"); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a failed prove left an output file")
	}
	// An --out that cannot be written fails before the parameters are even
	// looked at; a directory is not replaced.
	for _, bad := range []string{filepath.Join(dir, "no", "such", "x"), dir} {
		if _, err := run(t, "prove", "--c1", c1a, "--out", bad, "--params-dir", filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "--out") {
			t.Fatalf("--out %s: %v, want an --out error before proving", bad, err)
		}
	}
	// --out - writes the proof to stdout.
	hexOut, err := run(t, "prove", "--c1", c1a, "--out", "-", "--hex", "--params-dir", params, "--backend", "cpu")
	if err != nil {
		t.Fatalf("prove --out -: %v\n%s", err, hexOut)
	}
	var hexProof string
	for _, line := range strings.Split(hexOut, "\n") {
		if len(line) == 2*192 && strings.Trim(line, "0123456789abcdef") == "" {
			hexProof = line
		}
	}
	stdoutProof := filepath.Join(dir, "stdout.proof")
	if err := os.WriteFile(stdoutProof, []byte(hexProof+"\n"), 0o644); hexProof == "" || err != nil {
		t.Fatalf("prove --out - --hex printed no 192-byte hex proof: %q", hexOut)
	}

	verdict := func(args ...string) (string, int) {
		out, err := run(t, args...)
		code := 0
		var ee *ExitError
		if errors.As(err, &ee) {
			code = ee.Code
		} else if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return lines[len(lines)-1], code // the verdict; warnings come before it
	}
	if v, code := verdict("verify", "--c1", c1a, "--proof", proof, "--params-dir", params); v != "verified" || code != 0 {
		t.Fatalf("verify: %q %d", v, code)
	}
	if v, code := verdict("verify", "--c1", c1a, "--proof", stdoutProof, "--params-dir", params); v != "verified" || code != 0 {
		t.Fatalf("verify the proof written to stdout: %q %d", v, code)
	}
	if v, code := verdict("verify", "--c1", c1b, "--proof", proof, "--params-dir", params); !strings.HasPrefix(v, "invalid: ") || code != 1 {
		t.Fatalf("verify against sector b: %q %d", v, code)
	}
	seal2 := func(cm commitmentsJSON, proofArg string) (string, int) {
		return verdict("verify-seal", "-p", cm.RegisteredProof, "--comm-r", cm.CommRCID, "--comm-d", cm.CommD,
			"--miner-id", "1234", "--sector-id", "7", "--ticket", cm.Ticket, "--seed", cm.Seed, "--proof", proofArg, "--params-dir", params)
	}
	if v, code := seal2(a, "@"+proof); v != "verified" || code != 0 {
		t.Fatalf("verify-seal: %q %d", v, code)
	}
	flipped := append([]byte(nil), raw...)
	flipped[150] ^= 0x01
	os.WriteFile(proof+".flipped", flipped, 0o644)
	if v, code := seal2(a, "@"+proof+".flipped"); !strings.HasPrefix(v, "invalid: ") || code != 1 {
		t.Fatalf("verify-seal of a flipped proof: %q %d", v, code)
	}
	if v, code := verdict("verify", "--c1", c1a, "--proof", proof+".flipped", "--params-dir", params); !strings.HasPrefix(v, "invalid: ") || code != 1 {
		t.Fatalf("verify of a flipped proof: %q %d", v, code)
	}
	if v, code := seal2(b, "@"+proof); !strings.HasPrefix(v, "invalid: ") || code != 1 {
		t.Fatalf("verify-seal with sector b's data: %q %d", v, code)
	}
}

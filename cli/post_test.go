package cli

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seal → post vanilla → setup → prove-post → verify-post on the CPU, for
// Window V1 (at partition 1) and V1_1 and for Winning, at the sizes given;
// another randomness, sector or comm_r is invalid with exit 1. One sector
// sealed per size serves every PoSt type of that size. With sparse, no sector
// is sealed: each proof type's vanilla proof comes from post vanilla --sparse,
// a fixture sector whose comm_r the command prints (the circuit, the proof and
// its checks are the same; only the tree R-last is not rebuilt from a replica).
func testPoStEndToEnd(t *testing.T, size string, sparse bool) {
	dir := t.TempDir()
	sec := filepath.Join(dir, "sector")
	var cm commitmentsJSON
	if !sparse {
		if out, err := run(t, "seal", "-p", "StackedDrg"+size+"V1_1", "--out", sec, "--sector-id", "41"); err != nil {
			t.Fatalf("seal: %v\n%s", err, out)
		}
		b, _ := os.ReadFile(filepath.Join(sec, "commitments.json"))
		if err := json.Unmarshal(b, &cm); err != nil {
			t.Fatal(err)
		}
	}
	const r = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1fff" // top bits set: masked
	const other = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f3e"
	params := filepath.Join(dir, "params")
	for _, tc := range []struct {
		proof     string
		partition string
	}{{"StackedDrgWindow" + size + "V1_1", "0"}, {"StackedDrgWindow" + size + "V1", "1"}, {"StackedDrgWinning" + size + "V1", "0"}} {
		vanilla, proof := filepath.Join(dir, tc.proof+".vanilla"), filepath.Join(dir, tc.proof+".proof")
		args := []string{"post", "vanilla", "--sector-dir", sec, "--post-proof", tc.proof, "--randomness", r, "--out", vanilla}
		if sparse {
			args = []string{"post", "vanilla", "--sparse", "--sector-id", "41", "--post-proof", tc.proof, "--randomness", r, "--out", vanilla}
		}
		if strings.HasSuffix(tc.proof, "V1") && strings.Contains(tc.proof, "Window") {
			args = append(args, "--sector-index", "2") // partition 1 × 2 sectors + 0
		}
		out, err := run(t, args...)
		if err != nil || !strings.Contains(out, "cleared the top two bits") {
			t.Fatalf("%s: post vanilla: %v\n%s", tc.proof, err, out)
		}
		if sparse {
			// "comm_r HEX (CID)": the fixture's, a new one for each proof type
			// (its challenged leaves differ).
			var f []string
			if i := strings.Index(out, "\ncomm_r "); i >= 0 {
				f = strings.Fields(out[i:])
			}
			if len(f) < 3 || len(f[1]) != 64 {
				t.Fatalf("%s: no comm_r in\n%s", tc.proof, out)
			}
			cm.CommR, cm.CommRCID = f[1], strings.Trim(f[2], "()")
		}
		// V1 and V1_1 Window share parameters: set up once per circuit.
		if _, err := os.Stat(filepath.Join(params, "done-"+circuitOf(tc.proof))); err != nil {
			if out, err := run(t, "setup", "--post-proof", tc.proof, "--out", params, "--seed", "3"); err != nil {
				t.Fatalf("%s: setup: %v\n%s", tc.proof, err, out)
			}
			os.WriteFile(filepath.Join(params, "done-"+circuitOf(tc.proof)), nil, 0o644)
		}
		if out, err := run(t, "prove-post", "--post-proof", tc.proof, "--randomness", r, "--vanilla", vanilla, "--partition", tc.partition,
			"--out", proof, "--params-dir", params, "--backend", "cpu"); err != nil {
			t.Fatalf("%s: prove-post: %v\n%s", tc.proof, err, out)
		}
		verify := func(rand, sector string) (string, error) {
			return run(t, "verify-post", "--post-proof", tc.proof, "--randomness", rand, "--sector", sector, "--partition", tc.partition,
				"--proof", "@"+proof, "--params-dir", params)
		}
		if out, err := verify(r, "41:"+cm.CommRCID); err != nil || !strings.HasSuffix(out, "verified\n") {
			t.Fatalf("%s: verify-post: %v\n%s", tc.proof, err, out)
		}
		if out, err := verify(r, "41:"+cm.CommR); err != nil || !strings.HasSuffix(out, "verified\n") {
			t.Fatalf("%s: verify-post with hex comm_r: %v\n%s", tc.proof, err, out)
		}
		// Another comm_r: the lowest bit of its first (least significant) byte
		// flipped. (Writing "00" there was no change one run in 256: the ticket
		// is random, and so is comm_r's first byte.)
		cb, err := hex.DecodeString(cm.CommR)
		if err != nil || len(cb) != 32 {
			t.Fatalf("comm_r %q", cm.CommR)
		}
		cb[0] ^= 1
		badCommR := hex.EncodeToString(cb)
		for what, args := range map[string][2]string{"randomness": {other, "41:" + cm.CommR}, "sector": {r, "42:" + cm.CommR}, "comm_r": {r, "41:" + badCommR}} {
			out, err := verify(args[0], args[1])
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(out, "invalid: ") {
				t.Errorf("%s: another %s: %v\n%s", tc.proof, what, err, out)
			}
		}
		// Vanilla proofs for another randomness are refused before proving.
		if out, err := run(t, "prove-post", "--post-proof", tc.proof, "--randomness", other, "--vanilla", vanilla, "--partition", tc.partition,
			"--out", proof+".2", "--params-dir", params, "--backend", "cpu"); err == nil || !strings.Contains(err.Error(), "opens leaf") {
			t.Errorf("%s: prove-post for another randomness: %v\n%s", tc.proof, err, out)
		}
		if _, err := os.Stat(proof + ".2"); err == nil {
			t.Errorf("%s: a refused prove-post wrote its output", tc.proof)
		}
	}
}

func circuitOf(name string) string {
	if strings.Contains(name, "Winning") {
		return "winning"
	}
	return "window"
}

func TestPoStEndToEnd2KiB(t *testing.T) { testPoStEndToEnd(t, "2KiB", false) }

func TestPoStEndToEnd8MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("seals an 8MiB sector")
	}
	testPoStEndToEnd(t, "8MiB", false)
}

func TestPoStUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"prove-post", "--post-proof", "StackedDrgWindow2KiBV1_2", "--randomness", "00", "--vanilla", "x", "--out", "y"},
		{"prove-post", "--post-proof", "10", "--randomness", "zz", "--vanilla", "x", "--out", "y"},
		{"prove-post", "--post-proof", "10", "--randomness", strings.Repeat("00", 32), "--out", "y"},
		{"prove-post", "--post-proof", "0", "--randomness", strings.Repeat("00", 32), "--vanilla", "x", "--partition", "1", "--out", "y"},
		{"verify-post", "--post-proof", "10", "--randomness", strings.Repeat("00", 32), "--sector", "1", "--proof", "00"},
		{"verify-post", "--post-proof", "0", "--randomness", strings.Repeat("00", 32), "--sector", "1:" + strings.Repeat("00", 32) + ",2:" + strings.Repeat("00", 32), "--proof", "00"},
		{"post", "vanilla", "--post-proof", "10", "--randomness", strings.Repeat("00", 32), "--out", "y"},
		{"post", "vanilla", "--post-proof", "10", "--randomness", strings.Repeat("00", 32), "--sparse", "--sector-index", "1", "--out", "y"},
		{"setup", "--out", "y"},
		{"circuit", "info", "-p", "2", "--post-proof", "3"},
	} {
		out, err := run(t, args...)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 2 {
			t.Errorf("%v: %v (want a usage error, exit 2)\n%s", args, err, out)
		}
	}
}

// A sparse 32GiB Window vanilla proof passes the check; circuit info prints
// the published totals (synthesised + inputs).
func TestPoStSparseAndCircuitInfo(t *testing.T) {
	dir := t.TempDir()
	v := filepath.Join(dir, "v")
	if out, err := run(t, "post", "vanilla", "--sparse", "--sector-id", "7", "--post-proof", "StackedDrgWindow32GiBV1_1", "--randomness", strings.Repeat("ab", 31)+"01", "--out", v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if st, _ := os.Stat(v); st == nil || st.Size() != 24960 {
		t.Fatalf("a 32GiB Window vanilla proof is 24,960 bytes: %v", st)
	}
	out, err := run(t, "circuit", "info", "--post-proof", "StackedDrgWinning32GiBV1")
	if err != nil {
		t.Fatal(err)
	}
	var info circuitInfoJSON
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &info); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if info.Constraints != 370_590+133 || info.Inputs != 133 || info.DomainLog2 != 19 {
		t.Errorf("Winning 32GiB: %+v", info)
	}
}

// The 512MiB circuits on fixture sectors (their setups are most of its minute):
// CI's share of the size.
func TestPoStEndToEnd512MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("sets up and proves the 512MiB PoSt circuits")
	}
	testPoStEndToEnd(t, "512MiB", true)
}

// A sealed 512MiB sector (about six minutes on 2 cores, most of it labeling and
// trees that the 8MiB test runs at a smaller size; each post vanilla rebuilds
// tree R-last): with FILC2_TEST_LONG=1.
func TestPoStEndToEnd512MiBSealed(t *testing.T) {
	if os.Getenv("FILC2_TEST_LONG") != "1" {
		t.Skip("seals a 512MiB sector (about six minutes on 2 cores): set FILC2_TEST_LONG=1")
	}
	testPoStEndToEnd(t, "512MiB", false)
}

func TestFormatChunks(t *testing.T) {
	if got := formatChunks([]string{"h", "b_g2"}, map[string]int{"b_g2": 1 << 22, "h": 0}); got != "h 0, b_g2 4194304" {
		t.Errorf("formatChunks: %q", got)
	}
	if got := formatChunks(nil, nil); got != "" {
		t.Errorf("formatChunks(nil, nil): %q", got)
	}
}

package cli

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seal (committed capacity) → snap encode → setup → prove-update →
// verify-update at 2KiB on the CPU: verified by CID and by hex; another
// comm_d_new, comm_r_old or comm_r_new is invalid with exit 1; the vanilla
// proofs of another update are refused before proving and write nothing.
func TestUpdateEndToEnd2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2KiB update setup takes about a minute on 2 cores")
	}
	dir := t.TempDir()
	sec := filepath.Join(dir, "sector")
	if out, err := run(t, "seal", "-p", "StackedDrg2KiBV1_1", "--out", sec, "--sector-id", "7"); err != nil {
		t.Fatalf("seal: %v\n%s", err, out)
	}
	data := func(seed uint64) string {
		rng := rand.New(rand.NewPCG(seed, 1))
		b := make([]byte, 2048)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		for i := 31; i < len(b); i += 32 {
			b[i] &= 0x3f
		}
		path := filepath.Join(dir, "data"+string(rune('0'+seed)))
		os.WriteFile(path, b, 0o644)
		return path
	}
	enc, enc2 := filepath.Join(dir, "upd"), filepath.Join(dir, "upd2")
	for _, e := range []struct{ out, data string }{{enc, data(1)}, {enc2, data(2)}} {
		if out, err := run(t, "snap", "encode", "--sealed", sec, "--data", e.data, "--out", e.out); err != nil || !strings.Contains(out, "comm_r_new") {
			t.Fatalf("snap encode: %v\n%s", err, out)
		}
	}
	if out, err := run(t, "snap", "encode", "--sealed", sec, "--random-data", "3", "--out", filepath.Join(dir, "upd3")); err != nil || !strings.Contains(out, "comm_d_new") {
		t.Fatalf("snap encode --random-data: %v\n%s", err, out)
	}
	var ee *ExitError
	if _, err := run(t, "snap", "encode", "--sealed", sec, "--random-data", "3", "--data", data(1), "--out", filepath.Join(dir, "upd4")); !errors.As(err, &ee) || ee.Code != 2 {
		t.Fatalf("snap encode with --data and --random-data: %v", err)
	}
	read := func(d string) updateJSON {
		var u updateJSON
		b, _ := os.ReadFile(filepath.Join(d, snapUpdateFile))
		if err := json.Unmarshal(b, &u); err != nil {
			t.Fatal(err)
		}
		return u
	}
	u, u2 := read(enc), read(enc2)
	if u.UpdateProof != "StackedDrg2KiBV1" || u.CommROld != u2.CommROld || u.CommDNew == u2.CommDNew {
		t.Fatalf("update.json: %+v / %+v", u, u2)
	}
	params := filepath.Join(dir, "params")
	if out, err := run(t, "setup", "--update-proof", "StackedDrg2KiBV1", "--out", params, "--seed", "5"); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	proof := filepath.Join(dir, "update.proof")
	if out, err := run(t, "prove-update", "--update-proof", "StackedDrg2KiBV1", "--comm-r-old", u.CommROldCID, "--comm-r-new", u.CommRNewCID,
		"--comm-d-new", u.CommDNewCID, "--vanilla", filepath.Join(enc, snapVanillaFile), "--out", proof, "--params-dir", params, "--backend", "cpu"); err != nil {
		t.Fatalf("prove-update: %v\n%s", err, out)
	}
	verify := func(old, dNew, rNew string) (string, error) {
		return run(t, "verify-update", "--update-proof", "0", "--comm-r-old", old, "--comm-r-new", rNew, "--comm-d-new", dNew,
			"--proof", "@"+proof, "--params-dir", params)
	}
	for _, c := range [][3]string{{u.CommROldCID, u.CommDNewCID, u.CommRNewCID}, {u.CommROld, u.CommDNew, u.CommRNew}} {
		if out, err := verify(c[0], c[1], c[2]); err != nil || !strings.HasSuffix(out, "\nverified\n") {
			t.Fatalf("verify-update: %v\n%s", err, out)
		}
	}
	for what, c := range map[string][3]string{"comm_d_new": {u.CommROld, u2.CommDNew, u.CommRNew}, "comm_r_new": {u.CommROld, u.CommDNew, u2.CommRNew},
		"comm_r_old": {u2.CommRNew, u.CommDNew, u.CommRNew}} {
		out, err := verify(c[0], c[1], c[2])
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(out, "\ninvalid: ") {
			t.Errorf("another %s: %v\n%s", what, err, out)
		}
	}
	// A periodic fixture update: no sector needed, its proof verifies.
	per := filepath.Join(dir, "periodic")
	if out, err := run(t, "snap", "encode", "--periodic", "--update-proof", "StackedDrg2KiBV1", "--seed", "4", "--out", per); err != nil ||
		!strings.Contains(out, "TEST FIXTURE") {
		t.Fatalf("snap encode --periodic: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(per, "sealed")); err == nil {
		t.Error("snap encode --periodic wrote a replica")
	}
	pu := read(per)
	if !pu.Periodic || pu.UpdateProof != "StackedDrg2KiBV1" {
		t.Fatalf("periodic update.json %+v", pu)
	}
	pproof := filepath.Join(dir, "periodic.proof")
	if out, err := run(t, "prove-update", "--update-proof", "StackedDrg2KiBV1", "--comm-r-old", pu.CommROld, "--comm-r-new", pu.CommRNew,
		"--comm-d-new", pu.CommDNew, "--vanilla", filepath.Join(per, snapVanillaFile), "--out", pproof, "--params-dir", params, "--backend", "cpu"); err != nil {
		t.Fatalf("prove-update of the periodic fixture: %v\n%s", err, out)
	}
	if out, err := run(t, "verify-update", "--update-proof", "0", "--comm-r-old", pu.CommROld, "--comm-r-new", pu.CommRNew, "--comm-d-new", pu.CommDNew,
		"--proof", "@"+pproof, "--params-dir", params); err != nil || !strings.HasSuffix(out, "\nverified\n") {
		t.Fatalf("verify-update of the periodic fixture: %v\n%s", err, out)
	}
	// Another update's vanilla proofs: refused before proving, nothing written.
	if out, err := run(t, "prove-update", "--update-proof", "StackedDrg2KiBV1", "--comm-r-old", u.CommROld, "--comm-r-new", u.CommRNew,
		"--comm-d-new", u.CommDNew, "--vanilla", filepath.Join(enc2, snapVanillaFile), "--out", proof+".2", "--params-dir", params,
		"--backend", "cpu"); err == nil || !strings.Contains(err.Error(), "vanilla proof of partition 0") {
		t.Errorf("prove-update with another update's vanilla: %v\n%s", err, out)
	}
	if _, err := os.Stat(proof + ".2"); err == nil {
		t.Error("a refused prove-update wrote its output")
	}
	// Usage errors.
	for _, args := range [][]string{
		{"prove-update", "--update-proof", "StackedDrg2KiBV1", "--comm-r-old", u.CommROld, "--comm-d-new", u.CommDNew, "--vanilla", "x", "--out", "y"},
		{"prove-update", "--update-proof", "StackedDrg2KiBV1_1", "--out", "y"},
		{"verify-update", "--update-proof", "0", "--comm-r-old", u.CommROld, "--comm-r-new", u.CommRNew, "--comm-d-new", u.CommROldCID, "--proof", "@" + proof},
		{"snap", "encode", "--out", per},
		{"snap", "encode", "--periodic", "--out", per},
		{"snap", "encode", "--periodic", "--update-proof", "StackedDrg3KiBV1", "--out", per},
		{"snap", "encode", "--periodic", "--update-proof", "0", "--sealed", sec, "--out", per},
		{"snap", "encode", "--sealed", sec, "--update-proof", "0", "--random-data", "1", "--out", per},
	} {
		var ee *ExitError
		if _, err := run(t, args...); !errors.As(err, &ee) || ee.Code != 2 {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

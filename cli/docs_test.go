package cli

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
)

// docSnippet returns the code block that follows "<!-- test: name -->" in
// docs/file: the copy-paste examples the tests run.
func docSnippet(t *testing.T, file, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", file))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- test: " + regexp.QuoteMeta(name) + " -->\\s*```[a-z]*\\n(.*?)```")
	m := re.FindSubmatch(b)
	if m == nil {
		t.Fatalf("docs/%s has no example %q", file, name)
	}
	return string(m[1])
}

// replaceAll applies old → new pairs to s, each of which must occur.
func replaceAll(t *testing.T, s string, pairs ...string) string {
	t.Helper()
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("the example has no %q:\n%s", pairs[i], s)
		}
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	return s
}

// docArgs splits a one-command example ("filc2 serve --listen …") into
// the arguments after the binary's name.
func docArgs(t *testing.T, snippet string) []string {
	t.Helper()
	f := strings.Fields(snippet)
	if len(f) < 2 || f[0] != "filc2" || strings.ContainsAny(snippet, "|;&$\\") {
		t.Fatalf("not one filc2 command: %q", snippet)
	}
	return f[1:]
}

// runDoc runs an example with bash in dir, the test's filc2 first on PATH
// and env added, and returns its output.
func runDoc(t *testing.T, dir, script string, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"PATH=" + filepath.Dir(plugintest.Binary(t)) + string(os.PathListSeparator) + os.Getenv("PATH")}, env...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the example failed: %v\n--- script\n%s--- output\n%s", err, script, out.String())
	}
	return out.String()
}

// docs/go-host.md's program compiles in this module (through an overlay,
// writing nothing into the tree), refuses a filc2 binary whose checksum is
// not the pinned one, and with the right one launches the plugin and gets
// its typed bad-input error for a C1 of another sector.
func TestDocsGoHost(t *testing.T) {
	src := replaceAll(t, docSnippet(t, "go-host.md", "go-host"), "/var/tmp/filecoin-proof-parameters", t.TempDir())
	dir := t.TempDir()
	mainGo := filepath.Join(dir, "main.go")
	if err := os.WriteFile(mainGo, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(dir, "overlay.json")
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(root, "internal", "docexample", "gohost", "main.go"): mainGo}})
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "c2")
	build := exec.Command("go", "build", "-overlay", overlay, "-o", bin, "./internal/docexample/gohost")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building docs/go-host.md's example: %v\n%s", err, out)
	}
	filc2 := plugintest.Binary(t)
	sum, err := plugin.FileChecksum(filc2)
	if err != nil {
		t.Fatal(err)
	}
	c1File := filepath.Join(dir, "c1.json")
	if err := os.WriteFile(c1File, plugintest.SealC1(t, 1, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what, sum, want string
	}{
		{"a binary that is not the pinned one", strings.Repeat("00", 32), "checksum"},
		{"a C1 of another sector", hex.EncodeToString(sum), "the request is wrong (Sector.ID)"},
	} {
		cmd := exec.Command(bin, c1File, "1000", "2", "5")
		cmd.Env = append(os.Environ(), "FILC2_BIN="+filc2, "FILC2_SHA256="+tc.sum)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%s: %v\n%s", tc.what, err, out.String())
		}
	}
}

// docs/cli.md's one-proof example, run as written on a lotus-bench
// Commit2In file of a 2KiB sector of f01000 (test parameters through
// $FIL_PROOFS_PARAMETER_CACHE): prove checks the replica_id against
// --miner-id and the wrapper's SectorNum, verify prints "verified", and the
// proof verifies here too.
func TestDocsCLIProve(t *testing.T) {
	params := plugintest.Params(t)
	dir := t.TempDir()
	c1o := plugintest.SealC1(t, 4, 10)
	in, err := json.Marshal(struct {
		SectorNum  int64
		Phase1Out  []byte
		SectorSize uint64
	}{4, c1o, 2048})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "commit2-in.json"), in, 0o644); err != nil {
		t.Fatal(err)
	}
	out := runDoc(t, dir, docSnippet(t, "cli.md", "prove"), "FIL_PROOFS_PARAMETER_CACHE="+params)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); lines[len(lines)-1] != "verified" {
		t.Fatalf("the example's output does not end with verified:\n%s", out)
	}
	proof, err := os.ReadFile(filepath.Join(dir, "proof.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := plugintest.Verify(t, c1o, proof); err != nil {
		t.Fatal(err)
	}
}

// docs/cli.md's engine configuration example writes a config that checks, and
// its serve line uses only flags serve has.
func TestDocsEngineConfig(t *testing.T) {
	dir := t.TempDir()
	runDoc(t, dir, docSnippet(t, "cli.md", "engine-config"))
	if b, err := os.ReadFile(filepath.Join(dir, "filc2.toml")); err != nil || !bytes.Contains(b, []byte("workers_per_gpu")) {
		t.Fatalf("filc2.toml: %v\n%s", err, b)
	}
	args := docArgs(t, strings.TrimSpace(docSnippet(t, "cli.md", "serve-config")))
	if args[0] != "serve" {
		t.Fatalf("not a serve example: %v", args)
	}
	known := map[string]bool{}
	for _, f := range serveCommand().Flags {
		for _, n := range f.Names() {
			known[n] = true
		}
	}
	for _, a := range args[1:] {
		if name, ok := strings.CutPrefix(a, "--"); ok && !known[name] {
			t.Errorf("serve has no flag --%s", name)
		}
	}
}

// docs/cli.md's sparse-sector example, at 2KiB: seal --sparse writes the
// fixture's c1.json and check --circuit says ok.
func TestDocsCLISparse(t *testing.T) {
	dir := t.TempDir()
	out := runDoc(t, dir, replaceAll(t, docSnippet(t, "cli.md", "sparse"), "StackedDrg32GiBV1_1", "StackedDrg2KiBV1_1"))
	if !strings.Contains(out, "sparse TEST FIXTURE") || !strings.HasSuffix(strings.TrimSpace(out), "ok") {
		t.Fatalf("the example's output:\n%s", out)
	}
}

func TestDocsCLIPoSt(t *testing.T) {
	out := runDoc(t, t.TempDir(), docSnippet(t, "cli.md", "post"))
	if !strings.HasSuffix(strings.TrimSpace(out), "verified") {
		t.Fatalf("the example's output:\n%s", out)
	}
}

package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
)

// run executes the app with args and returns stdout and the error.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	app := App()
	var out bytes.Buffer
	app.Writer = &out
	app.ErrWriter = &out
	err := app.RunContext(context.Background(), append([]string{"filc2"}, args...))
	return out.String(), err
}

func TestVersion(t *testing.T) {
	out, err := run(t, "version")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"filc2 " + Version, runtime.Version(), "cuda: no"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in %q", want, out)
		}
	}
}

func TestParamsCheck(t *testing.T) {
	dir := t.TempDir()
	p, err := abi.ParseName("StackedDrg2KiBV1_1")
	if err != nil {
		t.Fatal(err)
	}
	vk := p.VKFile().Name
	os.WriteFile(filepath.Join(dir, vk), []byte("not a verifying key"), 0o644)
	out, err := run(t, "params", "check", "--dir", dir)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(err.Error(), vk) {
		t.Fatalf("mismatch: err %v, out %q", err, out)
	}
	if !strings.Contains(out, "MISMATCH") || !strings.Contains(out, "1 of 44") {
		t.Fatalf("output %q", out)
	}
	os.Remove(filepath.Join(dir, vk))
	if out, err := run(t, "params", "check", "--dir", dir); err != nil || !strings.Contains(out, "0 of 44") {
		t.Fatalf("empty dir: %v %q", err, out)
	}
}

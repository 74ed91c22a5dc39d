package paramcache

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
)

func TestDigestIsBlake2b512Prefix(t *testing.T) {
	// BLAKE2b-512("abc") from RFC 7693 appendix A.
	d, err := Digest(context.Background(), strings.NewReader("abc"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d != "ba80a53f981c4d0d6a2797b69f12f6e9" {
		t.Fatalf("digest %s", d)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	good := abi.ParamsFile{Name: "good.vk", Digest: "ba80a53f981c4d0d6a2797b69f12f6e9"}
	bad := abi.ParamsFile{Name: "bad.params", Digest: "ba80a53f981c4d0d6a2797b69f12f6e9"}
	gone := abi.ParamsFile{Name: "gone.params", Digest: "00"}
	os.WriteFile(filepath.Join(dir, good.Name), []byte("abc"), 0o644)
	os.WriteFile(filepath.Join(dir, bad.Name), []byte("abd"), 0o644)
	var started []string
	res, err := Check(context.Background(), dir, []abi.ParamsFile{good, bad, gone},
		func(f abi.ParamsFile, size int64) { started = append(started, f.Name) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Status{OK, Mismatch, Missing}
	for i, r := range res {
		if r.Status != want[i] {
			t.Errorf("%s: %v, want %v", r.File.Name, r.Status, want[i])
		}
	}
	if len(started) != 2 {
		t.Fatalf("hashed %v", started)
	}
}

func TestDirFromEnvironment(t *testing.T) {
	t.Setenv(EnvDir, "")
	if Dir() != DefaultDir {
		t.Fatal(Dir())
	}
	t.Setenv(EnvDir, "/x/y")
	if Dir() != "/x/y" {
		t.Fatal(Dir())
	}
}

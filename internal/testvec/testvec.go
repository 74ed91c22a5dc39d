// Package testvec locates the shared test vectors (../shared/vectors beside
// the repository root) for tests. A missing vector directory fails the test:
// the vectors are part of every checkout and of CI.
package testvec

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the absolute path of the shared vectors directory.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("FILC2_VECTORS"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			v := filepath.Join(dir, "..", "shared", "vectors")
			if _, err := os.Stat(v); err != nil {
				t.Fatalf("shared test vectors not found at %s (set FILC2_VECTORS): %v", v, err)
			}
			return v
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// Path returns the path of a file under the vectors directory.
func Path(t testing.TB, rel ...string) string {
	t.Helper()
	return filepath.Join(append([]string{Dir(t)}, rel...)...)
}

// Read returns the content of a file under the vectors directory.
func Read(t testing.TB, rel ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(Path(t, rel...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

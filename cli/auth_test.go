package cli

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/filecoin-project/go-jsonrpc/auth"

	"github.com/filc2/filc2/plugin"
)

// create-token makes the home (0700) and the secret (0600) on first use and
// signs lotus-style tokens that serve's verifier accepts with their
// permissions.
func TestAuthCreateToken(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv(plugin.EnvHome, home)
	token := func(perm string) string {
		out, err := run(t, "auth", "create-token", "--perm", perm)
		if err != nil {
			t.Fatalf("create-token --perm %s: %v", perm, err)
		}
		return strings.TrimSpace(out)
	}
	tokens := map[string]string{}
	for _, p := range []string{"read", "write", "admin"} {
		tokens[p] = token(p)
	}
	st, err := os.Stat(home)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("home: %v %v", st.Mode(), err)
	}
	sf, err := os.Stat(filepath.Join(home, "jwt-secret"))
	if err != nil || sf.Mode().Perm() != 0o600 || sf.Size() != 32 {
		t.Fatalf("secret: %v %v", sf, err)
	}
	secret, err := plugin.Secret(home)
	if err != nil {
		t.Fatal(err)
	}
	verify := plugin.TokenVerifier(secret)
	for perm, want := range map[string][]auth.Permission{
		"read":  {"read"},
		"write": {"read", "write"},
		"admin": {"read", "write", "admin"},
	} {
		got, err := verify(t.Context(), tokens[perm])
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s token allows %v (%v), want %v", perm, got, err, want)
		}
	}
	// Another home, another secret: the tokens do not carry over.
	other := t.TempDir()
	os.Chmod(other, 0o700)
	s2, _ := plugin.Secret(other)
	if _, err := plugin.TokenVerifier(s2)(t.Context(), tokens["admin"]); err == nil {
		t.Fatal("a token verified under another secret")
	}

	_, err = run(t, "auth", "create-token", "--perm", "root")
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 2 || !strings.Contains(err.Error(), "read, write or admin") {
		t.Fatalf("--perm root: %v", err)
	}
	// A home others can read is refused.
	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o755)
	t.Setenv(plugin.EnvHome, open)
	if _, err := run(t, "auth", "create-token", "--perm", "read"); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Fatalf("home of mode 0755: %v", err)
	}
}

package plugin_test

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/golang-jwt/jwt/v5"

	"github.com/filc2/filc2/plugin"
)

func TestTokens(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	t.Setenv(plugin.EnvHome, home)
	dir, err := plugin.Home()
	if err != nil || dir != home {
		t.Fatalf("home %q %v", dir, err)
	}
	secret, err := plugin.Secret(home)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := plugin.Secret(home); !slices.Equal(again, secret) {
		t.Fatal("a second Secret differs")
	}
	verify := plugin.TokenVerifier(secret)
	tok, err := plugin.NewToken(secret, []auth.Permission{plugin.PermRead, plugin.PermWrite})
	if err != nil {
		t.Fatal(err)
	}
	// Lotus's payload, exactly.
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[1])
	if string(payload) != `{"Allow":["read","write"]}` {
		t.Fatalf("payload %s", payload)
	}
	if perms, err := verify(context.Background(), tok); err != nil || !slices.Equal(perms, []auth.Permission{"read", "write"}) {
		t.Fatalf("verify: %v %v", perms, err)
	}
	if _, err := plugin.NewToken(secret, []auth.Permission{"root"}); err == nil {
		t.Fatal("a token with an unknown permission")
	}
	forged := []string{
		tok[:len(tok)-2] + "xx", // bad signature
		// alg none
		base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"Allow":["admin"]}`)) + ".",
	}
	hs512, _ := jwt.NewWithClaims(jwt.SigningMethodHS512, jwt.MapClaims{"Allow": []string{"admin"}}).SignedString(secret)
	unknown, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"Allow": []string{"root"}}).SignedString(secret)
	for _, f := range append(forged, hs512, unknown) {
		if perms, err := verify(context.Background(), f); err == nil {
			t.Errorf("accepted %q: %v", f, perms)
		}
	}
	// A secret others can read is refused.
	os.Chmod(filepath.Join(home, "jwt-secret"), 0o644)
	if _, err := plugin.Secret(home); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("secret of mode 0644: %v", err)
	}
	if _, err := plugin.PermissionsUpTo("sign"); err == nil {
		t.Fatal("sign is not a filc2 permission")
	}
}

// TokenVerifier honours the registered time claims: an expired token and
// one not valid yet are refused, a current one passes.
func TestTokenVerifierTimeClaims(t *testing.T) {
	secret := make([]byte, 32)
	verify := plugin.TokenVerifier(secret)
	sign := func(claims jwt.MapClaims) string {
		claims["Allow"] = []string{"read", "write"}
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	now := time.Now()
	if _, err := verify(context.Background(), sign(jwt.MapClaims{"exp": now.Add(-time.Second).Unix()})); !errors.Is(err, jwt.ErrTokenExpired) {
		t.Errorf("expired token: %v, want ErrTokenExpired", err)
	}
	if _, err := verify(context.Background(), sign(jwt.MapClaims{"nbf": now.Add(time.Hour).Unix()})); !errors.Is(err, jwt.ErrTokenNotValidYet) {
		t.Errorf("token not valid yet: %v, want ErrTokenNotValidYet", err)
	}
	if perms, err := verify(context.Background(), sign(jwt.MapClaims{"exp": now.Add(time.Hour).Unix()})); err != nil || len(perms) != 2 {
		t.Errorf("current token: %v %v", perms, err)
	}
}

package plugin

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/golang-jwt/jwt/v5"
)

// EnvHome names the environment variable with filc2's home directory.
const EnvHome = "FILC2_PATH"

// secretFile is the JWT signing secret's name in the home directory.
const secretFile = "jwt-secret"

// Home returns filc2's home directory, $FILC2_PATH or ~/.filc2, creating it
// with mode 0700 when it does not exist. An existing directory that others
// can read or write is refused: it holds the token secret.
func Home() (string, error) {
	dir := os.Getenv(EnvHome)
	if dir == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no home directory (%v): set %s", err, EnvHome)
		}
		dir = filepath.Join(h, ".filc2")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	st, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s has mode %v: other users may read its token secret; chmod 700 %s", dir, st.Mode().Perm(), dir)
	}
	return dir, nil
}

// Secret returns the JWT secret kept in home, creating 32 random bytes
// (file mode 0600) on first use.
func Secret(home string) ([]byte, error) {
	path := filepath.Join(home, secretFile)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		st, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if st.Mode().Perm()&0o077 != 0 {
			return nil, fmt.Errorf("%s has mode %v: chmod 600 it (or delete it to make a new one, which voids every token)", path, st.Mode().Perm())
		}
		if len(b) < 32 {
			return nil, fmt.Errorf("%s holds %d bytes, want at least 32: delete it to make a new one (which voids every token)", path, len(b))
		}
		return b, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	b = make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return Secret(home) // made by a concurrent first use
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, err
	}
	return b, nil
}

// jwtClaims is lotus's token payload: {"Allow":["read","write"]}.
type jwtClaims struct {
	Allow []auth.Permission
	jwt.RegisteredClaims
}

// PermissionsUpTo returns the permissions a token of level perm carries:
// read; read and write; or read, write and admin.
func PermissionsUpTo(perm auth.Permission) ([]auth.Permission, error) {
	i := slices.Index(AllPermissions, perm)
	if i < 0 {
		return nil, fmt.Errorf("unknown permission %q: want read, write or admin", perm)
	}
	return slices.Clone(AllPermissions[:i+1]), nil
}

// NewToken signs a lotus-style token (HS256, {"Allow":perms}) with secret.
func NewToken(secret []byte, perms []auth.Permission) (string, error) {
	for _, p := range perms {
		if !slices.Contains(AllPermissions, p) {
			return "", fmt.Errorf("unknown permission %q: want read, write or admin", p)
		}
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, jwtClaims{Allow: perms}).SignedString(secret)
}

// TokenVerifier returns the auth.Handler Verify function for tokens signed
// with secret: HS256 only, permissions limited to AllPermissions.
func TokenVerifier(secret []byte) func(ctx context.Context, token string) ([]auth.Permission, error) {
	return func(ctx context.Context, token string) ([]auth.Permission, error) {
		var c jwtClaims
		_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return secret, nil },
			jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}))
		if err != nil {
			return nil, err
		}
		for _, p := range c.Allow {
			if !slices.Contains(AllPermissions, p) {
				return nil, fmt.Errorf("token allows unknown permission %q", p)
			}
		}
		return c.Allow, nil
	}
}

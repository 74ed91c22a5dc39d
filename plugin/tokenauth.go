package plugin

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/golang-jwt/jwt/v5"
	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
)

// TokenAuth resolves a request's permissions from its token, the lotus way
// (Authorization: Bearer TOKEN, or ?token=TOKEN in the URL), before any of
// its body is read; unlike go-jsonrpc's auth.Handler it never parses a form
// body. A token that does not verify is refused with 401, counted in
// filc2_auth_rejected_total{reason} and logged at most once per
// logInterval; a request without a token passes with no permissions in its
// context (the handler's defaults then apply).
type TokenAuth struct {
	verify   func(ctx context.Context, token string) ([]auth.Permission, error)
	rejected *prometheus.CounterVec
	log      *rateLog
}

// NewTokenAuth returns a TokenAuth checking tokens with verify
// (TokenVerifier). reg (optional) gets the counter; log (optional) the
// rate-limited lines.
func NewTokenAuth(verify func(ctx context.Context, token string) ([]auth.Permission, error), reg prometheus.Registerer, log hclog.Logger) *TokenAuth {
	a := &TokenAuth{verify: verify, log: newRateLog(log, logInterval),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "filc2_auth_rejected_total",
			Help: "Requests refused with 401 because their token did not verify, by reason " +
				"(header, malformed, signature, expired, invalid)."}, []string{"reason"})}
	if reg != nil {
		a.rejected = registerOrExisting(reg, a.rejected)
	}
	return a
}

// logInterval is the least time between two log lines of one kind about
// refused requests; the lines dropped meanwhile are counted in the next.
const logInterval = 10 * time.Second

// Permissions returns the permissions of r's token and whether it has one;
// err (a token that does not verify) names the reason as RejectReason does.
func (a *TokenAuth) Permissions(r *http.Request) (perms []auth.Permission, hasToken bool, err error) {
	token := r.Header.Get("Authorization")
	if token == "" {
		if q := r.URL.Query().Get("token"); q != "" {
			token = "Bearer " + q
		}
	}
	if token == "" {
		return nil, false, nil
	}
	t, ok := strings.CutPrefix(token, "Bearer ")
	if !ok {
		return nil, true, &tokenError{reason: "header", err: errors.New("the Authorization header is not \"Bearer TOKEN\"")}
	}
	perms, err = a.verify(r.Context(), t)
	if err != nil {
		return nil, true, &tokenError{reason: rejectReason(err), err: err}
	}
	return perms, true, nil
}

// Wrap returns next behind the token check: a request with a good token
// reaches next with the token's permissions in its context (auth.WithPerm),
// one without a token with none, and a bad token is answered 401.
func (a *TokenAuth) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		perms, has, err := a.Permissions(r)
		if err != nil {
			a.Reject(w, r, err)
			return
		}
		if has {
			r = r.WithContext(auth.WithPerm(r.Context(), perms))
		}
		next.ServeHTTP(w, r)
	})
}

// Reject answers 401 for err (from Permissions), counts and logs it.
func (a *TokenAuth) Reject(w http.ResponseWriter, r *http.Request, err error) {
	reason := "invalid"
	var te *tokenError
	if errors.As(err, &te) {
		reason = te.reason
	}
	a.rejected.WithLabelValues(reason).Inc()
	a.log.Warn("auth:"+reason, "refused a request whose token does not verify (401)",
		"reason", reason, "remote", r.RemoteAddr, "path", r.URL.Path, "error", err.Error())
	w.Header().Set("WWW-Authenticate", `Bearer realm="filc2"`)
	if r.ContentLength != 0 {
		// Answer now and close: net/http would otherwise read the body
		// (up to 256 KiB) before writing the answer, waiting on a caller
		// that never sends it.
		w.Header().Set("Connection", "close")
	}
	http.Error(w, "unauthorized: the token does not verify ("+reason+"); make one with `filc2 auth create-token`", http.StatusUnauthorized)
}

// tokenError is a token that did not verify, with the reason counted.
type tokenError struct {
	reason string
	err    error
}

func (e *tokenError) Error() string { return "token: " + e.err.Error() }
func (e *tokenError) Unwrap() error { return e.err }

// rejectReason sorts a TokenVerifier error into a metric label.
func rejectReason(err error) string {
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return "expired"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return "signature" // a wrong secret, alg none, another algorithm
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "malformed"
	}
	return "invalid"
}

// rateLog writes at most one warning per key and interval; the lines it
// drops are counted in the next one written.
type rateLog struct {
	log   hclog.Logger
	every time.Duration
	mu    sync.Mutex
	last  map[string]time.Time
	drops map[string]int
}

func newRateLog(log hclog.Logger, every time.Duration) *rateLog {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &rateLog{log: log, every: every, last: map[string]time.Time{}, drops: map[string]int{}}
}

// Warn logs msg with args unless a line of key was written within the
// interval.
func (l *rateLog) Warn(key, msg string, args ...any) {
	l.mu.Lock()
	now := time.Now()
	if t, ok := l.last[key]; ok && now.Sub(t) < l.every {
		l.drops[key]++
		l.mu.Unlock()
		return
	}
	dropped := l.drops[key]
	l.last[key], l.drops[key] = now, 0
	l.mu.Unlock()
	if dropped > 0 {
		args = append(args, "similar_lines_dropped", dropped)
	}
	l.log.Warn(msg, args...)
}

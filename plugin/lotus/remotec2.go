package lotus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/filc2/filc2/plugin"
)

// RemoteCommit2Path is where `filc2 serve` answers lotus's
// RemoteCommit2Endpoint.
const RemoteCommit2Path = "/remote-commit2"

// RemoteCommit2Params is lotus's api.RemoteCommit2Params, the JSON body
// lotus POSTs to a sector's RemoteCommit2Endpoint
// (storage/pipeline/states_sealing.go): {"Sector":{"Miner":1000,"Number":42},
// "ProofType":8,"Commit1Out":"<base64 of the C1 output>"}.
type RemoteCommit2Params struct {
	Sector     abi.SectorID
	ProofType  abi.RegisteredSealProof
	Commit1Out plugin.Commit1Out
}

// RemoteCommit2Config configures NewRemoteCommit2Handler.
type RemoteCommit2Config struct {
	// plugin.Prover proves.
	Prover plugin.Prover
	// Verify checks a token (TokenVerifier); proving needs write.
	Verify func(ctx context.Context, token string) ([]auth.Permission, error)
	// DefaultPerms are those of a request without a token (nil:
	// plugin.DefaultPermissions, read, which cannot prove).
	DefaultPerms []auth.Permission
	// MaxRequestSize bounds the body (≤ 0: plugin.DefaultMaxRequestSize).
	MaxRequestSize int64
	// Registry, when set, gets filc2_remote_commit2_requests_total{code}.
	Registry prometheus.Registerer
	// Logger (default: none).
	Logger hclog.Logger
}

// NewRemoteCommit2Handler answers lotus's RemoteCommit2Endpoint: a POST
// with a RemoteCommit2Params JSON body is proved (SealCommit2 through the
// plugin.Prover; the request's context is the job's, so a client that goes away
// cancels it) and answered 200 with the raw proof bytes
// (application/octet-stream), which is what lotus reads. Errors are plain
// text:
//
//	400  bad input: not JSON, an unknown proof type, a C1 that does not
//	     decode, validate or belong to the sector, a body over the limit
//	401  no token, or a token that does not verify
//	403  a token without write permission
//	405  not a POST
//	503  busy (queue full) or the prover unavailable (restarting); a
//	     Retry-After header says when to try again
//	500  the proof failed on the prover's side
//
// lotus sends no Authorization header to this endpoint, so its URL carries
// the token: http://HOST:PORT/remote-commit2?token=TOKEN (plugin.TokenAuth
// reads ?token=).
func NewRemoteCommit2Handler(cfg RemoteCommit2Config) http.Handler {
	max := cfg.MaxRequestSize
	if max <= 0 {
		max = plugin.DefaultMaxRequestSize
	}
	defaults := cfg.DefaultPerms
	if defaults == nil {
		defaults = plugin.DefaultPermissions
	}
	log := cfg.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	var count *prometheus.CounterVec
	if cfg.Registry != nil {
		count = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "filc2_remote_commit2_requests_total",
			Help: "Requests to lotus's RemoteCommit2Endpoint (" + RemoteCommit2Path + ") by HTTP status.",
		}, []string{"code"})
		cfg.Registry.MustRegister(count)
	}
	answer := func(w http.ResponseWriter, code int, msg string) {
		if count != nil {
			count.WithLabelValues(strconv.Itoa(code)).Inc()
		}
		if code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "30")
		}
		http.Error(w, msg, code)
	}
	tooBig := func(w http.ResponseWriter) {
		answer(w, http.StatusBadRequest, fmt.Sprintf("bad input: request: over the limit of %d bytes (a C1 output may have at most %d bytes)", max, plugin.MaxC1Size))
	}
	h := func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if !auth.HasPerm(ctx, defaults, plugin.PermWrite) {
			if r.ContentLength != 0 {
				// Refused before the body is read: answer and close rather
				// than wait for a body nobody will read.
				w.Header().Set("Connection", "close")
			}
			if !hasToken(ctx) {
				answer(w, http.StatusUnauthorized, "unauthorized: proving needs a token with write permission, "+
					"in the URL (?token=TOKEN, as lotus sends no header) or as Authorization: Bearer TOKEN; "+
					"make one with `filc2 auth create-token --perm write`")
				return
			}
			answer(w, http.StatusForbidden, "forbidden: proving needs a token with write permission")
			return
		}
		if r.ContentLength > max {
			// Read it (up to a point) so that the client gets the answer.
			if d, _ := io.Copy(io.Discard, io.LimitReader(r.Body, plugin.MaxDiscard)); d == plugin.MaxDiscard {
				w.Header().Set("Connection", "close")
			}
			tooBig(w)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, max)
		body, err := io.ReadAll(r.Body)
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				tooBig(w)
				return
			}
			answer(w, http.StatusBadRequest, "bad input: reading the request: "+err.Error())
			return
		}
		var p RemoteCommit2Params
		if err := json.Unmarshal(body, &p); err != nil {
			answer(w, http.StatusBadRequest, "bad input: the body is not lotus's RemoteCommit2Params JSON "+
				`({"Sector":{"Miner":M,"Number":N},"ProofType":P,"Commit1Out":"<base64>"}): `+err.Error())
			return
		}
		body = nil
		sector := plugin.SectorRef{ID: p.Sector, ProofType: p.ProofType}
		t0 := time.Now()
		proof, err := cfg.Prover.SealCommit2(ctx, sector, p.Commit1Out)
		if err != nil {
			code := remoteCommit2Status(err)
			if ctx.Err() != nil {
				log.Warn("remote-commit2: the client went away; the job was cancelled", "sector", sector.String())
			} else {
				log.Warn("remote-commit2 refused or failed", "sector", sector.String(), "status", code, "error", err)
			}
			answer(w, code, err.Error())
			return
		}
		log.Info("remote-commit2 proved", "sector", sector.String(), "took", time.Since(t0).Round(time.Millisecond).String())
		if count != nil {
			count.WithLabelValues("200").Inc()
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(len(proof)))
		w.WriteHeader(http.StatusOK)
		w.Write(proof)
	}
	// The token comes from the header or the URL, never from a form body,
	// and the permission is decided before the body is read.
	authed := plugin.NewTokenAuth(cfg.Verify, cfg.Registry, log).Wrap(http.HandlerFunc(h))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			answer(w, http.StatusMethodNotAllowed, "POST a RemoteCommit2Params JSON body")
			return
		}
		authed.ServeHTTP(w, r)
	})
}

// noToken is a permission no token carries: the defaults of hasToken.
const noToken auth.Permission = "\x00no token"

// hasToken reports whether auth.Handler verified a token for ctx.
func hasToken(ctx context.Context) bool {
	return !auth.HasPerm(ctx, []auth.Permission{noToken}, noToken)
}

// remoteCommit2Status is the HTTP status of a plugin.Prover error.
func remoteCommit2Status(err error) int {
	var (
		bad  *plugin.BadInputError
		perm *plugin.PermissionError
		canc *plugin.CancelledError
	)
	switch {
	case errors.As(err, &bad):
		return http.StatusBadRequest
	case errors.As(err, &perm):
		return http.StatusForbidden
	case plugin.IsRetryable(err), errors.As(err, &canc), errors.Is(err, context.Canceled):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

package plugin

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// HandlerConfig configures NewHandler.
type HandlerConfig struct {
	// Prover answers the calls, typically a *Client.
	Prover Prover
	// Verify checks a bearer token and returns its permissions
	// (TokenVerifier). Required.
	Verify func(ctx context.Context, token string) ([]auth.Permission, error)
	// DefaultPerms are the permissions of callers without a token (nil:
	// DefaultPermissions, read).
	DefaultPerms []auth.Permission
	// MaxRequestSize bounds a request (≤ 0: DefaultMaxRequestSize).
	MaxRequestSize int64
	// Healthy answers /healthz (nil: a Version call with a 2 s timeout).
	Healthy func(ctx context.Context) error
	// Registry receives the metrics served at /metrics; nil makes one with
	// the Go and process collectors.
	Registry *prometheus.Registry
}

// NewHandler returns the host's HTTP face of the Prover API:
//
//	POST/websocket /rpc/v0  JSON-RPC, namespace Filc2, lotus-style JWT auth
//	                        (Authorization: Bearer or ?token=); calls are
//	                        checked against Permissioned and counted
//	GET /healthz            200 "ok", or 503 with the reason
//	GET /metrics            Prometheus: calls, durations, queue, totals
//	GET /debug/timeline.svg the engine's last ?minutes=N (default 10) as a Gantt
//	                        chart (Prover.Timeline)
func NewHandler(cfg HandlerConfig) http.Handler {
	reg := cfg.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	defaults := cfg.DefaultPerms
	if defaults == nil {
		defaults = DefaultPermissions
	}
	reg.MustRegister(NewStatusCollector(cfg.Prover))
	api := Instrumented(Permissioned(cfg.Prover, defaults), reg)
	rpc := NewRPCServer(api, cfg.MaxRequestSize)
	max := cfg.MaxRequestSize
	if max <= 0 {
		max = DefaultMaxRequestSize
	}
	healthy := cfg.Healthy
	if healthy == nil {
		healthy = func(ctx context.Context) error {
			_, err := cfg.Prover.Version(ctx)
			return err
		}
	}

	mux := http.NewServeMux()
	// The size check comes first: auth.Handler may parse a form body.
	mux.Handle(RPCPath, LimitRequestSize(max, &auth.Handler{Verify: cfg.Verify, Next: rpc.ServeHTTP}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := healthy(ctx); err != nil {
			http.Error(w, "unhealthy: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("GET /debug/timeline.svg", func(w http.ResponseWriter, r *http.Request) {
		window := 10 * time.Minute
		if m := r.URL.Query().Get("minutes"); m != "" {
			f, err := strconv.ParseFloat(m, 64)
			if err != nil || f <= 0 || f > 7*24*60 {
				http.Error(w, "minutes: want a positive number of minutes (at most a week)", http.StatusBadRequest)
				return
			}
			window = time.Duration(f * float64(time.Minute))
		}
		svg, err := cfg.Prover.Timeline(r.Context(), window)
		if err != nil {
			var unav *UnavailableError
			code := http.StatusInternalServerError
			if errors.As(err, &unav) {
				code = http.StatusServiceUnavailable
			}
			http.Error(w, err.Error(), code)
			return
		}
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Write([]byte(svg))
	})
	return mux
}

package plugin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// HandlerConfig configures NewHandler and NewHandlers.
type HandlerConfig struct {
	// Prover answers the calls, typically a *Client.
	Prover Prover
	// Verify checks a bearer token and returns its permissions
	// (TokenVerifier). Required.
	Verify func(ctx context.Context, token string) ([]auth.Permission, error)
	// DefaultPerms are the permissions of callers without a token (nil:
	// DefaultPermissions, read).
	DefaultPerms []auth.Permission
	// Limits bound request sizes by permission and the websockets open
	// (fields ≤ 0: DefaultLimits); NewHTTPServer applies the rest.
	Limits Limits
	// Healthy answers /healthz (nil: a Version call with a 2 s timeout).
	Healthy func(ctx context.Context) error
	// Registry receives the metrics served at /metrics; nil makes one with
	// the Go and process collectors.
	Registry *prometheus.Registry
	// Logger gets refused tokens and requests, at most one line of a kind
	// per 10 s with a count of those dropped (nil: none).
	Logger hclog.Logger
}

// Handlers are the two faces NewHandlers builds: API serves /rpc/v0 and
// /healthz; Diagnostics serves /metrics, /debug/timeline.svg and /healthz,
// for a listener of its own or beside API (NewHandler).
type Handlers struct {
	API, Diagnostics http.Handler
}

// NewHandler returns the host's HTTP face of the Prover API, NewHandlers'
// two faces on one mux:
//
//	POST/websocket /rpc/v0  JSON-RPC, namespace Filc2, lotus-style JWT auth
//	                        (Authorization: Bearer or ?token=); calls are
//	                        checked against Permissioned and counted
//	GET /healthz            200 "ok", or 503 with the reason
//	GET /metrics            Prometheus: calls, durations, queue, totals
//	GET /debug/timeline.svg the engine's last ?minutes=N (default 10) as a Gantt
//	                        chart (Prover.Timeline)
//
// /healthz, /metrics and /debug/timeline.svg need no token, nor do the read
// methods (Status, Version, Timeline) unless DefaultPerms says otherwise.
func NewHandler(cfg HandlerConfig) http.Handler {
	h := NewHandlers(cfg)
	mux := http.NewServeMux()
	mux.Handle("/", h.API)
	mux.Handle("GET /metrics", h.Diagnostics)
	mux.Handle("GET /debug/timeline.svg", h.Diagnostics)
	return mux
}

// NewHandlers returns the API and diagnostics faces of the Prover API (see
// NewHandler). On /rpc/v0 the caller's permissions are decided from its
// token before any of the body is read: a token that does not verify is
// answered 401; a caller without write permission may send bodies and
// websocket messages of Limits.MaxReadRequestSize, one with write of
// Limits.MaxRequestSize; the websockets open are capped.
func NewHandlers(cfg HandlerConfig) Handlers {
	reg := cfg.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	defaults := cfg.DefaultPerms
	if defaults == nil {
		defaults = DefaultPermissions
	}
	limits := cfg.Limits.withDefaults()
	reg.MustRegister(NewStatusCollector(cfg.Prover))
	api := Instrumented(Permissioned(cfg.Prover, defaults), reg)
	front := newRPCFront(NewRPCServer(api, limits.MaxRequestSize), NewTokenAuth(cfg.Verify, reg, cfg.Logger), defaults, limits, reg, cfg.Logger)
	healthy := cfg.Healthy
	if healthy == nil {
		healthy = func(ctx context.Context) error {
			_, err := cfg.Prover.Version(ctx)
			return err
		}
	}
	healthz := func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := healthy(ctx); err != nil {
			http.Error(w, "unhealthy: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	}

	apiMux := http.NewServeMux()
	apiMux.Handle(RPCPath, front)
	apiMux.HandleFunc("GET /healthz", healthz)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", healthz)
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
	return Handlers{API: apiMux, Diagnostics: mux}
}

// rpcFront is what stands before the RPC server on /rpc/v0: the token
// check, the body and message bounds by permission, the websocket caps, and
// the count of refused requests.
type rpcFront struct {
	rpc      http.Handler
	auth     *TokenAuth
	defaults []auth.Permission
	limits   Limits
	ws       chan struct{} // a slot per open websocket
	readWS   chan struct{} // a slot per open websocket without write
	wsOpen   *prometheus.GaugeVec
	refused  *prometheus.CounterVec
	log      *rateLog
}

func newRPCFront(rpc http.Handler, a *TokenAuth, defaults []auth.Permission, l Limits, reg prometheus.Registerer, log hclog.Logger) *rpcFront {
	return &rpcFront{rpc: rpc, auth: a, defaults: defaults, limits: l,
		ws: make(chan struct{}, l.MaxWebsockets), readWS: make(chan struct{}, l.MaxReadWebsockets),
		wsOpen: registerOrExisting(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "filc2_websockets",
			Help: "Open websockets on /rpc/v0, by caller (write: a token with write permission; read: the others)."}, []string{"caller"})),
		refused: registerOrExisting(reg, prometheus.NewCounterVec(prometheus.CounterOpts{Name: "filc2_rpc_refused_total",
			Help: "Requests on /rpc/v0 refused before any method ran, by reason: too_large (a body over the caller's " +
				"limit), malformed (the RPC server answered an error status: not JSON-RPC, an unknown method, bad " +
				"parameters), websocket_limit (503: too many websockets), websocket_message_too_large (closed)."}, []string{"reason"})),
		log: newRateLog(log, logInterval),
	}
}

func (f *rpcFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	perms, has, err := f.auth.Permissions(r)
	if err != nil {
		f.auth.Reject(w, r, err)
		return
	}
	if has {
		r = r.WithContext(auth.WithPerm(r.Context(), perms))
	}
	writer := auth.HasPerm(r.Context(), f.defaults, PermWrite)
	max, discard, caller := f.limits.MaxRequestSize, int64(MaxDiscard), "write"
	hint := fmt.Sprintf("a C1 output may have at most %d bytes", MaxC1Size)
	if !writer {
		max, discard, caller = f.limits.MaxReadRequestSize, f.limits.MaxReadRequestSize, "read"
		hint = "a caller without a token with write permission may send at most this"
	}
	if isWebsocket(r) {
		f.serveWebsocket(w, r, caller, max)
		return
	}
	if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
		size := r.ContentLength
		if size < 0 || size > max {
			size = max
		}
		setBodyDeadline(w, r, f.limits.bodyTime(size))
	}
	status, refused := serveBounded(w, r, f.rpc, max, discard, hint)
	switch {
	case refused:
		f.refused.WithLabelValues("too_large").Inc()
		f.log.Warn("too_large", "refused a JSON-RPC request over the size limit", "caller", caller, "limit", max, "remote", r.RemoteAddr)
	case status >= 400:
		f.refused.WithLabelValues("malformed").Inc()
		f.log.Warn("malformed", "refused a malformed JSON-RPC request", "caller", caller, "status", status, "remote", r.RemoteAddr)
	}
}

// serveWebsocket upgrades r if a websocket slot is free, with its messages
// bounded by max; it returns when the websocket closes.
func (f *rpcFront) serveWebsocket(w http.ResponseWriter, r *http.Request, caller string, max int64) {
	slots := []chan struct{}{f.ws}
	if caller == "read" {
		slots = append(slots, f.readWS)
	}
	for _, s := range slots {
		select {
		case s <- struct{}{}:
			defer func() { <-s }()
		default: // the slots taken are given back by their defers
			f.refused.WithLabelValues("websocket_limit").Inc()
			f.log.Warn("websocket_limit", "refused a websocket: too many open", "caller", caller,
				"max", f.limits.MaxWebsockets, "max_read", f.limits.MaxReadWebsockets, "remote", r.RemoteAddr)
			w.Header().Set("Retry-After", "10")
			http.Error(w, "too many websockets open: retry later, or call over HTTP POST", http.StatusServiceUnavailable)
			return
		}
	}
	open := f.wsOpen.WithLabelValues(caller)
	open.Inc()
	defer open.Dec()
	f.rpc.ServeHTTP(&wsLimitWriter{ResponseWriter: w, limit: max, idle: f.limits.WebsocketIdle, onLimit: func() {
		f.refused.WithLabelValues("websocket_message_too_large").Inc()
		f.log.Warn("websocket_message_too_large", "closed a websocket whose message is over the size limit",
			"caller", caller, "limit", max, "remote", r.RemoteAddr)
	}}, r)
}

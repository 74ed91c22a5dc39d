package plugin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/rpc"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
)

// Handshake is the go-plugin handshake between a filc2 host and `filc2
// plugin`. ProtocolVersion changes when the endpoint exchange or the Prover
// API changes incompatibly.
var Handshake = goplugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "FILC2_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "2f0b6c1e8d4a4f7e9b3c5a1d6e8f0a2b-filc2-prover",
}

// pluginName is the one plugin a filc2 plugin process dispenses.
const pluginName = "prover"

// Endpoint is what the plugin hands the host over the go-plugin connection:
// where it serves the Prover API and the token that opens it.
type Endpoint struct {
	Socket  string // unix socket path, in a directory of mode 0700
	Token   string // bearer token (256 random bits, hex)
	PID     int    // the plugin process
	Version string // filc2's version in the plugin
}

// The transport, and why. go-plugin gives the host a verified binary
// (SecureConfig), an AutoMTLS-authenticated net/rpc connection, log
// forwarding and process control; go-jsonrpc gives the Prover API its
// typed errors and cancellation. They meet by the advertised-endpoint
// pattern (integration-surfaces.md §2, design 3): the one net/rpc method,
// Plugin.Endpoint, returns a unix socket (in a fresh 0700 directory) and a
// random token, and the host speaks go-jsonrpc over HTTP to that socket
// with the token.
//
//   - It keeps go-jsonrpc's semantics. Each call is an HTTP request, so
//     when the caller's context ends the request is aborted and the
//     handler's context is cancelled in the plugin: Await returns and
//     SealCommit2 cancels its job. The frame bridge (design 1) carries
//     frames over net/rpc, which has no cancellation.
//   - The broker connection (design 2) needs one MuxBroker stream per
//     connection: Accept(id) takes one stream, waits 5 s, and the broker
//     drops a second stream dialled for the same id while none is
//     accepting (mux_broker.go, Run's select default), so a pool of
//     concurrent HTTP connections would hang; GRPCBroker.Dial gives only a
//     *grpc.ClientConn. Working around it means a second multiplexer.
//   - The plugin serves the API with the same http.Handler stack as
//     `filc2 serve`, on an ordinary listener, testable without go-plugin.
//   - Security: the socket's directory is the plugin user's alone, and the
//     token travels only over the mTLS go-plugin channel. When the plugin
//     dies every open request fails at once (EOF), which the host reports
//     as a retryable *UnavailableError.
//
// Websocket (go-jsonrpc's channels and reverse calls) is not used: its
// client dials with gorilla's default dialer only, so not over a unix
// socket. The Prover API needs neither.

// endpointServer is the net/rpc side of the plugin ("Plugin.Endpoint",
// "Plugin.Drain").
type endpointServer struct {
	ep    Endpoint
	drain func(grace time.Duration) DrainReport
}

// Endpoint returns the plugin's endpoint.
func (s *endpointServer) Endpoint(_ struct{}, out *Endpoint) error {
	*out = s.ep
	return nil
}

// Drain stops the plugin's jobs in order before the host closes it: no new
// ones, those in flight finish for up to grace, the rest are cancelled.
func (s *endpointServer) Drain(grace time.Duration, out *DrainReport) error {
	if s.drain == nil {
		return errNoDrain
	}
	*out = s.drain(grace)
	return nil
}

// endpointClient is the host's net/rpc stub.
type endpointClient struct{ c *rpc.Client }

func (c *endpointClient) endpoint() (Endpoint, error) {
	var ep Endpoint
	err := c.c.Call("Plugin.Endpoint", struct{}{}, &ep)
	return ep, err
}

// endpointPlugin is the go-plugin Plugin of both sides.
type endpointPlugin struct {
	ep    Endpoint
	drain func(grace time.Duration) DrainReport
}

// Server implements goplugin.Plugin.
func (p *endpointPlugin) Server(*goplugin.MuxBroker) (any, error) {
	return &endpointServer{ep: p.ep, drain: p.drain}, nil
}

// Client implements goplugin.Plugin.
func (p *endpointPlugin) Client(_ *goplugin.MuxBroker, c *rpc.Client) (any, error) {
	return &endpointClient{c}, nil
}

// ServeConfig configures Serve.
type ServeConfig struct {
	// Service proves; Serve closes it when it returns.
	Service Service
	// Version is filc2's version.
	Version string
	// Logger is the plugin's log. The host parses JSON lines on the
	// plugin's stderr and logs them at their level: use hclog with
	// JSONFormat on os.Stderr (nil: that, at info).
	Logger hclog.Logger
	// SocketDir is where the socket's private directory is made (default
	// $PLUGIN_UNIX_SOCKET_DIR, the private directory the host made for this
	// process and removes after it, else os.TempDir(); a socket path has at
	// most 107 bytes).
	SocketDir string
	// MaxRequestSize bounds a request (≤ 0: DefaultMaxRequestSize, plus
	// room for the envelope).
	MaxRequestSize int64
}

// ErrNotPlugin is Serve's answer when the process was not started by a
// filc2 host.
var ErrNotPlugin = errors.New("filc2 plugin is started by a filc2 host (filc2 serve, or plugin.Launch), not by hand")

// Serve is `filc2 plugin`: it serves the Prover API on a private unix
// socket, completes the go-plugin handshake (the only line it writes to
// stdout) and blocks until the host closes the connection, or exits the
// process when the host goes away without closing it. The host alone
// decides when the plugin stops: SIGTERM and SIGINT, which a service
// manager or a terminal sends the host's whole group, are logged and
// ignored, and the host drains the plugin (Plugin.Drain) before it closes
// it. It returns ErrNotPlugin, before writing anything, when the magic
// cookie is missing.
func Serve(cfg ServeConfig) error {
	defer cfg.Service.Close()
	if os.Getenv(Handshake.MagicCookieKey) != Handshake.MagicCookieValue {
		return ErrNotPlugin
	}
	log := cfg.Logger
	if log == nil {
		log = hclog.New(&hclog.LoggerOptions{Name: "filc2-plugin", Level: hclog.Info, Output: os.Stderr, JSONFormat: true})
	}
	max := cfg.MaxRequestSize
	if max <= 0 {
		max = DefaultMaxRequestSize
	}
	max += 1 << 20 // the host forwards what it accepted, with its own envelope

	base := cfg.SocketDir
	if base == "" {
		base = os.Getenv(goplugin.EnvUnixSocketDir)
	}
	dir, err := os.MkdirTemp(base, "filc2-plugin-")
	if err != nil {
		return err
	}
	sock := filepath.Join(dir, "api.sock")
	if err := checkSocketPath(sock); err != nil {
		os.RemoveAll(dir)
		return err
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		os.RemoveAll(dir)
		return err
	}
	var tok [32]byte
	if _, err := rand.Read(tok[:]); err != nil {
		ln.Close()
		os.RemoveAll(dir)
		return err
	}
	token := hex.EncodeToString(tok[:])

	svc := &drainService{Service: cfg.Service}
	api := NewServer(svc, cfg.Version)
	mux := http.NewServeMux()
	mux.Handle(RPCPath, requireToken(token, LimitRequestSize(max, NewRPCServer(api, max))))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)

	var once sync.Once
	cleanup := func() {
		once.Do(func() {
			cfg.Service.Close()
			// Short: the host drained us, or is closing without waiting, and
			// go-plugin kills us 2 s after it closed the connection.
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			srv.Shutdown(ctx)
			cancel()
			srv.Close()
			os.RemoveAll(dir)
		})
	}
	defer cleanup()

	// A host that dies leaves our stderr a broken pipe; Go would kill us with
	// SIGPIPE at the next log line, before the cleanup.
	signal.Ignore(syscall.SIGPIPE)
	// SIGTERM and SIGINT reach us with the host when a service manager or
	// a terminal signals its whole group: the host stops us in order
	// (drain, then close), and exiting now would fail the jobs in flight
	// and look like a crash to it. A host that dies is noticed below.
	term := make(chan os.Signal, 4)
	signal.Notify(term, syscall.SIGTERM, os.Interrupt)
	go func() {
		for sig := range term {
			log.Info("ignoring the signal: the host stops the plugin (it drains it, then closes it)", "signal", sig.String())
		}
	}()

	// net/rpc go-plugin servers do not notice a host that died: watch the
	// parent.
	ppid := os.Getppid()
	go func() {
		for range time.Tick(time.Second) {
			if os.Getppid() != ppid {
				log.Error("the host process went away; exiting", "host_pid", ppid)
				cleanup()
				os.Exit(2)
			}
		}
	}()

	ep := Endpoint{Socket: sock, Token: token, PID: os.Getpid(), Version: cfg.Version}
	log.Info("serving the Prover API", "socket", sock, "pid", ep.PID, "version", cfg.Version)
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         goplugin.PluginSet{pluginName: &endpointPlugin{ep: ep, drain: svc.drain}},
		Logger:          log,
	})
	log.Info("the host closed the plugin connection; exiting")
	// goplugin.Serve returns as soon as the host's Control.Quit arrives, before
	// its answer is written: exiting at once would fail the host's Quit, and
	// go-plugin would take it for a plugin that did not exit gracefully.
	time.Sleep(quitAnswerDelay)
	return nil
}

// quitAnswerDelay is how long Serve waits, once the host closed the
// connection, for go-plugin's answer to the host to go out.
const quitAnswerDelay = 250 * time.Millisecond

// checkSocketPath reports a unix socket path that is too long to bind.
func checkSocketPath(p string) error {
	if len(p) > 107 {
		return fmt.Errorf("unix socket path %s is %d bytes, at most 107: use a shorter directory", p, len(p))
	}
	return nil
}

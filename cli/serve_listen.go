package cli

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	logging "github.com/ipfs/go-log/v2"
	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/plugin"
)

// serveSettings are the addresses and limits of `filc2 serve`: its flags
// over --config's [serve] table over the defaults.
type serveSettings struct {
	listen, metricsListen, grpcListen string
	grpcAllowRemote                   bool
	grace                             time.Duration
	limits                            plugin.Limits
}

// serveSettingsOf reads c's flags and --config.
func serveSettingsOf(c *ucli.Context) (serveSettings, error) {
	cfg := engine.DefaultConfig()
	if path := c.String("config"); path != "" {
		var err error
		if cfg, err = engine.LoadConfig(path); err != nil {
			return serveSettings{}, usageError(err)
		}
	}
	sc := cfg.Serve
	if c.IsSet("listen") {
		sc.Listen = c.String("listen")
	}
	if c.IsSet("metrics-listen") {
		sc.MetricsListen = c.String("metrics-listen")
	}
	if c.IsSet("grpc-listen") {
		sc.GRPCListen = c.String("grpc-listen")
	}
	if c.IsSet("grpc-allow-remote") {
		sc.GRPCAllowRemote = c.Bool("grpc-allow-remote")
	}
	if c.IsSet("shutdown-grace") {
		sc.ShutdownGrace = c.Duration("shutdown-grace")
	}
	switch {
	case sc.Listen == "":
		return serveSettings{}, usageErrorf("--listen is empty: give HOST:PORT or unix:///PATH")
	case sc.ShutdownGrace < 0:
		return serveSettings{}, usageErrorf("--shutdown-grace %v: want 0 (cancel jobs in flight at once) or more", sc.ShutdownGrace)
	case sc.MetricsListen != "" && sc.MetricsListen == sc.Listen:
		return serveSettings{}, usageErrorf("--metrics-listen %q is --listen's address: leave it empty to serve /metrics beside the API", sc.MetricsListen)
	}
	l := plugin.DefaultLimits()
	l.MaxConnections, l.MaxWebsockets = sc.MaxConnections, sc.MaxWebsockets
	l.MaxReadWebsockets = max(1, sc.MaxWebsockets/4)
	l.BodyTimeout, l.IdleTimeout = sc.BodyTimeout, sc.IdleTimeout
	return serveSettings{listen: sc.Listen, metricsListen: sc.MetricsListen, grpcListen: sc.GRPCListen,
		grpcAllowRemote: sc.GRPCAllowRemote, grace: sc.ShutdownGrace, limits: l}, nil
}

// quietJSONRPC silences go-jsonrpc's own log: it writes a line for every
// malformed request, which anyone who reaches the listener could use to
// flood the log. The API's front counts those and logs them at most once
// per 10 s instead (filc2_rpc_refused_total).
func quietJSONRPC() {
	logging.SetLogLevel("rpc", "dpanic")
}

// isLoopback reports whether host (of HOST:PORT) names a loopback address.
func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// listenGRPC opens --grpc-listen: HOST:PORT or unix:///PATH. The service
// has no authentication, so an address beyond loopback is refused unless
// allowRemote.
func listenGRPC(addr string, allowRemote bool, log hclog.Logger) (net.Listener, error) {
	if !strings.HasPrefix(addr, "unix://") {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("--grpc-listen %q: want HOST:PORT or unix:///PATH (%v)", addr, err)
		}
		if !isLoopback(host) {
			if !allowRemote {
				return nil, fmt.Errorf("--grpc-listen %q is beyond loopback, and the gRPC service has no authentication "+
					"(curio's client sends none): anyone who reaches it could prove and cancel. Listen on 127.0.0.1 or "+
					"a unix socket, or pass --grpc-allow-remote (grpc_allow_remote in [serve]) and firewall it to the curio hosts", addr)
			}
			log.Warn("the gRPC service has no authentication (curio's client sends none) and is listening beyond loopback: "+
				"anyone who reaches it can prove and cancel; firewall it to the curio hosts", "grpc_listen", addr)
		}
	}
	ln, _, err := listen("--grpc-listen", addr, hclog.NewNullLogger())
	return ln, err
}

// listen opens the address of flag (--listen, --grpc-listen) and returns
// the RPC URL clients use.
func listen(flag, addr string, log hclog.Logger) (net.Listener, string, error) {
	if path, ok := strings.CutPrefix(addr, "unix://"); ok {
		if path == "" || !filepath.IsAbs(path) {
			return nil, "", fmt.Errorf("%s %q: want unix:///ABSOLUTE/PATH", flag, addr)
		}
		if st, err := os.Stat(path); err == nil && st.Mode()&os.ModeSocket != 0 {
			if conn, err := net.Dial("unix", path); err == nil {
				conn.Close()
				return nil, "", fmt.Errorf("%s %q: a server is already listening there", flag, addr)
			}
			os.Remove(path) // stale, from a server that died
		}
		ln, err := listenUnix(path)
		if err != nil {
			return nil, "", fmt.Errorf("%s %q: %w", flag, addr, err)
		}
		return ln, "unix://" + path, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("%s %q: want HOST:PORT or unix:///PATH (%v)", flag, addr, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("%s %q: %w", flag, addr, err)
	}
	if !isLoopback(host) {
		log.Warn("listening beyond loopback: tokens and C1 data travel unencrypted; put a TLS proxy in front", "listen", addr)
	}
	return ln, "http://" + ln.Addr().String() + plugin.RPCPath, nil
}

// unixSocketMode is the mode of the unix sockets serve listens on: their
// owner and group may connect, whatever the umask.
const unixSocketMode = 0o660

// listenUnix listens on a unix socket at path with unixSocketMode. The
// socket is made in a private directory beside path, given its mode and
// only then renamed to path, so that it is never connectable with the
// umask's mode. Closing the listener removes path.
func listenUnix(path string) (net.Listener, error) {
	dir, err := os.MkdirTemp(filepath.Dir(path), ".filc2-sock-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", tmp)
	if err != nil {
		return nil, err
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(false)
	if err := os.Chmod(tmp, unixSocketMode); err != nil {
		ul.Close()
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		ul.Close()
		return nil, err
	}
	return &unixListener{UnixListener: ul, path: path}, nil
}

// unixListener removes its socket file when closed.
type unixListener struct {
	*net.UnixListener
	path string
	once sync.Once
}

func (l *unixListener) Close() error {
	err := l.UnixListener.Close()
	l.once.Do(func() { os.Remove(l.path) })
	return err
}

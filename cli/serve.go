package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/plugin"
)

// defaultListen is where filc2 serve listens unless told otherwise.
const defaultListen = "127.0.0.1:9830"

// apiFile, in the filc2 home, holds the running server's RPC URL.
const apiFile = "api"

func serveCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "serve",
		Usage: "serve the Prover API (JSON-RPC over HTTP and websocket) from a go-plugin prover subprocess",
		Description: "Runs `filc2 plugin` from this very binary (its SHA-256 checked at every start) and restarts it if it\n" +
			"dies; jobs in flight then fail with a retryable error. Serves:\n" +
			"  /rpc/v0   JSON-RPC, namespace Filc2 (SealCommit2, Submit, Await, Cancel, Status, Version), over HTTP POST\n" +
			"            and websocket, with lotus-style JWT auth (Authorization: Bearer TOKEN): without a token, read\n" +
			"            (Status, Version); proving needs write. Tokens: filc2 auth create-token --perm write.\n" +
			"  /healthz  200 ok while the prover answers\n" +
			"  /metrics  Prometheus\n" +
			"--listen is a loopback HOST:PORT (the default), another address (tokens then travel unencrypted: put TLS in\n" +
			"front), or unix:///PATH. The URL is written to $" + plugin.EnvHome + "/api (default ~/.filc2/api) while serving.",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "listen", Usage: "HOST:PORT or unix:///PATH", Value: defaultListen},
		}, proverFlags()...),
		OnUsageError: onUsageError,
		Action:       serveAction,
	}
}

func serveAction(c *ucli.Context) error {
	ctx := c.Context
	log := hclog.New(&hclog.LoggerOptions{Name: "filc2", Level: hclog.LevelFromString(c.String("log-level")), Output: c.App.ErrWriter})
	if c.Int("slots") < 1 || c.Int("queue") < 1 {
		return usageErrorf("--slots and --queue must be at least 1")
	}
	if _, err := backendFor(c.String("backend")); err != nil {
		return usageError(err)
	}
	home, err := plugin.Home()
	if err != nil {
		return err
	}
	secret, err := plugin.Secret(home)
	if err != nil {
		return err
	}
	ln, url, err := listen(c.String("listen"), log)
	if err != nil {
		return usageError(err)
	}
	defer ln.Close()

	exe, err := os.Executable()
	if err != nil {
		return err
	}
	sum, err := plugin.FileChecksum(exe)
	if err != nil {
		return err
	}
	client, err := plugin.Launch(ctx, plugin.Config{
		Path: exe,
		Args: []string{"plugin", "--params-dir", c.String("params-dir"), "--slots", fmt.Sprint(c.Int("slots")),
			"--queue", fmt.Sprint(c.Int("queue")), "--backend", c.String("backend"), "--log-level", c.String("log-level")},
		Checksum: sum,
		Logger:   log,
	})
	if err != nil {
		return err
	}
	defer client.Close()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(client.Collectors()...)
	srv := &http.Server{
		Handler: plugin.NewHandler(plugin.HandlerConfig{
			Prover:   client,
			Verify:   plugin.TokenVerifier(secret),
			Healthy:  client.Healthy,
			Registry: reg,
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	api := filepath.Join(home, apiFile)
	if err := os.WriteFile(api, []byte(url+"\n"), 0o600); err != nil {
		return err
	}
	defer removeIfSame(api, url+"\n")
	log.Info("serving the Prover API", "url", url, "plugin_pid", client.PID())

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	return nil
}

// listen opens --listen and returns the RPC URL clients use.
func listen(addr string, log hclog.Logger) (net.Listener, string, error) {
	if path, ok := strings.CutPrefix(addr, "unix://"); ok {
		if path == "" || !filepath.IsAbs(path) {
			return nil, "", fmt.Errorf("--listen %q: want unix:///ABSOLUTE/PATH", addr)
		}
		if st, err := os.Stat(path); err == nil && st.Mode()&os.ModeSocket != 0 {
			if conn, err := net.Dial("unix", path); err == nil {
				conn.Close()
				return nil, "", fmt.Errorf("--listen %q: a server is already listening there", addr)
			}
			os.Remove(path) // stale, from a server that died
		}
		ln, err := net.Listen("unix", path)
		if err != nil {
			return nil, "", fmt.Errorf("--listen %q: %w", addr, err)
		}
		return ln, "unix://" + path, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("--listen %q: want HOST:PORT or unix:///PATH (%v)", addr, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("--listen %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		log.Warn("listening beyond loopback: tokens and C1 data travel unencrypted; put a TLS proxy in front", "listen", addr)
	}
	return ln, "http://" + ln.Addr().String() + plugin.RPCPath, nil
}

// removeIfSame removes path if it still holds content (another server may
// have replaced it since).
func removeIfSame(path, content string) {
	if b, err := os.ReadFile(path); err == nil && string(b) == content {
		os.Remove(path)
	}
}

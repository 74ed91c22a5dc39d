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
	"google.golang.org/grpc"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/curio"
	"github.com/filc2/filc2/plugin/lotus"
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
			"dies, resubmitting the jobs in flight to it; on SIGTERM or SIGINT it takes no new jobs, lets those in flight\n" +
			"finish for --shutdown-grace, cancels the rest and stops the plugin (which ignores the signals). Serves:\n" +
			"  /rpc/v0   JSON-RPC, namespace Filc2 (SealCommit2, Submit, Await, Cancel, Status, Version), over HTTP POST\n" +
			"            and websocket, with lotus-style JWT auth (Authorization: Bearer TOKEN): without a token, read\n" +
			"            (Status, Version); proving needs write. Tokens: filc2 auth create-token --perm write.\n" +
			"  /remote-commit2  lotus's RemoteCommit2Endpoint: POST {Sector, ProofType, Commit1Out} JSON, answered with the\n" +
			"            raw proof bytes; needs write: lotus sends no header, so put the token in the URL (?token=TOKEN)\n" +
			"  /healthz  200 ok while the prover is well; 503 while it is down, restarting, shutting down or crash-looping\n" +
			"  /metrics  Prometheus\n" +
			"--listen is a loopback HOST:PORT (the default), another address (tokens then travel unencrypted: put TLS in\n" +
			"front), or unix:///PATH. The URL is written to $" + plugin.EnvHome + "/api (default ~/.filc2/api) while serving.\n" +
			"--grpc-listen ADDR also serves the cuzk.v1.ProvingEngine gRPC service that curio's [Cuzk] Address client\n" +
			"calls (Prove, SubmitProof, AwaitProof, CancelProof, GetStatus, GetMetrics; POREP_SEAL_COMMIT only). It has\n" +
			"no authentication: keep it on loopback, a unix socket, or a firewalled network. See docs/.",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "listen", Usage: "HOST:PORT or unix:///PATH", Value: defaultListen},
			&ucli.StringFlag{Name: "grpc-listen", Usage: "also serve curio's cuzk ProvingEngine gRPC service here (HOST:PORT or unix:///PATH; no authentication); off when empty"},
			&ucli.DurationFlag{Name: "shutdown-grace", Usage: "on SIGTERM or SIGINT, how long jobs in flight may still finish before they are cancelled (keep it under systemd's TimeoutStopSec, 90 s by default)", Value: plugin.DefaultShutdownGrace},
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
	ln, url, err := listen("--listen", c.String("listen"), log)
	if err != nil {
		return usageError(err)
	}
	defer ln.Close()

	var grpcLn net.Listener
	if addr := c.String("grpc-listen"); addr != "" {
		if grpcLn, err = listenGRPC(addr, log); err != nil {
			return usageError(err)
		}
		defer grpcLn.Close()
	}

	client, err := launchProver(c, log)
	if err != nil {
		return err
	}
	defer client.Close()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(client.Collectors()...)
	verify := plugin.TokenVerifier(secret)
	mux := http.NewServeMux()
	mux.Handle(lotus.RemoteCommit2Path, lotus.NewRemoteCommit2Handler(lotus.RemoteCommit2Config{
		Prover:   client,
		Verify:   verify,
		Registry: reg,
		Logger:   log.Named("remote-commit2"),
	}))
	mux.Handle("/", plugin.NewHandler(plugin.HandlerConfig{
		Prover:   client,
		Verify:   verify,
		Healthy:  client.Healthy,
		Registry: reg,
	}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 2)
	go func() { served <- srv.Serve(ln) }()
	var gsrv *grpc.Server
	if grpcLn != nil {
		gsrv = curio.NewGRPCServer(curio.NewService(curio.Config{Prover: client, Gatherer: reg, Logger: log.Named("cuzk")}))
		go func() { served <- gsrv.Serve(grpcLn) }()
		defer gsrv.Stop()
		log.Info("serving the cuzk ProvingEngine gRPC service (curio's [Cuzk] Address)", "listen", c.String("grpc-listen"))
	}

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
	// Stop in order: no new connections or jobs; the jobs in flight get
	// --shutdown-grace to finish and their callers their answers; what is
	// left is cancelled; then the plugin is closed, idle, and the servers.
	grace := c.Duration("shutdown-grace")
	log.Info("shutting down: no new jobs; jobs in flight may finish", "grace", grace)
	httpDone, grpcDone := make(chan struct{}), make(chan struct{})
	go func() {
		sctx, cancel := context.WithTimeout(context.Background(), grace+time.Minute)
		defer cancel()
		srv.Shutdown(sctx) // waits for the calls in flight
		close(httpDone)
	}()
	if gsrv != nil {
		go func() { gsrv.GracefulStop(); close(grpcDone) }()
	} else {
		close(grpcDone)
	}
	client.Shutdown(context.Background(), grace)
	// Every job has its answer now; let the last responses go out.
	last := time.Now().Add(5 * time.Second)
	select {
	case <-httpDone:
	case <-time.After(time.Until(last)):
		srv.Close()
	}
	select {
	case <-grpcDone:
	case <-time.After(time.Until(last)): // gsrv.Stop, deferred, ends the rest
	}
	log.Info("stopped")
	return nil
}

// launchProver starts `filc2 plugin` from this very binary with the prover
// flags of c (proverFlags).
func launchProver(c *ucli.Context, log hclog.Logger) (*plugin.Client, error) {
	if c.Duration("shutdown-grace") < 0 {
		return nil, usageErrorf("--shutdown-grace %v: want 0 (cancel jobs in flight at once) or more", c.Duration("shutdown-grace"))
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	sum, err := plugin.FileChecksum(exe)
	if err != nil {
		return nil, err
	}
	return plugin.Launch(c.Context, plugin.Config{
		Path:     exe,
		Args:     pluginArgs(c),
		Checksum: sum,
		Logger:   log,
	})
}

// listenGRPC opens --grpc-listen: HOST:PORT or unix:///PATH.
func listenGRPC(addr string, log hclog.Logger) (net.Listener, error) {
	if !strings.HasPrefix(addr, "unix://") {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("--grpc-listen %q: want HOST:PORT or unix:///PATH (%v)", addr, err)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
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
		ln, err := net.Listen("unix", path)
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

// pluginArgs passes the prover flags of c on to `filc2 plugin`: the proving
// settings always, the engine's only when set (so the plugin's --config and
// defaults apply otherwise).
func pluginArgs(c *ucli.Context) []string {
	args := []string{"plugin", "--params-dir", c.String("params-dir"), "--queue", fmt.Sprint(c.Int("queue")),
		"--backend", c.String("backend"), "--log-level", c.String("log-level"), "--engine=" + fmt.Sprint(c.Bool("engine"))}
	for _, name := range []string{"slots", "config", "gpus", "gpu-workers", "synthesis-workers", "memory-budget"} {
		if c.IsSet(name) {
			args = append(args, "--"+name, c.String(name))
		}
	}
	return args
}

package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	ucli "github.com/urfave/cli/v2"
	"google.golang.org/grpc"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/curio"
	"github.com/filc2/filc2/plugin/lotus"
)

// defaultListen is where filc2 serve listens unless told otherwise.
const defaultListen = "127.0.0.1:9830"

// apiFile, in the filc2 home, holds the running server's RPC URL.
const apiFile = "api"

func serveCommand() *ucli.Command {
	def := engine.DefaultConfig().Serve
	return &ucli.Command{
		Name:  "serve",
		Usage: "serve the Prover API (JSON-RPC over HTTP and websocket) from a go-plugin prover subprocess",
		Description: "Runs `filc2 plugin` from this very binary (its SHA-256 checked at every start) and restarts it if it\n" +
			"dies, resubmitting the jobs in flight to it; on SIGTERM or SIGINT it takes no new jobs, lets those in flight\n" +
			"finish for --shutdown-grace, cancels the rest and stops the plugin (which ignores the signals). Serves:\n" +
			"  /rpc/v0   JSON-RPC, namespace Filc2 (SealCommit2, Submit, Await, Cancel, Status, Version, Timeline), over\n" +
			"            HTTP POST and websocket, with lotus-style JWT auth (Authorization: Bearer TOKEN, or ?token=):\n" +
			"            without a token, read (Status, Version, Timeline); proving needs write. Tokens: filc2 auth\n" +
			"            create-token --perm write. A bad token is answered 401 before the body is read; a caller\n" +
			"            without write may send 1 MiB, one with write a 64GiB C1 output.\n" +
			"  /remote-commit2  lotus's RemoteCommit2Endpoint: POST {Sector, ProofType, Commit1Out} JSON, answered with the\n" +
			"            raw proof bytes; needs write: lotus sends no header, so put the token in the URL (?token=TOKEN)\n" +
			"  /healthz  200 ok while the prover is well; 503 while it is down, restarting, shutting down or crash-looping\n" +
			"  /metrics, /debug/timeline.svg  Prometheus and the engine's recent timeline, without a token: on\n" +
			"            --metrics-listen when given, else beside the API\n" +
			"--listen is a loopback HOST:PORT (the default), another address (tokens then travel unencrypted: put TLS in\n" +
			"front), or unix:///PATH (made owner and group only). The URL is written to $" + plugin.EnvHome + "/api\n" +
			"(default ~/.filc2/api) while serving. Connections, websockets, slow bodies and idle connections are\n" +
			"bounded ([serve] in --config; filc2 config default explains each).\n" +
			"--grpc-listen ADDR also serves the cuzk.v1.ProvingEngine gRPC service that curio's [Cuzk] Address client\n" +
			"calls (Prove, SubmitProof, AwaitProof, CancelProof, GetStatus, GetMetrics). It has no authentication: it\n" +
			"listens on loopback or a unix socket unless --grpc-allow-remote is given (then firewall it). See docs/.",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "listen", Usage: "HOST:PORT or unix:///PATH", DefaultText: "[serve] listen, else " + def.Listen},
			&ucli.StringFlag{Name: "metrics-listen", Usage: "serve /metrics, /debug/timeline.svg and /healthz here instead of beside the API (HOST:PORT or unix:///PATH)",
				DefaultText: "[serve] metrics_listen, else beside the API"},
			&ucli.StringFlag{Name: "grpc-listen", Usage: "also serve curio's cuzk ProvingEngine gRPC service here (HOST:PORT or unix:///PATH; no authentication)",
				DefaultText: "[serve] grpc_listen, else off"},
			&ucli.BoolFlag{Name: "grpc-allow-remote", Usage: "let --grpc-listen be an address beyond loopback (it has no authentication: firewall it to the curio hosts)"},
			&ucli.DurationFlag{Name: "shutdown-grace", Usage: "on SIGTERM or SIGINT, how long jobs in flight may still finish before they are cancelled (keep it under systemd's TimeoutStopSec, 90 s by default)",
				DefaultText: "[serve] shutdown_grace, else " + def.ShutdownGrace.String()},
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
	set, err := serveSettingsOf(c)
	if err != nil {
		return err
	}
	quietJSONRPC()
	home, err := plugin.Home()
	if err != nil {
		return err
	}
	secret, err := plugin.Secret(home)
	if err != nil {
		return err
	}
	ln, url, err := listen("--listen", set.listen, log)
	if err != nil {
		return usageError(err)
	}
	defer ln.Close()
	var metricsLn net.Listener
	if set.metricsListen != "" {
		if metricsLn, _, err = listen("--metrics-listen", set.metricsListen, hclog.NewNullLogger()); err != nil {
			return usageError(err)
		}
		defer metricsLn.Close()
	}
	var grpcLn net.Listener
	if set.grpcListen != "" {
		if grpcLn, err = listenGRPC(set.grpcListen, set.grpcAllowRemote, log); err != nil {
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
	faces := plugin.NewHandlers(plugin.HandlerConfig{
		Prover:   client,
		Verify:   verify,
		Healthy:  client.Healthy,
		Registry: reg,
		Limits:   set.limits,
		Logger:   log.Named("rpc"),
	})
	mux := http.NewServeMux()
	mux.Handle(lotus.RemoteCommit2Path, lotus.NewRemoteCommit2Handler(lotus.RemoteCommit2Config{
		Prover:   client,
		Verify:   verify,
		Registry: reg,
		Logger:   log.Named("remote-commit2"),
	}))
	mux.Handle("/", faces.API)
	if metricsLn == nil {
		mux.Handle("GET /metrics", faces.Diagnostics)
		mux.Handle("GET /debug/timeline.svg", faces.Diagnostics)
	}
	srv := plugin.NewHTTPServer(mux, set.limits)
	served := make(chan error, 3)
	go func() { served <- srv.Serve(plugin.LimitListener(ln, set.limits, reg)) }()
	var msrv *http.Server
	if metricsLn != nil {
		msrv = plugin.NewHTTPServer(faces.Diagnostics, set.limits)
		go func() { served <- msrv.Serve(plugin.LimitListener(metricsLn, plugin.Limits{MaxConnections: 16}, nil)) }()
		defer msrv.Close()
		log.Info("serving /metrics, /debug/timeline.svg and /healthz", "listen", set.metricsListen)
	}
	var gsrv *grpc.Server
	if grpcLn != nil {
		gsrv = curio.NewGRPCServer(curio.NewService(curio.Config{Prover: client, Gatherer: reg, Logger: log.Named("cuzk")}))
		go func() { served <- gsrv.Serve(grpcLn) }()
		defer gsrv.Stop()
		log.Info("serving the cuzk ProvingEngine gRPC service (curio's [Cuzk] Address)", "listen", set.grpcListen)
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
	// the grace period to finish and their callers their answers; what is
	// left is cancelled; then the plugin is closed, idle, and the servers.
	log.Info("shutting down: no new jobs; jobs in flight may finish", "grace", set.grace)
	httpDone, grpcDone := make(chan struct{}), make(chan struct{})
	go func() {
		sctx, cancel := context.WithTimeout(context.Background(), set.grace+time.Minute)
		defer cancel()
		srv.Shutdown(sctx) // waits for the calls in flight
		close(httpDone)
	}()
	if gsrv != nil {
		go func() { gsrv.GracefulStop(); close(grpcDone) }()
	} else {
		close(grpcDone)
	}
	client.Shutdown(context.Background(), set.grace)
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

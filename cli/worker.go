package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/lotus"
)

// defaultWorkerListen is lotus-worker's default address.
const defaultWorkerListen = "0.0.0.0:3456"

// workerCallsFile, in the filc2 home, lists the calls not yet returned.
const workerCallsFile = "worker-calls.json"

func workerCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "worker",
		Usage: "run a lotus worker: SealCommit2 (seal/v0/commit/2) and/or ProveReplicaUpdate2, or with --windowpost/--winningpost a PoSt worker",
		Description: "Launches `filc2 plugin` (as filc2 serve does) and serves the lotus Worker API v0 at http://ADDR/rpc/v0\n" +
			"(namespace Filecoin: Version 1.7.0, TaskTypes seal/v0/commit/2, Paths, Info, Session, ProcessSession,\n" +
			"Enabled, SetEnabled, WaitQuiet, SealCommit2). It registers with the miner (WorkerConnect) using the admin\n" +
			"token of --miner-api, and accepts the calls the miner makes back when the miner's AuthVerify says the\n" +
			"token they carry has admin, as lotus-worker does. SealCommit2 answers a CallID at once; the proof goes\n" +
			"back with the miner's ReturnSealCommit2, retried every 5 s until the miner accepts it. When the miner\n" +
			"restarts (its session changes) the worker registers again once its calls in flight are done. Calls not yet\n" +
			"returned are listed in $" + plugin.EnvHome + "/" + workerCallsFile + " (default ~/.filc2): a worker restarted on it reports\n" +
			"them to the miner as lost (worker restarted, code 101); two workers on one host need their own " + plugin.EnvHome + ".\n\n" +
			"--miner-api is lotus's MINER_API_INFO, TOKEN:MULTIADDR (`lotus-miner auth api-info --perm admin`), e.g.\n" +
			"eyJhbGciOi…:/ip4/10.0.0.2/tcp/2345/http, or TOKEN:URL. With --listen 0.0.0.0:PORT (the default) the\n" +
			"worker advertises the local address it reaches the miner from. The miner schedules C2 by the resources\n" +
			"Info reports (memory, CPUs, GPUs) and lotus's C2 table, overridden as in lotus-worker by C2_32G_MIN_MEMORY,\n" +
			"C2_MAX_CONCURRENT, C2_GPU_UTILIZATION and the like. Set [Storage] AllowCommit=false on the miner so that\n" +
			"C2 goes to workers.\n\n" +
			"--prove-replica-update2 also serves SnapDeals' ProveReplicaUpdate2 (seal/v0/provereplicaupdate/2): the\n" +
			"partitions' vanilla proofs (ProveReplicaUpdate1's output) in, checked and queued at once; the update proof\n" +
			"goes back with ReturnProveReplicaUpdate2, retried as for C2; lotus's PR2 table, PR2_… overrides.\n" +
			"--no-commit2 drops C2 (a worker for updates only).\n\n" +
			"--windowpost and/or --winningpost make a PoSt worker instead (as lotus-worker's flags): TaskTypes\n" +
			"post/v0/windowproof and/or post/v0/winningproof, and the methods GenerateWindowPoSt and GenerateWinningPoSt.\n" +
			"It reads each challenged sector's vanilla proof from the storage node that holds it (the miner's\n" +
			"StorageFindSector, then POST BASEURL/vanilla/single with the --miner-api token, as a lotus PoSt worker\n" +
			"without local storage does), proves on the GPU at WindowPoSt high or WinningPoSt critical priority, and\n" +
			"returns the proof verified. A sector it cannot read is answered as skipped (WindowPoSt) or an error\n" +
			"(WinningPoSt), as lotus's worker does. Also served: /healthz and /metrics. See docs/lotus.md.",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "miner-api", Usage: "the miner's API: TOKEN:MULTIADDR or TOKEN:URL (admin token)", EnvVars: []string{"MINER_API_INFO"}, Required: true},
			&ucli.StringFlag{Name: "listen", Usage: "HOST:PORT the worker API listens on (the miner dials it)", Value: defaultWorkerListen},
			&ucli.StringFlag{Name: "name", Usage: "the worker's name in the miner (default: the hostname)"},
			&ucli.BoolFlag{Name: "no-swap", Usage: "report no swap to the miner's scheduler"},
			&ucli.BoolFlag{Name: "prove-replica-update2", Usage: "also serve SnapDeals' ProveReplicaUpdate2 (seal/v0/provereplicaupdate/2)"},
			&ucli.BoolFlag{Name: "no-commit2", Usage: "do not serve SealCommit2 (with --prove-replica-update2: an update worker)"},
			&ucli.BoolFlag{Name: "windowpost", Usage: "serve WindowPoSt (post/v0/windowproof) instead of C2"},
			&ucli.BoolFlag{Name: "winningpost", Usage: "serve WinningPoSt (post/v0/winningproof) instead of C2"},
		}, proverFlags()...),
		OnUsageError: onUsageError,
		Action:       workerAction,
	}
}

func workerAction(c *ucli.Context) error {
	ctx := c.Context
	log := hclog.New(&hclog.LoggerOptions{Name: "filc2", Level: hclog.LevelFromString(c.String("log-level")), Output: c.App.ErrWriter})
	if c.Int("slots") < 1 || c.Int("queue") < 1 {
		return usageErrorf("--slots and --queue must be at least 1")
	}
	if _, err := backendFor(c.String("backend")); err != nil {
		return usageError(err)
	}
	info, err := lotus.ParseMinerAPIInfo(c.String("miner-api"))
	if err != nil {
		return usageError(fmt.Errorf("--miner-api: %w", err))
	}
	if info.Token == "" {
		return usageErrorf("--miner-api has no token: want TOKEN:MULTIADDR with an admin token (lotus-miner auth api-info --perm admin)")
	}
	host, port, err := net.SplitHostPort(c.String("listen"))
	if err != nil {
		return usageError(fmt.Errorf("--listen %q: want HOST:PORT (%v)", c.String("listen"), err))
	}
	home, err := plugin.Home()
	if err != nil {
		return err
	}
	miner, closeMiner, err := lotus.DialMiner(ctx, info)
	if err != nil {
		return err
	}
	defer closeMiner()

	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	defer ln.Close()
	_, port, _ = net.SplitHostPort(ln.Addr().String()) // the real port when it was 0

	client, err := launchProver(c, log)
	if err != nil {
		return err
	}
	defer client.Close()

	var tasks []lotus.TaskType
	if !c.Bool("no-commit2") {
		tasks = append(tasks, lotus.TTCommit2)
	}
	if c.Bool("prove-replica-update2") {
		tasks = append(tasks, lotus.TTProveReplicaUpdate2)
	}
	if len(tasks) == 0 {
		return usageErrorf("--no-commit2 without --prove-replica-update2 leaves nothing to serve")
	}
	if c.Bool("windowpost") || c.Bool("winningpost") {
		if c.Bool("prove-replica-update2") || c.Bool("no-commit2") {
			return usageErrorf("a PoSt worker serves only PoSt: drop --prove-replica-update2 and --no-commit2, or run them on another worker")
		}
		tasks = nil
		if c.Bool("windowpost") {
			tasks = append(tasks, lotus.TTGenerateWindowPoSt)
		}
		if c.Bool("winningpost") {
			tasks = append(tasks, lotus.TTGenerateWinningPoSt)
		}
	}
	w, err := lotus.NewWorker(lotus.WorkerConfig{
		Prover:      client,
		Miner:       miner,
		Tasks:       tasks,
		MinerHeader: http.Header{"Authorization": []string{"Bearer " + info.Token}},
		Name:        c.String("name"),
		NoSwap:      c.Bool("no-swap"),
		CallsFile:   filepath.Join(home, workerCallsFile),
		Logger:      log.Named("worker"),
	})
	if err != nil {
		return usageError(err)
	}
	defer w.Close()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(client.Collectors()...)
	reg.MustRegister(plugin.NewStatusCollector(client))
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "filc2_worker_calls_in_flight", Help: "SealCommit2 calls proving or returning."},
		func() float64 { return float64(w.InFlight()) }))
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "filc2_worker_registrations_total", Help: "Successful WorkerConnect calls."},
		func() float64 { return float64(w.Registrations()) }))
	mux := http.NewServeMux()
	mux.Handle(plugin.RPCPath, w.RPCHandler())
	mux.HandleFunc("GET /healthz", func(rw http.ResponseWriter, r *http.Request) {
		hctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := client.Healthy(hctx); err != nil {
			http.Error(rw, "unhealthy: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		rw.Write([]byte("ok\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	advertise, err := advertiseHost(ctx, host, info.Host, log)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	self := "http://" + net.JoinHostPort(advertise, port) + plugin.RPCPath
	log.Info("serving the lotus Worker API", "url", self, "miner", info.URL, "plugin_pid", client.PID())

	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx, self) }()
	var runErr error
	select {
	case err := <-served:
		return err
	case runErr = <-ran:
		if runErr == nil {
			break // ctx ended
		}
		log.Error("the worker stops", "error", runErr)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	w.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	return runErr
}

// advertiseHost is the host the miner should dial: host itself, or for an
// unspecified address (0.0.0.0, ::) the local address of a connection to
// the miner, as lotus-worker finds it. It retries until the miner answers
// or ctx ends.
func advertiseHost(ctx context.Context, host, minerHost string, log hclog.Logger) (string, error) {
	ip := net.ParseIP(host)
	if host != "" && (ip == nil || !ip.IsUnspecified()) {
		return host, nil
	}
	for attempt := 0; ; attempt++ {
		var d net.Dialer
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		conn, err := d.DialContext(dctx, "tcp", minerHost)
		cancel()
		if err == nil {
			local := conn.LocalAddr().(*net.TCPAddr).IP.String()
			conn.Close()
			return local, nil
		}
		if attempt%10 == 0 {
			log.Warn("finding the address the miner can reach this worker at (give --listen IP:PORT to skip this)", "miner", minerHost, "error", err)
		}
		select {
		case <-ctx.Done():
			return "", errors.Join(ctx.Err(), err)
		case <-time.After(time.Second):
		}
	}
}

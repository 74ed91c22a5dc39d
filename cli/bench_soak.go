package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/filecoin-project/go-jsonrpc"
	stabi "github.com/filecoin-project/go-state-types/abi"
	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/paramcache"
	"github.com/filc2/filc2/proofs/porep"
)

// filc2 bench soak: `filc2 serve` on the CPU backend under 2KiB jobs from many
// clients and injected faults for a set time; every answer is checked.

// defaultSoakFaults is --faults's default: a failed kernel section and a
// corrupted proof in 2% of partition attempts each.
const defaultSoakFaults = "section=rate:0.02,corrupt=rate:0.02"

// soakMiner is the miner of the sectors a soak seals.
const soakMiner = 1000

// serveStopWait is how long serve may take to exit on SIGTERM: its own
// 30 s for the jobs in flight, then the plugin's exit.
const serveStopWait = time.Minute

func benchSoakCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "soak",
		Usage: "drive filc2 serve (CPU backend, 2KiB jobs) from many clients for a set time while injecting faults; check every answer",
		UsageText: "filc2 bench soak --duration D [--clients N] [--params DIR] [--kill-every D] [--faults SPEC]\n" +
			"               [--cancel-rate P] [--expire-rate P] [--junk-rate P] [--sectors K] [--seed N] [--grace D] [--json]",
		Description: "Starts `filc2 serve` from this very binary (a child process: private $" + plugin.EnvHome + " in a temporary\n" +
			"directory, --backend cpu, a free loopback port, --params-dir DIR, $" + EnvInjectFaults + "=SPEC for its plugin),\n" +
			"seals --sectors 2KiB sectors here, proves one job to warm up, then for --duration runs --clients clients,\n" +
			"each submitting a 2KiB job under a fresh id and awaiting it, over and over. Meanwhile:\n" +
			"  faults        the plugin injects --faults (internal/fault's spec: failed kernel sections, corrupted\n" +
			"                proofs); its engine retries them, so a job still gets a verifying proof unless every\n" +
			"                attempt of a partition fails\n" +
			"  kills         every --kill-every the plugin process (its pid from Status, checked to be serve's child)\n" +
			"                is sent SIGKILL; serve restarts it, and the soak waits until Status answers again\n" +
			"  cancels       --cancel-rate of the jobs are cancelled shortly after their submission\n" +
			"  expiries      --expire-rate of the jobs are SealCommit2 calls whose caller's deadline is too short to\n" +
			"                finish (the Prover API has no deadline field: a caller that goes away cancels its job)\n" +
			"  junk          --junk-rate junk requests per job: malformed JSON-RPC bodies, unknown methods, a forged\n" +
			"                token, wrong parameter types, garbage bytes, a truncated C1, a C1 under another sector,\n" +
			"                Await of an unknown id; each must get an error answer within 30 s\n" +
			"Every proof returned is verified against its C1 with the 2KiB .vk in --params. Each job ends in one of:\n" +
			"  completed         a verified proof (p50/p99 latency: submission to verified proof)\n" +
			"  cancelled/expired cancelled by the soak as planned (a proof that wins the race counts as completed)\n" +
			"  failed_retryable  the client was told *UnavailableError (the plugin died with the job) and the job is\n" +
			"                    gone, or Submit kept answering unavailable\n" +
			"  failed            a final error: every attempt of a partition failed, or an unexpected answer\n" +
			"  invalid_returned  a proof that does not verify (must be 0)\n" +
			"  lost              no final answer by the end of --grace after --duration (by default the larger of 2\n" +
			"                    minutes and 3 × the slowest job so far), or the server forgot the job\n" +
			"                    without saying it failed retryably (must be 0)\n" +
			"duplicates (must be 0) counts second final answers for one job: each completed job is awaited once more\n" +
			"and must answer the same proof (or that it is no longer known). misrouted counts answers for another id.\n" +
			"RSS is serve's and the plugin's VmRSS after the warm-up and at the end; each kill restarts the plugin, so\n" +
			"its RSS starts again (plugin_rss_peak_bytes is the largest seen). Engine figures (partitions retried and\n" +
			"failed) are summed over every plugin lifetime from Status, polled every 2 s. Progress goes to stderr\n" +
			"every 10 s; the report to stdout (one JSON object with --json).\n" +
			"\n" +
			"Exits non-zero, after the report, when lost, invalid_returned, duplicates, misrouted or junk_failures is\n" +
			"not 0, when the plugin did not come back after a kill or restarted without one, when jobs were left on\n" +
			"the server, or when serve exited by itself or not cleanly on SIGTERM. serve's log is kept (its path\n" +
			"printed) when the soak fails.\n" +
			"\n" +
			"Examples:\n" +
			"  filc2 setup -p StackedDrg2KiBV1_1 --out /tmp/p2k\n" +
			"  filc2 bench soak --duration 30m --clients 4 --params /tmp/p2k --json\n" +
			"  filc2 bench soak --duration 5m --kill-every 20s --faults section=rate:0.2,seed=3 --junk-rate 0.5 --params /tmp/p2k",
		Flags: []ucli.Flag{
			&ucli.DurationFlag{Name: "duration", Usage: "how long clients submit jobs (required)"},
			&ucli.IntFlag{Name: "clients", Usage: "clients, each with one job in flight", Value: 4},
			&ucli.StringFlag{Name: "params", Usage: "directory with the StackedDrg2KiBV1_1 .params and .vk (filc2 setup makes test ones)",
				Value: paramcache.DefaultDir, EnvVars: []string{paramcache.EnvDir}},
			&ucli.DurationFlag{Name: "kill-every", Usage: "SIGKILL the plugin process this often (0: never)", Value: 2 * time.Minute},
			&ucli.StringFlag{Name: "faults", Usage: "the plugin's fault spec (internal/fault; \"\": none)", Value: defaultSoakFaults},
			&ucli.Float64Flag{Name: "cancel-rate", Usage: "fraction of jobs cancelled shortly after submission", Value: 0.05},
			&ucli.Float64Flag{Name: "expire-rate", Usage: "fraction of jobs sent as SealCommit2 with a deadline too short to finish", Value: 0.05},
			&ucli.Float64Flag{Name: "junk-rate", Usage: "junk requests per job (2.5: two, and a third half the time)", Value: 0.1},
			&ucli.IntFlag{Name: "sectors", Usage: "2KiB sectors sealed here, proved in turn", Value: 4},
			&ucli.Uint64Flag{Name: "seed", Usage: "seed of the clients' choices (job kinds, sectors, delays)", Value: 1},
			&ucli.DurationFlag{Name: "grace", Usage: "how long jobs still in flight at the end may take to answer (0: the larger of 2 minutes and 3 × the slowest job so far)"},
			&ucli.BoolFlag{Name: "json", Usage: "print the report as one JSON object"},
		},
		OnUsageError: onUsageError,
		Action:       benchSoakAction,
	}
}

// soakPlan is what the flags ask for.
type soakPlan struct {
	Duration   time.Duration
	Clients    int
	Params     string
	KillEvery  time.Duration
	Faults     string
	CancelRate float64
	ExpireRate float64
	JunkRate   float64
	Sectors    int
	Seed       uint64
	Grace      time.Duration // 0: soakGrace of the slowest job
	Binary     string        // the filc2 binary serve runs from (default: this one)
	// NoWarmup skips the warm-up job (tests): the clients' first jobs load
	// the parameters, and the start RSS is taken before them.
	NoWarmup bool
}

func parseSoakFlags(c *ucli.Context) (soakPlan, error) {
	pl := soakPlan{Duration: c.Duration("duration"), Clients: c.Int("clients"), Params: c.String("params"),
		KillEvery: c.Duration("kill-every"), Faults: c.String("faults"), CancelRate: c.Float64("cancel-rate"),
		ExpireRate: c.Float64("expire-rate"), JunkRate: c.Float64("junk-rate"), Sectors: c.Int("sectors"),
		Seed: c.Uint64("seed"), Grace: c.Duration("grace")}
	return pl, pl.check()
}

// check refuses plans that cannot run.
func (pl soakPlan) check() error {
	rate := func(name string, p float64) error {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("--%s %v: want a fraction from 0 to 1", name, p)
		}
		return nil
	}
	switch {
	case pl.Duration <= 0:
		return fmt.Errorf("--duration %v: give how long to soak, such as 30m", pl.Duration)
	case pl.Clients < 1:
		return fmt.Errorf("--clients %d: want at least 1", pl.Clients)
	case pl.Sectors < 1:
		return fmt.Errorf("--sectors %d: want at least 1", pl.Sectors)
	case pl.KillEvery < 0:
		return fmt.Errorf("--kill-every %v: want 0 (never) or a positive duration", pl.KillEvery)
	case pl.Grace < 0:
		return fmt.Errorf("--grace %v: want 0 (the larger of 2 minutes and 3 × the slowest job) or a positive duration", pl.Grace)
	case pl.Params == "":
		return errors.New("--params is empty: give the directory with the StackedDrg2KiBV1_1 .params and .vk")
	}
	for _, r := range []struct {
		name string
		p    float64
	}{{"cancel-rate", pl.CancelRate}, {"expire-rate", pl.ExpireRate}} {
		if err := rate(r.name, r.p); err != nil {
			return err
		}
	}
	if !(pl.JunkRate >= 0 && pl.JunkRate <= 100) {
		return fmt.Errorf("--junk-rate %v: want junk requests per job, from 0 to 100", pl.JunkRate)
	}
	if pl.CancelRate+pl.ExpireRate > 1 {
		return fmt.Errorf("--cancel-rate %v + --expire-rate %v is over 1: they are fractions of the same jobs", pl.CancelRate, pl.ExpireRate)
	}
	if _, err := parseFaults("--faults", pl.Faults); err != nil {
		return err
	}
	return nil
}

func benchSoakAction(c *ucli.Context) error {
	if c.Args().Present() {
		return usageErrorf("unexpected arguments %q (see %s --help)", c.Args().Slice(), c.Command.HelpName)
	}
	pl, err := parseSoakFlags(c)
	if err != nil {
		return usageError(err)
	}
	rep, err := runSoak(c.Context, pl, c.App.ErrWriter)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printSoak(c.App.Writer, rep)
	}
	if err := rep.verdict(); err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	return nil
}

// soakReport is bench soak's result. Every submitted job is counted in
// exactly one of completed, cancelled, expired, failed_retryable, failed,
// invalid_returned and lost.
type soakReport struct {
	DurationS  float64 `json:"duration_s"`
	Clients    int     `json:"clients"`
	Sectors    int     `json:"sectors"`
	FaultsSpec string  `json:"faults_spec"`
	KillEveryS float64 `json:"kill_every_s"`
	CancelRate float64 `json:"cancel_rate"`
	ExpireRate float64 `json:"expire_rate"`
	JunkRate   float64 `json:"junk_rate"`
	WarmupMS   float64 `json:"warmup_ms"` // the first job, parameter loading included; not counted below

	Submitted       int64 `json:"submitted"`
	Completed       int64 `json:"completed"`
	Cancelled       int64 `json:"cancelled"` // jobs whose Await answered cancelled after the soak cancelled them
	Expired         int64 `json:"expired"`   // SealCommit2 calls whose deadline passed before the proof
	FailedRetryable int64 `json:"failed_retryable"`
	Failed          int64 `json:"failed"`
	Lost            int64 `json:"lost"`
	InvalidReturned int64 `json:"invalid_returned"`
	Duplicates      int64 `json:"duplicates"`
	Misrouted       int64 `json:"misrouted"` // answers that named another job
	Busy            int64 `json:"busy"`      // Submits answered busy (then sent again)

	P50MS float64 `json:"p50_ms"`
	P99MS float64 `json:"p99_ms"`
	MaxMS float64 `json:"max_ms"`

	RSSStart       int64 `json:"rss_start_bytes"` // serve + plugin after the warm-up
	RSSEnd         int64 `json:"rss_end_bytes"`   // serve + plugin at the end (the plugin restarted at each kill)
	ServeRSSStart  int64 `json:"serve_rss_start_bytes"`
	ServeRSSEnd    int64 `json:"serve_rss_end_bytes"`
	ServeRSSPeak   int64 `json:"serve_rss_peak_bytes"`
	PluginRSSStart int64 `json:"plugin_rss_start_bytes"`
	PluginRSSEnd   int64 `json:"plugin_rss_end_bytes"`
	PluginRSSPeak  int64 `json:"plugin_rss_peak_bytes"`
	// PluginRSSLifetimes is the largest RSS seen of each plugin process, in
	// order (a kill starts the next): a plateau, or growth within one.
	PluginRSSLifetimes []int64 `json:"plugin_rss_lifetimes_bytes"`

	// The faults injected and what the server did about them.
	PluginKills       int64   `json:"plugin_kills"`
	PluginRestarts    int64   `json:"plugin_restarts"`    // the host's count (serve's /metrics)
	PluginCrashes     int64   `json:"plugin_crashes"`     // restarts beyond the kills: the plugin died by itself
	PluginUnrecovered int64   `json:"plugin_unrecovered"` // kills after which Status did not answer for 2 minutes
	RestartMaxMS      float64 `json:"restart_max_ms"`     // kill to Status answering from the new plugin, worst
	Resubmitted       int64   `json:"host_resubmitted"`   // jobs the host gave again to a restarted plugin
	HostJobsLost      int64   `json:"host_jobs_lost"`     // jobs the host could not resubmit (told unavailable)
	Cancels           int64   `json:"cancels"`            // Cancel calls
	Expiries          int64   `json:"expiries"`           // SealCommit2 calls with a too-short deadline
	// FaultsInjected is how often each point of --faults fired (section,
	// corrupt), summed over the plugin lifetimes (from Status).
	FaultsInjected    map[string]int64 `json:"faults_injected"`
	JunkRequests      int64            `json:"junk_requests"`
	JunkFailures      int64            `json:"junk_failures"` // junk answered without an error, or not within 30 s
	PartitionsProved  int64            `json:"partitions_proved"`
	PartitionsRetried int64            `json:"partitions_retried"`
	PartitionsFailed  int64            `json:"partitions_failed"`
	EngineJobsFailed  int64            `json:"engine_jobs_failed"`
	LeftOnServer      int              `json:"left_on_server"` // jobs still queued or running 30 s after the last answer

	ServeExit string   `json:"serve_exit"`          // "ok" or how serve ended
	ServeLog  string   `json:"serve_log,omitempty"` // kept when the soak failed
	Problems  []string `json:"problems,omitempty"`  // the first of each kind of failure, for the reader
}

// verdict is nil for a soak that found nothing wrong, else an error
// naming what.
func (r *soakReport) verdict() error {
	var bad []string
	for _, f := range []struct {
		name string
		n    int64
	}{{"lost", r.Lost}, {"invalid_returned", r.InvalidReturned}, {"duplicates", r.Duplicates}, {"misrouted", r.Misrouted},
		{"junk_failures", r.JunkFailures}, {"plugin_unrecovered", r.PluginUnrecovered}, {"plugin_crashes", r.PluginCrashes},
		{"left_on_server", int64(r.LeftOnServer)}} {
		if f.n != 0 {
			bad = append(bad, fmt.Sprintf("%s = %d", f.name, f.n))
		}
	}
	if r.ServeExit != "ok" {
		bad = append(bad, "serve: "+r.ServeExit)
	}
	if len(bad) == 0 {
		return nil
	}
	msg := "bench soak failed: " + strings.Join(bad, ", ")
	if len(r.Problems) > 0 {
		msg += "; first problems: " + strings.Join(r.Problems, "; ")
	}
	if r.ServeLog != "" {
		msg += "; serve's log: " + r.ServeLog
	}
	return errors.New(msg)
}

// soakSector is a sealed 2KiB sector: its C1 output as sent and decoded.
type soakSector struct {
	ref plugin.SectorRef
	raw []byte
	c1  *c1.Commit1Out
}

// sealSoakSectors seals n 2KiB sectors of soakMiner (numbers 1…n).
func sealSoakSectors(ctx context.Context, p abi.SealProof, n int) ([]soakSector, error) {
	out := make([]soakSector, n)
	for i := range out {
		num := uint64(i + 1)
		var ticket, seed [32]byte
		ticket[0], ticket[1], seed[0], seed[1] = 0x50, byte(num), 0xa4, byte(num)
		sec, err := porep.Seal(ctx, porep.SealInput{Proof: p, ProverID: porep.ProverID(soakMiner), SectorID: num, Ticket: ticket}, nil)
		if err != nil {
			return nil, fmt.Errorf("bench soak: sealing sector %d: %w", num, err)
		}
		co, err := sec.Commit1(seed)
		if err != nil {
			return nil, fmt.Errorf("bench soak: C1 of sector %d: %w", num, err)
		}
		raw, err := c1.Encode(co)
		if err != nil {
			return nil, fmt.Errorf("bench soak: encoding the C1 of sector %d: %w", num, err)
		}
		out[i] = soakSector{raw: raw, c1: co, ref: plugin.SectorRef{ProofType: p.Proof}}
		out[i].ref.ID.Miner, out[i].ref.ID.Number = soakMiner, stabi.SectorNumber(num)
	}
	return out, nil
}

// runSoak runs the plan and reports on it; progress goes to log. An error
// is a soak that could not run; what it found is in the report.
func runSoak(ctx context.Context, pl soakPlan, log io.Writer) (*soakReport, error) {
	say := func(format string, args ...any) { fmt.Fprintf(log, "soak: "+format+"\n", args...) }
	p, err := abi.ParseName("StackedDrg2KiBV1_1")
	if err != nil {
		return nil, err
	}
	files := c2.FilesIn(pl.Params, p)
	for _, path := range []string{files.Params, files.VK} {
		if _, err := os.Stat(path); err != nil {
			return nil, usageErrorf("bench soak: no %s parameters in %s (%v): run `filc2 setup -p %s --out %s` for test parameters",
				p.Name, pl.Params, err, p.Name, pl.Params)
		}
	}
	vk, err := groth16.ReadVerifyingKeyFile(files.VK, porep.PublicInputCount(p.ChallengesPerPartition)+1)
	if err != nil {
		return nil, fmt.Errorf("bench soak: %w", err)
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		return nil, fmt.Errorf("bench soak: %s: %w", files.VK, err)
	}
	if pl.Binary == "" {
		if pl.Binary, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("bench soak: finding this binary to run serve from: %w", err)
		}
	}
	say("sealing %s", plural(pl.Sectors, "2KiB sector"))
	sectors, err := sealSoakSectors(ctx, p, pl.Sectors)
	if err != nil {
		return nil, err
	}

	home, err := os.MkdirTemp("", "filc2-soak-")
	if err != nil {
		return nil, fmt.Errorf("bench soak: a home directory for serve: %w", err)
	}
	keep := false
	defer func() {
		if !keep {
			os.RemoveAll(home)
		}
	}()
	secret, err := plugin.Secret(home)
	if err != nil {
		return nil, fmt.Errorf("bench soak: %w", err)
	}
	perms, err := plugin.PermissionsUpTo(plugin.PermWrite)
	if err != nil {
		return nil, err
	}
	token, err := plugin.NewToken(secret, perms)
	if err != nil {
		return nil, fmt.Errorf("bench soak: a write token: %w", err)
	}
	srv, err := startSoakServe(ctx, pl.Binary, home, pl.Params, max(64, 4*pl.Clients), pl.Faults)
	if err != nil {
		keep = true
		return nil, err
	}
	defer srv.stop(serveStopWait) // on the early returns below
	say("serve (pid %d) at %s, faults %q, its log in %s", srv.pid(), srv.url, pl.Faults, srv.logPath)

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4*pl.Clients + 8, IdleConnTimeout: time.Minute}}
	defer hc.CloseIdleConnections()
	var api plugin.ProverStruct
	closer, err := jsonrpc.NewMergeClient(ctx, srv.url, plugin.Namespace, []any{&api.Internal},
		http.Header{"Authorization": []string{"Bearer " + token}}, jsonrpc.WithErrors(plugin.Errors()), jsonrpc.WithHTTPClient(hc))
	if err != nil {
		return nil, fmt.Errorf("bench soak: a client of %s: %w", srv.url, err)
	}
	defer closer()

	rep := &soakReport{DurationS: pl.Duration.Seconds(), Clients: pl.Clients, Sectors: pl.Sectors, FaultsSpec: pl.Faults,
		KillEveryS: pl.KillEvery.Seconds(), CancelRate: pl.CancelRate, ExpireRate: pl.ExpireRate, JunkRate: pl.JunkRate}
	s := newSoak(pl, &api, hc, srv, token, sectors, pvk, rep, say)
	if err := s.warmUp(ctx, !pl.NoWarmup); err != nil {
		keep = true
		return nil, fmt.Errorf("%w (serve's log: %s)", err, srv.logPath)
	}
	if err := s.run(ctx); err != nil {
		keep = true
		return nil, fmt.Errorf("%w (serve's log: %s)", err, srv.logPath)
	}
	if err := srv.stop(serveStopWait); err != nil {
		rep.ServeExit = err.Error()
	} else {
		rep.ServeExit = "ok"
	}
	if rep.verdict() != nil {
		keep = true
		rep.ServeLog = srv.logPath
	}
	return rep, nil
}

// printSoak writes the report as a table.
func printSoak(w io.Writer, r *soakReport) {
	kills := "no plugin kills"
	if r.KillEveryS > 0 {
		kills = fmt.Sprintf("a plugin kill every %s", time.Duration(r.KillEveryS*float64(time.Second)))
	}
	fmt.Fprintf(w, "bench soak: %s, %s, 2KiB jobs on the CPU backend; faults %q, %s\n",
		time.Duration(r.DurationS*float64(time.Second)), plural(r.Clients, "client"), r.FaultsSpec, kills)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	row := func(name string, v any, what string) { fmt.Fprintf(tw, "%s\t%v\t%s\n", name, v, what) }
	row("submitted", r.Submitted, "jobs (after a warm-up job of "+fmt.Sprintf("%.0f ms", r.WarmupMS)+")")
	row("completed", r.Completed, "verified proofs")
	row("cancelled", r.Cancelled, fmt.Sprintf("of %d Cancel calls (the rest finished first)", r.Cancels))
	row("expired", r.Expired, fmt.Sprintf("of %d SealCommit2 calls with a too-short deadline", r.Expiries))
	row("failed_retryable", r.FailedRetryable, "told unavailable (the plugin died with the job)")
	row("failed", r.Failed, "final errors")
	row("lost", r.Lost, "must be 0")
	row("invalid_returned", r.InvalidReturned, "must be 0")
	row("duplicates", r.Duplicates, "must be 0")
	row("misrouted", r.Misrouted, "must be 0")
	row("latency", fmt.Sprintf("%.0f ms", r.P50MS), fmt.Sprintf("p50; p99 %.0f ms, max %.0f ms (submission to verified proof)", r.P99MS, r.MaxMS))
	row("RSS start", mib(r.RSSStart), fmt.Sprintf("serve %s + plugin %s, after the warm-up", mib(r.ServeRSSStart), mib(r.PluginRSSStart)))
	row("RSS end", mib(r.RSSEnd), fmt.Sprintf("serve %s + plugin %s (peaks: serve %s, plugin %s; each kill restarts the plugin)",
		mib(r.ServeRSSEnd), mib(r.PluginRSSEnd), mib(r.ServeRSSPeak), mib(r.PluginRSSPeak)))
	if len(r.PluginRSSLifetimes) > 1 {
		var ls []string
		for _, b := range r.PluginRSSLifetimes {
			ls = append(ls, mib(b))
		}
		row("plugin RSS", strings.Join(ls, ", "), "the peak of each plugin lifetime, in order")
	}
	row("plugin kills", r.PluginKills, fmt.Sprintf("%d restarts, %d crashes, %d not recovered; back within %.0f ms at worst",
		r.PluginRestarts, r.PluginCrashes, r.PluginUnrecovered, r.RestartMaxMS))
	row("resubmitted", r.Resubmitted, fmt.Sprintf("jobs the host gave again to a restarted plugin (%d it could not)", r.HostJobsLost))
	row("partitions", r.PartitionsProved, fmt.Sprintf("proved; %d retried, %d failed (every plugin lifetime, from Status)",
		r.PartitionsRetried, r.PartitionsFailed))
	if len(r.FaultsInjected) > 0 {
		var fs []string
		for _, p := range slices.Sorted(maps.Keys(r.FaultsInjected)) {
			fs = append(fs, fmt.Sprintf("%s %d", p, r.FaultsInjected[p]))
		}
		row("faults injected", strings.Join(fs, ", "), "fired in the plugin (every lifetime, from Status); each costs a retry")
	}
	row("junk requests", r.JunkRequests, fmt.Sprintf("%d not answered with an error", r.JunkFailures))
	row("busy", r.Busy, "Submits answered busy")
	row("left on server", r.LeftOnServer, "jobs queued or running after the last answer")
	row("serve", r.ServeExit, "exit on SIGTERM")
	tw.Flush()
	for _, p := range r.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	if r.ServeLog != "" {
		fmt.Fprintf(w, "serve's log: %s\n", r.ServeLog)
	}
	if err := r.verdict(); err == nil {
		fmt.Fprintln(w, "\nno job lost, no invalid proof returned, no duplicate answer")
	}
}

// mib writes bytes in MiB.
func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

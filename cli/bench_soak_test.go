package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/filc2/filc2/plugin/plugintest"
)

// A short soak of the real `filc2 serve` on the CPU backend: a plugin kill,
// an injected section failure in every plugin lifetime (so at least one
// retried partition), cancels, expiries and junk requests; every job is
// accounted for, none lost, no invalid proof, no duplicate answer, and serve
// stops cleanly. A 2KiB proof takes about 25 s on 2 cores, so one client
// and one kill (at 8 s; the next would come after the 12 s of submissions)
// let the job it interrupted finish within the grace period: about a minute
// (the grace is generous for machines loaded by other tests).
func TestBenchSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("a soak of real 2KiB proofs takes about a minute on 2 cores")
	}
	pl := soakPlan{Duration: 12 * time.Second, Clients: 1, Params: plugintest.Params(t), KillEvery: 8 * time.Second,
		Faults: "section=1,corrupt=rate:0.05,seed=3", CancelRate: 0.2, ExpireRate: 0.2, JunkRate: 3, Sectors: 2, Seed: 5,
		Grace: 10 * time.Minute, Binary: plugintest.Binary(t), NoWarmup: true}
	if err := pl.check(); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	t0 := time.Now()
	rep, err := runSoak(context.Background(), pl, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	b, _ := json.MarshalIndent(rep, "", "  ")
	t.Logf("soak in %v:\n%s", time.Since(t0).Round(time.Second), b)
	if err := rep.verdict(); err != nil {
		t.Errorf("verdict: %v\n%s", err, log.String())
	}
	for name, n := range map[string]int64{"lost": rep.Lost, "invalid_returned": rep.InvalidReturned, "duplicates": rep.Duplicates,
		"misrouted": rep.Misrouted, "junk_failures": rep.JunkFailures, "plugin_unrecovered": rep.PluginUnrecovered,
		"plugin_crashes": rep.PluginCrashes, "left_on_server": int64(rep.LeftOnServer)} {
		if n != 0 {
			t.Errorf("%s = %d, want 0", name, n)
		}
	}
	for name, n := range map[string]int64{"completed": rep.Completed, "plugin_kills": rep.PluginKills, "plugin_restarts": rep.PluginRestarts,
		"partitions_retried": rep.PartitionsRetried, "junk_requests": rep.JunkRequests, "faults_injected[section]": rep.FaultsInjected["section"]} {
		if n < 1 {
			t.Errorf("%s = %d, want at least 1", name, n)
		}
	}
	if sum := rep.Completed + rep.Cancelled + rep.Expired + rep.FailedRetryable + rep.Failed + rep.InvalidReturned + rep.Lost; sum != rep.Submitted {
		t.Errorf("outcomes add up to %d, %d submitted", sum, rep.Submitted)
	}
	if rep.ServeExit != "ok" {
		t.Errorf("serve: %s", rep.ServeExit)
	}
	if rep.P50MS <= 0 || rep.P99MS < rep.P50MS || rep.RSSStart <= 0 || rep.RSSEnd <= 0 || rep.PluginRSSPeak < rep.PluginRSSEnd {
		t.Errorf("latency or RSS figures missing: p50 %v p99 %v, RSS %d → %d, plugin peak %d", rep.P50MS, rep.P99MS, rep.RSSStart, rep.RSSEnd, rep.PluginRSSPeak)
	}
	if len(rep.PluginRSSLifetimes) != int(rep.PluginRestarts)+1 {
		t.Errorf("plugin RSS of %d lifetimes, want one per restart and the first: %v", len(rep.PluginRSSLifetimes), rep.PluginRSSLifetimes)
	}
	var text bytes.Buffer
	printSoak(&text, rep)
	for _, want := range []string{"lost              0", "plugin kills", "no job lost, no invalid proof returned, no duplicate answer"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text report has no %q:\n%s", want, text.String())
		}
	}
}

// Flags that cannot run are usage errors (exit status 2) before anything
// starts; so are parameters that are not there.
func TestBenchSoakFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--clients", "2"}, "--duration 0s: give how long"},
		{[]string{"--duration", "0s"}, "--duration 0s"},
		{[]string{"--duration", "1m", "--clients", "0"}, "--clients 0"},
		{[]string{"--duration", "1m", "--cancel-rate", "1.5"}, "--cancel-rate 1.5"},
		{[]string{"--duration", "1m", "--cancel-rate", "0.6", "--expire-rate", "0.5"}, "is over 1"},
		{[]string{"--duration", "1m", "--junk-rate", "-1"}, "--junk-rate -1"},
		{[]string{"--duration", "1m", "--kill-every", "-1s"}, "--kill-every -1s"},
		{[]string{"--duration", "1m", "--sectors", "0"}, "--sectors 0"},
		{[]string{"--duration", "1m", "--faults", "section=sometimes"}, "--faults"},
		{[]string{"--duration", "1m", "--params", dir}, "no StackedDrg2KiBV1_1 parameters in " + dir},
		{[]string{"--duration", "1m", "extra"}, "unexpected arguments"},
	} {
		out, err := run(t, append([]string{"bench", "soak"}, tc.args...)...)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v (%s), want a usage error with %q", tc.args, err, out, tc.want)
		}
	}
}

// The verdict fails a report for each figure that must be 0 and for a serve
// that did not exit cleanly; the JSON carries the keys.
func TestSoakVerdict(t *testing.T) {
	clean := soakReport{Submitted: 3, Completed: 3, ServeExit: "ok"}
	if err := clean.verdict(); err != nil {
		t.Errorf("clean report: %v", err)
	}
	for name, mut := range map[string]func(r *soakReport){
		"lost = 1":             func(r *soakReport) { r.Lost = 1 },
		"invalid_returned = 2": func(r *soakReport) { r.InvalidReturned = 2 },
		"duplicates = 1":       func(r *soakReport) { r.Duplicates = 1 },
		"misrouted = 1":        func(r *soakReport) { r.Misrouted = 1 },
		"junk_failures = 4":    func(r *soakReport) { r.JunkFailures = 4 },
		"plugin_crashes = 1":   func(r *soakReport) { r.PluginCrashes = 1 },
		"left_on_server = 2":   func(r *soakReport) { r.LeftOnServer = 2 },
		"serve: killed":        func(r *soakReport) { r.ServeExit = "killed" },
	} {
		r := clean
		mut(&r)
		if err := r.verdict(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: verdict %v", name, err)
		}
	}
	b, err := json.Marshal(clean)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"submitted", "completed", "failed_retryable", "failed", "lost", "invalid_returned", "duplicates",
		"p50_ms", "p99_ms", "rss_start_bytes", "rss_end_bytes", "faults_spec", "plugin_kills", "cancels", "expiries",
		"junk_requests", "partitions_retried"} {
		if _, ok := m[k]; !ok {
			t.Errorf("the JSON report has no %q: %s", k, b)
		}
	}
}

func TestSoakGrace(t *testing.T) {
	for slowest, want := range map[time.Duration]time.Duration{0: 2 * time.Minute, 30 * time.Second: 2 * time.Minute,
		time.Minute: 3 * time.Minute, 3 * time.Minute: 9 * time.Minute} {
		if got := soakGrace(slowest); got != want {
			t.Errorf("soakGrace(%v) = %v, want %v", slowest, got, want)
		}
	}
}

func TestSoakPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for q, want := range map[float64]time.Duration{0.5: 50 * time.Millisecond, 0.99: 99 * time.Millisecond, 1: 100 * time.Millisecond} {
		if got := percentile(d, q); got != want {
			t.Errorf("percentile %v = %v, want %v", q, got, want)
		}
	}
	if got := percentile(d[:1], 0.99); got != time.Millisecond {
		t.Errorf("one sample: %v", got)
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("no samples: %v", got)
	}
}

// A plugin's fault spec without a seed gets one of its own per process, so
// that restarted plugins do not replay the same draws; a given seed stays.
func TestFaultsFromEnvSeed(t *testing.T) {
	t.Setenv(EnvInjectFaults, "section=rate:0.5")
	a, err := faultsFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond)
	b, _ := faultsFromEnv()
	if !strings.Contains(a.String(), ",seed=") || a.String() == b.String() {
		t.Errorf("specs %q and %q: want a seed of their own each", a, b)
	}
	t.Setenv(EnvInjectFaults, "section=rate:0.5,seed=7")
	if c, _ := faultsFromEnv(); c.String() != "section=rate:0.5,seed=7" {
		t.Errorf("a given seed: %q", c)
	}
	t.Setenv(EnvInjectFaults, "")
	if d, err := faultsFromEnv(); d != nil || err != nil {
		t.Errorf("no spec: %v %v", d, err)
	}
}

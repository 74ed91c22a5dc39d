package plugin

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Healthy reports nil while the plugin is well, and otherwise an
// *UnavailableError saying why (what /healthz answers 503 with): the plugin
// is down or being restarted, filc2 is shutting down, the plugin restarted
// more than 3 times in the last 5 minutes (a crash loop, though it may be up
// right now), or it does not answer Version within ctx.
func (c *Client) Healthy(ctx context.Context) error {
	c.mu.Lock()
	inst, why, stopping := c.cur, c.lastErr, c.stopping
	c.restartT = recentRestarts(c.restartT, time.Now())
	recent := len(c.restartT)
	c.mu.Unlock()
	switch {
	case stopping:
		return &UnavailableError{Msg: "filc2 is shutting down"}
	case inst == nil:
		return &UnavailableError{Msg: fmt.Sprintf("the plugin is not running (%v); it is being restarted", why)}
	case recent > sickRestarts:
		return &UnavailableError{Msg: fmt.Sprintf("the plugin restarted %d times in the last %v (a crash loop: see the log for why it dies)", recent, sickWindow)}
	}
	if _, err := inst.api.Version(ctx); err != nil {
		return &UnavailableError{Msg: fmt.Sprintf("the plugin (pid %d) does not answer: %v", inst.ep.PID, err)}
	}
	return nil
}

// Collectors returns the Client's metrics: filc2_plugin_up,
// filc2_plugin_restarts_total, filc2_plugin_jobs_resubmitted_total,
// filc2_plugin_jobs_lost_total, filc2_plugin_resubmit_kept_bytes, and while
// the plugin runs filc2_plugin_start_time_seconds and (on Linux)
// filc2_plugin_resident_bytes.
func (c *Client) Collectors() []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "filc2_plugin_up", Help: "1 while the plugin process runs."}, func() float64 {
			if c.PID() != 0 {
				return 1
			}
			return 0
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "filc2_plugin_restarts_total", Help: "Restarts of the plugin process."}, func() float64 {
			return float64(c.Restarts())
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "filc2_plugin_jobs_resubmitted_total",
			Help: "Jobs (and SealCommit2 calls) in flight when the plugin died, sent again to the restarted plugin."}, func() float64 {
			return float64(c.resubmitted.Load())
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "filc2_plugin_jobs_lost_total",
			Help: "Jobs in flight when the plugin died that were not resubmitted (their Await answers unavailable)."}, func() float64 {
			return float64(c.lostJobs.Load())
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "filc2_plugin_resubmit_kept_bytes",
			Help: "Request bytes the host keeps to resubmit jobs if the plugin dies."}, func() float64 {
			c.mu.Lock()
			defer c.mu.Unlock()
			return float64(c.kept)
		}),
		&processCollector{c: c},
	}
}

var (
	startTimeDesc = prometheus.NewDesc("filc2_plugin_start_time_seconds", "When the running plugin process started, in seconds since the Unix epoch.", nil, nil)
	residentDesc  = prometheus.NewDesc("filc2_plugin_resident_bytes", "Resident memory of the plugin process (Linux: VmRSS of /proc/PID/status).", nil, nil)
)

// processCollector reports the running plugin process: its start time, and
// its resident memory where /proc has it. Nothing while the plugin is down.
type processCollector struct{ c *Client }

// Describe implements prometheus.Collector.
func (p *processCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- startTimeDesc
	ch <- residentDesc
}

// Collect implements prometheus.Collector.
func (p *processCollector) Collect(ch chan<- prometheus.Metric) {
	p.c.mu.Lock()
	inst := p.c.cur
	p.c.mu.Unlock()
	if inst == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(startTimeDesc, prometheus.GaugeValue, float64(inst.started.UnixNano())/1e9)
	if rss, err := residentBytes(inst.ep.PID); err == nil {
		ch <- prometheus.MustNewConstMetric(residentDesc, prometheus.GaugeValue, float64(rss))
	}
}

// residentBytes reads process pid's resident set size from
// /proc/PID/status (Linux); elsewhere, or for a process gone, an error.
func residentBytes(pid int) (int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("/proc/%d/status: VmRSS %q", pid, rest)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/status: VmRSS: %w", pid, err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmRSS (a zombie?)", pid)
}

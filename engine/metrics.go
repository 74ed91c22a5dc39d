package engine

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the engine's Prometheus metrics, on a registry it owns (no
// global state): counters for what happened, histograms for how long each
// stage took, and gauges read from the engine's own state at scrape time.
type metrics struct {
	reg            *prometheus.Registry
	submitted      prometheus.Counter
	finished       *prometheus.CounterVec   // by final state
	partitions     *prometheus.CounterVec   // by outcome: proved, failed, dropped
	stage          *prometheus.HistogramVec // by stage
	circuitLoads   *prometheus.CounterVec   // by outcome: loaded, failed, evicted, prover_evicted
	loadSeconds    prometheus.Histogram
	retries        *prometheus.CounterVec // partition retries, by cause
	gpuFailures    *prometheus.CounterVec // by gpu and cause
	gpuQuarantines *prometheus.CounterVec // by gpu
}

const metricsNamespace = "filc2_engine"

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		submitted: prometheus.NewCounter(prometheus.CounterOpts{Namespace: metricsNamespace,
			Name: "jobs_submitted_total", Help: "Jobs accepted by Submit (resubmissions of a live id not counted)."}),
		finished: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metricsNamespace,
			Name: "jobs_finished_total", Help: "Jobs that reached a final state, by state."}, []string{"state"}),
		partitions: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metricsNamespace,
			Name: "partitions_total", Help: "Partitions that left the pipeline: proved (and verified), failed, or dropped with their job."}, []string{"outcome"}),
		stage: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: metricsNamespace,
			Name: "stage_seconds", Help: "Time of one partition in one stage.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2.5, 16)}, []string{"stage"}),
		circuitLoads: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metricsNamespace,
			Name: "circuit_loads_total", Help: "Circuit loads and evictions, by outcome."}, []string{"outcome"}),
		loadSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: metricsNamespace,
			Name: "circuit_load_seconds", Help: "Time to load a circuit's host side.",
			Buckets: prometheus.ExponentialBuckets(0.1, 2, 14)}),
	}
	m.retries = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metricsNamespace,
		Name: "partition_retries_total", Help: "Partitions attempted again after a failure, by its cause (section, verify, load, prepare, finish, lost)."}, []string{"cause"})
	m.gpuFailures = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metricsNamespace,
		Name: "gpu_failures_total", Help: "Failures charged to a GPU's health, by GPU and cause."}, []string{"gpu", "cause"})
	m.gpuQuarantines = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metricsNamespace,
		Name: "gpu_quarantines_total", Help: "Times a GPU was taken out of service."}, []string{"gpu"})
	m.reg.MustRegister(m.submitted, m.finished, m.partitions, m.stage, m.circuitLoads, m.loadSeconds, m.retries, m.gpuFailures, m.gpuQuarantines)
	return m
}

// register adds the gauges read from e at scrape time.
func (m *metrics) register(e *Engine) {
	gauge := func(name, help string, labels prometheus.Labels, f func() float64) {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: metricsNamespace,
			Name: name, Help: help, ConstLabels: labels}, f))
	}
	locked := func(f func() float64) func() float64 {
		return func() float64 {
			e.mu.Lock()
			defer e.mu.Unlock()
			return f()
		}
	}
	gauge("jobs", "Jobs by state now.", prometheus.Labels{"state": "queued"}, locked(func() float64 { return float64(e.queued) }))
	gauge("jobs", "Jobs by state now.", prometheus.Labels{"state": "running"}, locked(func() float64 { return float64(e.running) }))
	gauge("queue_depth", "Jobs waiting for their first partition to start.", nil, locked(func() float64 { return float64(e.queued) }))
	gauge("gpu_queue_depth", "Synthesised partitions waiting for a GPU worker.", nil, locked(func() float64 { return float64(e.ready.Len()) }))
	gauge("memory_budget_bytes", "The host-RAM byte budget.", nil, func() float64 { return float64(e.budget.status().Budget) })
	gauge("memory_in_use_bytes", "Bytes of the budget reserved now (resident circuits and partitions in flight).", nil,
		func() float64 { return float64(e.budget.status().InUse) })
	gauge("memory_high_water_bytes", "The most bytes of the budget ever reserved at once.", nil,
		func() float64 { return float64(e.budget.status().HighWater) })
	gauge("circuits_resident", "Circuits loaded or loading.", nil, func() float64 {
		cs, _ := e.res.status()
		return float64(len(cs))
	})
	for _, gpu := range e.cfg.GPU.Devices {
		l := e.locks[gpu]
		gauge("gpu_in_service", "1 while the GPU takes work, 0 while it is quarantined.", prometheus.Labels{"gpu": strconv.Itoa(gpu)}, func() float64 {
			if e.health.inService(gpu) {
				return 1
			}
			return 0
		})
		m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: metricsNamespace,
			Name: "gpu_busy_seconds_total", Help: "Time a worker spent inside the GPU's locked kernel section.",
			ConstLabels: prometheus.Labels{"gpu": strconv.Itoa(gpu)}}, func() float64 { return l.status().Busy.Seconds() }))
	}
}

// observe records one stage's time.
func (m *metrics) observe(s Stage, seconds float64) {
	m.stage.WithLabelValues(string(s)).Observe(seconds)
}

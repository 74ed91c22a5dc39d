package plugin

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Instrumented returns p counting and timing every call in reg:
// filc2_rpc_calls_total{method,result} and
// filc2_rpc_call_duration_seconds{method}. result is "ok" or the error's
// kind: bad_input, busy, cancelled, not_found, internal, unavailable,
// permission, deadline or error.
func Instrumented(p Prover, reg prometheus.Registerer) *ProverStruct {
	calls := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "filc2_rpc_calls_total",
		Help: "Prover API calls by method and result.",
	}, []string{"method", "result"})
	dur := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "filc2_rpc_call_duration_seconds",
		Help:    "Prover API call durations by method (SealCommit2 and Await include proving).",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 12), // 1 ms … ~70 min
	}, []string{"method"})
	reg.MustRegister(calls, dur)
	m := &measured{calls: calls, dur: dur}
	out := new(ProverStruct)
	out.Internal.SealCommit2 = measure2(m, "SealCommit2", p.SealCommit2)
	out.Internal.Submit = measure1(m, "Submit", p.Submit)
	out.Internal.Await = measure1(m, "Await", p.Await)
	out.Internal.Cancel = func(ctx context.Context, id JobID) error {
		t0 := time.Now()
		err := p.Cancel(ctx, id)
		m.observe(ctx, "Cancel", t0, err)
		return err
	}
	out.Internal.Status = measure0(m, "Status", p.Status)
	out.Internal.Version = measure0(m, "Version", p.Version)
	out.Internal.Timeline = measure1(m, "Timeline", p.Timeline)
	return out
}

type measured struct {
	calls *prometheus.CounterVec
	dur   *prometheus.HistogramVec
}

func (m *measured) observe(ctx context.Context, method string, t0 time.Time, err error) {
	m.dur.WithLabelValues(method).Observe(time.Since(t0).Seconds())
	m.calls.WithLabelValues(method, resultLabel(ctx, err)).Inc()
}

func measure0[R any](m *measured, method string, f func(context.Context) (R, error)) func(context.Context) (R, error) {
	return func(ctx context.Context) (R, error) {
		t0 := time.Now()
		r, err := f(ctx)
		m.observe(ctx, method, t0, err)
		return r, err
	}
}

func measure1[A, R any](m *measured, method string, f func(context.Context, A) (R, error)) func(context.Context, A) (R, error) {
	return func(ctx context.Context, a A) (R, error) {
		t0 := time.Now()
		r, err := f(ctx, a)
		m.observe(ctx, method, t0, err)
		return r, err
	}
}

func measure2[A, B, R any](m *measured, method string, f func(context.Context, A, B) (R, error)) func(context.Context, A, B) (R, error) {
	return func(ctx context.Context, a A, b B) (R, error) {
		t0 := time.Now()
		r, err := f(ctx, a, b)
		m.observe(ctx, method, t0, err)
		return r, err
	}
}

// resultLabel names an outcome for the metrics.
func resultLabel(ctx context.Context, err error) string {
	var (
		bad  *BadInputError
		busy *BusyError
		canc *CancelledError
		nf   *NotFoundError
		in   *InternalError
		un   *UnavailableError
		perm *PermissionError
	)
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &bad):
		return "bad_input"
	case errors.As(err, &busy):
		return "busy"
	case errors.As(err, &canc), errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.As(err, &nf):
		return "not_found"
	case errors.As(err, &un):
		return "unavailable"
	case errors.As(err, &perm):
		return "permission"
	case errors.As(err, &in):
		return "internal"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	}
	return "error"
}

// statusCollector exports the prover's Status at each scrape.
type statusCollector struct {
	p                                         Prover
	up, queued, running, capacity, slots, gpu *prometheus.Desc
	circuits, jobs                            *prometheus.Desc
	// From the engine's status, when the prover runs one.
	gpuBusy, gpuSections, gpuWaiting, gpuQueue, partitions, memInUse, memBudget *prometheus.Desc
}

// NewStatusCollector returns a collector that calls p.Status (2 s timeout)
// at each scrape and exports filc2_prover_up, filc2_queue_jobs,
// filc2_running_jobs, filc2_queue_capacity, filc2_slots, filc2_gpus,
// filc2_circuits_loaded and filc2_jobs_total{result}; with an engine also its
// per-GPU kernel time (filc2_engine_gpu_busy_seconds_total{gpu}: the
// interlock's accounting, not wall time), kernel sections, lock waiters, GPU
// queue, partitions and memory.
func NewStatusCollector(p Prover) prometheus.Collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	return &statusCollector{
		p:        p,
		up:       d("filc2_prover_up", "1 when the prover answered Status."),
		queued:   d("filc2_queue_jobs", "Jobs waiting in the queue."),
		running:  d("filc2_running_jobs", "Jobs being proved."),
		capacity: d("filc2_queue_capacity", "Jobs the queue accepts before answering busy."),
		slots:    d("filc2_slots", "Jobs proved at once."),
		gpu:      d("filc2_gpus", "GPUs the prover uses."),
		circuits: d("filc2_circuits_loaded", "Circuits with their parameters resident."),
		jobs:     d("filc2_jobs_total", "Jobs by outcome since the prover process started.", "result"),
		gpuBusy: d("filc2_engine_gpu_busy_seconds_total",
			"Time each GPU's lock was held by a kernel section (the interlock's own accounting), by device.", "gpu"),
		gpuSections: d("filc2_engine_gpu_kernel_sections_total", "Kernel sections run, by device.", "gpu"),
		gpuWaiting:  d("filc2_engine_gpu_lock_waiting", "GPU workers waiting for the device's lock, by device.", "gpu"),
		gpuQueue:    d("filc2_engine_gpu_queue_partitions", "Synthesised partitions waiting for a GPU worker."),
		partitions:  d("filc2_engine_partitions_total", "Partitions by outcome since the engine started.", "result"),
		memInUse:    d("filc2_engine_memory_in_use_bytes", "Host memory reserved by resident circuits and partitions in flight."),
		memBudget:   d("filc2_engine_memory_budget_bytes", "The engine's host memory budget."),
	}
}

// Describe implements prometheus.Collector.
func (c *statusCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.up, c.queued, c.running, c.capacity, c.slots, c.gpu, c.circuits, c.jobs,
		c.gpuBusy, c.gpuSections, c.gpuWaiting, c.gpuQueue, c.partitions, c.memInUse, c.memBudget} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *statusCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	st, err := c.p.Status(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		return
	}
	g := func(d *prometheus.Desc, v int) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v))
	}
	g(c.up, 1)
	g(c.queued, len(st.Queued))
	g(c.running, len(st.Running))
	g(c.capacity, st.QueueCapacity)
	g(c.slots, st.Slots)
	g(c.gpu, len(st.GPUs))
	g(c.circuits, len(st.Circuits))
	for _, t := range []struct {
		result string
		n      uint64
	}{{"submitted", st.Totals.Submitted}, {"rejected", st.Totals.Rejected}, {"succeeded", st.Totals.Succeeded},
		{"failed", st.Totals.Failed}, {"cancelled", st.Totals.Cancelled}} {
		ch <- prometheus.MustNewConstMetric(c.jobs, prometheus.CounterValue, float64(t.n), t.result)
	}
	if e := st.Engine; e != nil {
		for _, gs := range e.GPUs {
			dev := strconv.Itoa(gs.Device)
			ch <- prometheus.MustNewConstMetric(c.gpuBusy, prometheus.CounterValue, gs.Lock.Busy.Seconds(), dev)
			ch <- prometheus.MustNewConstMetric(c.gpuSections, prometheus.CounterValue, float64(gs.Lock.Acquisitions), dev)
			ch <- prometheus.MustNewConstMetric(c.gpuWaiting, prometheus.GaugeValue, float64(gs.Lock.Waiting), dev)
		}
		g(c.gpuQueue, e.GPUQueue)
		ch <- prometheus.MustNewConstMetric(c.partitions, prometheus.CounterValue, float64(e.Totals.PartitionsProved), "proved")
		ch <- prometheus.MustNewConstMetric(c.partitions, prometheus.CounterValue, float64(e.Totals.PartitionsFailed), "failed")
		ch <- prometheus.MustNewConstMetric(c.memInUse, prometheus.GaugeValue, float64(e.Memory.InUse))
		ch <- prometheus.MustNewConstMetric(c.memBudget, prometheus.GaugeValue, float64(e.Memory.Budget))
	}
}

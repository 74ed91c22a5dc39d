package plugin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
)

// statusProver answers Status with a fixed snapshot.
type statusProver struct {
	plugintest.ErrProver
	st plugin.Status
}

func (p statusProver) Status(context.Context) (plugin.Status, error) { return p.st, nil }

// The engine's per-GPU kernel time and pipeline gauges reach /metrics through
// the status collector, one series per GPU.
func TestStatusCollectorEngine(t *testing.T) {
	es := &engine.Status{
		GPUQueue: 3,
		GPUs: []engine.GPUStatus{
			{Device: 0, Lock: engine.LockStatus{Busy: 1500 * time.Millisecond, Acquisitions: 7, Waiting: 1}},
			{Device: 1, Lock: engine.LockStatus{Busy: 250 * time.Millisecond, Acquisitions: 2}},
		},
		Totals: engine.Totals{PartitionsProved: 9, PartitionsFailed: 1},
		Memory: engine.MemoryStatus{Budget: 1 << 30, InUse: 1 << 20},
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(plugin.NewStatusCollector(statusProver{st: plugin.Status{Engine: es}}))
	got := gather(t, reg)
	for name, want := range map[string]float64{
		`filc2_engine_gpu_busy_seconds_total{gpu="0"}`:    1.5,
		`filc2_engine_gpu_busy_seconds_total{gpu="1"}`:    0.25,
		`filc2_engine_gpu_kernel_sections_total{gpu="0"}`: 7,
		`filc2_engine_gpu_kernel_sections_total{gpu="1"}`: 2,
		`filc2_engine_gpu_lock_waiting{gpu="0"}`:          1,
		`filc2_engine_gpu_queue_partitions`:               3,
		`filc2_engine_partitions_total{result="proved"}`:  9,
		`filc2_engine_partitions_total{result="failed"}`:  1,
		`filc2_engine_memory_in_use_bytes`:                1 << 20,
		`filc2_engine_memory_budget_bytes`:                1 << 30,
	} {
		if v, ok := got[name]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", name, v, ok, want)
		}
	}
	// Without an engine, none of them.
	reg = prometheus.NewRegistry()
	reg.MustRegister(plugin.NewStatusCollector(statusProver{}))
	for name := range gather(t, reg) {
		if strings.HasPrefix(name, "filc2_engine_") {
			t.Errorf("without an engine: %s", name)
		}
	}
}

// gather returns every sample of reg as name{labels} → value.
func gather(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			name := mf.GetName()
			if len(m.GetLabel()) > 0 {
				var ls []string
				for _, l := range m.GetLabel() {
					ls = append(ls, l.GetName()+`="`+l.GetValue()+`"`)
				}
				name += "{" + strings.Join(ls, ",") + "}"
			}
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			out[name] = v
		}
	}
	return out
}

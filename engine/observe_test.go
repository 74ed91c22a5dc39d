package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Every partition's stages appear in the TIMELINE as start/end pairs, on
// the worker that ran them, in order, between the job's start and end.
func TestTimeline(t *testing.T) {
	f := newFake()
	f.gpuDelay = time.Millisecond
	var buf bytes.Buffer
	e := newTestEngine(t, testConfig(0, 1), f, WithTimeline(&buf))
	if _, err := await(t, e, submit(t, e, "tl", proof32G, PriorityNormal)); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	evs := readTimeline(t, &buf)
	stages := []Stage{StageQueue, StageSynthesis, StageGPUQueue, StageLoad, StagePrepare, StageLockWait, StageGPU, StageFinish, StageVerify}
	for k := range 10 {
		var seen []string
		open := map[Stage]TimelineEvent{}
		for _, ev := range evs {
			if ev.Job != "tl" || ev.Partition != k {
				continue
			}
			if ev.Time.IsZero() {
				t.Fatalf("event without a time: %+v", ev)
			}
			switch ev.Event {
			case "start":
				open[ev.Stage] = ev
			case "end":
				st, ok := open[ev.Stage]
				if !ok || ev.Time.Before(st.Time) || st.Worker != ev.Worker {
					t.Fatalf("partition %d: end %+v without its start %+v", k, ev, st)
				}
				delete(open, ev.Stage)
				seen = append(seen, string(ev.Stage))
			}
		}
		want := fmt.Sprint(stages)
		if got := fmt.Sprint(seen); got != want {
			t.Fatalf("partition %d stages %s, want %s", k, got, want)
		}
	}
	var job []string
	for _, ev := range evs {
		if ev.Stage == StageJob {
			job = append(job, ev.Event+":"+ev.Detail)
		}
	}
	if fmt.Sprint(job) != "[start:StackedDrg32GiBV1_1 end:succeeded]" {
		t.Fatalf("job events %v", job)
	}
}

// timeline.path appends JSON lines to a file.
func TestTimelineFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "timeline.jsonl")
	cfg := testConfig(0)
	cfg.Timeline.Path = path
	f := newFake()
	e := newTestEngine(t, cfg, f)
	if _, err := await(t, e, submit(t, e, "file", proof2K, PriorityNormal)); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(readTimeline(t, bytes.NewReader(b))); n < 20 {
		t.Fatalf("%d timeline events in the file", n)
	}
}

func TestMetrics(t *testing.T) {
	f := newFake()
	f.gpuDelay = 2 * time.Millisecond
	f.fail["m2/1"] = StageGPU
	e := newTestEngine(t, testConfig(0, 1), f)
	await(t, e, submit(t, e, "m1", proof32G, PriorityNormal))
	await(t, e, submit(t, e, "m2", proof32G, PriorityNormal))
	// The failed job's other partitions stop at their next stage.
	eventually(t, "the budget to return", func() bool { return e.Status().Memory.InUse == f.circuitBytes })
	reg := e.Registry()
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   func(float64) bool
	}{
		{"filc2_engine_jobs_submitted_total", nil, eq(2)},
		{"filc2_engine_jobs_finished_total", map[string]string{"state": "succeeded"}, eq(1)},
		{"filc2_engine_jobs_finished_total", map[string]string{"state": "failed"}, eq(1)},
		{"filc2_engine_partitions_total", map[string]string{"outcome": "proved"}, func(v float64) bool { return v >= 10 }},
		{"filc2_engine_partitions_total", map[string]string{"outcome": "failed"}, eq(1)},
		{"filc2_engine_stage_seconds", map[string]string{"stage": "gpu_locked"}, func(v float64) bool { return v >= 11 }},
		{"filc2_engine_stage_seconds", map[string]string{"stage": "synthesis"}, func(v float64) bool { return v >= 11 }},
		{"filc2_engine_jobs", map[string]string{"state": "queued"}, eq(0)},
		{"filc2_engine_jobs", map[string]string{"state": "running"}, eq(0)},
		{"filc2_engine_queue_depth", nil, eq(0)},
		{"filc2_engine_gpu_queue_depth", nil, eq(0)},
		{"filc2_engine_memory_budget_bytes", nil, eq(1000)},
		{"filc2_engine_memory_in_use_bytes", nil, eq(300)},
		{"filc2_engine_memory_high_water_bytes", nil, func(v float64) bool { return v > 300 && v <= 1000 }},
		{"filc2_engine_gpu_busy_seconds_total", map[string]string{"gpu": "0"}, func(v float64) bool { return v > 0 }},
		{"filc2_engine_gpu_busy_seconds_total", map[string]string{"gpu": "1"}, func(v float64) bool { return v > 0 }},
		{"filc2_engine_circuit_loads_total", map[string]string{"outcome": "loaded"}, eq(1)},
		{"filc2_engine_circuits_resident", nil, eq(1)},
	} {
		v, ok := metricValue(t, reg, c.name, c.labels)
		if !ok || !c.want(v) {
			t.Errorf("%s%v = %v (found %v)", c.name, c.labels, v, ok)
		}
	}
	// Two engines do not share metrics.
	g := newFake()
	e2 := newTestEngine(t, testConfig(0), g)
	if v, _ := metricValue(t, e2.Registry(), "filc2_engine_jobs_submitted_total", nil); v != 0 {
		t.Fatalf("a new engine's submitted total is %v", v)
	}
}

func eq(want float64) func(float64) bool { return func(v float64) bool { return v == want } }

// metricValue returns a counter's or gauge's value, or a histogram's count.
func metricValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			have := map[string]string{}
			for _, lp := range m.GetLabel() {
				have[lp.GetName()] = lp.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue metrics
				}
			}
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				return m.GetCounter().GetValue(), true
			case dto.MetricType_GAUGE:
				return m.GetGauge().GetValue(), true
			case dto.MetricType_HISTOGRAM:
				return float64(m.GetHistogram().GetSampleCount()), true
			}
		}
	}
	return 0, false
}

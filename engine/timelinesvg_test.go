package engine

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// xnode is any XML element, for checking the SVG's structure.
type xnode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Nodes   []xnode    `xml:",any"`
	Text    string     `xml:",chardata"`
}

func (n *xnode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// walk calls f on n and every element below it.
func (n *xnode) walk(f func(*xnode)) {
	f(n)
	for i := range n.Nodes {
		n.Nodes[i].walk(f)
	}
}

func parseSVG(t *testing.T, b []byte) *xnode {
	t.Helper()
	var root xnode
	if err := xml.Unmarshal(b, &root); err != nil {
		t.Fatalf("the SVG is not well-formed XML: %v\n%s", err, b)
	}
	if root.XMLName.Local != "svg" || root.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Fatalf("root element %v", root.XMLName)
	}
	return &root
}

// svgRows returns the rows in order and their bars' stages.
func svgRows(root *xnode) (names []string, bars map[string][]*xnode) {
	bars = map[string][]*xnode{}
	root.walk(func(n *xnode) {
		if n.XMLName.Local != "g" || n.attr("class") != "row" {
			return
		}
		name := n.attr("data-row")
		names = append(names, name)
		for i := range n.Nodes {
			if b := &n.Nodes[i]; b.XMLName.Local == "rect" && b.attr("class") == "bar" {
				bars[name] = append(bars[name], b)
			}
		}
	})
	return names, bars
}

// The engine's picture of three jobs on two GPUs with two workers each: a
// row per worker in order, a kernel track per GPU with one bar per lock
// hold, a bar per partition stage with a tooltip, a legend and an axis.
func TestTimelineSVG(t *testing.T) {
	f := newFake()
	f.synthDelay, f.prepDelay, f.gpuDelay, f.finishDelay = time.Millisecond, time.Millisecond, 2*time.Millisecond, time.Millisecond
	cfg := testConfig(0, 1)
	cfg.Synthesis.Workers = 2
	cfg.GPU.WorkersPerGPU = 2
	e := newTestEngine(t, cfg, f)
	for i := range 3 {
		submit(t, e, fmt.Sprintf("j%d", i), proof32G, PriorityNormal)
	}
	for i := range 3 {
		if _, err := await(t, e, JobID(fmt.Sprintf("j%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := e.TimelineSVG(&buf, 0); err != nil {
		t.Fatal(err)
	}
	root := parseSVG(t, buf.Bytes())
	names, bars := svgRows(root)
	want := "[synth-0 synth-1 synth-critical gpu0/w0 gpu0/w1 gpu0/critical gpu0 kernels gpu1/w0 gpu1/w1 gpu1/critical gpu1 kernels loader]"
	if fmt.Sprint(names) != want {
		t.Fatalf("rows %v, want %s", names, want)
	}
	count := func(row string, s Stage) int {
		n := 0
		for _, b := range bars[row] {
			if Stage(b.attr("data-stage")) == s {
				n++
			}
		}
		return n
	}
	synth := count("synth-0", StageSynthesis) + count("synth-1", StageSynthesis)
	locked := 0
	for _, w := range []string{"gpu0/w0", "gpu0/w1", "gpu1/w0", "gpu1/w1"} {
		locked += count(w, StageGPU)
		if count(w, StagePrepare) != count(w, StageGPU) || count(w, StageVerify) != count(w, StageGPU) {
			t.Errorf("%s: %d gpu_pre, %d gpu_locked, %d verify bars", w, count(w, StagePrepare), count(w, StageGPU), count(w, StageVerify))
		}
	}
	if synth != 30 || locked != 30 {
		t.Fatalf("%d synthesis and %d gpu_locked bars for 30 partitions", synth, locked)
	}
	st := e.Status()
	for _, g := range st.GPUs {
		row := fmt.Sprintf("gpu%d kernels", g.Device)
		if n := count(row, StageGPUHeld); int64(n) != g.Lock.Acquisitions || n != len(bars[row]) {
			t.Errorf("%s: %d bars, %d lock acquisitions", row, n, g.Lock.Acquisitions)
		}
	}
	if count("loader", StageCircuit) != 1 || count("loader", StageLoad) != 2 {
		t.Errorf("loader row: %d circuit and %d prover loads", count("loader", StageCircuit), count("loader", StageLoad))
	}
	for row, bs := range bars {
		for _, b := range bs {
			if len(b.Nodes) != 1 || b.Nodes[0].XMLName.Local != "title" || !strings.Contains(b.Nodes[0].Text, row) {
				t.Fatalf("bar without a tooltip in %s: %+v", row, b)
			}
			if b.attr("data-stage") != string(StageCircuit) && b.attr("data-stage") != string(StageLoad) && !strings.Contains(b.Nodes[0].Text, "job j") {
				t.Fatalf("tooltip names no job: %q", b.Nodes[0].Text)
			}
		}
	}
	var legend, ticks int
	var kernelLabel string
	root.walk(func(n *xnode) {
		if n.XMLName.Local == "g" && n.attr("class") == "legend" {
			legend = len(n.Nodes)
		}
		if n.XMLName.Local == "g" && n.attr("class") == "axis" {
			ticks = len(n.Nodes)
		}
		if n.XMLName.Local == "g" && n.attr("data-row") == "gpu0 kernels" {
			kernelLabel = n.Nodes[1].Text
		}
	})
	if legend < 2*len(svgStages) || ticks < 4 {
		t.Fatalf("legend of %d elements, axis of %d", legend, ticks)
	}
	if !strings.HasPrefix(kernelLabel, "gpu0 kernels ") || !strings.HasSuffix(kernelLabel, "%") {
		t.Fatalf("kernel track label %q", kernelLabel)
	}
	// The last nanosecond: every row, no bars.
	buf.Reset()
	if err := e.TimelineSVG(&buf, time.Nanosecond); err != nil {
		t.Fatal(err)
	}
	names, bars = svgRows(parseSVG(t, buf.Bytes()))
	if len(names) != 11 || len(bars) != 0 {
		t.Fatalf("an empty window: rows %v, %d rows with bars", names, len(bars))
	}
}

// WriteTimelineSVG clips to its window, draws stages still running and ends
// whose start was not kept, and escapes what it writes.
func TestWriteTimelineSVGEdges(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	job := JobID(`<a&b">`)
	evs := []TimelineEvent{
		{Time: at(2), Job: job, Partition: 1, GPU: 0, Worker: "gpu0/w0", Stage: StageGPU, Event: "end"}, // start not kept
		{Time: at(3), Job: job, Partition: 2, GPU: -1, Worker: "synth-0", Stage: StageSynthesis, Event: "start"},
		{Time: at(4), Job: job, Partition: 2, GPU: -1, Worker: "synth-0", Stage: StageSynthesis, Event: "end", Error: "boom <x>"},
		{Time: at(5), Job: job, Partition: -1, GPU: 0, Worker: "gpu0/w1", Stage: StageGPUHeld, Event: "start", Detail: "partition 3"},
		{Time: at(6), Job: job, Partition: -1, GPU: 0, Worker: "gpu0/w1", Stage: StageGPUHeld, Event: "end", Detail: "partition 3"},
		{Time: at(7), Job: job, Partition: 3, GPU: 0, Worker: "gpu0/w1", Stage: StageFinish, Event: "start"}, // still running
		{Time: at(8), Job: job, Partition: 0, GPU: -1, Stage: StageQueue, Event: "end"},                      // no row
		{Time: at(20), Job: job, Partition: 4, GPU: -1, Worker: "synth-1", Stage: StageSynthesis, Event: "start"},
		{Time: at(21), Job: job, Partition: 4, GPU: -1, Worker: "synth-1", Stage: StageSynthesis, Event: "end"}, // outside the window
	}
	var buf bytes.Buffer
	err := WriteTimelineSVG(&buf, evs, TimelineSVGOptions{Title: "t <&>", From: at(1), To: at(10), Width: 600})
	if err != nil {
		t.Fatal(err)
	}
	root := parseSVG(t, buf.Bytes())
	names, bars := svgRows(root)
	if fmt.Sprint(names) != "[synth-0 gpu0/w0 gpu0/w1 gpu0 kernels]" {
		t.Fatalf("rows %v", names)
	}
	tip := func(row string, i int) string { return bars[row][i].Nodes[0].Text }
	if len(bars["gpu0/w0"]) != 1 || bars["gpu0/w0"][0].attr("x") != "150.00" {
		t.Fatalf("an end without its start: %+v", bars["gpu0/w0"])
	}
	if !strings.Contains(tip("synth-0", 0), "error: boom <x>") || !strings.Contains(tip("synth-0", 0), `job <a&b">`) {
		t.Fatalf("synthesis tooltip %q", tip("synth-0", 0))
	}
	if !strings.Contains(tip("gpu0/w1", 0), "still running") {
		t.Fatalf("running stage tooltip %q", tip("gpu0/w1", 0))
	}
	if !strings.Contains(tip("gpu0 kernels", 0), "held by gpu0/w1") || !strings.Contains(tip("gpu0 kernels", 0), "partition 3") {
		t.Fatalf("kernel tooltip %q", tip("gpu0 kernels", 0))
	}
	var label string
	root.walk(func(n *xnode) {
		if n.attr("data-row") == "gpu0 kernels" {
			label = n.Nodes[1].Text
		}
	})
	if label != "gpu0 kernels 11%" { // 1 s held of 9 s
		t.Fatalf("kernel track label %q", label)
	}
	// No events at all: an empty picture, still well-formed.
	buf.Reset()
	if err := WriteTimelineSVG(&buf, nil, TimelineSVGOptions{}); err != nil {
		t.Fatal(err)
	}
	parseSVG(t, buf.Bytes())
}

// A caller-given window of any size draws a bounded picture: the ticks of a
// span near the largest Duration do not overflow (the outside probe's hang).
func TestTimelineSVGHugeWindow(t *testing.T) {
	for _, span := range []time.Duration{0, 1, time.Second, 90 * time.Minute, math.MaxInt64 / 3, math.MaxInt64} {
		step := svgTickStep(span)
		if step <= 0 || span/step > 12 {
			t.Fatalf("svgTickStep(%d) = %d: %d ticks", span, step, span/step+1)
		}
	}
	e := newTestEngine(t, testConfig(0), newFake())
	if _, err := await(t, e, submit(t, e, "j", proof2K, PriorityNormal)); err != nil {
		t.Fatal(err)
	}
	for _, since := range []time.Duration{math.MaxInt64, math.MaxInt64 - 1, 1 << 62} {
		var buf bytes.Buffer
		if err := e.TimelineSVG(&buf, since); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(buf.String(), `stroke="#e4e4e4"`); n > 13 || buf.Len() > 1<<20 {
			t.Fatalf("window %d: %d ticks, %d bytes", since, n, buf.Len())
		}
		parseSVG(t, buf.Bytes())
	}
	to := time.Now()
	var buf bytes.Buffer
	if err := WriteTimelineSVG(&buf, e.tl.events(), TimelineSVGOptions{From: to.Add(-math.MaxInt64), To: to}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `stroke="#e4e4e4"`); n > 13 {
		t.Fatalf("a span of the largest Duration: %d ticks", n)
	}
}

package engine

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// TimelineWorker is a row of the timeline picture: a worker and its GPU (−1
// for a synthesis worker).
type TimelineWorker struct {
	Name string
	GPU  int
}

// TimelineSVGOptions configure WriteTimelineSVG.
type TimelineSVGOptions struct {
	Title string
	// From and To bound the picture (zero: the first and the last event).
	// Stages that started before From or had not ended by To are clipped.
	From, To time.Time
	// Workers are rows drawn even when idle, in this order; workers met only
	// in the events follow, synthesis workers first.
	Workers []TimelineWorker
	// GPUs get a kernel track each, drawn even when idle.
	GPUs []int
	// Width is the picture's width in pixels (0: 1400).
	Width int
}

// The stages a timeline picture draws, in legend order, and their colours.
var svgStages = []struct {
	stage Stage
	name  string
	color string
}{
	{StageSynthesis, "synthesis (CPU)", "#4e79a7"},
	{StageLoad, "waiting for the prover", "#bab0ac"},
	{StagePrepare, "gpu_pre: prepare (SpMV, upload)", "#f28e2b"},
	{StageLockWait, "lock_wait", "#f6d5d8"},
	{StageGPU, "gpu_locked: kernels", "#e15759"},
	{StageFinish, "gpu_post: finish", "#59a14f"},
	{StageVerify, "verify", "#76b7b2"},
	{StageCircuit, "circuit load", "#9c755f"},
	{StageGPUHeld, "GPU lock held (kernels ran)", "#8b1a1a"},
	{StageQuarantine, "GPU quarantined", "#3b3b3b"},
}

func svgStageColor(s Stage) string {
	for _, st := range svgStages {
		if st.stage == s {
			return st.color
		}
	}
	return "#999999"
}

// svgBar is one stage interval on one row.
type svgBar struct {
	ev         TimelineEvent // the start (or, if it was not kept, the end) event
	start, end time.Time
	open       bool // no end by To: still running
	err        string
}

// svgRow is one row of the picture.
type svgRow struct {
	label  string
	gpu    int
	kind   int // 0 synthesis, 1 GPU worker, 2 kernel track, 3 loader
	bars   []svgBar
	busyNS int64 // kernel tracks: held time inside the window
}

// WriteTimelineSVG draws TIMELINE events as a Gantt chart in SVG: one row per
// synthesis worker and per GPU worker with a bar per partition stage (a
// colour per stage, a legend, a time axis, a label "J<n>/p<k>" where it fits
// and a <title> tooltip naming the job, partition, stage and times), then per
// GPU a kernel track of the intervals its lock was held — when kernels
// actually ran, with the busy share of the window — so that idle gaps show,
// and a row for circuit and key loads. Events are in the order the engine
// recorded them (TimelineEvents, or the TIMELINE log's lines).
func WriteTimelineSVG(w io.Writer, events []TimelineEvent, opts TimelineSVGOptions) error {
	from, to := opts.From, opts.To
	for _, ev := range events {
		if opts.From.IsZero() && (from.IsZero() || ev.Time.Before(from)) {
			from = ev.Time
		}
		if opts.To.IsZero() && ev.Time.After(to) {
			to = ev.Time
		}
	}
	if from.IsZero() {
		from = time.Now()
	}
	if !to.After(from) {
		to = from.Add(time.Second)
	}

	// Rows: the given workers, then the GPUs' kernel tracks, in a fixed order.
	rows := map[string]*svgRow{}
	var order []*svgRow
	addRow := func(label string, gpu, kind int) *svgRow {
		if r := rows[label]; r != nil {
			return r
		}
		r := &svgRow{label: label, gpu: gpu, kind: kind}
		rows[label] = r
		order = append(order, r)
		return r
	}
	workerRow := func(name string, gpu int) *svgRow {
		kind := 1
		if gpu < 0 {
			kind = 0
		}
		return addRow(name, gpu, kind)
	}
	kernelRow := func(gpu int) *svgRow { return addRow(fmt.Sprintf("gpu%d kernels", gpu), gpu, 2) }
	for _, wk := range opts.Workers {
		workerRow(wk.Name, wk.GPU)
	}
	for _, g := range opts.GPUs {
		kernelRow(g)
	}

	// Pair each start with its end: same worker, stage, job, partition, GPU
	// and detail.
	type key struct {
		worker, detail string
		stage          Stage
		job            JobID
		partition, gpu int
	}
	open := map[key]TimelineEvent{}
	jobNo := map[JobID]int{}
	var bars []svgBar
	for _, ev := range events {
		if ev.Job != "" && jobNo[ev.Job] == 0 {
			jobNo[ev.Job] = len(jobNo) + 1
		}
		if ev.Worker == "" {
			continue // queue waits and whole jobs have no row
		}
		k := key{ev.Worker, ev.Detail, ev.Stage, ev.Job, ev.Partition, ev.GPU}
		switch ev.Event {
		case "start":
			open[k] = ev
		case "end":
			st, ok := open[k]
			delete(open, k)
			if !ok { // started before the events kept
				st = ev
				st.Time = from
			}
			bars = append(bars, svgBar{ev: st, start: st.Time, end: ev.Time, err: ev.Error})
		}
	}
	for _, st := range open {
		bars = append(bars, svgBar{ev: st, start: st.Time, end: to, open: true})
	}
	slices.SortStableFunc(bars, func(a, b svgBar) int { return a.start.Compare(b.start) })
	for _, b := range bars {
		if !b.end.After(from) || !b.start.Before(to) {
			continue
		}
		var r *svgRow
		switch {
		case b.ev.Stage == StageGPUHeld:
			r = kernelRow(b.ev.GPU)
			r.busyNS += int64(minTime(b.end, to).Sub(maxTime(b.start, from)))
		case b.ev.Worker == "loader":
			r = addRow("loader", -1, 3)
		default:
			r = workerRow(b.ev.Worker, b.ev.GPU)
		}
		r.bars = append(r.bars, b)
	}
	// Synthesis workers, then per GPU its workers and its kernel track, then
	// the loader; the given order within each group.
	type rank struct{ group, gpu, kind, pos int }
	ranks := map[*svgRow]rank{}
	for i, r := range order {
		switch r.kind {
		case 0:
			ranks[r] = rank{0, 0, 0, i}
		case 1, 2:
			ranks[r] = rank{1, r.gpu, r.kind, i}
		default:
			ranks[r] = rank{2, 0, 0, i}
		}
	}
	slices.SortFunc(order, func(a, b *svgRow) int {
		ra, rb := ranks[a], ranks[b]
		return cmp.Or(cmp.Compare(ra.group, rb.group), cmp.Compare(ra.gpu, rb.gpu), cmp.Compare(ra.kind, rb.kind), cmp.Compare(ra.pos, rb.pos))
	})

	// Geometry.
	width := opts.Width
	if width <= 0 {
		width = 1400
	}
	const (
		labelW  = 150
		rightW  = 20
		rowH    = 22
		barH    = 16
		top     = 44
		axisH   = 24
		legendH = 22
	)
	plotW := float64(width - labelW - rightW)
	if plotW < 100 {
		plotW, width = 100, labelW+rightW+100
	}
	span := to.Sub(from)
	x := func(t time.Time) float64 {
		t = maxTime(minTime(t, to), from)
		return float64(labelW) + plotW*float64(t.Sub(from))/float64(span)
	}
	rowsTop := top + axisH
	legendTop := rowsTop + len(order)*rowH + 16
	legendCols := 3
	height := legendTop + legendH*((len(svgStages)+legendCols-1)/legendCols) + 10

	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	title := opts.Title
	if title == "" {
		title = "filc2 engine timeline"
	}
	p(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		width, height, width, height)
	p("<title>%s</title>\n", svgEscape(title))
	p(`<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	p(`<text x="10" y="18" font-size="14" font-weight="bold">%s</text>`+"\n", svgEscape(title))
	p(`<text x="10" y="34" fill="#555555">%s to %s (%s)</text>`+"\n",
		from.Format("2006-01-02 15:04:05.000"), to.Format("15:04:05.000"), span.Round(time.Millisecond))

	// Time axis and grid.
	step := svgTickStep(span)
	p(`<g class="axis">` + "\n")
	for i := range span/step + 1 { // at most 13 ticks; i·step ≤ span never overflows
		t := i * step
		xx := x(from.Add(t))
		p(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e4e4e4"/>`+"\n", xx, rowsTop-4, xx, rowsTop+len(order)*rowH)
		p(`<text x="%.1f" y="%d" text-anchor="middle" fill="#555555">%s</text>`+"\n", xx, rowsTop-8, svgDuration(t))
	}
	p("</g>\n")

	// Rows.
	for i, r := range order {
		y := rowsTop + i*rowH
		label := r.label
		if r.kind == 2 {
			label = fmt.Sprintf("%s %.0f%%", r.label, 100*float64(r.busyNS)/float64(span))
		}
		fill := "#ffffff"
		if i%2 == 1 {
			fill = "#f7f7f7"
		}
		p(`<g class="row" data-row="%s" data-kind="%s">`+"\n", svgEscape(r.label), [...]string{"synthesis", "gpu-worker", "kernels", "loader"}[r.kind])
		p(`<rect x="0" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", y, width, rowH, fill)
		p(`<text x="6" y="%d">%s</text>`+"\n", y+rowH/2+4, svgEscape(label))
		for _, b := range r.bars {
			x0, x1 := x(b.start), x(b.end)
			bwid := math.Max(x1-x0, 0.5)
			stage := b.ev.Stage
			tip := svgTooltip(r.label, b, jobNo, from)
			stroke := ""
			switch {
			case b.err != "":
				stroke = ` stroke="#000000" stroke-dasharray="2,1"`
			case stage == StageGPUHeld:
				stroke = ` stroke="#ffffff" stroke-width="0.5"` // back-to-back holds stay apart
			}
			p(`<rect class="bar" data-stage="%s" data-job="%s" data-partition="%d" x="%.2f" y="%d" width="%.2f" height="%d" fill="%s"%s><title>%s</title></rect>`+"\n",
				stage, svgEscape(string(b.ev.Job)), b.ev.Partition, x0, y+(rowH-barH)/2, bwid, barH, svgStageColor(stage), stroke, svgEscape(tip))
			if lbl := svgBarLabel(b, jobNo); lbl != "" && bwid > float64(7*len(lbl)+4) {
				ink := "#ffffff"
				if stage == StageLockWait || stage == StageLoad {
					ink = "#333333"
				}
				p(`<text x="%.1f" y="%d" text-anchor="middle" fill="%s" font-size="10" pointer-events="none">%s</text>`+"\n",
					x0+bwid/2, y+rowH/2+4, ink, svgEscape(lbl))
			}
		}
		p("</g>\n")
	}

	// Legend.
	p(`<g class="legend">` + "\n")
	colW := (width - 20) / legendCols
	for i, st := range svgStages {
		lx := 10 + (i%legendCols)*colW
		ly := legendTop + (i/legendCols)*legendH
		p(`<rect x="%d" y="%d" width="14" height="14" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", lx, ly, st.color, lx+20, ly+11, svgEscape(st.name))
	}
	p("</g>\n</svg>\n")
	return bw.Flush()
}

// svgBarLabel is a bar's short label: J<n>/p<k> for a partition's stage.
func svgBarLabel(b svgBar, jobNo map[JobID]int) string {
	n := jobNo[b.ev.Job]
	switch {
	case n == 0:
		return ""
	case b.ev.Partition >= 0:
		return fmt.Sprintf("J%d/p%d", n, b.ev.Partition)
	case strings.HasPrefix(b.ev.Detail, "partition "):
		return fmt.Sprintf("J%d/p%s", n, strings.TrimPrefix(b.ev.Detail, "partition "))
	}
	return fmt.Sprintf("J%d", n)
}

// svgTooltip is a bar's <title>.
func svgTooltip(row string, b svgBar, jobNo map[JobID]int, from time.Time) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s: %s", row, b.ev.Stage)
	if b.ev.Job != "" {
		fmt.Fprintf(&s, ", job %s (J%d)", b.ev.Job, jobNo[b.ev.Job])
	}
	if b.ev.Partition >= 0 {
		fmt.Fprintf(&s, " partition %d", b.ev.Partition)
	}
	if b.ev.Detail != "" {
		fmt.Fprintf(&s, " (%s)", b.ev.Detail)
	}
	if b.ev.Stage == StageGPUHeld && b.ev.Worker != "" {
		fmt.Fprintf(&s, ", held by %s", b.ev.Worker)
	}
	fmt.Fprintf(&s, ": %s, from %s to %s", b.end.Sub(b.start).Round(time.Millisecond),
		svgDuration(b.start.Sub(from)), svgDuration(b.end.Sub(from)))
	if b.open {
		s.WriteString(" (still running)")
	}
	if b.err != "" {
		fmt.Fprintf(&s, "; error: %s", b.err)
	}
	return s.String()
}

// svgTickStep is a 1-2-5 step giving at most 12 ticks over span (past the
// 1-2-5 steps that fit a Duration, a twelfth of span).
func svgTickStep(span time.Duration) time.Duration {
	for step := time.Millisecond; step <= math.MaxInt64/50; step *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if span/(m*step) <= 12 {
				return m * step
			}
		}
	}
	return span/12 + 1
}

// svgDuration writes a time offset compactly: 850ms, 12s, 1m30s.
func svgDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", d.Seconds()), "0"), ".") + "s"
	}
	return d.Round(time.Second).String()
}

func svgEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&apos;")
		default:
			if r < 0x20 && r != '\t' && r != '\n' {
				continue // not allowed in XML 1.0
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// TimelineEvents returns the TIMELINE events the engine keeps in memory
// (WithTimelineMemory), oldest first: all of them when since ≤ 0, else those
// of the last since.
func (e *Engine) TimelineEvents(since time.Duration) []TimelineEvent {
	evs := e.tl.events()
	if since <= 0 {
		return evs
	}
	cut := time.Now().Add(-since)
	i, _ := slices.BinarySearchFunc(evs, cut, func(ev TimelineEvent, t time.Time) int { return ev.Time.Compare(t) })
	return evs[i:]
}

// TimelineSVG writes the Gantt chart of WriteTimelineSVG for the last since
// of the engine's kept TIMELINE (since ≤ 0: all it keeps), with a row for each
// of its workers and a kernel track for each of its GPUs: what a server shows
// at /debug/timeline.svg.
func (e *Engine) TimelineSVG(w io.Writer, since time.Duration) error {
	now := time.Now()
	opts := TimelineSVGOptions{To: now, GPUs: e.cfg.GPU.Devices,
		Title: fmt.Sprintf("filc2 engine timeline (%s)", e.backend.Name())}
	since = min(since, now.Sub(e.start)) // nothing is older than the engine
	if since > 0 {
		opts.From = now.Add(-since)
		opts.Title = fmt.Sprintf("filc2 engine timeline (%s), last %s", e.backend.Name(), since)
	}
	for _, wk := range e.workers { // names and GPUs are fixed at New
		opts.Workers = append(opts.Workers, TimelineWorker{Name: wk.name, GPU: wk.gpu})
	}
	if err := WriteTimelineSVG(w, e.tl.events(), opts); err != nil {
		return fmt.Errorf("engine: timeline picture: %w", err)
	}
	return nil
}

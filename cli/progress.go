package cli

import (
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress reports long operations on stderr: a progress bar on a terminal,
// structured log lines (at most one per interval per stage) otherwise.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	log      *slog.Logger
	stage    string
	bar      *progressbar.ProgressBar
	last     time.Time
	interval time.Duration
	bytes    bool
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// newProgress returns a reporter writing to stderr.
func newProgress() *progress {
	return &progress{
		w:        os.Stderr,
		tty:      isTerminal(os.Stderr),
		log:      slog.New(slog.NewTextHandler(os.Stderr, nil)),
		interval: 5 * time.Second,
	}
}

// Update reports that stage has done of total units; it has the signature of
// groth16.Progress and may be called from several goroutines.
func (p *progress) Update(stage string, done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if stage != p.stage {
		p.finishLocked()
		p.stage = stage
		p.last = time.Time{}
		if p.tty {
			opts := []progressbar.Option{
				progressbar.OptionSetWriter(p.w),
				progressbar.OptionSetDescription(stage),
				progressbar.OptionShowCount(),
				progressbar.OptionSetWidth(30),
				progressbar.OptionThrottle(100 * time.Millisecond),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionClearOnFinish(),
			}
			if p.bytes {
				opts = append(opts, progressbar.OptionShowBytes(true))
			}
			p.bar = progressbar.NewOptions64(total, opts...)
		}
	}
	if p.bar != nil {
		p.bar.Set64(done)
		return
	}
	now := time.Now()
	if done < total && now.Sub(p.last) < p.interval {
		return
	}
	p.last = now
	pct := 100.0
	if total > 0 {
		pct = float64(done) * 100 / float64(total)
	}
	p.log.Info("progress", "stage", stage, "done", done, "total", total, "percent", int(pct))
}

func (p *progress) finishLocked() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
}

// Done closes the current stage's bar.
func (p *progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finishLocked()
	p.stage = ""
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/filc2/filc2/engine"
	"github.com/filc2/filc2/internal/fault"
	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
)

// bench soak's load: the clients, the plugin killer, the Status poller and
// the accounting of every answer.

// soakOutcome is how a job ended, for the client that submitted it.
type soakOutcome int

const (
	outCompleted soakOutcome = iota
	outCancelled
	outExpired
	outFailedRetryable
	outFailed
	outInvalid
	outLost
)

// maxSoakProblems bounds the problems a report keeps.
const maxSoakProblems = 12

// soak is one run's clients and their accounting.
type soak struct {
	pl      soakPlan
	api     *plugin.ProverStruct
	hc      *http.Client
	srv     *soakServe
	token   string
	sectors []soakSector
	pvk     *groth16.PreparedVerifyingKey
	say     func(string, ...any)

	mu        sync.Mutex
	rep       *soakReport
	finals    map[plugin.JobID]int                // final answers counted per job
	latencies []time.Duration                     // of completed jobs
	problems  map[string]bool                     // the kinds already in rep.Problems
	lives     map[int]engine.Totals               // per plugin pid: the last engine totals seen
	faults    map[int]map[fault.Point]fault.Count // per plugin pid: the last fault counts seen
	peaks     map[int]int64                       // per plugin pid: its largest RSS seen
	pids      []int                               // the plugin pids, in the order seen
	pluginPID int                                 // the last plugin pid Status gave
}

func newSoak(pl soakPlan, api *plugin.ProverStruct, hc *http.Client, srv *soakServe, token string, sectors []soakSector,
	pvk *groth16.PreparedVerifyingKey, rep *soakReport, say func(string, ...any)) *soak {
	return &soak{pl: pl, api: api, hc: hc, srv: srv, token: token, sectors: sectors, pvk: pvk, rep: rep, say: say,
		finals: make(map[plugin.JobID]int), problems: make(map[string]bool), lives: make(map[int]engine.Totals),
		faults: make(map[int]map[fault.Point]fault.Count),
		peaks:  make(map[int]int64)}
}

// problem keeps the first message of each kind for the report.
func (s *soak) problem(kind, format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.problems[kind] || len(s.rep.Problems) >= maxSoakProblems {
		return
	}
	s.problems[kind] = true
	s.rep.Problems = append(s.rep.Problems, kind+": "+fmt.Sprintf(format, args...))
}

// add increments a counter of the report.
func (s *soak) add(field *int64) {
	s.mu.Lock()
	*field++
	s.mu.Unlock()
}

// finish counts job id's final answer; a second one for the same id is a
// duplicate and counts nothing else.
func (s *soak) finish(id plugin.JobID, out soakOutcome, latency time.Duration) {
	s.mu.Lock()
	s.finals[id]++
	if s.finals[id] > 1 {
		s.rep.Duplicates++
		s.mu.Unlock()
		s.problem("duplicate", "job %s got a second final answer", id)
		return
	}
	r := s.rep
	switch out {
	case outCompleted:
		r.Completed++
		s.latencies = append(s.latencies, latency)
	case outCancelled:
		r.Cancelled++
	case outExpired:
		r.Expired++
	case outFailedRetryable:
		r.FailedRetryable++
	case outFailed:
		r.Failed++
	case outInvalid:
		r.InvalidReturned++
	case outLost:
		r.Lost++
	}
	s.mu.Unlock()
}

// typical is the median latency of the last completed jobs (300 ms before
// any): the scale of the cancel delays and the expiry deadlines.
func (s *soak) typical() time.Duration {
	s.mu.Lock()
	recent := slices.Clone(s.latencies[max(0, len(s.latencies)-32):])
	s.mu.Unlock()
	if len(recent) == 0 {
		return 300 * time.Millisecond
	}
	slices.Sort(recent)
	return max(recent[len(recent)/2], 50*time.Millisecond)
}

// grace is the plan's grace period, or else soakGrace of the slowest job
// so far, the warm-up included.
func (s *soak) grace() time.Duration {
	if s.pl.Grace > 0 {
		return s.pl.Grace
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	slowest := time.Duration(s.rep.WarmupMS * float64(time.Millisecond))
	for _, d := range s.latencies {
		slowest = max(slowest, d)
	}
	return soakGrace(slowest)
}

// soakGrace is the default grace period after the slowest job: 3 times it,
// at least 2 minutes.
func soakGrace(slowest time.Duration) time.Duration { return max(2*time.Minute, 3*slowest) }

// verify checks a proof returned for sec.
func (s *soak) verify(sec soakSector, proof []byte) error {
	return c2.VerifyC1Proof(s.pvk, sec.c1, proof)
}

// answer sorts an error of the Prover API.
type answer int

const (
	ansFinal       answer = iota // a final error: the job failed, or the request is refused
	ansCancelled                 // *CancelledError
	ansNotFound                  // *NotFoundError
	ansUnavailable               // *UnavailableError: the plugin died with it, or is down
	ansBusy                      // *BusyError
	ansTransport                 // no typed answer: the call did not get through
	ansCtx                       // the caller's context ended
)

func classify(ctx context.Context, err error) answer {
	switch {
	case ctx.Err() != nil:
		return ansCtx
	case errors.As(err, new(*plugin.CancelledError)):
		return ansCancelled
	case errors.As(err, new(*plugin.NotFoundError)):
		return ansNotFound
	case errors.As(err, new(*plugin.UnavailableError)):
		return ansUnavailable
	case errors.As(err, new(*plugin.BusyError)):
		return ansBusy
	case errors.As(err, new(*plugin.BadInputError)), errors.As(err, new(*plugin.InternalError)),
		errors.As(err, new(*plugin.PermissionError)):
		return ansFinal
	}
	return ansTransport
}

// pause sleeps d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// warmUp proves one job, so that the parameters are loaded before the
// clients start and the RSS is measured after it.
func (s *soak) warmUp(ctx context.Context, prove bool) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if !prove {
		return s.startRSS(ctx)
	}
	sec := s.sectors[0]
	t0 := time.Now()
	id, err := s.api.Submit(ctx, plugin.ProveRequest{ID: "soak-warmup", Sector: sec.ref, Commit1Out: sec.raw})
	if err != nil {
		return fmt.Errorf("bench soak: the warm-up job: Submit: %w", err)
	}
	res, err := s.api.Await(ctx, id)
	if err != nil {
		return fmt.Errorf("bench soak: the warm-up job: %w", err)
	}
	if err := s.verify(sec, res.Proof); err != nil {
		return fmt.Errorf("bench soak: the warm-up job's proof does not verify: %w", err)
	}
	s.rep.WarmupMS = ms(time.Since(t0))
	s.say("warm-up job proved and verified in %.0f ms", s.rep.WarmupMS)
	return s.startRSS(ctx)
}

// startRSS takes the start RSS of serve and the plugin.
func (s *soak) startRSS(ctx context.Context) error {
	st, err := s.api.Status(ctx)
	if err != nil {
		return fmt.Errorf("bench soak: Status before the clients start: %w", err)
	}
	s.observe(st)
	r := s.rep
	r.ServeRSSStart, r.PluginRSSStart = rssBytes(s.srv.pid()), rssBytes(st.PID)
	r.RSSStart = r.ServeRSSStart + r.PluginRSSStart
	s.say("RSS at the start: serve %s, plugin (pid %d) %s", mib(r.ServeRSSStart), st.PID, mib(r.PluginRSSStart))
	return nil
}

// run drives the clients for the plan's duration, waits up to the grace
// period for the jobs in flight, and fills in the report. An error is a soak
// that could not finish (serve died, or ctx ended).
func (s *soak) run(ctx context.Context) error {
	base, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	go func() {
		select {
		case <-s.srv.exited:
			stop(errServeExited)
		case <-base.Done():
		}
	}()
	start := time.Now()
	end := start.Add(s.pl.Duration)
	runCtx, cancelRun := context.WithDeadline(base, end)
	defer cancelRun()
	// The grace period starts when the submissions end; by default its length
	// follows the slowest job until then.
	graceCtx, cancelGrace := context.WithCancel(base)
	defer cancelGrace()
	go func() {
		select {
		case <-runCtx.Done():
		case <-graceCtx.Done():
			return
		}
		g := s.grace()
		s.say("submissions over; jobs in flight have %v to answer", g.Round(time.Second))
		t := time.AfterFunc(g, cancelGrace)
		<-graceCtx.Done()
		t.Stop()
	}()
	bgCtx, stopBG := context.WithCancel(base)

	s.say("%s for %v: cancel %.2f, expire %.2f, junk %.2f per job, a plugin kill every %v",
		plural(s.pl.Clients, "client"), s.pl.Duration, s.pl.CancelRate, s.pl.ExpireRate, s.pl.JunkRate, s.pl.KillEvery)
	var bg, clients sync.WaitGroup
	bg.Add(2)
	go func() { defer bg.Done(); s.poll(bgCtx) }()
	go func() { defer bg.Done(); s.progress(bgCtx, start) }()
	if s.pl.KillEvery > 0 {
		bg.Add(1)
		go func() { defer bg.Done(); s.kill(runCtx, base) }()
	}
	for i := range s.pl.Clients {
		clients.Add(1)
		go func() {
			defer clients.Done()
			s.client(runCtx, graceCtx, i)
		}()
	}
	clients.Wait()
	s.say("every client is done after %v", time.Since(start).Round(time.Second))
	stopBG()
	bg.Wait()
	if cause := context.Cause(base); cause != nil {
		if errors.Is(cause, errServeExited) {
			return fmt.Errorf("bench soak: %w (%v); its log ends:\n%s", cause, s.srv.exitErr(), s.srv.logTail(40))
		}
		return cause
	}
	s.finishReport(base)
	return nil
}

// finishReport checks that the server is idle and fills in the end figures.
func (s *soak) finishReport(ctx context.Context) {
	r := s.rep
	// Expired and cancelled jobs must not linger on the server.
	deadline := time.Now().Add(30 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		st, err := s.api.Status(cctx)
		cancel()
		if err == nil {
			s.observe(st)
			r.LeftOnServer = len(st.Queued) + len(st.Running)
			if r.LeftOnServer == 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			if err != nil {
				s.problem("status", "Status at the end: %v", err)
			} else {
				s.problem("left on server", "%d jobs still queued or running 30 s after the last answer, such as %s (%s)",
					r.LeftOnServer, firstJob(st).ID, firstJob(st).State)
			}
			break
		}
		pause(ctx, 500*time.Millisecond)
	}
	s.mu.Lock()
	pid := s.pluginPID
	for _, t := range s.lives {
		r.PartitionsProved += t.PartitionsProved
		r.PartitionsRetried += t.PartitionsRetried
		r.PartitionsFailed += t.PartitionsFailed
		r.EngineJobsFailed += t.Failed
	}
	r.FaultsInjected = map[string]int64{}
	for _, fs := range s.faults {
		for p, c := range fs {
			r.FaultsInjected[string(p)] += c.Hits
		}
	}
	lat := slices.Clone(s.latencies)
	r.PluginRSSLifetimes = nil
	for _, p := range s.pids {
		r.PluginRSSLifetimes = append(r.PluginRSSLifetimes, s.peaks[p])
	}
	s.mu.Unlock()
	r.ServeRSSEnd, r.PluginRSSEnd = rssBytes(s.srv.pid()), rssBytes(pid)
	r.RSSEnd = r.ServeRSSEnd + r.PluginRSSEnd
	r.ServeRSSPeak, r.PluginRSSPeak = max(r.ServeRSSPeak, r.ServeRSSEnd), max(r.PluginRSSPeak, r.PluginRSSEnd)
	if len(lat) > 0 {
		slices.Sort(lat)
		r.P50MS, r.P99MS, r.MaxMS = ms(percentile(lat, 0.50)), ms(percentile(lat, 0.99)), ms(lat[len(lat)-1])
	}
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	restarts, resubmitted, lost, err := hostCounters(mctx, s.hc, s.srv.base())
	if err != nil {
		s.problem("metrics", "serve's /metrics: %v", err)
	}
	r.PluginRestarts, r.Resubmitted, r.HostJobsLost = restarts, resubmitted, lost
	r.PluginCrashes = max(0, restarts-r.PluginKills)
	if r.PluginCrashes > 0 {
		s.problem("crash", "the plugin restarted %d times but was killed %d times: it died by itself (see serve's log)", restarts, r.PluginKills)
	}
}

// firstJob is a job Status lists as queued or running.
func firstJob(st plugin.Status) plugin.JobInfo {
	if len(st.Running) > 0 {
		return st.Running[0]
	}
	if len(st.Queued) > 0 {
		return st.Queued[0]
	}
	return plugin.JobInfo{}
}

// percentile is the nearest-rank q-quantile of sorted durations.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// observe records a Status: the plugin's engine totals under its pid (so
// that kills do not reset the sums) and the memory peaks.
func (s *soak) observe(st plugin.Status) {
	serve, plug := rssBytes(s.srv.pid()), rssBytes(st.PID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.Engine != nil {
		s.lives[st.PID] = st.Engine.Totals
		if st.Engine.Faults != nil {
			s.faults[st.PID] = st.Engine.Faults
		}
	}
	s.pluginPID = st.PID
	if _, seen := s.peaks[st.PID]; !seen {
		s.pids = append(s.pids, st.PID)
	}
	s.peaks[st.PID] = max(s.peaks[st.PID], plug)
	s.rep.ServeRSSPeak = max(s.rep.ServeRSSPeak, serve)
	s.rep.PluginRSSPeak = max(s.rep.PluginRSSPeak, plug)
}

// poll reads Status every 2 s until ctx ends.
func (s *soak) poll(ctx context.Context) {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if st, err := s.api.Status(cctx); err == nil {
			s.observe(st)
		}
		cancel()
	}
}

// progress reports on stderr every 10 s until ctx ends.
func (s *soak) progress(ctx context.Context, start time.Time) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		r := *s.rep
		s.mu.Unlock()
		s.say("%v of %v: %d submitted, %d completed, %d cancelled, %d expired, %d failed retryable, %d failed, %d lost, %d invalid; "+
			"%d kills, %d junk requests", time.Since(start).Round(time.Second), s.pl.Duration, r.Submitted, r.Completed, r.Cancelled,
			r.Expired, r.FailedRetryable, r.Failed, r.Lost, r.InvalidReturned, r.PluginKills, r.JunkRequests)
	}
}

// kill sends the plugin SIGKILL every KillEvery until runCtx ends, and after
// each waits (under ctx) for Status to answer from a new plugin.
func (s *soak) kill(runCtx, ctx context.Context) {
	t := time.NewTicker(s.pl.KillEvery)
	defer t.Stop()
	for {
		select {
		case <-runCtx.Done():
			return
		case <-t.C:
		}
		cctx, cancel := context.WithTimeout(runCtx, 30*time.Second)
		st, err := s.api.Status(cctx)
		cancel()
		if err != nil {
			if runCtx.Err() == nil {
				s.problem("kill", "Status before a kill: %v", err)
			}
			continue
		}
		s.observe(st)
		if ppid, err := parentPID(st.PID); err != nil || ppid != s.srv.pid() {
			s.problem("kill", "the plugin pid %d from Status is not serve's (pid %d) child (parent %d, %v): not killing it",
				st.PID, s.srv.pid(), ppid, err)
			continue
		}
		if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
			s.problem("kill", "kill %d: %v", st.PID, err)
			continue
		}
		t0 := time.Now()
		s.add(&s.rep.PluginKills)
		back := false
		for time.Since(t0) < 2*time.Minute && ctx.Err() == nil {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			nst, err := s.api.Status(cctx)
			cancel()
			if err == nil && nst.PID != st.PID {
				s.observe(nst)
				back = true
				break
			}
			pause(ctx, 200*time.Millisecond)
		}
		switch {
		case back:
			s.mu.Lock()
			s.rep.RestartMaxMS = max(s.rep.RestartMaxMS, ms(time.Since(t0)))
			s.mu.Unlock()
		case ctx.Err() == nil:
			s.add(&s.rep.PluginUnrecovered)
			s.problem("restart", "Status did not answer from a new plugin within 2 minutes of killing pid %d", st.PID)
		}
		t.Reset(s.pl.KillEvery) // from the plugin's return, so that it gets time to prove
	}
}

// client submits jobs until runCtx ends; their answers may take until
// graceCtx ends.
func (s *soak) client(runCtx, graceCtx context.Context, n int) {
	rng := rand.New(rand.NewPCG(s.pl.Seed, uint64(n)))
	for i := 0; runCtx.Err() == nil; i++ {
		junk := int(s.pl.JunkRate)
		if rng.Float64() < s.pl.JunkRate-float64(junk) {
			junk++
		}
		for range junk {
			s.junk(graceCtx, rng)
		}
		sec := s.sectors[rng.IntN(len(s.sectors))]
		id := plugin.JobID(fmt.Sprintf("soak-%d-c%d-%d", s.pl.Seed, n, i))
		switch r := rng.Float64(); {
		case r < s.pl.ExpireRate:
			s.expire(graceCtx, rng, id, sec)
		case r < s.pl.ExpireRate+s.pl.CancelRate:
			s.job(graceCtx, rng, id, sec, true)
		default:
			s.job(graceCtx, rng, id, sec, false)
		}
	}
}

// job submits one job under id, cancels it after a short random delay when
// asked, and awaits its answer.
func (s *soak) job(ctx context.Context, rng *rand.Rand, id plugin.JobID, sec soakSector, cancel bool) {
	s.add(&s.rep.Submitted)
	submitted := time.Now()
	told := false // the client was told the job failed retryably
	for {
		got, err := s.api.Submit(ctx, plugin.ProveRequest{ID: id, Sector: sec.ref, Commit1Out: sec.raw})
		if err == nil {
			if got != id {
				s.add(&s.rep.Misrouted)
				s.problem("misrouted", "Submit of %s answered job id %s", id, got)
			}
			told = false // accepted after all
			break
		}
		switch classify(ctx, err) {
		case ansBusy:
			s.add(&s.rep.Busy)
			pause(ctx, 200*time.Millisecond)
		case ansUnavailable:
			told = true
			pause(ctx, 250*time.Millisecond)
		case ansTransport:
			s.problem("transport", "Submit of %s: %v", id, err)
			pause(ctx, 250*time.Millisecond)
		case ansCtx:
			if told {
				s.finish(id, outFailedRetryable, 0)
			} else {
				s.finish(id, outLost, 0)
				s.problem("lost", "job %s: Submit had no answer by the end of the grace period", id)
			}
			return
		default:
			s.finish(id, outFailed, 0)
			s.problem("failed", "Submit of %s: %v", id, err)
			return
		}
	}
	cancelled := false
	if cancel {
		pause(ctx, time.Duration(rng.Int64N(int64(s.typical()))))
		s.add(&s.rep.Cancels)
		for try := 0; try < 3; try++ {
			cctx, done := context.WithTimeout(ctx, 30*time.Second)
			err := s.api.Cancel(cctx, id)
			done()
			if err == nil {
				cancelled = true
				break
			}
			if a := classify(ctx, err); a != ansUnavailable && a != ansTransport {
				s.problem("cancel", "Cancel of %s: %v", id, err)
				break
			}
			pause(ctx, 250*time.Millisecond)
		}
	}
	s.await(ctx, id, sec, submitted, cancelled, told)
}

// await waits for job id's final answer and counts it.
func (s *soak) await(ctx context.Context, id plugin.JobID, sec soakSector, submitted time.Time, cancelled, told bool) {
	for {
		res, err := s.api.Await(ctx, id)
		if err == nil {
			s.proved(ctx, id, sec, submitted, res)
			return
		}
		switch classify(ctx, err) {
		case ansCtx:
			if told {
				s.finish(id, outFailedRetryable, 0)
				return
			}
			s.finish(id, outLost, 0)
			s.problem("lost", "job %s: no final answer by the end of the grace period", id)
			return
		case ansCancelled:
			if cancelled {
				s.finish(id, outCancelled, 0)
				return
			}
			s.finish(id, outFailed, 0)
			s.problem("failed", "job %s answered cancelled, but no one cancelled it: %v", id, err)
			return
		case ansNotFound:
			if told {
				s.finish(id, outFailedRetryable, 0)
				return
			}
			s.finish(id, outLost, 0)
			s.problem("lost", "job %s: the server forgot it without saying it failed retryably: %v", id, err)
			return
		case ansUnavailable, ansBusy:
			told = true
			pause(ctx, 250*time.Millisecond)
		case ansTransport:
			s.problem("transport", "Await of %s: %v", id, err)
			pause(ctx, 250*time.Millisecond)
		default:
			s.finish(id, outFailed, 0)
			s.problem("failed", "job %s: %v", id, err)
			return
		}
	}
}

// proved counts a proof returned for job id: verified or invalid; then it
// awaits the job once more, which must answer the same proof or that the
// job is gone.
func (s *soak) proved(ctx context.Context, id plugin.JobID, sec soakSector, submitted time.Time, res plugin.Result) {
	if res.ID != id {
		s.add(&s.rep.Misrouted)
		s.problem("misrouted", "Await of %s answered a result of job %s", id, res.ID)
	}
	if err := s.verify(sec, res.Proof); err != nil {
		s.finish(id, outInvalid, 0)
		s.problem("invalid", "job %s: the proof returned does not verify: %v", id, err)
		return
	}
	s.finish(id, outCompleted, time.Since(submitted))
	actx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	again, err := s.api.Await(actx, id)
	switch {
	case err == nil && !slices.Equal(again.Proof, res.Proof):
		s.finish(id, outCompleted, 0) // a second, different final answer: counted as a duplicate
		s.problem("duplicate detail", "job %s answered a different proof when awaited again", id)
	case err == nil:
	default:
		switch classify(actx, err) {
		case ansNotFound, ansUnavailable, ansTransport, ansCtx: // gone with a killed plugin, or not reached
		default:
			s.finish(id, outFailed, 0) // a second, different final answer: counted as a duplicate
			s.problem("duplicate detail", "job %s answered a proof, then %v", id, err)
		}
	}
}

// expire calls SealCommit2 for sec with a deadline shorter than a typical
// job: the call ends, and the server cancels its job. A proof that comes
// in time counts as completed.
func (s *soak) expire(ctx context.Context, rng *rand.Rand, id plugin.JobID, sec soakSector) {
	s.add(&s.rep.Submitted)
	s.add(&s.rep.Expiries)
	d := 10*time.Millisecond + time.Duration(rng.Int64N(int64(s.typical())))
	ectx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	t0 := time.Now()
	proof, err := s.api.SealCommit2(ectx, sec.ref, sec.raw)
	switch {
	case err == nil:
		if verr := s.verify(sec, proof); verr != nil {
			s.finish(id, outInvalid, 0)
			s.problem("invalid", "SealCommit2 %s: the proof returned does not verify: %v", id, verr)
			return
		}
		s.finish(id, outCompleted, time.Since(t0))
	case ectx.Err() != nil && ctx.Err() == nil:
		s.finish(id, outExpired, 0)
	default:
		switch classify(ctx, err) {
		case ansCancelled:
			s.finish(id, outExpired, 0) // the server noticed the deadline first
		case ansUnavailable, ansBusy:
			s.finish(id, outFailedRetryable, 0)
		case ansCtx:
			s.finish(id, outLost, 0)
			s.problem("lost", "SealCommit2 %s: no answer by the end of the grace period", id)
		default:
			s.finish(id, outFailed, 0)
			s.problem("failed", "SealCommit2 %s (deadline %v): %v", id, d, err)
		}
	}
}

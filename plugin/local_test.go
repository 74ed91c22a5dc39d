package plugin_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
	"github.com/filc2/filc2/proofs/c2"
)

func fakeRequest(id string, prio int, content byte) *plugin.Request {
	r := &plugin.Request{ID: plugin.JobID(id), Sector: plugintest.Sector(uint64(content)), Priority: prio}
	r.Digest[0] = content
	return r
}

func await(t *testing.T, s plugin.Service, id string) (plugin.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return s.Await(ctx, plugin.JobID(id))
}

// Priority order, the bounded queue, idempotent ids, cancel of a queued
// job, unknown ids and the totals.
func TestLocalServiceQueue(t *testing.T) {
	ctx := context.Background()
	g := plugintest.NewGate()
	s := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, QueueSize: 3, Prove: g.Prove})
	defer s.Close()

	if _, err := s.Submit(ctx, fakeRequest("j0", 0, 0)); err != nil {
		t.Fatal(err)
	}
	g.WaitRunning(t, "j0")
	for _, r := range []*plugin.Request{fakeRequest("j1", 0, 1), fakeRequest("j2", 5, 2), fakeRequest("j3", 0, 3)} {
		if _, err := s.Submit(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	var busy *plugin.BusyError
	if _, err := s.Submit(ctx, fakeRequest("j4", 9, 4)); !errors.As(err, &busy) || busy.Queued != 3 || busy.Capacity != 3 {
		t.Fatalf("full queue: %v", err)
	}
	if id, err := s.Submit(ctx, fakeRequest("j1", 0, 1)); err != nil || id != "j1" {
		t.Fatalf("same request again: %q %v", id, err)
	}
	var bad *plugin.BadInputError
	if _, err := s.Submit(ctx, fakeRequest("j1", 0, 9)); !errors.As(err, &bad) || bad.Field != "ID" {
		t.Fatalf("id reused for other content: %v", err)
	}
	st, _ := s.Status(ctx)
	if len(st.Running) != 1 || st.Running[0].ID != "j0" || st.Running[0].State != plugin.StateRunning {
		t.Fatalf("running %+v", st.Running)
	}
	var queued []plugin.JobID
	for _, j := range st.Queued {
		queued = append(queued, j.ID)
	}
	if strings.Join(ids(queued), ",") != "j2,j1,j3" {
		t.Fatalf("queue order %v, want j2,j1,j3", queued)
	}
	if st.Totals.Submitted != 4 || st.Totals.Rejected != 2 || st.Slots != 1 || st.QueueCapacity != 3 {
		t.Fatalf("totals %+v", st)
	}

	if err := s.Cancel(ctx, "j3"); err != nil {
		t.Fatal(err)
	}
	var canc *plugin.CancelledError
	if _, err := await(t, s, "j3"); !errors.As(err, &canc) || canc.ID != "j3" {
		t.Fatalf("await cancelled: %v", err)
	}
	g.Open("j0", nil)
	if res, err := await(t, s, "j0"); err != nil || string(res.Proof) != "proof of j0" || res.ID != "j0" || res.Sector != plugintest.Sector(0) {
		t.Fatalf("j0: %+v %v", res, err)
	}
	g.WaitRunning(t, "j2")
	g.Open("j2", nil)
	g.WaitRunning(t, "j1")
	g.Open("j1", nil)
	if _, err := await(t, s, "j1"); err != nil {
		t.Fatal(err)
	}
	if o := ids(g.Order()); strings.Join(o, ",") != "j0,j2,j1" {
		t.Fatalf("ran %v", o)
	}
	// A finished job stays finished; the same request again is that job.
	if err := s.Cancel(ctx, "j1"); err != nil {
		t.Fatal(err)
	}
	if res, err := await(t, s, "j1"); err != nil || string(res.Proof) != "proof of j1" {
		t.Fatalf("j1 after cancel: %v", err)
	}
	if id, err := s.Submit(ctx, fakeRequest("j1", 0, 1)); err != nil || id != "j1" {
		t.Fatalf("done request again: %v", err)
	}
	var nf *plugin.NotFoundError
	if _, err := await(t, s, "nope"); !errors.As(err, &nf) || nf.ID != "nope" {
		t.Fatalf("await unknown: %v", err)
	}
	if err := s.Cancel(ctx, "nope"); !errors.As(err, &nf) {
		t.Fatalf("cancel unknown: %v", err)
	}
	st, _ = s.Status(ctx)
	if st.Totals.Submitted != 4 || st.Totals.Succeeded != 3 || st.Totals.Cancelled != 1 || len(st.Queued)+len(st.Running) != 0 {
		t.Fatalf("totals %+v", st.Totals)
	}
}

func ids(v []plugin.JobID) []string {
	s := make([]string, len(v))
	for i, id := range v {
		s[i] = string(id)
	}
	return s
}

// Cancelling a running job answers its Await at once; Await's deadline
// leaves the job running.
func TestLocalServiceCancelRunningAndDeadline(t *testing.T) {
	ctx := context.Background()
	g := plugintest.NewGate()
	s := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, Prove: g.Prove})
	defer s.Close()
	s.Submit(ctx, fakeRequest("a", 0, 1))
	s.Submit(ctx, fakeRequest("b", 0, 2))
	g.WaitRunning(t, "a")

	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, err := s.Await(short, "a")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("await past its deadline: %v", err)
	}
	if st, _ := s.Status(ctx); len(st.Running) != 1 || st.Running[0].ID != "a" {
		t.Fatalf("a stopped running after an Await deadline: %+v", st.Running)
	}
	if err := s.Cancel(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	var canc *plugin.CancelledError
	if _, err := await(t, s, "a"); !errors.As(err, &canc) {
		t.Fatalf("await cancelled running job: %v", err)
	}
	g.WaitRunning(t, "b") // the worker is free again
	g.Open("b", nil)
	if _, err := await(t, s, "b"); err != nil {
		t.Fatal(err)
	}
	// A cancelled id may be submitted again: a new job.
	if _, err := s.Submit(ctx, fakeRequest("a", 0, 1)); err != nil {
		t.Fatal(err)
	}
	g.WaitRunning(t, "a")
	g.Open("a", nil)
	if _, err := await(t, s, "a"); err != nil {
		t.Fatalf("resubmitted a: %v", err)
	}
}

// A failing or panicking prover fails its job with *InternalError and the
// service carries on; Close fails queued jobs as unavailable.
func TestLocalServiceFailures(t *testing.T) {
	ctx := context.Background()
	g := plugintest.NewGate()
	panicky := func(ctx context.Context, r *plugin.Request) (plugin.Proof, []c2.PartitionTiming, error) {
		if r.ID == "boom" {
			panic("kaboom")
		}
		return g.Prove(ctx, r)
	}
	s := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, Prove: panicky, MaxRetained: 2})
	s.Submit(ctx, fakeRequest("boom", 0, 1))
	var in *plugin.InternalError
	if _, err := await(t, s, "boom"); !errors.As(err, &in) || !strings.Contains(in.Msg, "kaboom") {
		t.Fatalf("panic: %v", err)
	}
	s.Submit(ctx, fakeRequest("fails", 0, 2))
	g.WaitRunning(t, "fails")
	g.Open("fails", errors.New("no GPU memory"))
	if _, err := await(t, s, "fails"); !errors.As(err, &in) || in.Msg != "no GPU memory" {
		t.Fatalf("failure: %v", err)
	}
	s.Submit(ctx, fakeRequest("ok", 0, 3))
	g.WaitRunning(t, "ok")
	g.Open("ok", nil)
	if _, err := await(t, s, "ok"); err != nil {
		t.Fatal(err)
	}
	// MaxRetained 2: the oldest finished job is forgotten.
	s.Submit(ctx, fakeRequest("queued", 0, 4))
	g.WaitRunning(t, "queued")
	s.Submit(ctx, fakeRequest("waiting", 0, 5))
	var nf *plugin.NotFoundError
	if _, err := await(t, s, "boom"); !errors.As(err, &nf) {
		t.Fatalf("old job: %v", err)
	}
	st, _ := s.Status(ctx)
	if st.Totals.Failed != 2 || st.Totals.Succeeded != 1 {
		t.Fatalf("totals %+v", st.Totals)
	}
	s.Close()
	var un *plugin.UnavailableError
	if _, err := await(t, s, "waiting"); !errors.As(err, &un) {
		t.Fatalf("queued job at close: %v", err)
	}
	if _, err := await(t, s, "queued"); !errors.As(err, &un) {
		t.Fatalf("running job at close: %v", err)
	}
	if _, err := s.Submit(ctx, fakeRequest("late", 0, 6)); !errors.As(err, &un) {
		t.Fatalf("submit after close: %v", err)
	}
}

// Without parameters the job fails with an error that says how to get them.
func TestLocalServiceMissingParams(t *testing.T) {
	a, _ := plugintest.Sealed(t)
	r, err := plugin.ParseRequest(context.Background(), plugin.ProveRequest{Sector: plugintest.Sector(1), Commit1Out: a})
	if err != nil {
		t.Fatal(err)
	}
	s := plugin.NewLocalService(plugin.LocalConfig{ParamsDir: t.TempDir()})
	defer s.Close()
	s.Submit(context.Background(), r)
	var in *plugin.InternalError
	if _, err := await(t, s, string(r.ID)); !errors.As(err, &in) || !strings.Contains(in.Msg, "filc2 params fetch") {
		t.Fatalf("missing params: %v", err)
	}
}

package plugin

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/filecoin-project/go-jsonrpc"
	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
)

// ErrChecksum is Launch's error (errors.Is) for a binary whose SHA-256 is
// not Config.Checksum.
var ErrChecksum = goplugin.ErrChecksumsDoNotMatch

// Config configures Launch.
type Config struct {
	// Path is the filc2 binary to run as the plugin.
	Path string
	// Args are its arguments (default: "plugin"); flags of `filc2 plugin`
	// such as --params-dir and --slots go here.
	Args []string
	// Checksum is the binary's SHA-256 (FileChecksum). Required: every
	// start, restarts included, checks it.
	Checksum []byte
	// Env is added to the host's environment for the plugin.
	Env []string
	// Logger is the host's log; the plugin's log lines are forwarded to it
	// at their own level (default: hclog at info on stderr).
	Logger hclog.Logger
	// StartTimeout bounds the plugin's handshake (default 1 min).
	StartTimeout time.Duration
	// ReadyTimeout is how long a call waits for a plugin that is
	// restarting before answering *UnavailableError (default 1 min).
	ReadyTimeout time.Duration
	// MaxRestartDelay caps the backoff between restarts of a plugin that
	// keeps dying (default 30 s; the first restart is immediate).
	MaxRestartDelay time.Duration
	// ResubmitBytes bounds the requests the Client keeps to resubmit when
	// the plugin dies: the C1 and vanilla bytes of jobs submitted and not
	// yet answered by Await (default DefaultResubmitBytes; negative: none
	// kept). A job beyond it that its plugin takes down answers a retryable
	// *UnavailableError, as every job did before resubmission.
	ResubmitBytes int64
	// SocketDir is where each plugin process gets a private 0700 directory
	// for its go-plugin and Prover API sockets, removed when the process is
	// gone, killed or not (default os.TempDir()).
	SocketDir string
}

// DefaultResubmitBytes is Config.ResubmitBytes's default: about twenty
// 32GiB C1 outputs.
const DefaultResubmitBytes = 1 << 30

// FileChecksum returns the SHA-256 of the file at path, for Config.Checksum.
func FileChecksum(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// Client is the host side of a filc2 plugin: it runs the plugin process,
// restarts it when it dies and offers the Prover API over it. When the
// plugin dies, the jobs submitted through the Client and not yet answered
// are resubmitted to the restarted plugin under their ids (resubmit.go), so
// their Await answers as if nothing happened; a job the Client did not keep
// (Config.ResubmitBytes) answers a retryable *UnavailableError. A
// SealCommit2 or Submit in flight is sent once more to the restarted
// plugin. Shutdown stops it in order. A Go sealing host embeds this.
type Client struct {
	cfg Config
	log hclog.Logger

	mu       sync.Mutex
	cur      *instance     // nil while down
	ready    chan struct{} // closed when cur is set
	lastErr  error         // why the plugin is down
	closed   bool
	stopping bool // Shutdown or Close began: no new jobs, no restarts
	gen      uint64
	jobs     map[JobID]*tracked // jobs submitted through this client, not yet awaited to the end
	seq      uint64             // submission order of jobs
	kept     int64              // request bytes kept in jobs for resubmission
	restartT []time.Time        // recent restarts, for Healthy

	restarts    atomic.Uint64
	resubmitted atomic.Uint64
	lostJobs    atomic.Uint64

	check chan *instance // instances suspected dead
	done  chan struct{}  // closed by Close
	super sync.WaitGroup
}

var _ Prover = (*Client)(nil)

// instance is one plugin process.
type instance struct {
	gen     uint64
	pc      *goplugin.Client
	rpc     goplugin.ClientProtocol
	ec      *endpointClient
	ep      Endpoint
	api     ProverStruct
	closer  jsonrpc.ClientCloser
	http    *http.Transport
	dir     string // the private socket directory, removed at shutdown
	started time.Time
	dead    chan struct{} // closed when the client knows it is gone
	once    sync.Once
}

// dialError marks a failure to connect to the plugin's socket: the request
// never reached the plugin, so it can go to the next one.
type dialError struct{ err error }

func (e *dialError) Error() string { return e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// Launch starts the plugin (checking its checksum), waits for its handshake
// and returns the Client; ctx bounds this first start. From then on the
// Client restarts the plugin whenever it dies, until Close.
func Launch(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.Path == "" {
		return nil, errors.New("plugin.Launch: no Path")
	}
	if len(cfg.Checksum) != sha256.Size {
		return nil, fmt.Errorf("plugin.Launch: Checksum has %d bytes, want the %d of a SHA-256 (FileChecksum)", len(cfg.Checksum), sha256.Size)
	}
	if cfg.Args == nil {
		cfg.Args = []string{"plugin"}
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.New(&hclog.LoggerOptions{Name: "filc2", Level: hclog.Info, Output: os.Stderr})
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = time.Minute
	}
	if cfg.ReadyTimeout <= 0 {
		cfg.ReadyTimeout = time.Minute
	}
	if cfg.MaxRestartDelay <= 0 {
		cfg.MaxRestartDelay = 30 * time.Second
	}
	if cfg.ResubmitBytes == 0 {
		cfg.ResubmitBytes = DefaultResubmitBytes
	}
	c := &Client{
		cfg:   cfg,
		log:   cfg.Logger,
		ready: make(chan struct{}),
		jobs:  make(map[JobID]*tracked),
		check: make(chan *instance, 1),
		done:  make(chan struct{}),
	}
	type started struct {
		inst *instance
		err  error
	}
	ch := make(chan started, 1)
	go func() {
		inst, err := c.start()
		ch <- started{inst, err}
	}()
	var s started
	select {
	case s = <-ch:
	case <-ctx.Done():
		go func() {
			if s := <-ch; s.inst != nil {
				s.inst.shutdown()
			}
		}()
		return nil, ctx.Err()
	}
	if s.err != nil {
		return nil, s.err
	}
	c.up(s.inst, false)
	c.super.Add(1)
	go c.supervise(s.inst)
	return c, nil
}

// start runs one plugin process and connects to its endpoint. Its sockets
// go in a fresh private directory that shutdown removes.
func (c *Client) start() (*instance, error) {
	dir, err := os.MkdirTemp(c.cfg.SocketDir, "filc2-plugin-run-")
	if err != nil {
		return nil, fmt.Errorf("launching %s: making its socket directory: %w (set Config.SocketDir to a writable directory)", c.cfg.Path, err)
	}
	cmd := exec.Command(c.cfg.Path, c.cfg.Args...)
	// go-plugin's server makes its net/rpc socket in $PLUGIN_UNIX_SOCKET_DIR,
	// and Serve its Prover API socket there too.
	cmd.Env = append(append(os.Environ(), c.cfg.Env...), goplugin.EnvUnixSocketDir+"="+dir)
	pc := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  Handshake,
		Plugins:          goplugin.PluginSet{pluginName: &endpointPlugin{}},
		Cmd:              cmd,
		SkipHostEnv:      true, // cmd.Env has it, with Env after it
		SecureConfig:     &goplugin.SecureConfig{Checksum: c.cfg.Checksum, Hash: sha256.New()},
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolNetRPC},
		AutoMTLS:         true,
		Logger:           c.log,
		StartTimeout:     c.cfg.StartTimeout,
	})
	fail := func(err error) (*instance, error) {
		pc.Kill()
		os.RemoveAll(dir)
		if errors.Is(err, goplugin.ErrChecksumsDoNotMatch) {
			return nil, fmt.Errorf("launching %s: %w: refusing to run it (rebuilt or replaced since the checksum was taken?)", c.cfg.Path, err)
		}
		return nil, fmt.Errorf("launching %s: %w", c.cfg.Path, err)
	}
	rpcc, err := pc.Client()
	if err != nil {
		return fail(err)
	}
	raw, err := rpcc.Dispense(pluginName)
	if err != nil {
		return fail(err)
	}
	ec, ok := raw.(*endpointClient)
	if !ok {
		return fail(fmt.Errorf("the plugin dispensed %T", raw))
	}
	ep, err := ec.endpoint()
	if err != nil {
		return fail(err)
	}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, "unix", ep.Socket)
			if err != nil {
				return nil, &dialError{err}
			}
			return conn, nil
		},
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     time.Minute,
	}
	inst := &instance{pc: pc, rpc: rpcc, ec: ec, ep: ep, http: tr, dir: dir, started: time.Now(), dead: make(chan struct{})}
	// No timeout on the HTTP client: a proof takes what it takes, and the
	// caller's context bounds each call.
	inst.closer, err = jsonrpc.NewMergeClient(context.Background(), "http://filc2-plugin"+RPCPath, Namespace,
		[]any{&inst.api.Internal}, http.Header{"Authorization": []string{"Bearer " + ep.Token}},
		jsonrpc.WithErrors(Errors()), jsonrpc.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		return fail(err)
	}
	c.mu.Lock()
	c.gen++
	inst.gen = c.gen
	c.mu.Unlock()
	c.log.Info("plugin started", "pid", ep.PID, "version", ep.Version, "socket", ep.Socket)
	return inst, nil
}

// shutdown stops the process (gracefully when it still runs) and removes
// what it left behind.
func (in *instance) shutdown() {
	in.once.Do(func() {
		in.pc.Kill()
		if in.closer != nil {
			in.closer()
		}
		in.http.CloseIdleConnections()
		// A plugin killed outright leaves its sockets: go-plugin's and the
		// Prover API's, in the private directory (or the API's own
		// directory elsewhere, with the plugin's --socket-dir).
		if dir := filepath.Dir(in.ep.Socket); strings.HasPrefix(filepath.Base(dir), "filc2-plugin-") {
			os.Remove(in.ep.Socket)
			os.Remove(dir)
		}
		os.RemoveAll(in.dir)
	})
}

// up makes inst the current plugin; restarted says it replaces one that
// died. Jobs cancelled while they were being resubmitted to inst are
// cancelled there.
func (c *Client) up(inst *instance, restarted bool) {
	c.mu.Lock()
	c.cur, c.lastErr = inst, nil
	close(c.ready)
	if restarted {
		now := time.Now()
		c.restartT = append(recentRestarts(c.restartT, now), now)
	}
	var cancel []JobID
	for id, t := range c.jobs {
		if t.gen == inst.gen && t.cancelled {
			cancel = append(cancel, id)
		}
	}
	c.mu.Unlock()
	for _, id := range cancel {
		ctx, done := context.WithTimeout(context.Background(), 10*time.Second)
		if err := inst.api.Cancel(ctx, id); err != nil {
			c.log.Warn("cancelling a resubmitted job that was cancelled meanwhile", "job", id, "error", err)
		}
		done()
	}
}

// down records that inst is gone.
func (c *Client) down(inst *instance, why error) {
	c.mu.Lock()
	if c.cur == inst {
		c.cur, c.lastErr = nil, why
		c.ready = make(chan struct{})
	}
	c.mu.Unlock()
	close(inst.dead)
}

// supervise restarts the plugin whenever it dies, until Close, and
// resubmits the jobs the dead one had before the new one takes calls. A
// plugin that exits once Shutdown or Close began is not restarted.
func (c *Client) supervise(inst *instance) {
	defer c.super.Done()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	delay := time.Duration(0)
	for {
		select {
		case <-c.done:
			inst.shutdown()
			return
		case s := <-c.check:
			if s != inst || !inst.gone() {
				continue
			}
		case <-tick.C:
			if !inst.pc.Exited() {
				continue
			}
		}
		uptime := time.Since(inst.started).Round(time.Millisecond)
		if c.isStopping() {
			c.log.Info("the plugin exited during shutdown; not restarting it", "pid", inst.ep.PID, "uptime", uptime)
			c.down(inst, errors.New("filc2 is shutting down"))
			inst.shutdown()
			<-c.done
			return
		}
		why := fmt.Errorf("the plugin (pid %d) died", inst.ep.PID)
		c.log.Error("plugin died; restarting it", "pid", inst.ep.PID, "uptime", uptime)
		c.down(inst, why)
		inst.shutdown()
		if time.Since(inst.started) > time.Minute {
			delay = 0 // it ran a while: not a crash loop
		}
		for {
			select {
			case <-c.done:
				return
			case <-time.After(delay):
			}
			delay = min(max(2*delay, time.Second), c.cfg.MaxRestartDelay)
			next, err := c.start()
			if err == nil {
				if !c.resubmit(next) {
					next.shutdown() // closed meanwhile
					return
				}
				c.restarts.Add(1)
				c.up(next, true)
				inst = next
				break
			}
			c.log.Error("restarting the plugin failed", "error", err, "retry_in", delay)
			c.mu.Lock()
			c.lastErr = err
			c.mu.Unlock()
		}
	}
}

// gone reports whether the plugin process has exited or its connection is
// broken.
func (in *instance) gone() bool { return in.pc.Exited() || in.rpc.Ping() != nil }

// suspect asks the supervisor to check inst now.
func (c *Client) suspect(inst *instance) {
	select {
	case c.check <- inst:
	default:
	}
}

// acquire returns the running plugin, waiting up to ReadyTimeout for one.
func (c *Client) acquire(ctx context.Context) (*instance, error) {
	timeout := time.NewTimer(c.cfg.ReadyTimeout)
	defer timeout.Stop()
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, &UnavailableError{Msg: "the plugin client is closed"}
		}
		inst, ready, why := c.cur, c.ready, c.lastErr
		c.mu.Unlock()
		if inst != nil {
			select {
			case <-inst.dead:
			default:
				return inst, nil
			}
		}
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.done:
		case <-timeout.C:
			return nil, &UnavailableError{Msg: fmt.Sprintf("the plugin is not running (%v)", why)}
		}
	}
}

// call runs f on the running plugin and maps transport failures: a
// connection refused goes to the next plugin; a failure mid-call is an
// *UnavailableError; an ended ctx is ctx.Err().
func call[R any](ctx context.Context, c *Client, f func(inst *instance) (R, error)) (R, *instance, error) {
	var zero R
	for attempt := 0; ; attempt++ {
		inst, err := c.acquire(ctx)
		if err != nil {
			return zero, nil, err
		}
		r, err := f(inst)
		if err == nil {
			return r, inst, nil
		}
		if ctx.Err() != nil {
			return zero, inst, ctx.Err()
		}
		var de *dialError
		var ce *jsonrpc.ErrClient
		switch {
		case errors.As(err, &de) && attempt < 3:
			c.suspect(inst) // never reached it: wait for the next one
			select {
			case <-inst.dead:
			case <-time.After(time.Second):
			}
			continue
		case errors.As(err, &ce):
			// Let the supervisor judge before answering, so that the
			// caller's next call sees the plugin's real state.
			c.suspect(inst)
			select {
			case <-inst.dead:
				if c.isStopping() {
					return zero, inst, &UnavailableError{Msg: fmt.Sprintf("filc2 shut down the plugin (pid %d) during the call (%v)", inst.ep.PID, err)}
				}
				return zero, inst, &UnavailableError{Msg: fmt.Sprintf("the plugin (pid %d) died during the call; it is being restarted (%v)", inst.ep.PID, err)}
			case <-time.After(time.Second):
			}
			return zero, inst, &UnavailableError{Msg: fmt.Sprintf("the call to the plugin (pid %d) failed: %v", inst.ep.PID, err)}
		}
		return zero, inst, clientError(err)
	}
}

// clientError keeps the API's typed errors and wraps anything else.
func clientError(err error) error {
	if w := wireError(err); w != nil {
		if _, internal := w.(*InternalError); !internal || errors.As(err, new(*InternalError)) {
			return w
		}
	}
	var je *jsonrpc.JSONRPCError
	if errors.As(err, &je) {
		return &InternalError{Msg: je.Message}
	}
	return &InternalError{Msg: err.Error()}
}

// SealCommit2 implements Prover. A call whose plugin dies under it is sent
// once more, to the restarted plugin; a second death answers
// *UnavailableError.
func (c *Client) SealCommit2(ctx context.Context, sector SectorRef, c1o Commit1Out) (Proof, error) {
	if err := c.refuseNew(); err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		p, inst, err := call(ctx, c, func(in *instance) (Proof, error) { return in.api.SealCommit2(ctx, sector, c1o) })
		if err != nil && attempt == 0 && ctx.Err() == nil && c.diedUnder(inst, err) {
			c.resubmitted.Add(1)
			c.log.Warn("the plugin died during a SealCommit2; sending it to the restarted plugin", "sector", sector.String(), "pid", inst.ep.PID)
			continue
		}
		return p, err
	}
}

// Submit implements Prover. The Client keeps the request (up to
// Config.ResubmitBytes, by reference: do not modify its bytes until Await
// answered) to resubmit it under its id if the plugin dies.
func (c *Client) Submit(ctx context.Context, req ProveRequest) (JobID, error) {
	if err := c.refuseNew(); err != nil {
		return "", err
	}
	for attempt := 0; ; attempt++ {
		id, inst, err := call(ctx, c, func(in *instance) (JobID, error) { return in.api.Submit(ctx, req) })
		if err != nil {
			// The plugin died under the call: its successor has no such job,
			// so sending it again cannot run it twice.
			if attempt == 0 && ctx.Err() == nil && c.diedUnder(inst, err) {
				continue
			}
			return "", err
		}
		if c.track(id, inst, req) {
			return id, nil
		}
		// The plugin took it and died before the job was tracked, so its
		// restart did not resubmit it: send it again, under its id.
		if attempt > 0 {
			return "", &UnavailableError{Msg: fmt.Sprintf("job %s: the plugin died twice as it was submitted; submit it again", id)}
		}
		req.ID = id
	}
}

// Await implements Prover. A job whose plugin dies is awaited on the
// restarted plugin, where it was resubmitted; its answer comes once.
func (c *Client) Await(ctx context.Context, id JobID) (Result, error) {
	for {
		res, inst, err := call(ctx, c, func(in *instance) (Result, error) {
			if err := c.settled(id, in); err != nil {
				return Result{}, err
			}
			return in.api.Await(ctx, id)
		})
		if err != nil && ctx.Err() == nil && c.willResubmit(id, inst) {
			c.log.Debug("the plugin died with a job being awaited; awaiting it on the restarted plugin", "job", id)
			continue
		}
		if ctx.Err() == nil && !errors.As(err, new(*UnavailableError)) {
			c.untrack(id) // the job's answer; a lost job answers unavailable once more
		}
		return res, err
	}
}

// Cancel implements Prover. A job whose plugin died is cancelled here: it is
// not resubmitted, and its Await answers *CancelledError.
func (c *Client) Cancel(ctx context.Context, id JobID) error {
	if c.cancelHere(id, nil) {
		return nil
	}
	_, inst, err := call(ctx, c, func(in *instance) (struct{}, error) {
		if c.cancelHere(id, in) {
			return struct{}{}, nil
		}
		return struct{}{}, in.api.Cancel(ctx, id)
	})
	if err == nil {
		c.cancelled(id, inst)
	}
	return err
}

// Status implements Prover.
func (c *Client) Status(ctx context.Context) (Status, error) {
	st, _, err := call(ctx, c, func(in *instance) (Status, error) { return in.api.Status(ctx) })
	return st, err
}

// Version implements Prover.
func (c *Client) Version(ctx context.Context) (VersionInfo, error) {
	v, _, err := call(ctx, c, func(in *instance) (VersionInfo, error) { return in.api.Version(ctx) })
	return v, err
}

// Timeline implements Prover.
func (c *Client) Timeline(ctx context.Context, window time.Duration) (string, error) {
	svg, _, err := call(ctx, c, func(in *instance) (string, error) { return in.api.Timeline(ctx, window) })
	return svg, err
}

// PID is the running plugin's process id, 0 while it is down.
func (c *Client) PID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil {
		return 0
	}
	return c.cur.ep.PID
}

// Restarts counts the plugin's restarts.
func (c *Client) Restarts() uint64 { return c.restarts.Load() }

// Close stops the plugin at once (gracefully, then killed after 2 s) and the
// restarts; jobs in flight answer *UnavailableError. Shutdown lets them
// finish first. Calls after Close answer *UnavailableError.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed, c.stopping = true, true
	close(c.done)
	c.mu.Unlock()
	c.super.Wait()
	return nil
}

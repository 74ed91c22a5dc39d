package plugin

import (
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultMaxReadRequestSize bounds a request body or websocket message of a
// caller without write permission (no token, or a read token): the read
// methods (Status, Version, Timeline) take a few bytes of parameters.
const DefaultMaxReadRequestSize = 1 << 20

// Limits bound what callers of the HTTP face can make the server hold:
// request sizes by permission, how long a body, an idle connection and an
// idle websocket may take, and how many connections and websockets are
// open at once. A field ≤ 0 takes its DefaultLimits value.
type Limits struct {
	// MaxRequestSize bounds a request body or websocket message of a caller
	// with write permission (DefaultMaxRequestSize, a 64GiB C1 output).
	MaxRequestSize int64
	// MaxReadRequestSize bounds those of a caller without write permission
	// (DefaultMaxReadRequestSize).
	MaxReadRequestSize int64
	// ReadHeaderTimeout bounds reading a request's headers (10 s).
	ReadHeaderTimeout time.Duration
	// BodyTimeout and MinBodyRate bound reading a body of n bytes to
	// BodyTimeout + n/MinBodyRate (60 s + 1 s per MiB: a 50 MB 32GiB C1
	// output gets 108 s); a body of unknown length (chunked) is timed as
	// one of the caller's largest size.
	BodyTimeout time.Duration
	MinBodyRate int64 // bytes per second (1 MiB/s)
	// IdleTimeout closes a keep-alive connection idle between requests (120 s).
	IdleTimeout time.Duration
	// MaxConnections caps the open connections, websockets included (256).
	// One over the cap waits up to ConnectionWait (1 s) for a slot, then is
	// closed.
	MaxConnections int
	ConnectionWait time.Duration
	// MaxWebsockets caps the open websockets (64), and MaxReadWebsockets
	// those of callers without write permission among them (16); an upgrade
	// over a cap is answered 503.
	MaxWebsockets     int
	MaxReadWebsockets int
	// WebsocketIdle closes a websocket that sends nothing for this long
	// (120 s; go-jsonrpc clients ping every 5 s).
	WebsocketIdle time.Duration
}

// DefaultLimits returns the limits of `filc2 serve`.
func DefaultLimits() Limits {
	return Limits{
		MaxRequestSize:     DefaultMaxRequestSize,
		MaxReadRequestSize: DefaultMaxReadRequestSize,
		ReadHeaderTimeout:  10 * time.Second,
		BodyTimeout:        60 * time.Second,
		MinBodyRate:        1 << 20,
		IdleTimeout:        120 * time.Second,
		MaxConnections:     256,
		ConnectionWait:     time.Second,
		MaxWebsockets:      64,
		MaxReadWebsockets:  16,
		WebsocketIdle:      120 * time.Second,
	}
}

// withDefaults fills the fields ≤ 0 from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	pick64 := func(v *int64, def int64) {
		if *v <= 0 {
			*v = def
		}
	}
	pickInt := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	pickDur := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	pick64(&l.MaxRequestSize, d.MaxRequestSize)
	pick64(&l.MaxReadRequestSize, d.MaxReadRequestSize)
	pick64(&l.MinBodyRate, d.MinBodyRate)
	pickDur(&l.ReadHeaderTimeout, d.ReadHeaderTimeout)
	pickDur(&l.BodyTimeout, d.BodyTimeout)
	pickDur(&l.IdleTimeout, d.IdleTimeout)
	pickDur(&l.ConnectionWait, d.ConnectionWait)
	pickDur(&l.WebsocketIdle, d.WebsocketIdle)
	pickInt(&l.MaxConnections, d.MaxConnections)
	pickInt(&l.MaxWebsockets, d.MaxWebsockets)
	pickInt(&l.MaxReadWebsockets, d.MaxReadWebsockets)
	if l.MaxReadRequestSize > l.MaxRequestSize {
		l.MaxReadRequestSize = l.MaxRequestSize
	}
	return l
}

// bodyTime is how long a body of size bytes may take to arrive.
func (l Limits) bodyTime(size int64) time.Duration {
	return l.BodyTimeout + time.Duration(float64(size)/float64(l.MinBodyRate)*float64(time.Second))
}

// NewHTTPServer returns an http.Server for h with l's deadlines: headers
// within ReadHeaderTimeout (and at most 64 KiB of them), every request body
// within its bodyTime, keep-alive connections closed after IdleTimeout. Serve
// it on LimitListener(ln, l, reg) to cap the connections too. It sets no
// write timeout: SealCommit2 and Await answer when the proof is done.
func NewHTTPServer(h http.Handler, l Limits) *http.Server {
	l = l.withDefaults()
	return &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
				size := r.ContentLength
				if size < 0 {
					size = l.MaxRequestSize
				}
				setBodyDeadline(w, r, l.bodyTime(size))
			}
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		IdleTimeout:       l.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
	}
}

// setBodyDeadline gives r's body until now+d to arrive; the deadline is
// lifted when the body has been read to its end, so that a long call (a
// SealCommit2 waiting for its proof) is not cut by it. It does nothing
// where w cannot set deadlines (a ResponseRecorder).
func setBodyDeadline(w http.ResponseWriter, r *http.Request, d time.Duration) {
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(d)) != nil {
		return
	}
	r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
}

// deadlineBody lifts the connection's read deadline at the end of the body.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) && !b.done {
		b.done = true
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// LimitListener returns ln capped at l.MaxConnections open connections: an
// Accept over the cap waits up to l.ConnectionWait for one to close, then
// closes the new connection and accepts the next. reg (optional) gets
// filc2_http_connections and filc2_http_connections_refused_total.
func LimitListener(ln net.Listener, l Limits, reg prometheus.Registerer) net.Listener {
	l = l.withDefaults()
	cl := &connLimitListener{Listener: ln, slots: make(chan struct{}, l.MaxConnections), wait: l.ConnectionWait,
		open: prometheus.NewGauge(prometheus.GaugeOpts{Name: "filc2_http_connections",
			Help: "Open connections to the Prover API's HTTP listener (websockets included)."}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{Name: "filc2_http_connections_refused_total",
			Help: "Connections closed at once because the listener's connection cap was reached."}),
	}
	if reg != nil {
		cl.open = registerOrExisting(reg, cl.open)
		cl.refused = registerOrExisting(reg, cl.refused)
	}
	return cl
}

// connLimitListener is LimitListener's listener.
type connLimitListener struct {
	net.Listener
	slots   chan struct{}
	wait    time.Duration
	open    prometheus.Gauge
	refused prometheus.Counter
}

func (l *connLimitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
		default:
			t := time.NewTimer(l.wait)
			select {
			case l.slots <- struct{}{}:
				t.Stop()
			case <-t.C:
				l.refused.Inc()
				c.Close()
				continue
			}
		}
		l.open.Inc()
		return &limitedConn{Conn: c, release: func() { <-l.slots; l.open.Dec() }}, nil
	}
}

// limitedConn gives its listener's slot back when it is closed (once).
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// registerOrExisting registers c with reg and returns it, or the collector
// of the same description registered before (two handlers of one server
// share their counters).
func registerOrExisting[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if ex, ok := are.ExistingCollector.(C); ok {
				return ex
			}
		}
	}
	return c
}

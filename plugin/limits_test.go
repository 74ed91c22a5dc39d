package plugin_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
)

// allocated returns the bytes f made the process allocate (TotalAlloc, so
// that what was collected meanwhile counts too).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// repeated is an endless reader of one byte, so that a client can send a
// large body without holding it.
type repeated byte

func (r repeated) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// wsURL is the websocket URL of a test server.
func wsURL(ts *testServer) string { return "ws" + strings.TrimPrefix(ts.url, "http") }

// A 64 MiB websocket message from a caller without a token closes the
// connection without the server holding it (go-jsonrpc reads a message
// whole): sent as gorilla sends it (4 KiB frames of one message) and as one
// frame that declares its size; the process allocates a few MiB at most.
func TestWebsocketMessageLimit(t *testing.T) {
	var running, peak atomic.Int32
	ts := newTestServer(t, fakeProof(0, &running, &peak), 0)
	const size = 64 << 20
	payload := make([]byte, size)
	for i := range payload {
		payload[i] = 'a'
	}

	fragmented := func() {
		c, _, err := websocket.DefaultDialer.Dial(wsURL(ts), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		werr := c.WriteMessage(websocket.TextMessage, payload)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, _, rerr := c.ReadMessage()
		var ne net.Error
		if werr == nil && (rerr == nil || errors.As(rerr, &ne) && ne.Timeout()) {
			t.Errorf("a 64 MiB message without a token: the connection stayed open (write %v, read %v)", werr, rerr)
		}
	}
	if n := allocated(fragmented); n > 16<<20 {
		t.Errorf("a fragmented 64 MiB websocket message made the process allocate %d MiB", n>>20)
	}

	oneFrame := func() {
		c, _, err := websocket.DefaultDialer.Dial(wsURL(ts), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		raw := c.UnderlyingConn()
		hdr := []byte{0x81, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4} // FIN text, masked, 64-bit length
		binary.BigEndian.PutUint64(hdr[2:10], size)
		raw.SetDeadline(time.Now().Add(10 * time.Second))
		var werr error
		if _, werr = raw.Write(hdr); werr == nil {
			for off := 0; off < size && werr == nil; off += 1 << 20 {
				_, werr = raw.Write(payload[off : off+1<<20])
			}
		}
		_, rerr := raw.Read(make([]byte, 1))
		if werr == nil && rerr == nil {
			t.Error("a 64 MiB frame without a token: the connection stayed open")
		}
	}
	if n := allocated(oneFrame); n > 16<<20 {
		t.Errorf("a 64 MiB websocket frame made the process allocate %d MiB", n>>20)
	}
	if got := metric(t, ts.base, `filc2_rpc_refused_total{reason="websocket_message_too_large"}`); got != 2 {
		t.Errorf("websocket_message_too_large counted %v times, want 2", got)
	}
	// The server still serves websockets.
	if _, err := dial(t, wsURL(ts), nil).Version(context.Background()); err != nil {
		t.Fatalf("a websocket after the refused ones: %v", err)
	}
}

// A caller with write permission may send websocket messages up to
// MaxRequestSize: a 3 MiB C1 reaches the prover's input checks (and is
// refused there as bad input); without a token the same closes the
// connection.
func TestWebsocketWriterLimit(t *testing.T) {
	var running, peak atomic.Int32
	ts := newLimitedServer(t, fakeProof(0, &running, &peak), plugin.Limits{MaxRequestSize: 8 << 20})
	junk := make([]byte, 3<<20)
	ctx := context.Background()
	_, err := dial(t, wsURL(ts), bearer(ts.tokens[plugin.PermWrite])).SealCommit2(ctx, plugintest.Sector(1), junk)
	var bad *plugin.BadInputError
	if !errors.As(err, &bad) {
		t.Fatalf("a 3 MiB SealCommit2 with write over websocket: %v, want a BadInputError on the C1", err)
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := dial(t, wsURL(ts), nil).SealCommit2(short, plugintest.Sector(1), junk); errors.As(err, &bad) || err == nil {
		t.Fatalf("a 3 MiB SealCommit2 without a token reached the prover: %v", err)
	}
}

// The websockets open are capped, those without write permission more
// tightly; an upgrade over a cap is answered 503 and a closed websocket
// frees its slot.
func TestWebsocketCaps(t *testing.T) {
	var running, peak atomic.Int32
	ts := newLimitedServer(t, fakeProof(0, &running, &peak), plugin.Limits{MaxWebsockets: 3, MaxReadWebsockets: 1})
	open := func(tok string) (*websocket.Conn, int) {
		c, resp, err := websocket.DefaultDialer.Dial(wsURL(ts), bearer(tok))
		if err != nil {
			if resp == nil {
				t.Fatal(err)
			}
			return nil, resp.StatusCode
		}
		return c, http.StatusSwitchingProtocols
	}
	read, code := open("")
	if code != 101 {
		t.Fatalf("the first websocket without a token: %d", code)
	}
	if _, code := open(""); code != http.StatusServiceUnavailable {
		t.Fatalf("a second websocket without a token: %d, want 503", code)
	}
	w1, code1 := open(ts.tokens[plugin.PermWrite])
	w2, code2 := open(ts.tokens[plugin.PermWrite])
	if code1 != 101 || code2 != 101 {
		t.Fatalf("two websockets with write: %d %d", code1, code2)
	}
	defer w1.Close()
	defer w2.Close()
	if _, code := open(ts.tokens[plugin.PermWrite]); code != http.StatusServiceUnavailable {
		t.Fatalf("a fourth websocket: %d, want 503", code)
	}
	read.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, code := open("")
		if code == 101 {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slot of a closed websocket was not freed: %d", code)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := metric(t, ts.base, `filc2_rpc_refused_total{reason="websocket_limit"}`); got < 2 {
		t.Errorf("websocket_limit counted %v times, want at least 2", got)
	}
}

// A websocket that sends nothing for WebsocketIdle is closed.
func TestWebsocketIdle(t *testing.T) {
	var running, peak atomic.Int32
	ts := newLimitedServer(t, fakeProof(0, &running, &peak), plugin.Limits{WebsocketIdle: 200 * time.Millisecond})
	c, _, err := websocket.DefaultDialer.Dial(wsURL(ts), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	t0 := time.Now()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("an idle websocket was not closed within 10 s")
			}
			break
		}
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("an idle websocket closed after %v", d)
	}
}

// Without a token a body is bounded by MaxReadRequestSize: a 64 MiB chunked
// one is refused when it crosses it, without the server holding it, and a
// declared 64 MiB one at once.
func TestReadCallerBodyLimit(t *testing.T) {
	var running, peak atomic.Int32
	ts := newTestServer(t, fakeProof(0, &running, &peak), 0)
	post := func(body io.Reader, length int64) (int, string) {
		req, _ := http.NewRequest("POST", ts.url, body)
		req.ContentLength = length
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	body := func() io.Reader {
		return io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":"big","method":"Filc2.Version","params":["`),
			io.LimitReader(repeated('a'), 64<<20))
	}
	var code int
	var out string
	// The server reads at most another MiB of a refused body, then closes
	// the connection: the answer usually reaches the client, which is still
	// sending, but may be lost to the reset (code 0), as for the declared one.
	n := allocated(func() { code, out = post(body(), -1) })
	if code != 0 && (code != http.StatusBadRequest || !strings.Contains(out, `"id":"big"`) || !strings.Contains(out, "over the limit of 1048576")) {
		t.Errorf("a chunked 64 MiB body without a token: %d %s", code, out)
	}
	if n > 16<<20 {
		t.Errorf("a chunked 64 MiB body without a token made the process allocate %d MiB", n>>20)
	}
	n = allocated(func() { code, out = post(body(), 64<<20+60) })
	if code != 0 && (code != http.StatusBadRequest || !strings.Contains(out, "over the limit of 1048576")) {
		t.Errorf("a 64 MiB body without a token: %d %s", code, out)
	}
	if n > 16<<20 {
		t.Errorf("a 64 MiB body without a token made the process allocate %d MiB", n>>20)
	}
	if got := metric(t, ts.base, `filc2_rpc_refused_total{reason="too_large"}`); got != 2 {
		t.Errorf("too_large counted %v times, want 2", got)
	}
}

// The token is checked before any of the body is read, even in ?token= with
// a form body (go-jsonrpc's auth.Handler parses the form first): a bad token
// is answered 401 while the body has not arrived.
func TestTokenCheckedBeforeBody(t *testing.T) {
	var running, peak atomic.Int32
	ts := newTestServer(t, fakeProof(0, &running, &peak), 0)
	host := strings.TrimPrefix(ts.base, "http://")
	for _, req := range []string{
		"POST /rpc/v0?token=" + ts.bad + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n",
		"POST /rpc/v0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ts.bad + "\r\nContent-Length: 1000\r\n\r\n",
	} {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil || resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%.40q… with its body not sent: %v %v, want 401 at once", req, resp, err)
		}
	}
}

// limitedServer serves NewHandler through NewHTTPServer on a LimitListener.
func limitedServer(t *testing.T, prove plugin.ProveFunc, l plugin.Limits) (ts *testServer, reg *prometheus.Registry) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	secret := make([]byte, 32)
	svc := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, QueueSize: 8, Prove: prove})
	t.Cleanup(func() { svc.Close() })
	reg = prometheus.NewRegistry()
	srv := plugin.NewHTTPServer(plugin.NewHandler(plugin.HandlerConfig{Prover: plugin.NewServer(svc, "test"),
		Verify: plugin.TokenVerifier(secret), Limits: l, Registry: reg}), l)
	go srv.Serve(plugin.LimitListener(ln, l, reg))
	t.Cleanup(func() { srv.Close() })
	base := "http://" + ln.Addr().String()
	ts = &testServer{url: base + plugin.RPCPath, base: base, tokens: map[auth.Permission]string{}, secret: secret}
	ts.tokens[plugin.PermWrite], _ = plugin.NewToken(secret, []auth.Permission{plugin.PermRead, plugin.PermWrite})
	return ts, reg
}

// closedWithin reports whether the server closes c (a read ends in EOF or
// a reset, not the local deadline) within d.
func closedWithin(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// A body trickling a byte at a time is cut after BodyTimeout; the deadline
// is lifted once the body is in, so a call that answers later than it
// still completes.
func TestSlowBody(t *testing.T) {
	var running, peak atomic.Int32
	l := plugin.Limits{BodyTimeout: 300 * time.Millisecond, MinBodyRate: 1 << 30}
	ts, _ := limitedServer(t, fakeProof(time.Second, &running, &peak), l)
	c, err := net.Dial("tcp", strings.TrimPrefix(ts.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /rpc/v0 HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
	t0 := time.Now()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				if _, err := c.Write([]byte{' '}); err != nil {
					return
				}
			}
		}
	}()
	if !closedWithin(c, 5*time.Second) {
		t.Fatal("a body trickling a byte every 50 ms was held for 5 s (BodyTimeout 300 ms)")
	}
	t.Logf("a trickling body was cut after %v", time.Since(t0))

	a, _ := plugintest.Sealed(t)
	if proof, err := dial(t, ts.url, bearer(ts.tokens[plugin.PermWrite])).SealCommit2(context.Background(), plugintest.Sector(1), a); err != nil || string(proof) != "fake proof" {
		t.Fatalf("a SealCommit2 answering after the body deadline: %q %v", proof, err)
	}
}

// A keep-alive connection idle for IdleTimeout is closed, and one that
// never sends its headers is closed after ReadHeaderTimeout.
func TestIdleConnection(t *testing.T) {
	var running, peak atomic.Int32
	l := plugin.Limits{IdleTimeout: 200 * time.Millisecond, ReadHeaderTimeout: 200 * time.Millisecond}
	ts, _ := limitedServer(t, fakeProof(0, &running, &peak), l)
	host := strings.TrimPrefix(ts.base, "http://")
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	if !closedWithin(c, 5*time.Second) {
		t.Fatal("an idle keep-alive connection was held for 5 s (IdleTimeout 200 ms)")
	}
	silent, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	if !closedWithin(silent, 5*time.Second) {
		t.Fatal("a connection that sends nothing was held for 5 s (ReadHeaderTimeout 200 ms)")
	}
}

// Connections over MaxConnections wait ConnectionWait for a slot and are
// then closed; a closed connection frees its slot.
func TestConnectionCap(t *testing.T) {
	var running, peak atomic.Int32
	l := plugin.Limits{MaxConnections: 2, ConnectionWait: 100 * time.Millisecond}
	ts, reg := limitedServer(t, fakeProof(0, &running, &peak), l)
	host := strings.TrimPrefix(ts.base, "http://")
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	over, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	if !closedWithin(over, 5*time.Second) {
		t.Fatal("a connection over the cap was held for 5 s")
	}
	held[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get(ts.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no connection after one was closed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	mfs, _ := reg.Gather()
	refused := 0.0
	for _, mf := range mfs {
		if mf.GetName() == "filc2_http_connections_refused_total" {
			refused = mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	if refused < 1 {
		t.Errorf("filc2_http_connections_refused_total = %v, want ≥ 1", refused)
	}
}

package plugin

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// go-jsonrpc v0.10.0 upgrades websockets with a package-level gorilla
// Upgrader that sets no read limit, and reads every message whole into
// memory: a caller could make the server hold a message of any size. The
// types here put the limit in front: the hijacked connection parses the
// frame headers that pass through it (RFC 6455 §5.2) and closes the
// connection when the frames of one message declare more than the limit,
// before their payload is read. go-jsonrpc negotiates no compression, so a
// frame's declared length is the bytes it will hold.

// errWSMessageTooLarge is the read error of a websocket connection whose
// message crossed its limit.
var errWSMessageTooLarge = errors.New("websocket message over the size limit")

// wsLimitWriter hands out, when the websocket library hijacks the
// connection, one that enforces the message limit and the idle deadline.
type wsLimitWriter struct {
	http.ResponseWriter
	limit   int64
	idle    time.Duration // 0: none
	onLimit func()        // called once when a message crosses the limit (optional)
}

// Hijack returns the connection behind a wsLimitConn. The bufio.Reader
// gorilla gets is reset onto that connection (gorilla refuses a hijacked
// reader with buffered bytes, then resets it onto the net.Conn returned).
func (w *wsLimitWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("websocket: the connection cannot be hijacked")
	}
	c, brw, err := h.Hijack()
	if err != nil {
		return nil, nil, err
	}
	wc := &wsLimitConn{Conn: c, limit: uint64(w.limit), idle: w.idle, onLimit: w.onLimit}
	if brw.Reader.Buffered() == 0 {
		brw.Reader.Reset(wc)
	}
	return wc, brw, nil
}

// wsLimitConn is a server-side websocket connection whose reads are parsed
// frame by frame: a message (a text or binary frame and its continuations)
// declaring more than limit payload bytes closes the connection, and so
// does a read that waits longer than idle.
type wsLimitConn struct {
	net.Conn
	limit   uint64
	idle    time.Duration
	onLimit func()
	err     error

	hdr     [14]byte // the frame header being read
	have    int      // bytes of it read
	skip    uint64   // payload bytes of the current frame still to pass
	message uint64   // payload bytes of the current data message so far
}

func (c *wsLimitConn) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.idle > 0 {
		c.Conn.SetReadDeadline(time.Now().Add(c.idle))
	}
	n, err := c.Conn.Read(p)
	if ferr := c.scan(p[:n]); ferr != nil {
		c.err = ferr
		c.Conn.Close()
		if c.onLimit != nil {
			c.onLimit()
		}
		return 0, ferr
	}
	return n, err
}

// scan advances the frame parser over b.
func (c *wsLimitConn) scan(b []byte) error {
	for len(b) > 0 {
		if c.skip > 0 {
			k := min(c.skip, uint64(len(b)))
			c.skip -= k
			b = b[k:]
			continue
		}
		c.hdr[c.have] = b[0]
		c.have++
		b = b[1:]
		if c.have < 2 || c.have < headerLen(c.hdr[1]) {
			continue
		}
		size := payloadLen(c.hdr[:c.have])
		c.have = 0
		c.skip = size
		switch op := c.hdr[0] & 0x0f; {
		case op >= 8: // control frames are at most 125 bytes (gorilla checks)
		case op == 0: // continuation
			if size > c.limit-min(c.message, c.limit) {
				return fmt.Errorf("%w: a fragmented message over %d bytes", errWSMessageTooLarge, c.limit)
			}
			c.message += size
		default: // the first frame of a text or binary message
			if size > c.limit {
				return fmt.Errorf("%w: a frame of %d bytes, over the limit of %d", errWSMessageTooLarge, size, c.limit)
			}
			c.message = size
		}
	}
	return nil
}

// headerLen is the length of a frame header whose second byte is b1.
func headerLen(b1 byte) int {
	n := 2
	switch b1 & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if b1&0x80 != 0 { // masked: every client frame
		n += 4
	}
	return n
}

// payloadLen reads the payload length of a whole frame header.
func payloadLen(h []byte) uint64 {
	switch l := h[1] & 0x7f; l {
	case 126:
		return uint64(binary.BigEndian.Uint16(h[2:4]))
	case 127:
		return binary.BigEndian.Uint64(h[2:10])
	default:
		return uint64(l)
	}
}

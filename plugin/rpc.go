package plugin

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/go-jsonrpc/auth"
)

// The permissions of the Prover API, lotus's names. A token with write has
// read too; admin has all three.
const (
	PermRead  auth.Permission = "read"
	PermWrite auth.Permission = "write"
	PermAdmin auth.Permission = "admin"
)

// AllPermissions are the permissions a token may carry.
var AllPermissions = []auth.Permission{PermRead, PermWrite, PermAdmin}

// DefaultPermissions are those of a caller without a token, as in lotus:
// read (Status, Version).
var DefaultPermissions = []auth.Permission{PermRead}

// Permissioned returns p behind permission checks: each method needs the
// permission of its perm tag in ProverStruct (read for Status and Version,
// write for the rest). A caller whose context has no permissions (no
// token; see auth.Handler) has defaults. A refused call answers
// *PermissionError.
func Permissioned(p Prover, defaults []auth.Permission) *ProverStruct {
	out := new(ProverStruct)
	BindProxy(p, &out.Internal, func(ctx context.Context, method string, need auth.Permission) error {
		if auth.HasPerm(ctx, defaults, need) {
			return nil
		}
		return &PermissionError{Method: Namespace + "." + method, Need: need}
	})
	return out
}

// BindProxy fills the function fields of the struct *out with calls of
// in's methods of the same names, each after check (with the field's perm
// tag) passes; a failed check is returned as the call's error.
func BindProxy(in any, out any, check func(ctx context.Context, method string, need auth.Permission) error) {
	src := reflect.ValueOf(in)
	dst := reflect.ValueOf(out).Elem()
	for i := range dst.NumField() {
		f := dst.Type().Field(i)
		need := auth.Permission(f.Tag.Get("perm"))
		valid := false
		for _, p := range AllPermissions {
			valid = valid || p == need
		}
		if !valid {
			panic(fmt.Sprintf("plugin: field %s has perm tag %q, want one of %v", f.Name, need, AllPermissions))
		}
		fn := src.MethodByName(f.Name)
		if !fn.IsValid() || fn.Type() != f.Type {
			panic(fmt.Sprintf("plugin: %T has no method %s of type %v", in, f.Name, f.Type))
		}
		name, typ := f.Name, f.Type
		dst.Field(i).Set(reflect.MakeFunc(typ, func(args []reflect.Value) []reflect.Value {
			ctx := args[0].Interface().(context.Context)
			err := check(ctx, name, need)
			if err == nil {
				return fn.Call(args)
			}
			res := make([]reflect.Value, typ.NumOut())
			for k := range res {
				res[k] = reflect.Zero(typ.Out(k))
			}
			res[len(res)-1] = reflect.ValueOf(&err).Elem()
			return res
		}))
	}
}

// NewRPCServer returns a go-jsonrpc server with p registered as the
// Prover API (only its six methods), the typed errors and the request size
// limit (≤ 0: DefaultMaxRequestSize).
func NewRPCServer(p Prover, maxRequestSize int64) *jsonrpc.RPCServer {
	if maxRequestSize <= 0 {
		maxRequestSize = DefaultMaxRequestSize
	}
	srv := jsonrpc.NewServer(jsonrpc.WithServerErrors(Errors()), jsonrpc.WithMaxRequestSize(maxRequestSize))
	ps, ok := p.(*ProverStruct)
	if !ok {
		ps = new(ProverStruct)
		BindProxy(p, &ps.Internal, func(context.Context, string, auth.Permission) error { return nil })
	}
	srv.Register(Namespace, ps)
	return srv
}

// MaxDiscard is how much of an oversized request body is read and dropped
// so that the client gets the answer; beyond it the connection is closed.
const MaxDiscard = 4 << 30

// LimitRequestSize answers a JSON-RPC POST larger than max with a
// *BadInputError (with the request's id, read from the start of the body,
// so that go-jsonrpc clients match it) instead of go-jsonrpc's untyped parse
// error with no id. A body of unknown length (chunked) is streamed to next
// and refused when it crosses max, not buffered first. A websocket's
// messages are bounded by max too (the connection closes on a larger one).
func LimitRequestSize(max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isWebsocket(r) {
			next.ServeHTTP(&wsLimitWriter{ResponseWriter: w, limit: max}, r)
			return
		}
		serveBounded(w, r, next, max, MaxDiscard, "a C1 output may have at most "+fmt.Sprint(MaxC1Size)+" bytes")
	})
}

// isWebsocket reports whether r asks for a websocket upgrade, the test
// go-jsonrpc's server applies.
func isWebsocket(r *http.Request) bool {
	return strings.Contains(strings.ToLower(r.Header.Get("Connection")), "upgrade")
}

// errBodyTooLarge is a boundedBody's read error past its limit.
var errBodyTooLarge = errors.New("request body over the size limit")

// serveBounded serves next with r's body bounded to max bytes. A POST
// declaring more is answered at once (tooLarge); one that turns out larger
// while next reads it (chunked) makes the read fail, next's answer is
// dropped and tooLarge answers instead. At most discard bytes of a refused
// body are read and dropped so that the client sees the answer; beyond them
// the connection is closed. It returns the status next wrote (0: none) and
// whether the body was refused.
func serveBounded(w http.ResponseWriter, r *http.Request, next http.Handler, max, discard int64, hint string) (status int, refused bool) {
	if r.Method == http.MethodPost && r.ContentLength > max {
		prefix := make([]byte, min(64<<10, max))
		n, _ := io.ReadFull(r.Body, prefix)
		tooLarge(w, r, prefix[:n], fmt.Sprintf("%d bytes", r.ContentLength), max, discard, hint)
		return 0, true
	}
	body := &boundedBody{ReadCloser: r.Body, max: max}
	r.Body = body
	rw := &boundedWriter{ResponseWriter: w, body: body}
	next.ServeHTTP(rw, r)
	if body.over {
		r.Body = body.ReadCloser // the rest is discarded from the connection
		tooLarge(w, r, body.prefix, fmt.Sprintf("over %d bytes", max), max, discard, hint)
		return 0, true
	}
	return rw.status, false
}

// boundedBody fails a read that takes it past max bytes, keeping the first
// 64 KiB (where the request's id is).
type boundedBody struct {
	io.ReadCloser
	max    int64
	n      int64
	prefix []byte
	over   bool
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.over {
		return 0, errBodyTooLarge
	}
	n, err := b.ReadCloser.Read(p)
	if keep := min(n, 64<<10-len(b.prefix)); keep > 0 {
		b.prefix = append(b.prefix, p[:keep]...)
	}
	b.n += int64(n)
	if b.n > b.max {
		b.over = true
		return 0, errBodyTooLarge
	}
	return n, err
}

// boundedWriter drops what the handler writes once its body was refused,
// and records the status it wrote.
type boundedWriter struct {
	http.ResponseWriter
	body   *boundedBody
	status int
}

func (w *boundedWriter) WriteHeader(code int) {
	if w.body.over {
		return
	}
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *boundedWriter) Write(b []byte) (int, error) {
	if w.body.over {
		return len(b), nil
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// tooLarge drops the rest of an oversized request (up to discard bytes)
// and answers it with a *BadInputError carrying the id found at the start
// of its body.
func tooLarge(w http.ResponseWriter, r *http.Request, start []byte, size string, max, discard int64, hint string) {
	id := requestID(start)
	if d, _ := io.Copy(io.Discard, io.LimitReader(r.Body, discard)); d == discard {
		w.Header().Set("Connection", "close")
	}
	writeRPCError(w, http.StatusBadRequest, id, &BadInputError{Field: "request",
		Msg: fmt.Sprintf("%s, over the limit of %d bytes (%s)", size, max, hint)})
}

// requestID reads the "id" of a JSON-RPC request from the start of its
// body, where go-jsonrpc clients put it (before "params"); nil if it is not
// there.
func requestID(b []byte) any {
	if len(b) > 64<<10 {
		b = b[:64<<10]
	}
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil
		}
		key, _ := t.(string)
		if key == "params" {
			return nil
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil
		}
		if key == "id" {
			var id any
			if json.Unmarshal(v, &id) != nil {
				return nil
			}
			switch id.(type) {
			case string, float64:
				return id
			}
			return nil
		}
	}
	return nil
}

// writeRPCError writes a JSON-RPC error response for a typed error.
func writeRPCError(w http.ResponseWriter, status int, id any, e interface {
	ToJSONRPCError() (jsonrpc.JSONRPCError, error)
}) {
	je, err := e.ToJSONRPCError()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": je})
}

// requireToken passes requests that carry "Authorization: Bearer token".
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

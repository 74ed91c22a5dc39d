package plugin

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
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
// error with no id. A body of unknown length is buffered up to max.
// Websocket upgrades pass untouched: go-jsonrpc v0.10.0 does not bound
// websocket messages, so there only ParseRequest's MaxC1Size applies.
func LimitRequestSize(max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || strings.Contains(strings.ToLower(r.Header.Get("Connection")), "upgrade") {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength >= 0 && r.ContentLength <= max {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > max {
			prefix := make([]byte, 64<<10)
			n, _ := io.ReadFull(r.Body, prefix)
			tooLarge(w, r, prefix[:n], fmt.Sprintf("%d bytes", r.ContentLength), max)
			return
		}
		// Unknown length (chunked): buffer up to the limit.
		var buf bytes.Buffer
		n, err := buf.ReadFrom(io.LimitReader(r.Body, max+1))
		if err != nil {
			http.Error(w, "reading request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if n > max {
			tooLarge(w, r, buf.Bytes(), fmt.Sprintf("over %d bytes", max), max)
			return
		}
		r.Body = io.NopCloser(&buf)
		r.ContentLength = n
		next.ServeHTTP(w, r)
	})
}

// tooLarge drops the rest of an oversized request and answers it with a
// *BadInputError carrying the id found at the start of its body.
func tooLarge(w http.ResponseWriter, r *http.Request, start []byte, size string, max int64) {
	id := requestID(start)
	if d, _ := io.Copy(io.Discard, io.LimitReader(r.Body, MaxDiscard)); d == MaxDiscard {
		w.Header().Set("Connection", "close")
	}
	writeRPCError(w, http.StatusBadRequest, id, &BadInputError{Field: "request",
		Msg: fmt.Sprintf("%s, over the limit of %d bytes (a C1 output may have at most %d bytes)", size, max, MaxC1Size)})
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

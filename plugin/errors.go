package plugin

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/go-jsonrpc/auth"
)

// The JSON-RPC error codes of the Prover API's typed errors. Each error
// travels as {"code":N,"message":"…","meta":{…its fields…}} and a client made
// with WithErrors(Errors()) gets the typed value back, for errors.As.
const (
	CodeBadInput    jsonrpc.ErrorCode = jsonrpc.FirstUserCode + iota // *BadInputError
	CodeBusy                                                         // *BusyError
	CodeCancelled                                                    // *CancelledError
	CodeNotFound                                                     // *NotFoundError
	CodeInternal                                                     // *InternalError
	CodeUnavailable                                                  // *UnavailableError
	CodePermission                                                   // *PermissionError
)

// Errors returns the registry of the Prover API's typed errors, for
// jsonrpc.WithServerErrors and jsonrpc.WithErrors.
func Errors() jsonrpc.Errors {
	e := jsonrpc.NewErrors()
	e.Register(CodeBadInput, new(*BadInputError))
	e.Register(CodeBusy, new(*BusyError))
	e.Register(CodeCancelled, new(*CancelledError))
	e.Register(CodeNotFound, new(*NotFoundError))
	e.Register(CodeInternal, new(*InternalError))
	e.Register(CodeUnavailable, new(*UnavailableError))
	e.Register(CodePermission, new(*PermissionError))
	return e
}

// BadInputError is a request the prover refuses before queueing it: a C1
// that does not decode or validate, a proof type or size that does not match
// the sector, a request over the size limit. Sending it again will not help.
type BadInputError struct {
	Field string // what is wrong: "Commit1Out", "Sector.ProofType", "ID", "request"…
	Msg   string // why, naming the JSON path inside the C1 where there is one
}

// Error implements error.
func (e *BadInputError) Error() string {
	if e.Field == "" {
		return "bad input: " + e.Msg
	}
	return "bad input: " + e.Field + ": " + e.Msg
}

// ToJSONRPCError implements jsonrpc.RPCErrorCodec.
func (e *BadInputError) ToJSONRPCError() (jsonrpc.JSONRPCError, error) {
	return toRPC(CodeBadInput, e)
}

// FromJSONRPCError implements jsonrpc.RPCErrorCodec.
func (e *BadInputError) FromJSONRPCError(j jsonrpc.JSONRPCError) error {
	return fromRPC(j, e, &e.Msg)
}

// BusyError is a request refused because the queue is full. Retry later.
type BusyError struct {
	Queued   int // jobs waiting
	Capacity int // the queue's capacity
}

// Error implements error.
func (e *BusyError) Error() string {
	return fmt.Sprintf("busy: the queue is full (%d of %d jobs waiting); retry later", e.Queued, e.Capacity)
}

// ToJSONRPCError implements jsonrpc.RPCErrorCodec.
func (e *BusyError) ToJSONRPCError() (jsonrpc.JSONRPCError, error) { return toRPC(CodeBusy, e) }

// FromJSONRPCError implements jsonrpc.RPCErrorCodec.
func (e *BusyError) FromJSONRPCError(j jsonrpc.JSONRPCError) error { return fromRPC(j, e, nil) }

// CancelledError is the answer for a job that was cancelled (by Cancel, or
// because the SealCommit2 call that started it went away).
type CancelledError struct {
	ID JobID
}

// Error implements error.
func (e *CancelledError) Error() string { return fmt.Sprintf("job %s was cancelled", e.ID) }

// ToJSONRPCError implements jsonrpc.RPCErrorCodec.
func (e *CancelledError) ToJSONRPCError() (jsonrpc.JSONRPCError, error) {
	return toRPC(CodeCancelled, e)
}

// FromJSONRPCError implements jsonrpc.RPCErrorCodec.
func (e *CancelledError) FromJSONRPCError(j jsonrpc.JSONRPCError) error { return fromRPC(j, e, nil) }

// NotFoundError is a job id the prover does not know: never submitted here,
// or finished long enough ago to be forgotten.
type NotFoundError struct {
	ID JobID
}

// Error implements error.
func (e *NotFoundError) Error() string { return fmt.Sprintf("no job %q", e.ID) }

// ToJSONRPCError implements jsonrpc.RPCErrorCodec.
func (e *NotFoundError) ToJSONRPCError() (jsonrpc.JSONRPCError, error) {
	return toRPC(CodeNotFound, e)
}

// FromJSONRPCError implements jsonrpc.RPCErrorCodec.
func (e *NotFoundError) FromJSONRPCError(j jsonrpc.JSONRPCError) error { return fromRPC(j, e, nil) }

// InternalError is a job that failed on the prover's side: parameters
// missing or broken, a proof that did not verify, a crash in proving.
type InternalError struct {
	Msg string
}

// Error implements error.
func (e *InternalError) Error() string { return "prover error: " + e.Msg }

// ToJSONRPCError implements jsonrpc.RPCErrorCodec.
func (e *InternalError) ToJSONRPCError() (jsonrpc.JSONRPCError, error) {
	return toRPC(CodeInternal, e)
}

// FromJSONRPCError implements jsonrpc.RPCErrorCodec.
func (e *InternalError) FromJSONRPCError(j jsonrpc.JSONRPCError) error {
	return fromRPC(j, e, &e.Msg)
}

// UnavailableError means the prover could not be reached or went away with
// the job: the plugin process died (it is being restarted), is not up yet,
// or is shutting down. The job is lost; submitting it again is safe.
type UnavailableError struct {
	Msg string
}

// Error implements error.
func (e *UnavailableError) Error() string { return "prover unavailable (retry): " + e.Msg }

// ToJSONRPCError implements jsonrpc.RPCErrorCodec.
func (e *UnavailableError) ToJSONRPCError() (jsonrpc.JSONRPCError, error) {
	return toRPC(CodeUnavailable, e)
}

// FromJSONRPCError implements jsonrpc.RPCErrorCodec.
func (e *UnavailableError) FromJSONRPCError(j jsonrpc.JSONRPCError) error {
	return fromRPC(j, e, &e.Msg)
}

// PermissionError is a call whose token lacks the method's permission.
type PermissionError struct {
	Method string
	Need   auth.Permission
}

// Error implements error.
func (e *PermissionError) Error() string {
	return fmt.Sprintf("permission denied: %s needs a token with %q permission", e.Method, e.Need)
}

// ToJSONRPCError implements jsonrpc.RPCErrorCodec.
func (e *PermissionError) ToJSONRPCError() (jsonrpc.JSONRPCError, error) {
	return toRPC(CodePermission, e)
}

// FromJSONRPCError implements jsonrpc.RPCErrorCodec.
func (e *PermissionError) FromJSONRPCError(j jsonrpc.JSONRPCError) error {
	return fromRPC(j, e, nil)
}

// IsRetryable reports whether sending the same request again may succeed:
// the prover was busy or unavailable.
func IsRetryable(err error) bool {
	var b *BusyError
	var u *UnavailableError
	return errors.As(err, &b) || errors.As(err, &u)
}

// toRPC encodes a typed error: its message and its fields as meta.
func toRPC(code jsonrpc.ErrorCode, e error) (jsonrpc.JSONRPCError, error) {
	meta, err := json.Marshal(e)
	if err != nil {
		return jsonrpc.JSONRPCError{}, err
	}
	return jsonrpc.JSONRPCError{Code: code, Message: e.Error(), Meta: meta}, nil
}

// fromRPC decodes a typed error's fields from meta; without meta the
// message goes to *msg, when the type has a message field.
func fromRPC(j jsonrpc.JSONRPCError, e any, msg *string) error {
	if len(j.Meta) > 0 {
		return json.Unmarshal(j.Meta, e)
	}
	if msg != nil {
		*msg = j.Message
	}
	return nil
}

// wireError returns err as one of the API's typed errors, unwrapped, so that
// go-jsonrpc finds its registered code (it matches the dynamic type exactly).
func wireError(err error) error {
	if err == nil {
		return nil
	}
	var (
		bad   *BadInputError
		busy  *BusyError
		canc  *CancelledError
		nf    *NotFoundError
		inter *InternalError
		unav  *UnavailableError
		perm  *PermissionError
	)
	switch {
	case errors.As(err, &bad):
		return bad
	case errors.As(err, &busy):
		return busy
	case errors.As(err, &canc):
		return canc
	case errors.As(err, &nf):
		return nf
	case errors.As(err, &unav):
		return unav
	case errors.As(err, &perm):
		return perm
	case errors.As(err, &inter):
		return inter
	}
	return &InternalError{Msg: err.Error()}
}

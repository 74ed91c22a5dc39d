package plugin_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/plugintest"
)

// Lotus's storiface.SectorRef, CallID-style JSON, exactly.
func TestSectorRefJSON(t *testing.T) {
	s := plugin.SectorRef{ID: abi.SectorID{Miner: 1000, Number: 42}, ProofType: abi.RegisteredSealProof_StackedDrg32GiBV1_1}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"ID":{"Miner":1000,"Number":42},"ProofType":8}`; string(b) != want {
		t.Fatalf("SectorRef JSON %s, want %s", b, want)
	}
	req := plugin.ProveRequest{ID: "job-1", Sector: s, Commit1Out: plugin.Commit1Out("{}"), Priority: 3}
	b, _ = json.Marshal(req)
	if want := `{"ID":"job-1","Sector":{"ID":{"Miner":1000,"Number":42},"ProofType":8},"Commit1Out":"e30=","Priority":3}`; string(b) != want {
		t.Fatalf("ProveRequest JSON %s, want %s", b, want)
	}
	if v := plugin.NewAPIVersion(1, 7, 0); uint32(v) != 1<<16|7<<8 || v.String() != "1.7.0" || !v.EqMajorMinor(plugin.NewAPIVersion(1, 7, 3)) {
		t.Fatalf("version %d %s", v, v)
	}
}

// dial makes a typed go-jsonrpc client of the Prover API at url.
func dial(t *testing.T, url string, header http.Header) *plugin.ProverStruct {
	t.Helper()
	var api plugin.ProverStruct
	closer, err := jsonrpc.NewMergeClient(context.Background(), url, plugin.Namespace, []any{&api.Internal}, header,
		jsonrpc.WithErrors(plugin.Errors()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closer)
	return &api
}

// Every typed error crosses JSON-RPC (HTTP and websocket) as itself, fields
// included, so clients can tell them apart with errors.As.
func TestTypedErrorsOverRPC(t *testing.T) {
	cases := []struct {
		err   error
		check func(error) bool
	}{
		{&plugin.BadInputError{Field: "Commit1Out", Msg: "c1: seed: zero"}, func(err error) bool {
			var e *plugin.BadInputError
			return errors.As(err, &e) && e.Field == "Commit1Out" && e.Msg == "c1: seed: zero"
		}},
		{&plugin.BusyError{Queued: 64, Capacity: 64}, func(err error) bool {
			var e *plugin.BusyError
			return errors.As(err, &e) && e.Queued == 64 && e.Capacity == 64 && plugin.IsRetryable(err)
		}},
		{&plugin.CancelledError{ID: "j1"}, func(err error) bool {
			var e *plugin.CancelledError
			return errors.As(err, &e) && e.ID == "j1" && !plugin.IsRetryable(err)
		}},
		{&plugin.NotFoundError{ID: "nope"}, func(err error) bool {
			var e *plugin.NotFoundError
			return errors.As(err, &e) && e.ID == "nope"
		}},
		{&plugin.InternalError{Msg: "params missing"}, func(err error) bool {
			var e *plugin.InternalError
			return errors.As(err, &e) && e.Msg == "params missing"
		}},
		{&plugin.UnavailableError{Msg: "plugin died"}, func(err error) bool {
			var e *plugin.UnavailableError
			return errors.As(err, &e) && e.Msg == "plugin died" && plugin.IsRetryable(err)
		}},
		{&plugin.PermissionError{Method: "Filc2.Submit", Need: plugin.PermWrite}, func(err error) bool {
			var e *plugin.PermissionError
			return errors.As(err, &e) && e.Method == "Filc2.Submit" && e.Need == plugin.PermWrite
		}},
	}
	for _, tc := range cases {
		srv := httptest.NewServer(plugin.NewRPCServer(plugintest.ErrProver{Err: tc.err}, 0))
		for _, url := range []string{srv.URL, "ws" + strings.TrimPrefix(srv.URL, "http")} {
			api := dial(t, url, nil)
			_, err := api.Submit(context.Background(), plugin.ProveRequest{})
			if !tc.check(err) {
				t.Errorf("%T over %s: got %T %v", tc.err, url[:2], err, err)
			}
			if err != nil && err.Error() != tc.err.Error() {
				t.Errorf("%T over %s: message %q, want %q", tc.err, url[:2], err, tc.err)
			}
		}
		srv.Close()
	}
	// An error outside the registry is a plain *jsonrpc.JSONRPCError (Server
	// never returns one: it wraps such errors in *InternalError).
	srv := httptest.NewServer(plugin.NewRPCServer(plugintest.ErrProver{Err: errors.New("boom")}, 0))
	defer srv.Close()
	_, err := dial(t, srv.URL, nil).Status(context.Background())
	var je *jsonrpc.JSONRPCError
	if !errors.As(err, &je) || je.Message != "boom" {
		t.Errorf("untyped error: %T %v", err, err)
	}
}

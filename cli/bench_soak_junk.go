package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/filc2/filc2/plugin"
)

// bench soak's junk requests: each must get an error answer, in time, and
// leave serve up.

// soakJunkKinds is the number of kinds of junk request.
const soakJunkKinds = 8

// junk sends one junk request of a random kind and counts it; one answered
// without an error, or not within 30 s, is a junk failure.
func (s *soak) junk(ctx context.Context, rng *rand.Rand) {
	jctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	kind, err := s.sendJunk(jctx, rng, rng.IntN(soakJunkKinds))
	s.add(&s.rep.JunkRequests)
	if err != nil && ctx.Err() == nil {
		s.add(&s.rep.JunkFailures)
		s.problem("junk "+kind, "%v", err)
	}
}

// sendJunk sends junk request kind and returns its name and nil when it was
// answered with an error.
func (s *soak) sendJunk(ctx context.Context, rng *rand.Rand, kind int) (string, error) {
	sec := s.sectors[rng.IntN(len(s.sectors))]
	id := plugin.JobID(fmt.Sprintf("soak-junk-%d", rng.Uint64()))
	switch kind {
	case 0:
		return "malformed JSON", s.rawRPC(ctx, s.token, []byte(`{"jsonrpc":"2.0","id":7,"method":"Filc2.Submit","params":[{"ID":`))
	case 1:
		return "unknown method", s.rawRPC(ctx, s.token, []byte(`{"jsonrpc":"2.0","id":8,"method":"Filc2.Nope","params":[]}`))
	case 2:
		return "forged token", s.rawRPC(ctx, s.token+"x", []byte(`{"jsonrpc":"2.0","id":9,"method":"Filc2.Submit","params":[{}]}`))
	case 3:
		return "wrong parameter types", s.rawRPC(ctx, s.token, []byte(`{"jsonrpc":"2.0","id":10,"method":"Filc2.Await","params":[42,{"x":[]}]}`))
	case 4:
		garbage := make([]byte, 1+rng.IntN(4096))
		for i := range garbage {
			garbage[i] = byte(rng.Uint32())
		}
		return "garbage bytes", s.rawRPC(ctx, s.token, garbage)
	case 5:
		cut := sec.raw[:rng.IntN(len(sec.raw))]
		return "truncated C1", s.refused(ctx, id, plugin.ProveRequest{ID: id, Sector: sec.ref, Commit1Out: cut})
	case 6:
		other := sec.ref
		other.ID.Number += 1000 // its replica_id is another sector's
		return "C1 under another sector", s.refused(ctx, id, plugin.ProveRequest{ID: id, Sector: other, Commit1Out: sec.raw})
	default:
		_, err := s.api.Await(ctx, id)
		switch {
		case err == nil:
			return "Await of an unknown id", fmt.Errorf("Await of the unknown job %s answered a result", id)
		case errors.As(err, new(*plugin.NotFoundError)), errors.As(err, new(*plugin.UnavailableError)):
			return "Await of an unknown id", nil
		}
		return "Await of an unknown id", fmt.Errorf("Await of the unknown job %s: %v, want not found", id, err)
	}
}

// refused submits a request that must be refused as bad input (or, while
// the plugin restarts, as unavailable).
func (s *soak) refused(ctx context.Context, id plugin.JobID, req plugin.ProveRequest) error {
	_, err := s.api.Submit(ctx, req)
	switch {
	case err == nil:
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.api.Cancel(cctx, id) // keep the server clean
		return fmt.Errorf("Submit of a bad request (job %s) was accepted", id)
	case errors.As(err, new(*plugin.BadInputError)), errors.As(err, new(*plugin.UnavailableError)):
		return nil
	}
	return fmt.Errorf("Submit of a bad request: %v, want bad input", err)
}

// rawRPC posts body to serve's RPC path with token and returns nil when the
// answer is an error: an HTTP error status or a JSON-RPC error object.
func (s *soak) rawRPC(ctx context.Context, token string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.srv.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := s.hc.Do(req)
	if err != nil {
		return fmt.Errorf("no answer: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("reading the answer (%s): %w", resp.Status, err)
	}
	if resp.StatusCode >= 400 {
		return nil
	}
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &m) == nil && len(m.Error) > 0 && string(m.Error) != "null" && len(m.Result) == 0 {
		return nil
	}
	return fmt.Errorf("answered %s %.200q, want an error", resp.Status, b)
}

package lotus_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/filc2/filc2/plugin"
	"github.com/filc2/filc2/plugin/lotus"
	"github.com/filc2/filc2/plugin/plugintest"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/c2"
)

// FuzzRemoteCommit2 posts arbitrary bodies to lotus's RemoteCommit2Endpoint
// (NewRemoteCommit2Handler over a Server and a LocalService whose prover
// answers at once; callers without a token may prove). The answer is 200
// with the proof exactly when the body is RemoteCommit2Params JSON that
// ParseRequest accepts, and otherwise a plain-text 400 saying "bad input".
func FuzzRemoteCommit2(f *testing.F) {
	a, b := plugintest.Sealed(f)
	svc := plugin.NewLocalService(plugin.LocalConfig{Slots: 1, QueueSize: 64, MaxRetained: 64,
		Prove: func(ctx context.Context, r *plugin.Request) (plugin.Proof, []c2.PartitionTiming, error) {
			return plugin.Proof("proof of sector " + r.Sector.String()), nil, nil
		}})
	f.Cleanup(func() { svc.Close() })
	h := lotus.NewRemoteCommit2Handler(lotus.RemoteCommit2Config{
		Prover:       plugin.NewServer(svc, "fuzz"),
		Verify:       func(context.Context, string) ([]auth.Permission, error) { return nil, errors.New("no tokens here") },
		DefaultPerms: plugin.AllPermissions,
	})
	p := plugintest.Proof.Proof
	params := func(f *testing.F, miner, number uint64, proof abi.RegisteredSealProof, c1o []byte) []byte {
		b, err := json.Marshal(lotus.RemoteCommit2Params{Sector: abi.SectorID{Miner: abi.ActorID(miner), Number: abi.SectorNumber(number)}, ProofType: proof, Commit1Out: c1o})
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	for _, s := range [][]byte{
		params(f, plugintest.Miner, 1, p, a),
		params(f, plugintest.Miner, 2, p, b),
		params(f, plugintest.Miner, 1, p, c1.EncodeWrapper(1, 2048, a)),
		params(f, plugintest.Miner, 2, p, a),
		params(f, plugintest.Miner, 1, 99, a),
		params(f, plugintest.Miner, 1, p, nil),
		[]byte(`{"Sector":{"Miner":1000,"Number":1},"ProofType":3,"Commit1Out":"e30="}`),
		[]byte(`{"Sector":{"Miner":-1,"Number":1.5},"ProofType":"8","Commit1Out":7}`),
		[]byte(`{not json`), []byte(`null`), []byte(``),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, lotus.RemoteCommit2Path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		var params lotus.RemoteCommit2Params
		want := http.StatusBadRequest
		sector := plugin.SectorRef{}
		if json.Unmarshal(body, &params) == nil {
			sector = plugin.SectorRef{ID: params.Sector, ProofType: params.ProofType}
			if _, err := plugin.ParseRequest(context.Background(), plugin.ProveRequest{Sector: sector, Commit1Out: params.Commit1Out}); err == nil {
				want = http.StatusOK
			}
		}
		out, ct := rec.Body.String(), rec.Header().Get("Content-Type")
		switch {
		case rec.Code != want:
			t.Fatalf("status %d %.300q, want %d", rec.Code, out, want)
		case want == http.StatusOK && (out != "proof of sector "+sector.String() || ct != "application/octet-stream"):
			t.Fatalf("proved: %q (%s), want the proof of %v", out, ct, sector)
		case want != http.StatusOK && (!strings.HasPrefix(out, "bad input: ") || !strings.HasPrefix(ct, "text/plain")):
			t.Fatalf("refused with %.300q (%s), want a plain-text bad input", out, ct)
		}
	})
}

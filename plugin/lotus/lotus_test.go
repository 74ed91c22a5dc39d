package lotus_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/google/uuid"

	"github.com/filc2/filc2/plugin/lotus"
)

func TestParseMinerAPIInfo(t *testing.T) {
	const tok = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJBbGxvdyI6WyJhZG1pbiJdfQ.sig-_x"
	for _, tc := range []struct {
		in, token, url, host, err string
	}{
		{in: tok + ":/ip4/127.0.0.1/tcp/2345/http", token: tok, url: "http://127.0.0.1:2345/rpc/v0", host: "127.0.0.1:2345"},
		{in: tok + ":/ip4/10.0.0.2/tcp/2345", token: tok, url: "http://10.0.0.2:2345/rpc/v0", host: "10.0.0.2:2345"},
		{in: tok + ":/ip6/::1/tcp/2345/ws", token: tok, url: "http://[::1]:2345/rpc/v0", host: "[::1]:2345"},
		{in: tok + ":/dns/miner.lan/tcp/2345/https", token: tok, url: "https://miner.lan:2345/rpc/v0", host: "miner.lan:2345"},
		{in: tok + ":http://10.0.0.2:2345", token: tok, url: "http://10.0.0.2:2345/rpc/v0", host: "10.0.0.2:2345"},
		{in: tok + ":ws://10.0.0.2:2345/rpc/v0", token: tok, url: "http://10.0.0.2:2345/rpc/v0", host: "10.0.0.2:2345"},
		{in: tok + ":https://miner.example", token: tok, url: "https://miner.example/rpc/v0", host: "miner.example:443"},
		{in: "/ip4/127.0.0.1/tcp/2345/http", url: "http://127.0.0.1:2345/rpc/v0", host: "127.0.0.1:2345"},
		{in: tok + ":/ip4/300.0.0.1/tcp/2345", err: "not an IPv4 address"},
		{in: tok + ":/ip4/127.0.0.1/udp/2345", err: "want /tcp"},
		{in: tok + ":/ip4/127.0.0.1/tcp/99999", err: "bad port"},
		{in: tok + ":/unix/run/lotus/miner.sock", err: "unsupported protocol /unix"},
		{in: tok + ":ftp://x:1", err: "scheme"},
		{in: "", err: "no address"},
	} {
		got, err := lotus.ParseMinerAPIInfo(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %+v %v, want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got.Token != tc.token || got.URL != tc.url || got.Host != tc.host {
			t.Errorf("%q: %+v %v, want %s %s %s", tc.in, got, err, tc.token, tc.url, tc.host)
		}
	}
}

func TestCommit2Resources(t *testing.T) {
	env := map[string]string{}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	res, err := lotus.Commit2Resources(lookup)
	if err != nil {
		t.Fatal(err)
	}
	c2 := res[lotus.TTCommit2]
	if len(res) != 1 || len(c2) != 15 {
		t.Fatalf("%d task types, %d proof types", len(res), len(c2))
	}
	want32 := lotus.Resources{MinMemory: 30 << 30, MaxMemory: 150 << 30, GPUUtilization: 1, MaxParallelism: -1, MaxParallelismGPU: 6, BaseMinMemory: 32 << 30}
	for _, p := range []abi.RegisteredSealProof{abi.RegisteredSealProof_StackedDrg32GiBV1, abi.RegisteredSealProof_StackedDrg32GiBV1_1, abi.RegisteredSealProof_StackedDrg32GiBV1_1_Feat_SyntheticPoRep} {
		if c2[p] != want32 {
			t.Errorf("%d: %+v, want %+v", p, c2[p], want32)
		}
	}
	// lotus's lookup order: C2_<SIZE>_<NAME>, then C2_<NAME>.
	env["C2_32G_MIN_MEMORY"] = "1000"
	env["C2_MIN_MEMORY"] = "7"
	env["C2_GPU_UTILIZATION"] = "0.5"
	env["C2_MAX_CONCURRENT"] = "2"
	res, err = lotus.Commit2Resources(lookup)
	if err != nil {
		t.Fatal(err)
	}
	c2 = res[lotus.TTCommit2]
	r32, r2k := c2[abi.RegisteredSealProof_StackedDrg32GiBV1_1], c2[abi.RegisteredSealProof_StackedDrg2KiBV1_1]
	if r32.MinMemory != 1000 || r2k.MinMemory != 7 || r32.GPUUtilization != 0.5 || r2k.MaxConcurrent != 2 || r32.MaxMemory != 150<<30 {
		t.Fatalf("overrides: 32G %+v, 2K %+v", r32, r2k)
	}
	env["C2_64G_MAX_PARALLELISM"] = "many"
	if _, err := lotus.Commit2Resources(lookup); err == nil || !strings.Contains(err.Error(), "C2_64G_MAX_PARALLELISM") {
		t.Fatalf("bad override: %v", err)
	}
}

// The mirrored types have lotus's JSON (tests/lotus checks them against
// lotus's own structs).
func TestLotusJSON(t *testing.T) {
	id := uuid.MustParse("c0ffee00-0000-4000-8000-000000000001")
	for _, tc := range []struct {
		v    any
		want string
	}{
		{lotus.CallID{Sector: abi.SectorID{Miner: 1000, Number: 42}, ID: id}, `{"Sector":{"Miner":1000,"Number":42},"ID":"c0ffee00-0000-4000-8000-000000000001"}`},
		{&lotus.CallError{Code: lotus.ErrTempUnknown, Message: "busy"}, `{"Code":100,"Message":"busy"}`},
		{lotus.WorkerAPIVersion, `67328`},
		{map[lotus.TaskType]struct{}{lotus.TTCommit2: {}}, `{"seal/v0/commit/2":{}}`},
		{lotus.WorkerInfo{Hostname: "h", Resources: lotus.WorkerResources{MemPhysical: 1, CPUs: 2, GPUs: []string{"H200"},
			Resources: map[lotus.TaskType]map[abi.RegisteredSealProof]lotus.Resources{lotus.TTCommit2: {8: {MinMemory: 3}}}}},
			`{"Hostname":"h","IgnoreResources":false,"Resources":{"MemPhysical":1,"MemUsed":0,"MemSwap":0,"MemSwapUsed":0,"CPUs":2,"GPUs":["H200"],` +
				`"Resources":{"seal/v0/commit/2":{"8":{"MinMemory":3,"MaxMemory":0,"GPUUtilization":0,"MaxParallelism":0,"MaxParallelismGPU":0,"BaseMinMemory":0,"MaxConcurrent":0}}}}}`},
		{lotus.RemoteCommit2Params{Sector: abi.SectorID{Miner: 1000, Number: 1}, ProofType: 5, Commit1Out: []byte("{}")},
			`{"Sector":{"Miner":1000,"Number":1},"ProofType":5,"Commit1Out":"e30="}`},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil || string(b) != tc.want {
			t.Errorf("%T: %s %v\nwant %s", tc.v, b, err, tc.want)
		}
	}
	if s := (lotus.CallID{Sector: abi.SectorID{Miner: 1000, Number: 42}, ID: id}).String(); s != "1000-42-c0ffee00-0000-4000-8000-000000000001" {
		t.Errorf("CallID.String %q", s)
	}
}

func TestReadMemInfo(t *testing.T) {
	m, err := lotus.ReadMemInfo()
	if err != nil {
		t.Fatal(err)
	}
	if m.Physical < 64<<20 || m.Used > m.Physical || m.SwapUsed > m.Swap {
		t.Fatalf("%+v", m)
	}
}

// Package lotus adapts a plugin.Prover to lotus: a lotus worker (the Worker API v0 a miner schedules
// SealCommit2 on, and with --windowpost/--winningpost its PoSt tasks, reading vanilla proofs from the
// storage nodes), the RemoteCommit2 endpoint, and the few lotus types they need, mirrored with
// identical JSON (tested against lotus v1.34.0 in tests/lotus). See docs/lotus.md.
package lotus

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/filecoin-project/go-jsonrpc"
	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/google/uuid"

	"github.com/filc2/filc2/plugin"
)

// This file mirrors the lotus v1.34.0 types that the lotus worker adapter
// puts on the wire, with identical JSON, so that filc2 never imports lotus
// (whose sealing packages need filecoin-ffi). The sources are
// storage/sealer/storiface/{worker,resources,index}.go, api/api_worker.go,
// api/api_storage.go, api/api_common.go, api/version.go and
// cli/util/apiinfo.go; tests/lotus checks the mirror against lotus itself.

// Namespace is the go-jsonrpc namespace of every lotus API: methods are
// called "Filecoin.SealCommit2", "Filecoin.WorkerConnect" and so on.
const Namespace = "Filecoin"

// WorkerAPIVersion is lotus's WorkerAPIVersion0, 1.7.0: the miner
// checks a worker's Version on major and minor before using it.
const WorkerAPIVersion plugin.APIVersion = 1<<16 | 7<<8

// MinerAPIVersion is lotus's MinerAPIVersion0, 1.5.0, which lotus-worker
// requires of the miner it registers with.
const MinerAPIVersion plugin.APIVersion = 1<<16 | 5<<8

// TaskType is lotus's sealtasks.TaskType.
type TaskType string

// TTCommit2 is lotus's sealtasks.TTCommit2, SealCommit2.
const TTCommit2 TaskType = "seal/v0/commit/2"

// TTProveReplicaUpdate2 is lotus's sealtasks.TTProveReplicaUpdate2, the
// SnapDeals proof.
const TTProveReplicaUpdate2 TaskType = "seal/v0/provereplicaupdate/2"

// CallID is lotus's storiface.CallID, the handle of an asynchronous worker
// call: {"Sector":{"Miner":1000,"Number":42},"ID":"<uuid>"}.
type CallID struct {
	Sector abi.SectorID
	ID     uuid.UUID
}

// String writes the call as lotus does: "1000-42-<uuid>".
func (c CallID) String() string {
	return fmt.Sprintf("%d-%d-%s", c.Sector.Miner, c.Sector.Number, c.ID)
}

// ErrorCode is lotus's storiface.ErrorCode.
type ErrorCode int

// lotus's error codes: 0 for a plain failure, from 100 for temporary ones.
const (
	ErrUnknown           ErrorCode = 0
	ErrTempUnknown       ErrorCode = 100 // temporary: busy, or the prover was unreachable
	ErrTempWorkerRestart ErrorCode = 101 // temporary: the prover restarted and lost the job
	ErrTempAllocateSpace ErrorCode = 102
)

// CallError is lotus's storiface.CallError: {"Code":0,"Message":"…"}.
type CallError struct {
	Code    ErrorCode
	Message string
}

// Error implements error as lotus does.
func (c *CallError) Error() string {
	return fmt.Sprintf("storage call error %d: %s", c.Code, c.Message)
}

// WorkerInfo is lotus's storiface.WorkerInfo, the answer of Info.
type WorkerInfo struct {
	Hostname string
	// IgnoreResources: false, so that the miner schedules by Resources.
	IgnoreResources bool
	Resources       WorkerResources
}

// WorkerResources is lotus's storiface.WorkerResources.
type WorkerResources struct {
	MemPhysical uint64
	MemUsed     uint64
	MemSwap     uint64
	MemSwapUsed uint64

	CPUs uint64 // logical cores
	GPUs []string

	// Resources is the worker's resource table (lotus: the default table
	// with the worker's environment overrides, ParseResourceEnv); nil means
	// the miner's default table.
	Resources map[TaskType]map[abi.RegisteredSealProof]Resources
}

// Resources is lotus's storiface.Resources: what one task needs. Each
// field can be overridden from the environment (Commit2Resources), by the
// names in resourceFields.
type Resources struct {
	MinMemory         uint64
	MaxMemory         uint64
	GPUUtilization    float64
	MaxParallelism    int
	MaxParallelismGPU int
	BaseMinMemory     uint64
	MaxConcurrent     int
}

// StoragePath is lotus's storiface.StoragePath; a filc2 worker has none.
type StoragePath struct {
	ID     string
	Weight uint64

	LocalPath string

	CanSeal  bool
	CanStore bool
}

// APIVersionInfo is lotus's api.APIVersion, the answer of the miner's
// Filecoin.Version.
type APIVersionInfo struct {
	Version    string
	APIVersion plugin.APIVersion
	BlockDelay uint64 // seconds
	Agent      string // "lotus"
}

// commit2Defaults is lotus's default ResourceTable[TTCommit2] for the V1
// proof types (storiface/resources.go); lotus copies each to the V1_1 and
// V1_1_Feat_SyntheticPoRep types of the same size.
var commit2Defaults = map[abi.RegisteredSealProof]Resources{
	abi.RegisteredSealProof_StackedDrg64GiBV1: {
		MaxMemory: 190 << 30, MinMemory: 60 << 30,
		MaxParallelism: -1, MaxParallelismGPU: 6, GPUUtilization: 1.0,
		BaseMinMemory: 64 << 30,
	},
	abi.RegisteredSealProof_StackedDrg32GiBV1: {
		MaxMemory: 150 << 30, MinMemory: 30 << 30,
		MaxParallelism: -1, MaxParallelismGPU: 6, GPUUtilization: 1.0,
		BaseMinMemory: 32 << 30,
	},
	abi.RegisteredSealProof_StackedDrg512MiBV1: {
		MaxMemory: 3 << 29, MinMemory: 1 << 30,
		MaxParallelism: 1, GPUUtilization: 1.0,
		BaseMinMemory: 10 << 30,
	},
	abi.RegisteredSealProof_StackedDrg2KiBV1: {
		MaxMemory: 2 << 10, MinMemory: 2 << 10,
		MaxParallelism: 1, GPUUtilization: 1.0,
		BaseMinMemory: 2 << 10,
	},
	abi.RegisteredSealProof_StackedDrg8MiBV1: {
		MaxMemory: 8 << 20, MinMemory: 8 << 20,
		MaxParallelism: 1, GPUUtilization: 1.0,
		BaseMinMemory: 8 << 20,
	},
}

// commit2Aliases maps each V1 type to the types lotus gives its resources.
var commit2Aliases = map[abi.RegisteredSealProof][]abi.RegisteredSealProof{
	abi.RegisteredSealProof_StackedDrg2KiBV1:   {abi.RegisteredSealProof_StackedDrg2KiBV1_1, abi.RegisteredSealProof_StackedDrg2KiBV1_1_Feat_SyntheticPoRep},
	abi.RegisteredSealProof_StackedDrg8MiBV1:   {abi.RegisteredSealProof_StackedDrg8MiBV1_1, abi.RegisteredSealProof_StackedDrg8MiBV1_1_Feat_SyntheticPoRep},
	abi.RegisteredSealProof_StackedDrg512MiBV1: {abi.RegisteredSealProof_StackedDrg512MiBV1_1, abi.RegisteredSealProof_StackedDrg512MiBV1_1_Feat_SyntheticPoRep},
	abi.RegisteredSealProof_StackedDrg32GiBV1:  {abi.RegisteredSealProof_StackedDrg32GiBV1_1, abi.RegisteredSealProof_StackedDrg32GiBV1_1_Feat_SyntheticPoRep},
	abi.RegisteredSealProof_StackedDrg64GiBV1:  {abi.RegisteredSealProof_StackedDrg64GiBV1_1, abi.RegisteredSealProof_StackedDrg64GiBV1_1_Feat_SyntheticPoRep},
}

// resourceFields names the fields of Resources as lotus's environment
// overrides do, C2_<SIZE>_<NAME> or C2_<NAME>, and parses a value into each.
var resourceFields = []struct {
	name string
	set  func(r *Resources, v string) error
}{
	{"MIN_MEMORY", func(r *Resources, v string) error { return parseInto(&r.MinMemory, v) }},
	{"MAX_MEMORY", func(r *Resources, v string) error { return parseInto(&r.MaxMemory, v) }},
	{"GPU_UTILIZATION", func(r *Resources, v string) error { return parseInto(&r.GPUUtilization, v) }},
	{"MAX_PARALLELISM", func(r *Resources, v string) error { return parseInto(&r.MaxParallelism, v) }},
	{"MAX_PARALLELISM_GPU", func(r *Resources, v string) error { return parseInto(&r.MaxParallelismGPU, v) }},
	{"BASE_MIN_MEMORY", func(r *Resources, v string) error { return parseInto(&r.BaseMinMemory, v) }},
	{"MAX_CONCURRENT", func(r *Resources, v string) error { return parseInto(&r.MaxConcurrent, v) }},
}

// parseInto parses v as a number of *dst's type.
func parseInto[T uint64 | int | float64](dst *T, v string) error {
	var err error
	switch d := any(dst).(type) {
	case *uint64:
		*d, err = strconv.ParseUint(v, 10, 64)
	case *int:
		*d, err = strconv.Atoi(v)
	case *float64:
		*d, err = strconv.ParseFloat(v, 64)
	}
	return err
}

// sizeNames are the SIZE parts of the override names (C2_32G_MIN_MEMORY):
// lotus's short sector sizes less "iB".
var sizeNames = map[abi.RegisteredSealProof]string{
	abi.RegisteredSealProof_StackedDrg2KiBV1:   "2K",
	abi.RegisteredSealProof_StackedDrg8MiBV1:   "8M",
	abi.RegisteredSealProof_StackedDrg512MiBV1: "512M",
	abi.RegisteredSealProof_StackedDrg32GiBV1:  "32G",
	abi.RegisteredSealProof_StackedDrg64GiBV1:  "64G",
}

// Commit2Resources returns the worker's resource table for seal/v0/commit/2:
// lotus's defaults with the overrides lookup finds (os.LookupEnv in `filc2
// worker`), with lotus-worker's precedence: for each field, C2_<SIZE>_<NAME>
// (SIZE 2K, 8M, 512M, 32G, 64G), else C2_<NAME>, else the default. A value
// that does not parse is an error naming the variable.
func Commit2Resources(lookup func(key string) (string, bool)) (map[TaskType]map[abi.RegisteredSealProof]Resources, error) {
	return TaskResources(lookup, TTCommit2)
}

// taskShortNames are lotus's short task names, the prefix of their
// resource overrides.
var taskShortNames = map[TaskType]string{TTCommit2: "C2", TTProveReplicaUpdate2: "PR2"}

// TaskResources returns the resource table of the sealing tasks tts
// (seal/v0/commit/2, seal/v0/provereplicaupdate/2; lotus's defaults for the
// latter are copied from commit-2's) with lotus-worker's overrides:
// <SHORT>_<SIZE>_<NAME>, else <SHORT>_<NAME> (SHORT C2 or PR2).
func TaskResources(lookup func(key string) (string, bool), tts ...TaskType) (map[TaskType]map[abi.RegisteredSealProof]Resources, error) {
	tables := make(map[TaskType]map[abi.RegisteredSealProof]Resources)
	for _, tt := range tts {
		short, ok := taskShortNames[tt]
		if !ok {
			continue // no resource table: PoSt tasks
		}
		out := make(map[abi.RegisteredSealProof]Resources)
		for spt, def := range commit2Defaults {
			r := def
			for _, f := range resourceFields {
				key := short + "_" + sizeNames[spt] + "_" + f.name
				val, found := lookup(key)
				if !found {
					key = short + "_" + f.name
					if val, found = lookup(key); !found {
						continue
					}
				}
				if err := f.set(&r, val); err != nil {
					return nil, fmt.Errorf("environment variable %s=%q: %w", key, val, err)
				}
			}
			out[spt] = r
			for _, alias := range commit2Aliases[spt] {
				out[alias] = r
			}
		}
		tables[tt] = out
	}
	return tables, nil
}

// MinerAPIInfo is where the miner's API is and the token that opens it.
type MinerAPIInfo struct {
	Token string // the JWT; empty when the string had none
	URL   string // the JSON-RPC endpoint, http(s)://HOST:PORT/rpc/v0
	Host  string // HOST:PORT
}

// infoWithToken is lotus's test for a "TOKEN:ADDRESS" string: the token is a
// JWT (three dot-separated base64url parts).
var infoWithToken = regexp.MustCompile(`^[a-zA-Z0-9\-_]+?\.[a-zA-Z0-9\-_]+?\.([a-zA-Z0-9\-_]+)?:.+$`)

// ParseMinerAPIInfo reads lotus's MINER_API_INFO format, TOKEN:ADDRESS,
// where ADDRESS is a multiaddr (/ip4/127.0.0.1/tcp/2345/http; also /ip6,
// /dns, /dns4, /dns6, and /ws, /wss, /https, /tls suffixes) or a URL
// (http://HOST:PORT, ws://…). The URL it returns is the HTTP endpoint
// HOST:PORT/rpc/v0 (lotus-worker, too, talks to the miner over HTTP).
func ParseMinerAPIInfo(s string) (MinerAPIInfo, error) {
	var info MinerAPIInfo
	addr := strings.TrimSpace(s)
	if infoWithToken.MatchString(addr) {
		info.Token, addr, _ = strings.Cut(addr, ":")
	}
	if addr == "" {
		return info, errors.New("no address: want TOKEN:MULTIADDR, e.g. eyJ…:/ip4/127.0.0.1/tcp/2345/http")
	}
	scheme := "http"
	if strings.HasPrefix(addr, "/") {
		host, secure, err := multiaddrHost(addr)
		if err != nil {
			return info, err
		}
		if secure {
			scheme = "https"
		}
		info.Host = host
		info.URL = scheme + "://" + host + "/rpc/v0"
		return info, nil
	}
	u, err := url.Parse(addr)
	if err != nil || u.Host == "" {
		return info, fmt.Errorf("address %q: want a multiaddr (/ip4/HOST/tcp/PORT/http) or a URL (http://HOST:PORT)", addr)
	}
	switch u.Scheme {
	case "http", "ws":
	case "https", "wss":
		scheme = "https"
	default:
		return info, fmt.Errorf("address %q: scheme %q, want http, https, ws or wss", addr, u.Scheme)
	}
	info.Host = u.Host
	if u.Port() == "" {
		info.Host = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[scheme])
	}
	path := strings.TrimSuffix(u.Path, "/")
	if !strings.HasSuffix(path, "/rpc/v0") {
		path += "/rpc/v0" // lotus appends /rpc/v0 to a URL
	}
	info.URL = scheme + "://" + u.Host + path
	return info, nil
}

// multiaddrHost reads the HOST:PORT of a TCP multiaddr and whether it says
// TLS.
func multiaddrHost(ma string) (hostport string, secure bool, err error) {
	parts := strings.Split(strings.TrimPrefix(ma, "/"), "/")
	bad := func(why string) (string, bool, error) {
		return "", false, fmt.Errorf("multiaddr %q: %s; want /ip4/HOST/tcp/PORT[/http]", ma, why)
	}
	if len(parts) < 4 {
		return bad("too short")
	}
	host := parts[1]
	switch parts[0] {
	case "ip4":
		if ip := net.ParseIP(host); ip == nil || ip.To4() == nil {
			return bad("not an IPv4 address: " + host)
		}
	case "ip6":
		if ip := net.ParseIP(host); ip == nil || ip.To4() != nil {
			return bad("not an IPv6 address: " + host)
		}
	case "dns", "dns4", "dns6":
		if host == "" {
			return bad("empty host name")
		}
	default:
		return bad("unsupported protocol /" + parts[0])
	}
	if parts[2] != "tcp" {
		return bad("want /tcp after the host")
	}
	port, err := strconv.ParseUint(parts[3], 10, 16)
	if err != nil || port == 0 {
		return bad("bad port " + parts[3])
	}
	for _, p := range parts[4:] {
		switch p {
		case "http", "ws":
		case "https", "wss", "tls":
			secure = true
		default:
			return bad("unsupported protocol /" + p)
		}
	}
	return net.JoinHostPort(host, parts[3]), secure, nil
}

// MinerStruct is the part of lotus's StorageMiner API that a filc2
// worker calls, as go-jsonrpc client fields (namespace Filecoin).
type MinerStruct struct {
	Internal struct {
		Version           func(ctx context.Context) (APIVersionInfo, error)
		Session           func(ctx context.Context) (uuid.UUID, error)
		AuthVerify        func(ctx context.Context, token string) ([]auth.Permission, error)
		WorkerConnect     func(ctx context.Context, url string) error
		ReturnSealCommit2 func(ctx context.Context, callID CallID, proof plugin.Proof, err *CallError) error
		// ReturnProveReplicaUpdate2's proof is lotus's storiface.ReplicaUpdateProof.
		ReturnProveReplicaUpdate2 func(ctx context.Context, callID CallID, proof plugin.Proof, err *CallError) error
		StorageFindSector         func(ctx context.Context, sector abi.SectorID, ft SectorFileType, ssize abi.SectorSize, allowFetch bool) ([]SectorStorageInfo, error)
	}
}

// StorageFindSector is the miner's Filecoin.StorageFindSector: the storage
// paths holding a sector's files of types ft, with their storage nodes'
// URLs (a PoSt worker reads vanilla proofs there).
func (m *MinerStruct) StorageFindSector(ctx context.Context, sector abi.SectorID, ft SectorFileType, ssize abi.SectorSize, allowFetch bool) ([]SectorStorageInfo, error) {
	return m.Internal.StorageFindSector(ctx, sector, ft, ssize, allowFetch)
}

// Version is the miner's Filecoin.Version.
func (m *MinerStruct) Version(ctx context.Context) (APIVersionInfo, error) {
	return m.Internal.Version(ctx)
}

// Session is the miner's Filecoin.Session: a UUID that changes when the
// miner restarts.
func (m *MinerStruct) Session(ctx context.Context) (uuid.UUID, error) {
	return m.Internal.Session(ctx)
}

// AuthVerify is the miner's Filecoin.AuthVerify: the permissions of a token
// the miner signed.
func (m *MinerStruct) AuthVerify(ctx context.Context, token string) ([]auth.Permission, error) {
	return m.Internal.AuthVerify(ctx, token)
}

// WorkerConnect is the miner's Filecoin.WorkerConnect: it dials the worker
// API at url back and adds the worker to its scheduler.
func (m *MinerStruct) WorkerConnect(ctx context.Context, url string) error {
	return m.Internal.WorkerConnect(ctx, url)
}

// ReturnSealCommit2 is the miner's Filecoin.ReturnSealCommit2: the result
// of a SealCommit2 call, a proof or an error.
func (m *MinerStruct) ReturnSealCommit2(ctx context.Context, callID CallID, proof plugin.Proof, err *CallError) error {
	return m.Internal.ReturnSealCommit2(ctx, callID, proof, err)
}

// ReturnProveReplicaUpdate2 is the miner's Filecoin.ReturnProveReplicaUpdate2:
// the result of a ProveReplicaUpdate2 call.
func (m *MinerStruct) ReturnProveReplicaUpdate2(ctx context.Context, callID CallID, proof plugin.Proof, err *CallError) error {
	return m.Internal.ReturnProveReplicaUpdate2(ctx, callID, proof, err)
}

// DialMiner makes a client of the miner's API over HTTP with the
// token of info (the miner's admin token, as lotus-worker uses).
func DialMiner(ctx context.Context, info MinerAPIInfo) (*MinerStruct, jsonrpc.ClientCloser, error) {
	var h http.Header
	if info.Token != "" {
		h = http.Header{"Authorization": []string{"Bearer " + info.Token}}
	}
	m := new(MinerStruct)
	closer, err := jsonrpc.NewMergeClient(ctx, info.URL, Namespace, []any{&m.Internal}, h)
	if err != nil {
		return nil, nil, fmt.Errorf("a client of the miner's API at %s: %w", info.URL, err)
	}
	return m, closer, nil
}

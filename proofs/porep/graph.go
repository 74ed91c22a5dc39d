package porep

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/filc2/filc2/proofs/abi"
)

// Domain separation tags of the graph seeds (storage-proofs-core crypto/mod.rs).
const (
	drgSeedTag     = "Filecoin_DRSample"
	feistelSeedTag = "Filecoin_Feistel"
)

// Graph is the StackedDRG graph of one sector (rust-fil-proofs
// StackedBucketGraph): each node v has abi.BaseDegree DRG parents in the same
// layer and abi.ExpansionDegree expander parents in the previous layer. It
// depends only on the node count, the porep_id and the proofs-API version, is
// immutable and safe for concurrent use, and computes parents on demand
// without allocating.
type Graph struct {
	nodes uint64
	api   abi.APIVersion

	// drgKey is the ChaCha8 key of node 0: words 0-6 are the 28-byte drg_seed,
	// word 7 is replaced by the node index.
	drgKey [8]uint32
	// predSlot is the slot of node−1 among the DRG parents, firstRandom that
	// of the first of the 5 random ones.
	predSlot, firstRandom int

	feistel feistel
}

// A GraphOption configures NewGraph.
type GraphOption func(*graphConfig)

type graphConfig struct {
	feistelTable bool
}

// WithFeistelTable makes NewGraph tabulate the Feistel round function. Its
// input is only half ≤ 18 bits wide (17 for 32 and 64 GiB sectors), so the
// table has 3·2^half entries (1.5 MiB at 32 and 64 GiB), costs 3·2^half
// BLAKE2b compressions once (spread over GOMAXPROCS goroutines), and turns
// the roughly 50 compressions of an ExpanderParents call into table
// lookups. Use it to compute the parents of many nodes (sealing, parent
// caches); a verifier that needs a few hundred nodes' parents is faster
// without.
func WithFeistelTable() GraphOption {
	return func(c *graphConfig) { c.feistelTable = true }
}

// NewGraph returns the graph of a sector with the given number of nodes for
// the porep_id and proofs-API version. Versions and porep_ids are independent:
// take both from the proof type (p.APIVersion, p.PoRepID()) or the chain.
// nodes must be at least 2 and, as upstream, below 2^32.
func NewGraph(nodes uint64, porepID [32]byte, api abi.APIVersion, opts ...GraphOption) (*Graph, error) {
	var cfg graphConfig
	for _, o := range opts {
		o(&cfg)
	}
	if nodes < 2 || nodes > math.MaxUint32 {
		return nil, fmt.Errorf("porep: graph of %d nodes: want 2 to 2^32−1", nodes)
	}
	g := &Graph{nodes: nodes, api: api}
	switch api {
	case abi.APIVersion1_0_0:
		g.predSlot, g.firstRandom = abi.BaseDegree-1, 0
	case abi.APIVersion1_1_0, abi.APIVersion1_2_0:
		g.predSlot, g.firstRandom = 0, 1
	default:
		return nil, fmt.Errorf("porep: unknown proofs-API version %v", api)
	}
	drgSeed := porepDomainSeed(drgSeedTag, porepID)
	for i := range 7 { // drg_seed is the first 28 bytes
		g.drgKey[i] = binary.LittleEndian.Uint32(drgSeed[4*i:])
	}
	g.feistel = newFeistel(nodes*abi.ExpansionDegree, porepDomainSeed(feistelSeedTag, porepID))
	if cfg.feistelTable {
		g.feistel.tabulate()
	}
	return g, nil
}

// NewGraphFor returns the graph of proof type p: p.Nodes nodes, p.PoRepID()
// and p.APIVersion, the registered network's combination.
func NewGraphFor(p abi.SealProof, opts ...GraphOption) (*Graph, error) {
	return NewGraph(p.Nodes, p.PoRepID(), p.APIVersion, opts...)
}

// Nodes returns the number of nodes of a layer.
func (g *Graph) Nodes() uint64 { return g.nodes }

// APIVersion returns the proofs-API version the parents follow.
func (g *Graph) APIVersion() abi.APIVersion { return g.api }

// Parents writes the 14 parents of node in label order: the 6 DRG parents
// (DRGParents) then the 8 expander parents (ExpanderParents), as
// StackedGraph::parents does.
func (g *Graph) Parents(node uint64, out *[abi.BaseDegree + abi.ExpansionDegree]uint32) {
	g.DRGParents(node, (*[abi.BaseDegree]uint32)(out[:abi.BaseDegree]))
	g.ExpanderParents(node, (*[abi.ExpansionDegree]uint32)(out[abi.BaseDegree:]))
}

// porepDomainSeed is derive_porep_domain_seed: SHA-256(tag ‖ porep_id).
func porepDomainSeed(tag string, porepID [32]byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(tag))
	h.Write(porepID[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// checkNode panics if node is not a node of g.
func (g *Graph) checkNode(node uint64) {
	if node >= g.nodes {
		panicNode(node, g.nodes)
	}
}

// panicNode is checkNode's slow path, kept out of line so that the parent
// functions box nothing.
//
//go:noinline
func panicNode(node, nodes uint64) {
	panic(fmt.Sprintf("porep: node %d out of range: the graph has %d nodes", node, nodes))
}

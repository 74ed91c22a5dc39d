package porep

import "github.com/filc2/filc2/proofs/abi"

// ExpanderParents writes the abi.ExpansionDegree expander parents of node
// (StackedGraph::generate_expanded_parents, storage-proofs-porep
// stacked/vanilla/graph.rs): parent i is permute(8·node + i) / 8 under the
// Feistel permutation of [0, 8·nodes) keyed by SHA-256("Filecoin_Feistel" ‖
// porep_id). They index the previous layer, so they may exceed node; they are
// not sorted or filtered.
//
// For API version 1.0.0 the permuted index is truncated to 32 bits before the
// division (upstream's `transformed as u32 / 8`), so its parents differ from
// later versions' wherever the permuted index reaches 2^32: only for graphs of
// more than 2^29 nodes (32 GiB and 64 GiB sectors), where V1 parents never
// fall in the upper half (32 GiB) or three quarters (64 GiB) of the layer.
//
// ExpanderParents panics if node ≥ g.Nodes().
func (g *Graph) ExpanderParents(node uint64, out *[abi.ExpansionDegree]uint32) {
	g.checkNode(node)
	f := &g.feistel
	base := node * abi.ExpansionDegree
	// One encode for every slot first, then the cycle walks: the eight chains
	// are independent, so their table loads (or compressions) overlap instead
	// of waiting on each slot's unpredictable walk.
	var u [abi.ExpansionDegree]uint64
	for i := range u {
		u[i] = f.encode(base + uint64(i))
	}
	if f.table != nil {
		// Lookups are cheap: walk all slots together, re-encoding the done
		// ones too and keeping their value, until every slot is below n.
		for pending(&u, f.n) {
			for i, x := range u {
				if y := f.encode(x); x >= f.n {
					u[i] = y
				}
			}
		}
	} else {
		for i := range u {
			for u[i] >= f.n {
				u[i] = f.encode(u[i])
			}
		}
	}
	if g.api == abi.APIVersion1_0_0 {
		for i, t := range u {
			out[i] = uint32(t) / abi.ExpansionDegree
		}
		return
	}
	for i, t := range u {
		out[i] = uint32(t / abi.ExpansionDegree)
	}
}

// pending reports whether a slot is still outside [0, n).
func pending(u *[abi.ExpansionDegree]uint64, n uint64) bool {
	var out bool
	for _, x := range u {
		out = out || x >= n
	}
	return out
}

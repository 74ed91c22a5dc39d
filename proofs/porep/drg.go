package porep

import (
	"math/bits"

	"github.com/filc2/filc2/proofs/abi"
)

// drgMPrime is m′ = BaseDegree − 1, the number of random DRG parents.
const drgMPrime = abi.BaseDegree - 1

// DRGParents writes the abi.BaseDegree DRG parents of node (BucketGraph::parents,
// storage-proofs-core drgraph.rs) in slot order: node−1 first for API versions
// 1.1.0 and 1.2.0, last for 1.0.0, the 5 bucket-sampled parents in draw order
// in the other slots. Parents are not sorted and may repeat. Nodes 0 and 1 have
// six parents 0. Every parent of node v ≥ 2 is below v.
//
// The 5 random parents come from rand_chacha's ChaCha8Rng seeded with
// drg_seed ‖ node as u32 little-endian, where drg_seed is the first 28 bytes of
// SHA-256("Filecoin_DRSample" ‖ porep_id). With mn = 5·node and
// nb = ⌈log2 mn⌉, each parent draws two u64, r1 then r2:
//
//	b = r1 mod nb + 1; hi = min(mn, 2^b); lo = max(2, hi/2)
//	p = (mn − lo − r2 mod (hi − lo + 1)) / 5, or node−1 if that is node.
//
// DRGParents panics if node ≥ g.Nodes().
func (g *Graph) DRGParents(node uint64, out *[abi.BaseDegree]uint32) {
	g.checkNode(node)
	if node < 2 {
		*out = [abi.BaseDegree]uint32{}
		return
	}
	v := uint32(node)
	key := g.drgKey
	key[7] = v
	// Ten next_u64 read words 0-19 of the stream: all of block 0 and the
	// first four words of block 1.
	var ks [32]uint32
	chachaBlock((*[16]uint32)(ks[:16]), &key, 0, 0, chacha8DoubleRounds)
	chachaBlock((*[16]uint32)(ks[16:]), &key, 1, 0, chacha8DoubleRounds)

	mn := node * drgMPrime
	// Upstream computes (mn as f64).log2().ceil(). mn = 5·node is never a power
	// of two, and below 2^54 the f64 logarithm rounds neither across an
	// integer, so this is the same integer.
	nb := uint64(bits.Len64(mn - 1))
	for i := range drgMPrime {
		r1 := uint64(ks[4*i]) | uint64(ks[4*i+1])<<32
		r2 := uint64(ks[4*i+2]) | uint64(ks[4*i+3])<<32
		hi := min(mn, uint64(1)<<(r1%nb+1))
		lo := max(2, hi>>1)
		p := uint32((mn - lo - r2%(hi-lo+1)) / drgMPrime)
		if p == v {
			p = v - 1
		}
		out[g.firstRandom+i] = p
	}
	out[g.predSlot] = v - 1
}

package porep

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
)

// drgModel is BucketGraph::parents written as the Rust is: a ChaCha8Rng
// (the chachaRng model) seeded with drg_seed ‖ node, gen::<u64>() twice per
// parent, n_buckets through f64 log2, then the predecessor slot.
func drgModel(porepID [32]byte, api abi.APIVersion, node uint64) [6]uint32 {
	var out [6]uint32
	if node < 2 {
		return out
	}
	h := sha256.Sum256(append([]byte("Filecoin_DRSample"), porepID[:]...))
	var seed [32]byte
	copy(seed[:28], h[:28])
	binary.LittleEndian.PutUint32(seed[28:], uint32(node))
	rng := newChachaRng(seed, 4)

	const mPrime = 5
	metagraphNode := node * mPrime
	nBuckets := uint64(math.Ceil(math.Log2(float64(metagraphNode))))
	predecessor, others := mPrime, out[:]
	if api != abi.APIVersion1_0_0 {
		predecessor, others = 0, out[1:]
	}
	for i := range mPrime {
		bucket := rng.nextU64()%nBuckets + 1
		largest := min(metagraphNode, uint64(1)<<bucket)
		smallest := max(2, largest>>1)
		distance := smallest + rng.nextU64()%(largest-smallest+1)
		mapped := uint32((metagraphNode - distance) / mPrime)
		if mapped == uint32(node) {
			others[i] = uint32(node) - 1
		} else {
			others[i] = mapped
		}
	}
	out[predecessor] = uint32(node) - 1
	return out
}

// testNodes returns every node below min(nodes, 4096), the last nodes, and
// random ones.
func testNodes(nodes uint64, random int) []uint64 {
	var vs []uint64
	for v := range min(nodes, 4096) {
		vs = append(vs, v)
	}
	for v := nodes - min(nodes, 64); v < nodes; v++ {
		vs = append(vs, v)
	}
	r := rand.New(rand.NewPCG(nodes, 1))
	for range random {
		vs = append(vs, r.Uint64N(nodes))
	}
	return vs
}

func TestDRGParentsModel(t *testing.T) {
	for _, tc := range []struct {
		nodes uint64
		id    uint64
	}{{64, 0}, {1 << 18, 1}, {1 << 24, 2}, {1 << 30, 3}, {1 << 30, 8}, {1 << 31, 19}, {1<<32 - 1, 200}} {
		for _, api := range []abi.APIVersion{abi.APIVersion1_0_0, abi.APIVersion1_1_0, abi.APIVersion1_2_0} {
			porepID := abi.MakePoRepID(tc.id, 0)
			g, err := NewGraph(tc.nodes, porepID, api)
			if err != nil {
				t.Fatal(err)
			}
			var got [6]uint32
			for _, v := range testNodes(tc.nodes, 2000) {
				g.DRGParents(v, &got)
				if want := drgModel(porepID, api, v); got != want {
					t.Fatalf("nodes %d, id %d, %v, node %d: parents %v, want %v", tc.nodes, tc.id, api, v, got, want)
				}
			}
		}
	}
}

func TestDRGParentsInvariants(t *testing.T) {
	for _, nodes := range []uint64{4, 16, 64, 256, 2048, 1 << 30} {
		porepID := abi.MakePoRepID(5, 0)
		old, _ := NewGraph(nodes, porepID, abi.APIVersion1_0_0)
		cur, _ := NewGraph(nodes, porepID, abi.APIVersion1_1_0)
		var a, b [6]uint32
		for _, v := range testNodes(nodes, 5000) {
			old.DRGParents(v, &a)
			cur.DRGParents(v, &b)
			if v < 2 {
				if a != [6]uint32{} || b != [6]uint32{} {
					t.Fatalf("node %d: parents %v and %v, want all 0", v, a, b)
				}
				continue
			}
			if a[5] != uint32(v-1) || b[0] != uint32(v-1) {
				t.Fatalf("node %d: V1_0_0 %v must end and V1_1_0 %v start with node−1", v, a, b)
			}
			if [5]uint32(a[:5]) != [5]uint32(b[1:]) {
				t.Fatalf("node %d: random parents differ between versions: %v vs %v", v, a, b)
			}
			for _, p := range b {
				if uint64(p) >= v {
					t.Fatalf("node %d: parent %d not below the node (%v)", v, p, b)
				}
			}
		}
	}
}

// The integer ⌈log2(5·node)⌉ equals upstream's f64 computation for every
// node count a graph can have.
func TestDRGBucketCount(t *testing.T) {
	check := func(v uint64) {
		mn := v * drgMPrime
		if got, want := uint64(bits.Len64(mn-1)), uint64(math.Ceil(math.Log2(float64(mn)))); got != want {
			t.Fatalf("node %d: ⌈log2 %d⌉ = %d, f64 gives %d", v, mn, got, want)
		}
	}
	for v := uint64(2); v < 1<<16; v++ {
		check(v)
	}
	for k := uint(4); k < 35; k++ { // around each power of two of mn
		c := (uint64(1) << k) / drgMPrime
		for v := c - 3; v <= c+3; v++ {
			if v >= 2 && v < 1<<32 {
				check(v)
			}
		}
	}
}

// Pinned parents of StackedDrg2KiBV1 (porep_id 0, V1_0_0) and
// StackedDrg32GiBV1_1 (id 8), from the model above and confirmed end to end by
// TestSDRLabelVectors and TestVenusReplicas for the 2KiB graph.
func TestDRGParentsPinned(t *testing.T) {
	for _, tc := range []struct {
		id   uint64
		api  abi.APIVersion
		n    uint64
		node uint64
		want [6]uint32
	}{
		{0, abi.APIVersion1_0_0, 64, 2, [6]uint32{0, 1, 1, 1, 1, 1}},
		{0, abi.APIVersion1_0_0, 64, 3, [6]uint32{1, 2, 1, 2, 1, 2}},
		{0, abi.APIVersion1_0_0, 64, 63, [6]uint32{62, 61, 56, 62, 37, 62}},
		{8, abi.APIVersion1_1_0, 1 << 30, 1<<30 - 1, [6]uint32{1073741822, 1073258530, 440642413, 663190843, 1073741654, 1073741786}},
	} {
		g, _ := NewGraph(tc.n, abi.MakePoRepID(tc.id, 0), tc.api)
		var got [6]uint32
		g.DRGParents(tc.node, &got)
		if got != tc.want {
			t.Errorf("id %d node %d: parents %v, want %v", tc.id, tc.node, got, tc.want)
		}
	}
}

// benchGraph32GiB is the StackedDrg32GiBV1_1 graph.
func benchGraph32GiB(b *testing.B, opts ...GraphOption) *Graph {
	p, err := abi.Lookup(8)
	if err != nil {
		b.Fatal(err)
	}
	g, err := NewGraphFor(p, opts...)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkDRGParents measures one node's DRG parents in the 2^30-node graph.
func BenchmarkDRGParents(b *testing.B) {
	g := benchGraph32GiB(b)
	var out [6]uint32
	v := uint64(1 << 29)
	b.ReportAllocs()
	for b.Loop() {
		g.DRGParents(v, &out)
		v = (v + 0x9e3779b9) & (1<<30 - 1)
	}
}

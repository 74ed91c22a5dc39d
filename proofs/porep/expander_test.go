package porep

import (
	"testing"

	"github.com/filc2/filc2/proofs/abi"
)

// expanderModel is StackedGraph::correspondent written as the Rust is, over
// the round model: permute(8·node + i) by cycle walking, then
// `transformed as u32 / 8` (V1_0_0) or `u32::try_from(transformed / 8)`.
func expanderModel(nodes uint64, porepID [32]byte, api abi.APIVersion, node uint64) [8]uint32 {
	keys := feistelKeysModel(porepID)
	n := nodes * 8
	half, next := uint(1), uint64(4)
	for next < n {
		next *= 4
		half++
	}
	var out [8]uint32
	for i := range out {
		u := encodeModel(node*8+uint64(i), keys, half)
		for u >= n {
			u = encodeModel(u, keys, half)
		}
		if api == abi.APIVersion1_0_0 {
			out[i] = uint32(u) / 8
		} else {
			t := u / 8
			if t > 1<<32-1 {
				panic("invalid transformation")
			}
			out[i] = uint32(t)
		}
	}
	return out
}

func TestExpanderParentsModel(t *testing.T) {
	for _, tc := range []struct {
		nodes uint64
		id    uint64
		api   abi.APIVersion
	}{
		{64, 0, abi.APIVersion1_0_0},
		{64, 5, abi.APIVersion1_1_0},
		{1 << 14, 1, abi.APIVersion1_0_0},
		{1 << 30, 3, abi.APIVersion1_0_0},
		{1 << 30, 8, abi.APIVersion1_1_0},
		{1 << 31, 4, abi.APIVersion1_0_0},
		{1 << 31, 19, abi.APIVersion1_2_0},
	} {
		porepID := abi.MakePoRepID(tc.id, 0)
		g, err := NewGraph(tc.nodes, porepID, tc.api)
		if err != nil {
			t.Fatal(err)
		}
		var got [8]uint32
		vs := testNodes(tc.nodes, 300)
		if len(vs) > 600 {
			vs = append(vs[:200], vs[len(vs)-400:]...)
		}
		for _, v := range vs {
			g.ExpanderParents(v, &got)
			if want := expanderModel(tc.nodes, porepID, tc.api, v); got != want {
				t.Fatalf("nodes %d id %d %v node %d: parents %v, want %v", tc.nodes, tc.id, tc.api, v, got, want)
			}
		}
	}
}

// Over a whole small graph the 8·nodes expander edges are the permutation's
// image collapsed by 8: every node is the parent of exactly 8 (node, i) pairs.
func TestExpanderParentsCover(t *testing.T) {
	for _, api := range []abi.APIVersion{abi.APIVersion1_0_0, abi.APIVersion1_1_0} {
		const nodes = 1 << 12
		g, _ := NewGraph(nodes, abi.MakePoRepID(7, 0), api)
		count := make([]int, nodes)
		var e [8]uint32
		for v := range uint64(nodes) {
			g.ExpanderParents(v, &e)
			for _, p := range e {
				if p >= nodes {
					t.Fatalf("%v node %d: parent %d ≥ %d", api, v, p, nodes)
				}
				count[p]++
			}
		}
		for p, c := range count {
			if c != 8 {
				t.Fatalf("%v: node %d is an expander parent %d times, want 8", api, p, c)
			}
		}
	}
}

// V1_0_0 differs from V1_1_0 only where the permuted index reaches 2^32: never
// up to 2^29 nodes; at 32 GiB and 64 GiB the legacy parents never reach the
// upper half or three quarters of the layer (graph.rs
// test_graph_distribution_pathology) while the current ones do.
func TestExpanderVersions(t *testing.T) {
	for _, nodes := range []uint64{64, 1 << 20, 1 << 29} {
		id := abi.MakePoRepID(1, 0)
		old, _ := NewGraph(nodes, id, abi.APIVersion1_0_0)
		cur, _ := NewGraph(nodes, id, abi.APIVersion1_2_0)
		var a, b [8]uint32
		vs := testNodes(nodes, 500)
		for _, v := range vs[:min(len(vs), 1000)] {
			old.ExpanderParents(v, &a)
			cur.ExpanderParents(v, &b)
			if a != b {
				t.Fatalf("nodes %d node %d: V1_0_0 %v differs from V1_2_0 %v", nodes, v, a, b)
			}
		}
	}
	for _, tc := range []struct {
		nodes uint64
		id    uint64
		limit uint64 // V1_0_0 parents are below this
	}{{1 << 30, 3, 1 << 29}, {1 << 31, 4, 1 << 29}} {
		id := abi.MakePoRepID(tc.id, 0)
		old, _ := NewGraph(tc.nodes, id, abi.APIVersion1_0_0)
		cur, _ := NewGraph(tc.nodes, id, abi.APIVersion1_1_0)
		var a, b [8]uint32
		above, differ := 0, 0
		for _, v := range testNodes(tc.nodes, 2000)[4096:] {
			old.ExpanderParents(v, &a)
			cur.ExpanderParents(v, &b)
			for i := range a {
				if uint64(a[i]) >= tc.limit {
					t.Fatalf("nodes %d node %d: V1_0_0 parent %d ≥ %d", tc.nodes, v, a[i], tc.limit)
				}
				if uint64(b[i]) >= tc.limit {
					above++
				}
				if a[i] != b[i] {
					differ++
					// The only difference is the dropped bit(s) above 2^32.
					if uint64(b[i])%(1<<29) != uint64(a[i]) {
						t.Fatalf("node %d slot %d: V1_0_0 %d is not V1_1_0 %d mod 2^29", v, i, a[i], b[i])
					}
				}
			}
		}
		if above == 0 || differ == 0 {
			t.Errorf("nodes %d: no V1_1_0 parent above %d (%d) or no difference (%d)", tc.nodes, tc.limit, above, differ)
		}
	}
}

// Pinned expander parents, from the model above; the 2KiB ones are confirmed
// end to end by TestVenusReplicas.
func TestExpanderParentsPinned(t *testing.T) {
	for _, tc := range []struct {
		id    uint64
		api   abi.APIVersion
		nodes uint64
		node  uint64
		want  [8]uint32
	}{
		{0, abi.APIVersion1_0_0, 64, 2, [8]uint32{32, 49, 26, 57, 3, 4, 47, 63}},
		{0, abi.APIVersion1_0_0, 64, 63, [8]uint32{49, 37, 35, 41, 52, 50, 54, 5}},
		{8, abi.APIVersion1_1_0, 1 << 30, 1<<30 - 1, [8]uint32{307718517, 715446084, 558280128, 265147410, 110937796, 626719228, 201839602, 653041812}},
		{3, abi.APIVersion1_0_0, 1 << 30, 1<<30 - 1, [8]uint32{195269793, 55928625, 117716005, 370196974, 457529501, 256849605, 282938428, 400621728}},
	} {
		g, _ := NewGraph(tc.nodes, abi.MakePoRepID(tc.id, 0), tc.api)
		var got [8]uint32
		g.ExpanderParents(tc.node, &got)
		if got != tc.want {
			t.Errorf("id %d node %d: parents %v, want %v", tc.id, tc.node, got, tc.want)
		}
	}
}

// The tabulated round function gives the same parents.
func TestExpanderFeistelTable(t *testing.T) {
	for _, tc := range []struct {
		nodes uint64
		id    uint64
		api   abi.APIVersion
	}{{64, 0, abi.APIVersion1_0_0}, {1 << 14, 6, abi.APIVersion1_1_0}, {1 << 30, 3, abi.APIVersion1_0_0}, {1 << 30, 8, abi.APIVersion1_1_0}} {
		id := abi.MakePoRepID(tc.id, 0)
		plain, _ := NewGraph(tc.nodes, id, tc.api)
		table, err := NewGraph(tc.nodes, id, tc.api, WithFeistelTable())
		if err != nil {
			t.Fatal(err)
		}
		if len(table.feistel.table) != 3<<table.feistel.half {
			t.Fatalf("nodes %d: table of %d entries, want 3·2^%d", tc.nodes, len(table.feistel.table), table.feistel.half)
		}
		var a, b [8]uint32
		for _, v := range testNodes(tc.nodes, 3000) {
			plain.ExpanderParents(v, &a)
			table.ExpanderParents(v, &b)
			if a != b {
				t.Fatalf("nodes %d node %d: tabulated parents %v, want %v", tc.nodes, v, b, a)
			}
		}
		for x := range uint64(1000) {
			x %= tc.nodes * 8
			if y := table.feistel.permute(x); table.feistel.invertPermute(y) != x {
				t.Fatalf("nodes %d: tabulated inverse of permute(%d) = %d", tc.nodes, x, table.feistel.invertPermute(y))
			}
		}
	}
}

// BenchmarkExpanderParents measures one node's 8 expander parents in the
// 2^30-node graph (each about two Feistel passes of 3 BLAKE2b compressions).
func BenchmarkExpanderParents(b *testing.B) {
	benchExpander(b, benchGraph32GiB(b))
}

// BenchmarkExpanderParentsTable is BenchmarkExpanderParents with
// WithFeistelTable.
func BenchmarkExpanderParentsTable(b *testing.B) {
	benchExpander(b, benchGraph32GiB(b, WithFeistelTable()))
}

// BenchmarkNewGraphFeistelTable measures building the 32 GiB round table.
func BenchmarkNewGraphFeistelTable(b *testing.B) {
	for b.Loop() {
		benchGraph32GiB(b, WithFeistelTable())
	}
}

func benchExpander(b *testing.B, g *Graph) {
	var out [8]uint32
	v := uint64(1 << 29)
	b.ReportAllocs()
	for b.Loop() {
		g.ExpanderParents(v, &out)
		v = (v + 0x9e3779b9) & (1<<30 - 1)
	}
}

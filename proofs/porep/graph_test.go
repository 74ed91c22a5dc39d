package porep

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/testvec"
	"github.com/filc2/filc2/proofs/abi"
)

// sdrLabels computes the SDR labels of all layers (spec §1.5; create_label and
// create_label_exp of storage-proofs-porep) with plain SHA-256 over the
// 1248-byte preimage, from g's parents, and returns them layer by layer.
func sdrLabels(g *Graph, replicaID [32]byte, layers int) [][]byte {
	n := int(g.Nodes())
	out := make([][]byte, layers)
	var (
		parents [abi.BaseDegree + abi.ExpansionDegree]uint32
		pre     []byte
	)
	for l := range layers {
		cur := make([]byte, 32*n)
		for v := range n {
			pre = pre[:0]
			pre = append(pre, replicaID[:]...)
			pre = binary.BigEndian.AppendUint32(pre, uint32(l+1))
			pre = binary.BigEndian.AppendUint64(pre, uint64(v))
			pre = append(pre, make([]byte, 20)...)
			if v > 0 {
				g.Parents(uint64(v), &parents)
				label := func(i int) []byte {
					p := int(parents[i])
					if i < abi.BaseDegree {
						return cur[32*p : 32*p+32]
					}
					return out[l-1][32*p : 32*p+32]
				}
				if l == 0 {
					for range 6 {
						for i := range abi.BaseDegree {
							pre = append(pre, label(i)...)
						}
					}
					pre = append(pre, label(0)...)
				} else {
					for j := range 37 {
						pre = append(pre, label(j%14)...)
					}
				}
			}
			h := sha256.Sum256(pre)
			h[31] &= 0x3f
			copy(cur[32*v:], h[:])
		}
		out[l] = cur
	}
	return out
}

// TestSDRLabelVectors checks the whole graph (ChaCha8, bucket sampling, slot
// order, Feistel, expander truncation) against rust-fil-proofs'
// test_create_labels: 11 layers, replica_id [9; 32], the last label of the
// last layer (shared/vectors/poseidon_sdr.json sdr_labels_last_node_of_last_layer).
func TestSDRLabelVectors(t *testing.T) {
	var porep123 [32]byte
	for i := range porep123 {
		porep123[i] = 123
	}
	tests := []struct {
		name    string
		nodes   uint64
		porepID [32]byte
		apis    []abi.APIVersion
		want    string // little-endian bytes
	}{
		{"2KiB V1_0_0 porep_id 0", 64, [32]byte{}, []abi.APIVersion{abi.APIVersion1_0_0},
			"04ba0f9a6ba9fad35e4806d183a281eab3c25afa9a1bd5e3378da6f1f4f46204"},
		{"4KiB V1_0_0 porep_id 0", 128, [32]byte{}, []abi.APIVersion{abi.APIVersion1_0_0},
			"86daa8c4521e197e48c1fae6c9a1e85ab894a8883b9f23cebe531ddcd1004c23"},
		{"2KiB V1_1+ porep_id 123", 64, porep123, []abi.APIVersion{abi.APIVersion1_1_0, abi.APIVersion1_2_0},
			"cfef0db78bf3b3ab9f1169774d2e7a77bc9054499d954834b51ca7c788110206"},
		{"4KiB V1_1+ porep_id 123", 128, porep123, []abi.APIVersion{abi.APIVersion1_1_0, abi.APIVersion1_2_0},
			"6d67c468cf81ab2289c1c9c72fa8777a232de4c1323dc0c6bd552ccc187c770f"},
	}
	var replicaID [32]byte
	for i := range replicaID {
		replicaID[i] = 9
	}
	for _, tc := range tests {
		for _, api := range tc.apis {
			g, err := NewGraph(tc.nodes, tc.porepID, api)
			if err != nil {
				t.Fatal(err)
			}
			labels := sdrLabels(g, replicaID, 11)
			last := labels[10][32*(tc.nodes-1):]
			if got := hex.EncodeToString(last); got != tc.want {
				t.Errorf("%s, %v: last label %s, want %s", tc.name, api, got, tc.want)
			}
		}
	}
	// The same inputs with the other slot order must not match: the vector
	// does distinguish the versions.
	g, _ := NewGraph(64, [32]byte{}, abi.APIVersion1_1_0)
	if got := hex.EncodeToString(sdrLabels(g, replicaID, 11)[10][32*63:]); got == tests[0].want {
		t.Error("V1_1_0 slot order reproduces the V1_0_0 vector")
	}
}

// TestVenusReplicas re-seals the two real venus 2KiB sectors
// (shared/vectors/venus-preseal-2KiB; StackedDrg2KiBV1: porep_id 0, V1_0_0,
// 2 layers): replica[v] = label_2[v] + data[v] mod r must equal the sealed
// file for every node, with the replica id from ReplicaID.
func TestVenusReplicas(t *testing.T) {
	dir := venusDir(t)
	p, err := abi.Lookup(0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGraphFor(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range venusSectors {
		sealed, err := os.ReadFile(filepath.Join(dir, "sealed", s.file))
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "unsealed", s.file))
		if err != nil {
			t.Fatal(err)
		}
		rid := ReplicaID(ProverID(venusMiner), s.number, venusTicket(t), mustHex32(t, s.commD), p.PoRepID())
		key := sdrLabels(g, rid, p.Layers)[p.Layers-1]
		got := make([]byte, 0, len(sealed))
		for v := range int(p.Nodes) {
			k, err := fr.LittleEndian.Element((*[32]byte)(key[32*v:]))
			if err != nil {
				t.Fatal(err)
			}
			d, err := fr.LittleEndian.Element((*[32]byte)(data[32*v:]))
			if err != nil {
				t.Fatal(err)
			}
			k.Add(&k, &d)
			var b [32]byte
			fr.LittleEndian.PutElement(&b, k)
			got = append(got, b[:]...)
		}
		if !bytes.Equal(got, sealed) {
			t.Errorf("sector %d: re-sealed replica differs from %s", s.number, s.file)
		}
	}
}

// venusDir returns shared/vectors/venus-preseal-2KiB.
func venusDir(t *testing.T) string { return testvec.Path(t, "venus-preseal-2KiB") }

// Graph construction argument checks.
func TestNewGraphArgs(t *testing.T) {
	for _, tc := range []struct {
		nodes uint64
		api   abi.APIVersion
		ok    bool
	}{
		{64, abi.APIVersion1_0_0, true},
		{1 << 31, abi.APIVersion1_2_0, true},
		{1<<32 - 1, abi.APIVersion1_1_0, true},
		{1 << 32, abi.APIVersion1_1_0, false},
		{1, abi.APIVersion1_1_0, false},
		{64, 0, false},
		{64, 4, false},
	} {
		_, err := NewGraph(tc.nodes, [32]byte{}, tc.api)
		if (err == nil) != tc.ok {
			t.Errorf("NewGraph(%d, %v): err %v, want ok %v", tc.nodes, tc.api, err, tc.ok)
		}
	}
	g, _ := NewGraph(64, [32]byte{}, abi.APIVersion1_1_0)
	for _, f := range []func(){
		func() { var o [6]uint32; g.DRGParents(64, &o) },
		func() { var o [8]uint32; g.ExpanderParents(64, &o) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("node 64 of 64 did not panic")
				}
			}()
			f()
		}()
	}
}

// Parents is DRGParents followed by ExpanderParents.
func TestParents(t *testing.T) {
	g, _ := NewGraph(1<<10, abi.MakePoRepID(8, 0), abi.APIVersion1_1_0)
	var all [14]uint32
	var drg [6]uint32
	var exp [8]uint32
	for v := range uint64(1 << 10) {
		g.Parents(v, &all)
		g.DRGParents(v, &drg)
		g.ExpanderParents(v, &exp)
		if [6]uint32(all[:6]) != drg || [8]uint32(all[6:]) != exp {
			t.Fatalf("node %d: Parents %v, want %v ‖ %v", v, all, drg, exp)
		}
	}
}

package abi

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParamsIdentifier pins the identifier text of spec §4.2 for 32GiB.
func TestParamsIdentifier(t *testing.T) {
	p, err := ParseName("StackedDrg32GiBV1_1")
	if err != nil {
		t.Fatal(err)
	}
	const want = "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: 1073741824; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: 11, max_count: 18 }, tree: merkletree-poseidon_hasher-8-8-0 }"
	if got := p.paramsIdentifier(); got != want {
		t.Errorf("paramsIdentifier =\n%s\nwant\n%s", got, want)
	}
	const stem = "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"
	if got := p.paramsFileStem(); got != stem {
		t.Errorf("paramsFileStem = %s, want %s", got, stem)
	}
}

// TestParamsFiles checks the spec's hash prefixes and digests (§4.2) and that
// every computed name is an entry of parameters.json.
func TestParamsFiles(t *testing.T) {
	spec := map[uint64]struct{ tree, hash, digest string }{
		2 << 10:   {"8-0-0", "032d3138", "434fb133"},
		8 << 20:   {"8-0-0", "ecd68364", "09e612e4"},
		512 << 20: {"8-0-0", "6babf46c", "6c77597e"},
		32 << 30:  {"8-8-0", "82a357d2", "6a388072"},
		64 << 30:  {"8-8-2", "96f1b4a0", "1801f8a6"},
	}
	var file map[string]struct {
		CID        string `json:"cid"`
		Digest     string `json:"digest"`
		SectorSize uint64 `json:"sector_size"`
	}
	if err := json.Unmarshal([]byte(parametersJSON), &file); err != nil {
		t.Fatal(err)
	}
	for _, p := range All() {
		w := spec[uint64(p.SectorSize)]
		prefix := "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-" + w.tree + "-sha256_hasher-" + w.hash
		params, vk := p.ParamsFile(), p.VKFile()
		for _, f := range []ParamsFile{params, vk} {
			e, ok := file[f.Name]
			switch {
			case !ok:
				t.Errorf("%s: %s is not in parameters.json", p, f.Name)
			case f != ParamsFile{Name: f.Name, CID: e.CID, Digest: e.Digest, SectorSize: e.SectorSize}:
				t.Errorf("%s: %+v disagrees with parameters.json %+v", p, f, e)
			case !strings.HasPrefix(f.Name, prefix):
				t.Errorf("%s: file %s, want prefix %s", p, f.Name, prefix)
			case f.SectorSize != uint64(p.SectorSize) || len(f.Digest) != 32 || !strings.HasPrefix(f.CID, "Qm"):
				t.Errorf("%s: bad entry %+v", p, f)
			}
		}
		if !strings.HasSuffix(params.Name, ".params") || vk.Name != strings.TrimSuffix(params.Name, ".params")+".vk" {
			t.Errorf("%s: params %s and vk %s do not pair", p, params.Name, vk.Name)
		}
		if !strings.HasPrefix(params.Digest, w.digest) {
			t.Errorf("%s: .params digest %s, want prefix %s", p, params.Digest, w.digest)
		}
	}
}

// TestParamsShared checks that all variants of a size share one file pair.
func TestParamsShared(t *testing.T) {
	first := map[uint64]SealProof{}
	for _, p := range All() {
		size := uint64(p.SectorSize)
		q, ok := first[size]
		if !ok {
			first[size] = p
			continue
		}
		if p.ParamsFile() != q.ParamsFile() || p.VKFile() != q.VKFile() {
			t.Errorf("%s and %s use different parameter files", p, q)
		}
	}
}

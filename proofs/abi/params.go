package abi

import (
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// parametersJSON is a copy of filecoin-proofs' v28 parameters.json.
//
//go:embed parameters.json
var parametersJSON string

// ParamsFile is one entry of parameters.json.
type ParamsFile struct {
	Name       string // file name, such as "v28-stacked-proof-of-replication-….params"
	CID        string // IPFS CID of the file
	Digest     string // first 32 hex digits of the file's BLAKE2b-512
	SectorSize uint64 // sector size the file serves
}

// ParamsFile returns the Groth16 parameter (.params) file of the proof type.
// Every proof type of one sector size shares it.
func (p SealProof) ParamsFile() ParamsFile { return p.params }

// VKFile returns the Groth16 verifying key (.vk) file of the proof type.
func (p SealProof) VKFile() ParamsFile { return p.vk }

// paramsIdentifier returns the parameter cache identifier of filecoin-proofs
// (spec §4.2). It holds no porep_id, API version or feature.
func (p SealProof) paramsIdentifier() string {
	return fmt.Sprintf("layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: %d base_graph: drgraph::BucketGraph{size: %d; degree: %d; hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: %d, max_count: %d }, tree: %s }",
		ExpansionDegree, p.Nodes, BaseDegree, p.Layers, p.ChallengesPerPartition, p.Tree)
}

// paramsFileStem returns the parameter file name without its extension.
func (p SealProof) paramsFileStem() string {
	return fmt.Sprintf("v28-stacked-proof-of-replication-%s-sha256_hasher-%x", p.Tree, sha256.Sum256([]byte(p.paramsIdentifier())))
}

// paramsSet maps parameters.json file names to their entries.
type paramsSet map[string]ParamsFile

// files is the parsed parameters.json, built once.
var files = sync.OnceValue(parameterFiles)

// parameterFiles parses the embedded parameters.json.
func parameterFiles() paramsSet {
	var raw map[string]struct {
		CID        string `json:"cid"`
		Digest     string `json:"digest"`
		SectorSize uint64 `json:"sector_size"`
	}
	if err := json.Unmarshal([]byte(parametersJSON), &raw); err != nil {
		panic("abi: embedded parameters.json: " + err.Error())
	}
	s := make(paramsSet, len(raw))
	for name, e := range raw {
		s[name] = ParamsFile{Name: name, CID: e.CID, Digest: e.Digest, SectorSize: e.SectorSize}
	}
	return s
}

// lookup returns the .params and .vk entries of p.
func (s paramsSet) lookup(p SealProof) (params, vk ParamsFile) {
	return s.lookupFile(p.paramsFileStem(), uint64(p.SectorSize), p.Name)
}

// lookupFile returns the .params and .vk entries of a file stem. The embedded
// file is fixed at build time, so a missing entry is a bug and panics.
func (s paramsSet) lookupFile(stem string, sectorSize uint64, what string) (params, vk ParamsFile) {
	get := func(name string) ParamsFile {
		f, ok := s[name]
		if !ok || f.SectorSize != sectorSize {
			panic("abi: parameters.json has no " + name + " for " + what)
		}
		return f
	}
	return get(stem + ".params"), get(stem + ".vk")
}

// ParameterFiles returns every entry of parameters.json (all proof kinds, not
// only PoRep), sorted by name.
func ParameterFiles() []ParamsFile {
	s := files()
	out := make([]ParamsFile, 0, len(s))
	for _, f := range s {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b ParamsFile) int { return strings.Compare(a.Name, b.Name) })
	return out
}

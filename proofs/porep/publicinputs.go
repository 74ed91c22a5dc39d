package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
)

// PublicInputsPerChallenge is the number of public inputs each challenge adds:
// its tree-D index, 6 DRG and 8 expander parent indices, its UInt64 packing,
// and its tree-R-last and tree-C indices.
const PublicInputsPerChallenge = 1 + abi.BaseDegree + abi.ExpansionDegree + 3

// PublicInputCount returns the length of a partition's public input vector
// for the given number of challenges per partition: 3 + 18·challenges (39 for
// 2 challenges, 327 for 18). The implicit input ONE is not counted; the
// verifying key's IC has one point more.
func PublicInputCount(challenges int) int { return 3 + PublicInputsPerChallenge*challenges }

// PublicInputs returns the Groth16 public inputs of partition k of a sector of
// proof type p (StackedCompound::generate_public_inputs,
// storage-proofs-porep stacked/circuit/proof.rs), without ONE:
//
//	replica_id, comm_d, comm_r,
//	then for each challenge c of the partition (Challenges):
//	c, DRGParents(c) in slot order, ExpanderParents(c), c, c, c
//
// replicaID, commD and commR are 32-byte little-endian Fr encodings and must be
// canonical (below r) — upstream's as_safe_commitment; a trimmed replica id
// always is. The graph is that of p.Nodes, p.PoRepID() and p.APIVersion.
// seed is ignored by non-interactive proof types.
func PublicInputs(p abi.SealProof, replicaID, commD, commR, seed [32]byte, k int) ([]fr.Element, error) {
	g, err := NewGraphFor(p)
	if err != nil {
		return nil, err
	}
	return g.PublicInputs(p, replicaID, commD, commR, seed, k)
}

// PublicInputs is the package-level PublicInputs over a graph built once. g
// must be the graph of p's nodes; its porep_id and API version are the ones
// the parents follow, so a chain that pairs them differently from the
// registered network builds g with NewGraph.
func (g *Graph) PublicInputs(p abi.SealProof, replicaID, commD, commR, seed [32]byte, k int) ([]fr.Element, error) {
	if g.nodes != p.Nodes {
		return nil, fmt.Errorf("porep: graph of %d nodes for %v of %d nodes", g.nodes, p, p.Nodes)
	}
	out := make([]fr.Element, 3, PublicInputCount(p.ChallengesPerPartition))
	for i, c := range []struct {
		name string
		b    [32]byte
	}{{"replica_id", replicaID}, {"comm_d", commD}, {"comm_r", commR}} {
		e, err := fr.LittleEndian.Element(&c.b)
		if err != nil {
			return nil, fmt.Errorf("porep: %s %x is not a canonical Fr: %w", c.name, c.b, err)
		}
		out[i] = e
	}
	challenges, err := Challenges(p, replicaID, seed, commR, k)
	if err != nil {
		return nil, err
	}
	var (
		drg [abi.BaseDegree]uint32
		exp [abi.ExpansionDegree]uint32
		e   fr.Element
	)
	for _, c := range challenges {
		g.DRGParents(c, &drg)
		g.ExpanderParents(c, &exp)
		out = append(out, *e.SetUint64(c))
		for _, q := range drg {
			out = append(out, *e.SetUint64(uint64(q)))
		}
		for _, q := range exp {
			out = append(out, *e.SetUint64(uint64(q)))
		}
		e.SetUint64(c)
		out = append(out, e, e, e)
	}
	return out, nil
}

package update

import (
	"encoding/binary"
	"fmt"

	"github.com/filc2/filc2/proofs/vanilla"
)

// ChallengeProof is one challenge's three inclusion proofs: of the old
// replica's node in tree R-old, of the new data's node in tree D-new (binary
// SHA-256, Single) and of the new replica's node in tree R-new.
type ChallengeProof struct {
	ROld, DNew, RNew vanilla.MerkleProof
}

// PartitionProof is storage-proofs-update's PartitionProof: what
// GenerateUpdateVanillaProofs returns for one partition, bincode-encoded,
// and what curio (snap-vproof.json) and lotus hand a prover.
type PartitionProof struct {
	CommC      vanilla.Domain
	ApexLeaves []vanilla.Domain
	Challenges []ChallengeProof
}

// Limits of a decoded partition proof, above anything the proofs API makes
// (128 apex leaves, 86 challenges).
const (
	maxApexLeaves = 1 << 10
	maxChallenges = 1 << 10
)

// DecodePartitionProof decodes one bincode PartitionProof. It checks the
// encoding (lengths, variants, canonical field elements, indices within
// their level's arity, no trailing bytes), not the proof: Check does. An
// error is a *vanilla.DecodeError naming the byte offset.
func DecodePartitionProof(b []byte) (*PartitionProof, error) {
	r := vanilla.NewReader(b)
	var p PartitionProof
	var err error
	if p.CommC, err = r.Domain("comm_c"); err != nil {
		return nil, err
	}
	n, err := r.Length("apex_leafs", maxApexLeaves, 32)
	if err != nil {
		return nil, err
	}
	p.ApexLeaves = make([]vanilla.Domain, n)
	for i := range p.ApexLeaves {
		if p.ApexLeaves[i], err = r.Domain(fmt.Sprintf("apex leaf %d", i)); err != nil {
			return nil, err
		}
	}
	// A challenge proof holds three MerkleProofs of at least a variant, two
	// domains and a path length.
	if n, err = r.Length("challenge_proofs", maxChallenges, 3*(4+64+8)); err != nil {
		return nil, err
	}
	p.Challenges = make([]ChallengeProof, n)
	for i := range p.Challenges {
		c := &p.Challenges[i]
		what := fmt.Sprintf("challenge proof %d", i)
		if c.ROld, err = r.MerkleProof(what + " proof_r_old"); err != nil {
			return nil, err
		}
		if c.DNew, err = r.MerkleProof(what + " proof_d_new"); err != nil {
			return nil, err
		}
		if c.RNew, err = r.MerkleProof(what + " proof_r_new"); err != nil {
			return nil, err
		}
	}
	if err := r.End(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Encode returns p's bincode encoding, the inverse of DecodePartitionProof.
func (p *PartitionProof) Encode() []byte {
	b := append([]byte(nil), p.CommC[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(p.ApexLeaves)))
	for _, l := range p.ApexLeaves {
		b = append(b, l[:]...)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(p.Challenges)))
	for i := range p.Challenges {
		c := &p.Challenges[i]
		b = vanilla.AppendMerkleProof(b, &c.ROld)
		b = vanilla.AppendMerkleProof(b, &c.DNew)
		b = vanilla.AppendMerkleProof(b, &c.RNew)
	}
	return b
}

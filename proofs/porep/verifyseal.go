package porep

import (
	"crypto/rand"
	"errors"
	"fmt"
	"strings"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/groth16"
)

// SealPublic is the public data a seal proof is checked against, as the chain
// holds it (filecoin-proofs verify_seal). Byte arrays are as lotus passes
// them: comm_r and comm_d 32-byte little-endian Fr, the rest opaque.
type SealPublic struct {
	PoRepID  [32]byte // the porep_id of the sector's proof type (abi.SealProof.PoRepID on mainnet)
	ProverID [32]byte // ProverID(miner actor id)
	SectorID uint64
	Ticket   [32]byte // the seal randomness
	Seed     [32]byte // the interactive randomness; ignored by NI-PoRep
	CommR    [32]byte
	CommD    [32]byte
}

// ReplicaID returns the sector's replica id (ReplicaID of the fields).
func (s *SealPublic) ReplicaID() [32]byte {
	return ReplicaID(s.ProverID, s.SectorID, s.Ticket, s.CommD, s.PoRepID)
}

// InvalidSealError reports why a seal proof is invalid for its public data:
// what the chain would reject. Other VerifySeal errors mean the inputs do not
// fit together (a verifying key for another circuit, a graph of another size).
type InvalidSealError struct {
	Partitions []int  // the partitions at fault, nil when the reason concerns the whole proof
	Reason     string // e.g. "partition 3 does not verify"
}

func (e *InvalidSealError) Error() string { return "porep: invalid seal proof: " + e.Reason }

func invalid(format string, args ...any) error {
	return &InvalidSealError{Reason: fmt.Sprintf(format, args...)}
}

// VerifySeal checks proof, the concatenated p.Partitions Groth16 partition
// proofs of 192 bytes, against the sector's public data as verify_seal does:
// it rejects non-canonical comm_r or comm_d, derives the replica id and every
// partition's public inputs over g, decodes each partition strictly and
// verifies them (a batch check, then one by one to name the failures).
//
// vk must be the prepared .vk of p's sector size and g the graph the chain
// uses for the sector, NewGraph(p.Nodes, in.PoRepID, api) (NewGraphFor(p) on
// mainnet): a graph for another porep_id gives other parents and an invalid
// verdict, not an error. It returns nil when the proof verifies, an
// *InvalidSealError when it does not, and another error when the arguments do
// not fit each other.
func VerifySeal(vk *groth16.PreparedVerifyingKey, g *Graph, p abi.SealProof, in SealPublic, proof []byte) error {
	nInputs := PublicInputCount(p.ChallengesPerPartition)
	if vk == nil || vk.VK == nil {
		return errors.New("porep: VerifySeal without a verifying key")
	}
	if got := len(vk.VK.IC) - 1; got != nInputs {
		return fmt.Errorf("porep: the verifying key takes %d public inputs, %v has %d: it is not the .vk of %s sectors (%s)", got, p, nInputs, sizeName(p), p.VKFile().Name)
	}
	if g == nil || g.Nodes() != p.Nodes {
		return fmt.Errorf("porep: VerifySeal needs the graph of %v's %d nodes", p, p.Nodes)
	}
	if want := p.ProofLen(); len(proof) != want {
		if p.Partitions == 1 {
			return invalid("proof is %d bytes, want %d", len(proof), want)
		}
		return invalid("proof is %d bytes, want %d (%d partitions of %d)", len(proof), want, p.Partitions, groth16.ProofSize)
	}
	for _, c := range []struct {
		name string
		b    [32]byte
	}{{"comm_r", in.CommR}, {"comm_d", in.CommD}} {
		if _, err := fr.LittleEndian.Element(&c.b); err != nil {
			return invalid("%s %x is not a canonical field element (little-endian, below the BLS12-381 scalar modulus)", c.name, c.b)
		}
	}
	replicaID := in.ReplicaID()
	proofs := make([]groth16.Proof, p.Partitions)
	public := make([][]fr.Element, p.Partitions)
	for k := range p.Partitions {
		if err := proofs[k].SetBytes(proof[k*groth16.ProofSize : (k+1)*groth16.ProofSize]); err != nil {
			reason := err.Error()
			var fe *groth16.FormatError
			if errors.As(err, &fe) {
				reason = fmt.Sprintf("%s at byte %d: %v", fe.Section, int64(k*groth16.ProofSize)+fe.Offset, fe.Err)
			}
			return &InvalidSealError{Partitions: []int{k}, Reason: fmt.Sprintf("partition %d: cannot decode %s", k, reason)}
		}
		x, err := g.PublicInputs(p, replicaID, in.CommD, in.CommR, in.Seed, k)
		if err != nil {
			return fmt.Errorf("porep: public inputs of partition %d: %w", k, err)
		}
		public[k] = x
	}
	if p.Partitions > 1 {
		ok, err := groth16.VerifyBatch(vk, proofs, public, rand.Reader)
		if err != nil {
			return fmt.Errorf("porep: batch verification: %w", err)
		}
		if ok {
			return nil
		}
	}
	var bad []int
	for k := range proofs {
		ok, err := groth16.Verify(vk, &proofs[k], public[k])
		if err != nil {
			return fmt.Errorf("porep: verifying partition %d: %w", k, err)
		}
		if !ok {
			bad = append(bad, k)
		}
	}
	switch len(bad) {
	case 0:
		return nil // the batch's random combination was unlucky; every proof verifies alone
	case 1:
		return &InvalidSealError{Partitions: bad, Reason: fmt.Sprintf("partition %d does not verify", bad[0])}
	}
	s := make([]string, len(bad))
	for i, k := range bad {
		s[i] = fmt.Sprint(k)
	}
	return &InvalidSealError{Partitions: bad, Reason: fmt.Sprintf("partitions %s do not verify", strings.Join(s, ", "))}
}

// sizeName returns p's sector size as proof names spell it, such as "32GiB".
func sizeName(p abi.SealProof) string {
	return strings.TrimSuffix(strings.TrimPrefix(p.VanillaKey(), "StackedDrg"), "V1")
}

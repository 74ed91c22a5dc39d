package c2

import (
	"errors"
	"fmt"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
)

// ErrInvalid marks a proof that decodes but does not verify.
var ErrInvalid = errors.New("invalid proof")

// VerifyPartition checks one partition's proof against the public inputs of
// partition k (porep.PublicInputs).
func VerifyPartition(pvk *groth16.PreparedVerifyingKey, p abi.SealProof, replicaID, commD, commR, seed [32]byte, k int, proof *groth16.Proof) error {
	public, err := porep.PublicInputs(p, replicaID, commD, commR, seed, k)
	if err != nil {
		return err
	}
	ok, err := groth16.Verify(pvk, proof, public)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: partition %d does not verify", ErrInvalid, k)
	}
	return nil
}

// VerifyC1Proof verifies proof bytes (192 per partition) against the public
// data of a C1 output, as verify-seal does with the same data.
func VerifyC1Proof(pvk *groth16.PreparedVerifyingKey, c *c1.Commit1Out, proof []byte) error {
	p, err := c.ProofType()
	if err != nil {
		return err
	}
	if len(proof) != p.Partitions*groth16.ProofSize {
		return fmt.Errorf("%w: proof is %d bytes, %s wants %d (%d partitions × %d)", ErrInvalid, len(proof), p.Name, p.Partitions*groth16.ProofSize, p.Partitions, groth16.ProofSize)
	}
	proofs, err := groth16.DecodeProofs(proof, p.Partitions)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	for k := range proofs {
		if err := VerifyPartition(pvk, p, c.ReplicaID, c.CommD, c.CommR, c.Seed, k, &proofs[k]); err != nil {
			return err
		}
	}
	return nil
}

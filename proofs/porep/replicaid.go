package porep

import (
	"crypto/sha256"
	"encoding/binary"
)

// ReplicaID returns the replica id of a sector (generate_replica_id,
// storage-proofs-porep stacked/vanilla/params.rs): SHA-256 of the 136 bytes
//
//	prover_id ‖ sector_id as u64 big-endian ‖ ticket ‖ comm_d ‖ porep_id
//
// with the top two bits of the last byte cleared (bytes_into_fr_repr_safe), so
// that it read as a little-endian integer is below 2^254 and a valid Fr. The
// clearing is a trim, not a reduction mod r. Challenges and labels hash these
// trimmed bytes.
func ReplicaID(proverID [32]byte, sectorID uint64, ticket, commD, porepID [32]byte) [32]byte {
	var pre [136]byte
	copy(pre[0:32], proverID[:])
	binary.BigEndian.PutUint64(pre[32:40], sectorID)
	copy(pre[40:72], ticket[:])
	copy(pre[72:104], commD[:])
	copy(pre[104:136], porepID[:])
	id := sha256.Sum256(pre[:])
	id[31] &= 0x3f
	return id
}

// ProverID returns the prover id of a miner actor as filecoin-ffi builds it:
// the payload of the ID address f0<minerID>, that is minerID as an unsigned
// LEB128 varint, left-aligned in 32 zero bytes.
func ProverID(minerID uint64) [32]byte {
	var id [32]byte
	binary.PutUvarint(id[:], minerID)
	return id
}

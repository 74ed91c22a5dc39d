package gadgets

import "github.com/filc2/filc2/proofs/r1cs"

// LabelParents is the number of parent labels hashed into a label
// (stacked/vanilla TOTAL_PARENTS: 6 base + 8 expansion, expanded to 37).
const LabelParents = 37

// CreateLabel is storage-proofs-porep create_label_circuit: SHA256 over
//
//	replicaID (padded with constant false to 256 bits) ‖ layer.IntoBitsBE ‖
//	node.ToBitsBE ‖ constant false up to 512 bits ‖ each of the 37 parents
//	padded with constant false to a multiple of 256 bits
//
// (9 984 bits, 20 blocks with the SHA-256 padding), then the digest
// bit-reversed within each byte and its first 254 bits packed with PackBits.
// replicaID must hold 32 to 256 bits and each parent at most 256.
func CreateLabel(cs *r1cs.System, replicaID []Boolean, parents [][]Boolean, layer UInt32, node UInt64) AllocatedNum {
	if len(replicaID) < 32 || len(replicaID) > 256 {
		panic("gadgets: CreateLabel replica id must hold 32 to 256 bits")
	}
	if len(parents) != LabelParents {
		panic("gadgets: CreateLabel needs 37 parents")
	}
	var s sha256Stream
	s.reset(cs)
	s.write(replicaID)
	s.writeConst(false, 256-len(replicaID))
	lb := layer.IntoBitsBE()
	s.write(lb[:])
	nb := node.ToBitsBE()
	s.write(nb[:])
	s.writeConst(false, 512-int(s.total))
	for _, p := range parents {
		if len(p) > 256 {
			panic("gadgets: CreateLabel parent longer than 256 bits")
		}
		s.write(p)
		s.writeConst(false, int((256-s.total%256)%256))
	}
	if s.total != (2+LabelParents)*256 {
		panic("gadgets: CreateLabel preimage has the wrong length")
	}
	h := s.finish()
	return packDigestLE(cs, &h)
}

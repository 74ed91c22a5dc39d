package fallback

import "github.com/filc2/filc2/proofs/vanilla"

// The inclusion-proof pieces are package vanilla's, shared with SnapDeals.
type (
	// Domain is one 32-byte tree node or commitment.
	Domain = vanilla.Domain
	// PathElement is one level of an inclusion path.
	PathElement = vanilla.PathElement
	// ProofVariant is the MerkleProof enum variant.
	ProofVariant = vanilla.ProofVariant
	// MerkleProof is an inclusion proof of one leaf of tree R-last.
	MerkleProof = vanilla.MerkleProof
)

// The MerkleProof variants: 8-0-0 trees give Single, 8-8-0 Sub, 8-8-2 Top.
const (
	Single = vanilla.Single
	Sub    = vanilla.Sub
	Top    = vanilla.Top
)

// SectorProof is one sector's part of a vanilla proof: an inclusion proof per
// challenge and the two roots comm_r is made of.
type SectorProof struct {
	InclusionProofs []MerkleProof
	CommC           Domain
	CommRLast       Domain
}

// SectorVanilla is filecoin-proofs' FallbackPoStSectorProof: what
// generate_single_vanilla_proof returns for one sector and what curio and
// lotus hand a prover, one per sector.
type SectorVanilla struct {
	SectorID uint64
	CommR    Domain
	// Sectors holds one SectorProof for a vanilla proof of one sector (the
	// only kind the proofs API makes); the encoding allows a list.
	Sectors []SectorProof
}

// PublicSector is a sector as the verifier knows it: its number and comm_r.
type PublicSector struct {
	ID    uint64
	CommR Domain
}

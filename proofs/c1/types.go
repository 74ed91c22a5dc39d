package c1

// Commit1Out is rust-filecoin-proofs-api's SealCommitPhase1Output: the C1
// output of one sector. Fields are in the Rust struct's (and JSON's) order.
type Commit1Out struct {
	RegisteredProof string        // registered_proof, such as "StackedDrg32GiBV1_1"
	VanillaProofs   VanillaProofs // vanilla_proofs
	CommR           Domain        // comm_r, a Poseidon field element
	CommD           Domain        // comm_d, the tree-D (SHA-256) root
	ReplicaID       Domain        // replica_id, a Poseidon field element
	Seed            Domain        // seed, the interactive challenge randomness
	Ticket          Domain        // ticket, the sealing randomness (not used by C2)
}

// VanillaProofs is the VanillaSealProof enum: one variant, named by Key, that
// holds the vanilla proofs indexed [partition][challenge].
type VanillaProofs struct {
	Key        string    // enum variant, such as "StackedDrg32GiBV1" (abi.SealProof.VanillaKey)
	Partitions [][]Proof // one slice of challenge proofs per partition
}

// Proof is storage-proofs-porep's stacked vanilla Proof of one challenge.
type Proof struct {
	CommDProofs         MerkleProof        // comm_d_proofs: tree D (binary SHA-256) opening of the challenge
	CommRLastProof      MerkleProof        // comm_r_last_proof: tree R-last opening of the challenge
	ReplicaColumnProofs ReplicaColumnProof // replica_column_proofs
	LabelingProofs      []LabelingProof    // labeling_proofs, one per layer (1..layers)
	EncodingProof       EncodingProof      // encoding_proof
}

// ReplicaColumnProof holds the tree-C column openings of a challenge and of
// its parents.
type ReplicaColumnProof struct {
	CX         ColumnProof   // c_x: the challenged node's column
	DrgParents []ColumnProof // drg_parents: abi.BaseDegree base-graph parents
	ExpParents []ColumnProof // exp_parents: abi.ExpansionDegree expander parents
}

// ColumnProof is one column and its inclusion proof in tree C.
type ColumnProof struct {
	Column         Column      // column
	InclusionProof MerkleProof // inclusion_proof
}

// Column is a node's labels across all layers. Its JSON also carries the
// PhantomData field "_h", always null, which is not represented here.
type Column struct {
	Index uint32   // index: the node
	Rows  []Domain // rows: the node's label in layers 1..layers
}

// LabelingProof holds the parent labels that label a node in one layer.
type LabelingProof struct {
	Parents    []Domain // parents: the 37 hashed parent labels
	LayerIndex uint32   // layer_index, 1-based
	Node       uint64   // node: the challenged node
}

// EncodingProof holds the parent labels of the last layer's label, the
// encoding key of the replica node.
type EncodingProof struct {
	Parents    []Domain // parents: the 37 hashed parent labels
	LayerIndex uint32   // layer_index: the number of layers
	Node       uint64   // node: the challenged node
}

// MerkleProof is storage-proofs-core's MerkleProof.
type MerkleProof struct {
	Data ProofData // data
}

// ProofData is the externally tagged ProofData enum: exactly one of Single,
// Sub and Top is set, according to the tree's shape.
type ProofData struct {
	Single *SingleProof // a tree without sub or top levels
	Sub    *SubProof    // base trees under one sub level
	Top    *TopProof    // base trees under a sub and a top level
}

// SingleProof is the opening of a leaf in one tree.
type SingleProof struct {
	Root Domain        // root
	Leaf Domain        // leaf
	Path InclusionPath // path, leaf to root
}

// SubProof is the opening of a leaf in a tree of base trees joined by a sub
// level.
type SubProof struct {
	BaseProof InclusionPath // base_proof: inside the base tree
	SubProof  InclusionPath // sub_proof: the sub level (one element)
	Root      Domain        // root
	Leaf      Domain        // leaf
}

// TopProof is the opening of a leaf in a tree with base, sub and top levels.
type TopProof struct {
	BaseProof InclusionPath // base_proof: inside the base tree
	SubProof  InclusionPath // sub_proof: the sub level (one element)
	TopProof  InclusionPath // top_proof: the top level (one element)
	Root      Domain        // root
	Leaf      Domain        // leaf
}

// InclusionPath is a path through one tree, leaf to root.
type InclusionPath struct {
	Path []PathElement // path
}

// PathElement is one level of a path: the arity−1 siblings of the current
// node, in order, and the current node's position among all arity children.
type PathElement struct {
	Hashes []Domain // hashes: the siblings
	Index  uint64   // index: the position of the current node, < arity
}

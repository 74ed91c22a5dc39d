package porep

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/poseidon"
)

// A SparseSector is a TEST FIXTURE: a sector of any size, 32GiB and 64GiB
// included, of which only the nodes its C1 output opens exist. Its C1 output
// passes VerifyVanilla and satisfies every constraint of the real circuit, so
// a prover cannot tell it from a sealed sector's; it costs milliseconds where
// sealing 32GiB costs hours and hundreds of GB.
//
// It is cheap only because the seed is known before the trees are built,
// which the chain never allows: the challenges come first (from replica_id
// and the seed), then the labels of just the challenged nodes and of their
// parents, then trees C and R-last over just those leaves, every other node of
// them pseudo-random. So a sparse sector's comm_r commits to nothing, and its
// proofs are worthless to anyone but a test. The synthetic and
// non-interactive proof types derive their challenges from comm_r itself and
// cannot be made this way (NewSparseSector refuses them; seal such sectors
// for real, which filc2 does up to 512MiB).
//
// How it is built, so that it is consistent where a real sector is:
//   - the data is one pseudo-random block of SparseDataBlock nodes (fr32-valid)
//     repeated over the sector, or zeros (committed capacity), so that tree D
//     and comm_d are those of real data and known before anything is
//     challenged; replica_id follows from comm_d as always;
//   - every node the C1 opens (the challenges and their 14 parents) is
//     pinned; a pinned node that is not challenged gets pseudo-random labels
//     in every layer; a challenged node's labels are computed from its
//     parents' labels exactly as the sealer does, layer by layer and in node
//     order within a layer, so a node that is both a parent and a challenge has
//     one column, consistent with both roles;
//   - the replica node of a challenge is its last label plus its data node;
//     tree C's known leaves are the pinned columns' hashes, tree R-last's the
//     challenges' replica nodes, both with the proof type's base/sub/top shape.
type SparseSector struct {
	Proof                   abi.SealProof
	ProverID                [32]byte
	SectorID                uint64
	Ticket, Seed, ReplicaID [32]byte
	CommD, CommC            [32]byte
	CommRLast, CommR        [32]byte

	graph  *Graph
	block  []merkle.Node            // the data block (nil: zeros)
	labels map[uint64][]merkle.Node // pinned node → its labels, layer 1 first
	treeD  *merkle.PeriodicSHA256Tree
	treeC  *merkle.SparsePoseidonTree
	treeR  *merkle.SparsePoseidonTree
}

// SparseDataBlock is the number of nodes of a sparse sector's data block
// (128 KiB; a smaller sector is one block).
const SparseDataBlock = 1 << 12

// SparseInput names a sparse sector.
type SparseInput struct {
	Proof    abi.SealProof // an interactive proof type (V1 or V1_1), any size
	ProverID [32]byte
	SectorID uint64
	Ticket   [32]byte
	Seed     [32]byte // the interactive randomness, fixed before the trees
	// CommittedCapacity makes the data zeros (a CC sector); otherwise it is a
	// pseudo-random block drawn from the prover, sector and ticket.
	CommittedCapacity bool
}

// NewSparseSector builds the sparse sector of in: data and tree D, replica_id,
// the challenges of every partition, the pinned nodes' labels and the sparse
// trees C and R-last.
func NewSparseSector(ctx context.Context, in SparseInput) (*SparseSector, error) {
	p := in.Proof
	switch {
	case p.Name == "" || p.Nodes < 2:
		return nil, fmt.Errorf("porep: sparse sector: %q is not a seal proof type", p.Name)
	case p.ChallengeKind != abi.Interactive:
		return nil, fmt.Errorf("porep: %s derives its challenges from comm_r (%v), so no sector can be built around them: "+
			"a sparse sector needs an interactive proof type (V1 or V1_1); seal the sector for real instead", p.Name, p.ChallengeKind)
	case in.Seed == [32]byte{}:
		return nil, fmt.Errorf("porep: sparse sector: the seed is zero; C2 refuses a zero seed")
	}
	g, err := NewGraphFor(p)
	if err != nil {
		return nil, err
	}
	s := &SparseSector{Proof: p, ProverID: in.ProverID, SectorID: in.SectorID, Ticket: in.Ticket, Seed: in.Seed, graph: g}

	// Data and tree D, then replica_id.
	blockLen := uint64(1)
	if !in.CommittedCapacity {
		blockLen = min(p.Nodes, SparseDataBlock)
	}
	block := make([]merkle.Node, blockLen)
	if !in.CommittedCapacity {
		for i := range block {
			block[i] = s.prf("data", in.ProverID[:], be64(in.SectorID), in.Ticket[:], be64(uint64(i)))
		}
		s.block = block
	}
	if s.treeD, err = merkle.BuildPeriodicSHA256(block, p.Nodes); err != nil {
		return nil, err
	}
	s.CommD = s.treeD.Root()
	s.ReplicaID = ReplicaID(in.ProverID, in.SectorID, in.Ticket, s.CommD, p.PoRepID())
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// The challenges and their parents: the pinned nodes.
	var chs []uint64
	for k := range p.Partitions {
		c, err := Challenges(p, s.ReplicaID, in.Seed, [32]byte{}, k)
		if err != nil {
			return nil, err
		}
		chs = append(chs, c...)
	}
	slices.Sort(chs)
	chs = slices.Compact(chs)
	isCh := make(map[uint64]bool, len(chs))
	for _, c := range chs {
		isCh[c] = true
	}
	parents := make(map[uint64]*[abi.BaseDegree + abi.ExpansionDegree]uint32, len(chs))
	s.labels = make(map[uint64][]merkle.Node, len(chs)*15)
	for _, c := range chs {
		ps := new([abi.BaseDegree + abi.ExpansionDegree]uint32)
		g.Parents(c, ps)
		parents[c] = ps
		for _, q := range ps {
			if v := uint64(q); !isCh[v] && s.labels[v] == nil {
				s.labels[v] = s.randomColumn(v)
			}
		}
	}

	// The challenges' labels, layer by layer, in node order.
	for _, c := range chs {
		s.labels[c] = make([]merkle.Node, p.Layers)
	}
	var ps [abi.BaseDegree + abi.ExpansionDegree]merkle.Node
	buf := make([]byte, 64+32*37)
	slots := make([]merkle.Node, 37)
	for layer := 1; layer <= p.Layers; layer++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, c := range chs {
			for i, q := range parents[c] {
				v := uint64(q)
				if i < abi.BaseDegree && isCh[v] && v >= c {
					return nil, fmt.Errorf("porep: sparse sector: DRG parent %d of node %d is not below it", v, c)
				}
				if i < abi.BaseDegree {
					ps[i] = s.labels[v][layer-1]
				} else if layer > 1 {
					ps[i] = s.labels[v][layer-2]
				}
			}
			fillLabelSlots(slots, &ps, layer)
			labelHeader(buf, &s.ReplicaID, layer, c)
			for i := range slots {
				copy(buf[64+32*i:], slots[i][:])
			}
			l := merkle.Node(sha256.Sum256(buf))
			l[31] &= 0x3f
			s.labels[c][layer-1] = l
		}
	}

	// Trees C and R-last over the pinned columns and the challenges' replica nodes.
	cols := make(map[uint64]fr.Element, len(s.labels))
	row := make([]fr.Element, p.Layers)
	for v, ls := range s.labels {
		for l := range row {
			row[l] = mustElement(&ls[l])
		}
		cols[v] = poseidon.HashColumn(row)
	}
	reps := make(map[uint64]fr.Element, len(chs))
	for _, c := range chs {
		n := s.replicaNode(c)
		reps[c] = mustElement(&n)
	}
	shape := merkle.Shape{Base: p.Tree.Base, Sub: p.Tree.Sub, Top: p.Tree.Top}
	if s.treeC, err = merkle.BuildSparsePoseidon(shape, p.Nodes, cols, s.fill("tree C")); err != nil {
		return nil, err
	}
	if s.treeR, err = merkle.BuildSparsePoseidon(shape, p.Nodes, reps, s.fill("tree R-last")); err != nil {
		return nil, err
	}
	commC, commRLast := s.treeC.Root(), s.treeR.Root()
	fr.LittleEndian.PutElement(&s.CommC, commC)
	fr.LittleEndian.PutElement(&s.CommRLast, commRLast)
	fr.LittleEndian.PutElement(&s.CommR, poseidon.Hash2(commC, commRLast))
	return s, ctx.Err()
}

// Commit1 returns the sparse sector's C1 output for its seed.
func (s *SparseSector) Commit1() (*c1.Commit1Out, error) {
	id := sectorID{proof: s.Proof, graph: s.graph, ticket: s.Ticket, replicaID: s.ReplicaID,
		commD: s.CommD, commC: s.CommC, commRLast: s.CommRLast, commR: s.CommR}
	return commit1(&id, s, s.Seed)
}

// SparseC1 builds the sparse sector of in and returns its C1 output.
func SparseC1(ctx context.Context, in SparseInput) (*c1.Commit1Out, *SparseSector, error) {
	s, err := NewSparseSector(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	out, err := s.Commit1()
	return out, s, err
}

// prf is the fixture's pseudo-random node: the trimmed SHA-256 of a tag and
// parts (below 2^254, so a valid label, data node and field element alike).
func (s *SparseSector) prf(tag string, parts ...[]byte) merkle.Node {
	h := sha256.New()
	h.Write([]byte("filc2 sparse sector fixture/" + tag))
	for _, p := range parts {
		h.Write(p)
	}
	var n merkle.Node
	h.Sum(n[:0])
	n[31] &= 0x3f
	return n
}

func be64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// randomColumn is the labels of a pinned node that is not challenged.
func (s *SparseSector) randomColumn(v uint64) []merkle.Node {
	ls := make([]merkle.Node, s.Proof.Layers)
	for l := range ls {
		ls[l] = s.prf("label", s.ReplicaID[:], be64(uint64(l+1)), be64(v))
	}
	return ls
}

// fill gives the nodes of a sparse tree that no pinned path goes through.
func (s *SparseSector) fill(tree string) merkle.Fill {
	return func(level int, index uint64) fr.Element {
		n := s.prf(tree, s.ReplicaID[:], be64(uint64(level)), be64(index))
		return mustElement(&n)
	}
}

// The sparse sector's nodes (sectorNodes). Only pinned nodes have labels and
// only challenges have replica nodes and tree R-last paths.

func (s *SparseSector) label(layer int, v uint64) merkle.Node { return s.labels[v][layer-1] }

func (s *SparseSector) dataNode(v uint64) merkle.Node {
	if s.block == nil {
		return merkle.Node{}
	}
	return s.block[v%uint64(len(s.block))]
}

func (s *SparseSector) replicaNode(v uint64) merkle.Node {
	key, d := mustElement(ptrNode(s.label(s.Proof.Layers, v))), mustElement(ptrNode(s.dataNode(v)))
	var r fr.Element
	r.Add(&key, &d)
	var n merkle.Node
	frPut(&n, &r)
	return n
}

func (s *SparseSector) columnLeaf(v uint64) merkle.Node {
	e := s.treeC.Leaf(v)
	var n merkle.Node
	frPut(&n, &e)
	return n
}

func (s *SparseSector) pathD(v uint64) (merkle.Path, error) { return s.treeD.Path(v) }
func (s *SparseSector) pathR(v uint64) (merkle.Path, error) { return s.treeR.Path(v) }
func (s *SparseSector) pathC(v uint64) (merkle.Path, error) { return s.treeC.Path(v) }

func ptrNode(n merkle.Node) *merkle.Node { return &n }

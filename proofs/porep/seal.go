package porep

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/gadgets"
	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/poseidon"
)

// SealInput identifies a sector to seal and holds its data.
type SealInput struct {
	Proof    abi.SealProof
	ProverID [32]byte
	SectorID uint64
	Ticket   [32]byte
	// Data is the fr32-padded unsealed sector (SectorSize bytes, every 32-byte
	// node below 2^254); nil seals committed capacity (zeros).
	Data []byte
}

// Sector is a sealed sector, with the labels and trees kept in memory so that
// Commit1 can open any challenge. Only small sectors fit: sealing is for tests,
// demos and fixtures, not production.
type Sector struct {
	Proof     abi.SealProof
	Ticket    [32]byte
	ReplicaID [32]byte
	CommD     [32]byte // tree D root over the data
	CommC     [32]byte // tree C root over the column hashes
	CommRLast [32]byte // tree R-last root over the replica
	CommR     [32]byte // Poseidon2(comm_c, comm_r_last)
	Replica   []byte   // the sealed replica: label_last + data mod r, node by node

	graph  *Graph
	data   []merkle.Node
	labels [][]merkle.Node // labels[layer-1][node]
	treeD  *merkle.SHA256Tree
	treeC  *merkle.PoseidonTree
	treeR  *merkle.PoseidonTree
}

// MaxSealNodes bounds the sectors Seal accepts (512MiB: 2^24 nodes).
const MaxSealNodes = 1 << 24

// SealProgress receives the progress of Seal's stages.
type SealProgress func(stage string, done, total int64)

// Seal runs PreCommit for a small sector exactly as rust-fil-proofs does
// (spec §1.5): SDR labels, encoding, tree D over the data, tree C over the
// column hashes, tree R-last over the replica, and comm_r.
func Seal(ctx context.Context, in SealInput, progress SealProgress) (*Sector, error) {
	p := in.Proof
	if p.Nodes > MaxSealNodes {
		return nil, fmt.Errorf("porep: sealing %s sectors is not supported (at most %d bytes)", p.Name, MaxSealNodes*32)
	}
	if progress == nil {
		progress = func(string, int64, int64) {}
	}
	n := int(p.Nodes)
	data := make([]merkle.Node, n)
	if in.Data != nil {
		if uint64(len(in.Data)) != uint64(p.SectorSize) {
			return nil, fmt.Errorf("porep: data is %d bytes, a %s sector holds %d", len(in.Data), p.Name, p.SectorSize)
		}
		for i := range data {
			copy(data[i][:], in.Data[32*i:])
			if data[i][31]&0xc0 != 0 {
				return nil, fmt.Errorf("porep: data node %d is not fr32-padded (its top two bits are set): pad the data first", i)
			}
		}
	}
	g, err := NewGraphFor(p, WithFeistelTable())
	if err != nil {
		return nil, err
	}
	s := &Sector{Proof: p, Ticket: in.Ticket, graph: g, data: data}

	if s.treeD, err = merkle.BuildSHA256(data); err != nil {
		return nil, err
	}
	s.CommD = s.treeD.Root()
	s.ReplicaID = ReplicaID(in.ProverID, in.SectorID, in.Ticket, s.CommD, p.PoRepID())

	s.labels = make([][]merkle.Node, p.Layers)
	for l := range s.labels {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.labels[l] = s.labelLayer(l+1, func(done int) {
			progress("labeling", int64(l*n+done), int64(p.Layers*n))
		})
	}

	// Columns, tree C; replica, tree R-last.
	last := s.labels[p.Layers-1]
	cols := make([]fr.Element, n)
	leaves := make([]fr.Element, n)
	s.Replica = make([]byte, 32*n)
	par.Range(n, 0, func(lo, hi int) {
		row := make([]fr.Element, p.Layers)
		for v := lo; v < hi; v++ {
			for l := range row {
				row[l] = mustElement(&s.labels[l][v])
			}
			cols[v] = poseidon.HashColumn(row)
			key, d := mustElement(&last[v]), mustElement(&data[v])
			leaves[v].Add(&key, &d)
			var b [32]byte
			fr.LittleEndian.PutElement(&b, leaves[v])
			copy(s.Replica[32*v:], b[:])
		}
	})
	progress("trees", 0, 2)
	shape := merkle.Shape{Base: p.Tree.Base, Sub: p.Tree.Sub, Top: p.Tree.Top}
	if s.treeC, err = merkle.BuildPoseidon(cols, shape); err != nil {
		return nil, err
	}
	progress("trees", 1, 2)
	if s.treeR, err = merkle.BuildPoseidon(leaves, shape); err != nil {
		return nil, err
	}
	progress("trees", 2, 2)
	commC, commRLast := s.treeC.Root(), s.treeR.Root()
	fr.LittleEndian.PutElement(&s.CommC, commC)
	fr.LittleEndian.PutElement(&s.CommRLast, commRLast)
	fr.LittleEndian.PutElement(&s.CommR, poseidon.Hash2(commC, commRLast))
	return s, ctx.Err()
}

// mustElement reads a trimmed node (a label or a data node, below 2^254 < r)
// as a field element; trimmed nodes are always canonical.
func mustElement(n *merkle.Node) fr.Element {
	e, _ := fr.LittleEndian.Element((*[32]byte)(n))
	return e
}

// labelHeader writes the first 64 bytes of a label preimage (spec §1.5).
func labelHeader(buf []byte, replicaID *[32]byte, layer int, node uint64) {
	copy(buf[:32], replicaID[:])
	binary.BigEndian.PutUint32(buf[32:36], uint32(layer))
	binary.BigEndian.PutUint64(buf[36:44], node)
	clear(buf[44:64])
}

// labelParents fills the 37 parent slots of a label preimage from the label
// arrays of this layer (cur) and the one before (prev, nil in layer 1).
func labelParents(dst []merkle.Node, parents *[abi.BaseDegree + abi.ExpansionDegree]uint32, cur, prev []merkle.Node) {
	var ps [abi.BaseDegree + abi.ExpansionDegree]merkle.Node
	layer := 1
	for i := range abi.BaseDegree {
		ps[i] = cur[parents[i]]
	}
	if prev != nil {
		for i := abi.BaseDegree; i < len(ps); i++ {
			ps[i] = prev[parents[i]]
		}
		layer = 2
	}
	fillLabelSlots(dst, &ps, layer)
}

// fillLabelSlots fills the 37 parent slots of a label preimage from the 14
// parents' labels (base parents' of this layer, then expander parents' of the
// layer before): layer 1 hashes the 6 base parents six times then the first
// again; later layers hash the 14 parents twice, then the first nine.
func fillLabelSlots(dst []merkle.Node, ps *[abi.BaseDegree + abi.ExpansionDegree]merkle.Node, layer int) {
	k := abi.BaseDegree
	if layer > 1 {
		k = len(ps)
	}
	for i := range dst {
		dst[i] = ps[i%k]
	}
}

// labelLayer computes one layer's labels in node order (each node depends on
// earlier ones); the graph's parents are drawn ahead in parallel chunks.
func (s *Sector) labelLayer(layer int, tick func(done int)) []merkle.Node {
	n := int(s.Proof.Nodes)
	out := make([]merkle.Node, n)
	var prev []merkle.Node
	if layer > 1 {
		prev = s.labels[layer-2]
	}
	const chunk = 1 << 14
	parents := make([][abi.BaseDegree + abi.ExpansionDegree]uint32, chunk)
	buf := make([]byte, 64+32*gadgets.LabelParents)
	slots := make([]merkle.Node, gadgets.LabelParents)
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		par.Range(hi-lo, 0, func(a, b int) {
			for i := a; i < b; i++ {
				s.graph.Parents(uint64(lo+i), &parents[i])
			}
		})
		for v := lo; v < hi; v++ {
			labelHeader(buf, &s.ReplicaID, layer, uint64(v))
			size := 64
			if v > 0 {
				labelParents(slots, &parents[v-lo], out, prev)
				for i := range slots {
					copy(buf[64+32*i:], slots[i][:])
				}
				size = len(buf)
			}
			out[v] = sha256.Sum256(buf[:size])
			out[v][31] &= 0x3f
		}
		tick(hi)
	}
	return out
}

func frPut(n *merkle.Node, e *fr.Element) { fr.LittleEndian.PutElement((*[32]byte)(n), *e) }

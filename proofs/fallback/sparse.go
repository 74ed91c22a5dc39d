package fallback

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/merkle"
)

// SparseSectorTree is a TEST FIXTURE: the tree R-last of a sector of any
// size, 32GiB and 64GiB included, of which only the leaves at challenges
// exist (pseudo-random, like replica nodes), every other node of the tree
// pseudo-random too, with a pseudo-random comm_c; all drawn from seed. Its
// vanilla proofs pass Check and satisfy the circuit like a real sector's for
// those challenges, but it is cheap only because the challenges are known
// before the tree is built, which the chain never allows: its comm_r commits
// to nothing and its proofs are worthless on chain.
func SparseSectorTree(p abi.PoStProof, seed [32]byte, challenges []uint64) (*SectorTree, error) {
	prf := func(parts ...uint64) fr.Element {
		b := make([]byte, 32, 32+8*len(parts))
		copy(b, seed[:])
		for _, v := range parts {
			b = binary.BigEndian.AppendUint64(b, v)
		}
		h := sha256.Sum256(b)
		h[31] &= 0x3f
		var e fr.Element
		e.SetBytes(reverse(h[:])) // h is little-endian, below 2^254: canonical
		return e
	}
	if len(challenges) == 0 {
		return nil, fmt.Errorf("fallback: a sparse sector needs its challenges")
	}
	known := make(map[uint64]fr.Element, len(challenges))
	for _, c := range challenges {
		if c >= p.Nodes {
			return nil, fmt.Errorf("fallback: challenge %d of a %d-node sector", c, p.Nodes)
		}
		known[c] = prf(0, c)
	}
	tree, err := merkle.BuildSparsePoseidon(merkle.Shape{Base: p.Tree.Base, Sub: p.Tree.Sub, Top: p.Tree.Top}, p.Nodes, known,
		func(level int, index uint64) fr.Element { return prf(uint64(level)+1, index) })
	if err != nil {
		return nil, err
	}
	commC, root := prf(1<<32), tree.Root()
	return &SectorTree{
		CommC: nodeOf(&commC), CommRLast: nodeOf(&root),
		Leaf: func(i uint64) Domain { e := tree.Leaf(i); return nodeOf(&e) },
		Path: tree.Path,
	}, nil
}

func reverse(b []byte) []byte {
	out := make([]byte, len(b))
	for i := range b {
		out[len(b)-1-i] = b[i]
	}
	return out
}

package update

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/poseidon"
	"github.com/filc2/filc2/proofs/vanilla"
)

// Replica is an updated sector held in memory (the small sizes and tests):
// the sector key's tree R, the new data's tree D, the new replica and its
// tree R, with the update's commitments.
type Replica struct {
	Proof    abi.UpdateProof
	CommC    fr.Element
	Key      *merkle.PoseidonTree // tree R-old, over the sector key's replica
	Data     *merkle.SHA256Tree   // tree D-new, over the new data
	New      *merkle.PoseidonTree // tree R-new, over the new replica
	Replica  []fr.Element         // the new replica's nodes
	DataNode []merkle.Node        // the data's nodes
	Commitments
}

// Encode encodes data into the sector whose replica (the sector key) is key,
// as storage-proofs-update's encode_into does: new_i = key_i + data_i·rho,
// rho = Poseidon_genrand(phi, i >> (log2(nodes) − h)), phi =
// Poseidon_genrand(comm_d_new, comm_r_old); comm_r_old = Poseidon2(comm_c,
// root of tree R over key), comm_r_new likewise over the new replica. Data
// nodes are 32-byte little-endian field elements (fr32-padded data).
func Encode(p abi.UpdateProof, commC fr.Element, key []fr.Element, data []merkle.Node) (*Replica, error) {
	if uint64(len(key)) != p.Nodes || uint64(len(data)) != p.Nodes {
		return nil, fmt.Errorf("update: %s has %d nodes: sector key of %d, data of %d", p.Name, p.Nodes, len(key), len(data))
	}
	shape := merkle.Shape{Base: p.Tree.Base, Sub: p.Tree.Sub, Top: p.Tree.Top}
	r := &Replica{Proof: p, CommC: commC, DataNode: data}
	dv := make([]fr.Element, len(data))
	for i := range data {
		var err error
		if dv[i], err = fr.LittleEndian.Element(&data[i]); err != nil {
			return nil, fmt.Errorf("update: data node %d is not a field element (data must be fr32-padded)", i)
		}
	}
	var err error
	if r.Key, err = merkle.BuildPoseidon(key, shape); err != nil {
		return nil, err
	}
	if r.Data, err = merkle.BuildSHA256(data); err != nil {
		return nil, err
	}
	rootOld, commD := r.Key.Root(), r.Data.Root()
	commROld := poseidon.Hash2(commC, rootOld)
	commDNew, err := fr.LittleEndian.Element(&commD)
	if err != nil {
		return nil, err
	}
	phi := Phi(commDNew, commROld)
	// One rho per high-bits value: 2^h of them, each node's by its index.
	shift := uint(p.NodeBits() - p.H)
	rhos := make([]fr.Element, 1<<p.H)
	for h := range rhos {
		rhos[h] = Rho(phi, uint64(h))
	}
	r.Replica = make([]fr.Element, len(key))
	par.Each(len(key), 0, func(i int) {
		r.Replica[i].Mul(&dv[i], &rhos[uint64(i)>>shift]).Add(&r.Replica[i], &key[i])
	})
	if r.New, err = merkle.BuildPoseidon(r.Replica, shape); err != nil {
		return nil, err
	}
	commRNew := poseidon.Hash2(commC, r.New.Root())
	r.Commitments = Commitments{CommROld: domainOf(&commROld), CommDNew: commD, CommRNew: domainOf(&commRNew)}
	return r, nil
}

// Decode recovers the data of node i from the new replica and the sector
// key: data_i = (new_i − key_i)·rho⁻¹.
func (r *Replica) Decode(i int) (merkle.Node, error) {
	p := r.Proof
	commROld, _ := fr.LittleEndian.Element(&r.CommROld)
	commDNew, _ := fr.LittleEndian.Element(&r.CommDNew)
	rho := Rho(Phi(commDNew, commROld), HighBits(p, uint64(i), p.H))
	rho.Inverse(&rho)
	old := r.Key.Leaf(i)
	var d fr.Element
	d.Sub(&r.Replica[i], &old).Mul(&d, &rho)
	return domainOf(&d), nil
}

// PartitionProof builds partition k's vanilla proof as the reference prover
// does: comm_c, the apex leaves (the nodes of tree D at TreeDLeafLevels
// above the leaves, inside partition k), and per challenge the inclusion
// proofs of its node in tree R-old, tree D and tree R-new.
func (r *Replica) PartitionProof(k int) (*PartitionProof, error) {
	return sectorTrees{
		proof: r.Proof, commC: r.CommC, commRNew: r.CommRNew,
		apexLeaf: func(i uint64) (merkle.Node, error) {
			span := uint64(1) << r.Proof.TreeDLeafLevels()
			t, err := merkle.BuildSHA256(r.DataNode[i*span : (i+1)*span])
			if err != nil {
				return merkle.Node{}, err
			}
			return t.Root(), nil
		},
		rOld: poseidonOpening(r.Key.Root(), func(i uint64) fr.Element { return r.Key.Leaf(int(i)) },
			func(i uint64) (merkle.Path, error) { return r.Key.Path(int(i)) }),
		rNew: poseidonOpening(r.New.Root(), func(i uint64) fr.Element { return r.New.Leaf(int(i)) },
			func(i uint64) (merkle.Path, error) { return r.New.Path(int(i)) }),
		dNew: func(i uint64) (vanilla.MerkleProof, error) {
			path, err := r.Data.Path(int(i))
			if err != nil {
				return vanilla.MerkleProof{}, err
			}
			return vanilla.MerkleProof{Variant: vanilla.Single, Root: r.Data.Root(), Leaf: r.DataNode[i], Base: pathElements(path)}, nil
		},
	}.partitionProof(k)
}

// sectorTrees is what a partition proof reads of an updated sector, however
// its trees are held: tree D's apex leaves and the three openings of a node.
type sectorTrees struct {
	proof      abi.UpdateProof
	commC      fr.Element
	commRNew   vanilla.Domain
	apexLeaf   func(i uint64) (merkle.Node, error) // node i of tree D at TreeDLeafLevels
	rOld, rNew func(c uint64) (vanilla.MerkleProof, error)
	dNew       func(c uint64) (vanilla.MerkleProof, error)
}

func (s sectorTrees) partitionProof(k int) (*PartitionProof, error) {
	p := s.proof
	commRNew, err := fr.LittleEndian.Element((*[32]byte)(&s.commRNew))
	if err != nil {
		return nil, err
	}
	chs, err := Challenges(p, commRNew, k)
	if err != nil {
		return nil, err
	}
	pp := &PartitionProof{CommC: domainOf(&s.commC), Challenges: make([]ChallengeProof, len(chs))}
	first := uint64(k * p.ApexLeaves)
	for a := range uint64(p.ApexLeaves) {
		leaf, err := s.apexLeaf(first + a)
		if err != nil {
			return nil, err
		}
		pp.ApexLeaves = append(pp.ApexLeaves, leaf)
	}
	for i, c := range chs {
		cp := &pp.Challenges[i]
		if cp.ROld, err = s.rOld(c); err != nil {
			return nil, err
		}
		if cp.RNew, err = s.rNew(c); err != nil {
			return nil, err
		}
		if cp.DNew, err = s.dNew(c); err != nil {
			return nil, err
		}
		cp.ROld, cp.RNew = withShape(p, cp.ROld), withShape(p, cp.RNew)
	}
	return pp, nil
}

// poseidonOpening opens leaves of a Poseidon tree R (its root, leaves and
// paths) as MerkleProofs; the variant is set by withShape.
func poseidonOpening(root fr.Element, leaf func(uint64) fr.Element, path func(uint64) (merkle.Path, error)) func(uint64) (vanilla.MerkleProof, error) {
	return func(i uint64) (vanilla.MerkleProof, error) {
		pa, err := path(i)
		if err != nil {
			return vanilla.MerkleProof{}, err
		}
		l := leaf(i)
		return vanilla.MerkleProof{Variant: vanilla.Single, Leaf: domainOf(&l), Root: domainOf(&root), Base: pathElements(pa)}, nil
	}
}

// withShape splits a tree R proof's levels into the variant of p's tree shape
// (base, then sub and top).
func withShape(p abi.UpdateProof, m vanilla.MerkleProof) vanilla.MerkleProof {
	els := m.Base
	switch {
	case p.Tree.Top > 0:
		m.Variant, m.Base, m.Sub, m.Top = vanilla.Top, els[:len(els)-2], els[len(els)-2:len(els)-1], els[len(els)-1:]
	case p.Tree.Sub > 0:
		m.Variant, m.Base, m.Sub = vanilla.Sub, els[:len(els)-1], els[len(els)-1:]
	}
	return m
}

// pathElements converts a merkle.Path to the vanilla levels.
func pathElements(p merkle.Path) []vanilla.PathElement {
	out := make([]vanilla.PathElement, len(p))
	for i, l := range p {
		out[i] = vanilla.PathElement{Hashes: l.Siblings, Index: uint64(l.Index)}
	}
	return out
}

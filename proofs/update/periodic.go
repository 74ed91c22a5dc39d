package update

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/poseidon"
	"github.com/filc2/filc2/proofs/vanilla"
)

// PeriodicReplica is a TEST FIXTURE: an updated sector of any size, 32GiB and
// 64GiB included, whose sector key repeats one block of nodes and whose new
// data repeats another, so that its three trees cost a few blocks' trees
// instead of the sector's (merkle.PeriodicPoseidonTree,
// merkle.PeriodicSHA256Tree). Unlike a sparse PoRep sector it is a whole,
// consistent update — every node exists, the new replica is the sector key
// encoded with the data exactly as Encode does, and it decodes back — only a
// sector key that repeats is no sealed replica. Its vanilla proofs pass
// PartitionProof.Check and satisfy the real circuit.
type PeriodicReplica struct {
	Proof abi.UpdateProof
	CommC fr.Element
	Key   *merkle.PeriodicPoseidonTree // tree R-old
	Data  *merkle.PeriodicSHA256Tree   // tree D-new
	New   *merkle.PeriodicPoseidonTree // tree R-new: one run per high-bits value
	Commitments
}

// PeriodicBlock is the largest block a periodic replica repeats (16 KiB).
const PeriodicBlock = 1 << 9

// PeriodicBlockLen is the block length a periodic replica of p takes: at most
// PeriodicBlock and no longer than one high-bits region (where rho is one
// value), so that every block of the new replica is encoded by one rho.
func PeriodicBlockLen(p abi.UpdateProof) int {
	return int(min(PeriodicBlock, p.Nodes>>uint(p.H)))
}

// EncodePeriodic encodes the data that repeats dataBlock into the sector whose
// sector key repeats keyBlock, as Encode does for whole sectors. Both blocks
// are PeriodicBlockLen(p) nodes; data nodes are fr32 (field elements).
func EncodePeriodic(p abi.UpdateProof, commC fr.Element, keyBlock []fr.Element, dataBlock []merkle.Node) (*PeriodicReplica, error) {
	b := PeriodicBlockLen(p)
	if len(keyBlock) != b || len(dataBlock) != b {
		return nil, fmt.Errorf("update: a periodic %s replica repeats blocks of %d nodes: sector key block of %d, data block of %d",
			p.Name, b, len(keyBlock), len(dataBlock))
	}
	dv := make([]fr.Element, b)
	for i := range dataBlock {
		var err error
		if dv[i], err = fr.LittleEndian.Element(&dataBlock[i]); err != nil {
			return nil, fmt.Errorf("update: data node %d is not a field element (data must be fr32-padded)", i)
		}
	}
	shape := merkle.Shape{Base: p.Tree.Base, Sub: p.Tree.Sub, Top: p.Tree.Top}
	r := &PeriodicReplica{Proof: p, CommC: commC}
	var err error
	if r.Key, err = merkle.BuildPeriodicPoseidon(shape, []merkle.Run{{Block: keyBlock, Count: p.Nodes / uint64(b)}}); err != nil {
		return nil, err
	}
	if r.Data, err = merkle.BuildPeriodicSHA256(dataBlock, p.Nodes); err != nil {
		return nil, err
	}
	commROld := poseidon.Hash2(commC, r.Key.Root())
	commD := r.Data.Root()
	commDNew, err := fr.LittleEndian.Element(&commD)
	if err != nil {
		return nil, err
	}
	phi := Phi(commDNew, commROld)
	regions := 1 << p.H
	perRegion := p.Nodes / uint64(regions) / uint64(b)
	runs := make([]merkle.Run, regions)
	for h := range runs {
		rho := Rho(phi, uint64(h))
		blk := make([]fr.Element, b)
		for j := range blk {
			blk[j].Mul(&dv[j], &rho).Add(&blk[j], &keyBlock[j])
		}
		runs[h] = merkle.Run{Block: blk, Count: perRegion}
	}
	if r.New, err = merkle.BuildPeriodicPoseidon(shape, runs); err != nil {
		return nil, err
	}
	commRNew := poseidon.Hash2(commC, r.New.Root())
	r.Commitments = Commitments{CommROld: domainOf(&commROld), CommDNew: commD, CommRNew: domainOf(&commRNew)}
	return r, nil
}

// Decode recovers the data of node i from the new replica and the sector key.
func (r *PeriodicReplica) Decode(i uint64) (merkle.Node, error) {
	if i >= r.Proof.Nodes {
		return merkle.Node{}, fmt.Errorf("update: node %d of a %s sector", i, r.Proof.Name)
	}
	commROld, _ := fr.LittleEndian.Element(&r.CommROld)
	commDNew, _ := fr.LittleEndian.Element(&r.CommDNew)
	rho := Rho(Phi(commDNew, commROld), HighBits(r.Proof, i, r.Proof.H))
	rho.Inverse(&rho)
	old, nw := r.Key.Leaf(i), r.New.Leaf(i)
	var d fr.Element
	d.Sub(&nw, &old).Mul(&d, &rho)
	return domainOf(&d), nil
}

// PartitionProof builds partition k's vanilla proof, as Replica.PartitionProof.
func (r *PeriodicReplica) PartitionProof(k int) (*PartitionProof, error) {
	return sectorTrees{
		proof: r.Proof, commC: r.CommC, commRNew: r.CommRNew,
		apexLeaf: func(i uint64) (merkle.Node, error) { return r.Data.Node(r.Proof.TreeDLeafLevels(), i) },
		rOld:     poseidonOpening(r.Key.Root(), r.Key.Leaf, r.Key.Path),
		rNew:     poseidonOpening(r.New.Root(), r.New.Leaf, r.New.Path),
		dNew: func(i uint64) (vanilla.MerkleProof, error) {
			path, err := r.Data.Path(i)
			if err != nil {
				return vanilla.MerkleProof{}, err
			}
			return vanilla.MerkleProof{Variant: vanilla.Single, Root: r.Data.Root(), Leaf: r.Data.Leaf(i), Base: pathElements(path)}, nil
		},
	}.partitionProof(k)
}

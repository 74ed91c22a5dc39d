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

// Commitments are an update's three public commitments, 32 bytes each as
// the proofs API passes them: comm_r_old (the sector key's sealed CID),
// comm_d_new (the new unsealed CID) and comm_r_new (the new sealed CID).
type Commitments struct {
	CommROld, CommDNew, CommRNew vanilla.Domain
}

// CheckError is a partition proof that does not prove its statement: which
// partition, which challenge (−1: the partition as a whole) and what.
type CheckError struct {
	Partition, Challenge int
	What                 string
}

func (e *CheckError) Error() string {
	if e.Challenge < 0 {
		return fmt.Sprintf("update: vanilla proof of partition %d: %s", e.Partition, e.What)
	}
	return fmt.Sprintf("update: vanilla proof of partition %d, challenge %d: %s", e.Partition, e.Challenge, e.What)
}

// treeD is tree D's shape: binary, base only.
var treeD = abi.TreeShape{Base: 2}

// Check verifies pp as the proof of partition k of an update of type p with
// commitments pub: everything storage-proofs-update's vanilla verify checks
// (comm_r_old and comm_r_new from comm_c and challenge 0's tree R roots,
// each challenge's three paths opening its challenge and hashing to their
// roots, the encoding label_r_new = label_r_old + label_d_new·rho), and what
// the circuit needs besides: every proof's shape, every tree R root equal to
// challenge 0's, the tree D paths running through the apex tree built from
// the apex leaves and sharing one partition path. The challenges are
// checked in parallel; the error is the first failing one's.
func (pp *PartitionProof) Check(p abi.UpdateProof, pub Commitments, k int) error {
	fail := func(c int, format string, args ...any) error {
		return &CheckError{Partition: k, Challenge: c, What: fmt.Sprintf(format, args...)}
	}
	if k < 0 || k >= p.Partitions {
		return fail(-1, "%s has partitions 0 … %d", p.Name, p.Partitions-1)
	}
	if len(pp.ApexLeaves) != p.ApexLeaves {
		return fail(-1, "%d apex leaves, %s has %d", len(pp.ApexLeaves), p.Name, p.ApexLeaves)
	}
	if len(pp.Challenges) != p.Challenges {
		return fail(-1, "%d challenge proofs, %s has %d", len(pp.Challenges), p.Name, p.Challenges)
	}
	for i := range pp.Challenges {
		c := &pp.Challenges[i]
		for _, m := range []struct {
			name string
			m    *vanilla.MerkleProof
			tree abi.TreeShape
			lv   int
		}{{"proof_r_old", &c.ROld, p.Tree, p.TreeRLevels()}, {"proof_d_new", &c.DNew, treeD, p.NodeBits()}, {"proof_r_new", &c.RNew, p.Tree, p.TreeRLevels()}} {
			if err := m.m.CheckShape(m.tree, m.lv); err != nil {
				return fail(i, "%s: %v", m.name, err)
			}
		}
	}
	commC, err := fr.LittleEndian.Element(&pp.CommC)
	if err != nil {
		return fail(-1, "comm_c is not a field element")
	}
	rootROld, rootRNew := pp.Challenges[0].ROld.Root, pp.Challenges[0].RNew.Root
	for _, r := range []struct {
		name       string
		root, comm vanilla.Domain
	}{{"comm_r_old", rootROld, pub.CommROld}, {"comm_r_new", rootRNew, pub.CommRNew}} {
		root, err := fr.LittleEndian.Element(&r.root)
		if err != nil {
			return fail(0, "the tree R root for %s is not a field element", r.name)
		}
		h := poseidon.Hash2(commC, root)
		if got := domainOf(&h); got != r.comm {
			return fail(-1, "Poseidon2(comm_c, root) = %x, %s is %x: comm_c, the roots or %s are wrong", got, r.name, r.comm, r.name)
		}
	}
	commROld, err1 := fr.LittleEndian.Element(&pub.CommROld)
	commDNew, err2 := fr.LittleEndian.Element(&pub.CommDNew)
	commRNew, err3 := fr.LittleEndian.Element(&pub.CommRNew)
	if err1 != nil || err2 != nil || err3 != nil {
		return fail(-1, "a commitment is not a field element")
	}
	apex, err := merkle.BuildSHA256(pp.ApexLeaves)
	if err != nil {
		return fail(-1, "apex leaves: %v", err)
	}
	phi := Phi(commDNew, commROld)
	chs, err := Challenges(p, commRNew, k)
	if err != nil {
		return fail(-1, "%v", err)
	}
	partitionPath := pp.Challenges[0].DNew.Base[p.ChallengeBits():]
	rRoots := pp.treeRRoots()
	errs := make([]error, len(chs))
	par.Each(len(chs), 0, func(i int) {
		if msg := pp.checkChallenge(p, i, chs[i], phi, apex, partitionPath, rootROld, rootRNew, pub.CommDNew, &rRoots[i]); msg != "" {
			errs[i] = fail(i, "%s", msg)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// treeRPaths is what the tree R paths of one challenge hash to
// (merkle.PoseidonRoots): proof_r_old's and proof_r_new's roots, or why they
// could not be hashed.
type treeRPaths struct {
	roots [2]merkle.Node
	errs  [2]error
}

// treeRChunk is how many challenges' tree R paths treeRRoots hashes together.
const treeRChunk = 64

// treeRRoots hashes the tree R paths of every challenge, those of
// treeRChunk challenges together, the chunks in parallel.
func (pp *PartitionProof) treeRRoots() []treeRPaths {
	out := make([]treeRPaths, len(pp.Challenges))
	par.Each((len(out)+treeRChunk-1)/treeRChunk, 0, func(q int) {
		lo, hi := q*treeRChunk, min((q+1)*treeRChunk, len(out))
		ops := make([]merkle.Opening, 0, 2*(hi-lo))
		for i := lo; i < hi; i++ {
			c := &pp.Challenges[i]
			ops = append(ops, merkle.Opening{Leaf: c.ROld.Leaf, Path: c.ROld.Path()}, merkle.Opening{Leaf: c.RNew.Leaf, Path: c.RNew.Path()})
		}
		roots, errs := merkle.PoseidonRoots(ops)
		for i := lo; i < hi; i++ {
			o := &out[i]
			for j := range 2 {
				o.roots[j] = roots[2*(i-lo)+j]
				if errs != nil {
					o.errs[j] = errs[2*(i-lo)+j]
				}
			}
		}
	})
	return out
}

// checkChallenge checks challenge i (node c) of pp, whose tree R paths hash
// as r says; "" when it holds.
func (pp *PartitionProof) checkChallenge(p abi.UpdateProof, i int, c uint64, phi fr.Element, apex *merkle.SHA256Tree,
	partitionPath []vanilla.PathElement, rootROld, rootRNew, commDNew vanilla.Domain, r *treeRPaths) string {
	cp := &pp.Challenges[i]
	for q, m := range []struct {
		name string
		m    *vanilla.MerkleProof
		root vanilla.Domain
		sha  bool
	}{{"proof_r_old", &cp.ROld, rootROld, false}, {"proof_d_new", &cp.DNew, commDNew, true}, {"proof_r_new", &cp.RNew, rootRNew, false}} {
		if got := m.m.LeafIndex(); got != c {
			return fmt.Sprintf("%s opens node %d, the challenge is node %d (another comm_r_new or partition?)", m.name, got, c)
		}
		if m.m.Root != m.root {
			return fmt.Sprintf("%s has root %x, want %x", m.name, m.m.Root, m.root)
		}
		var root merkle.Node
		var err error
		if m.sha {
			root, err = merkle.SHA256Root(m.m.Leaf, m.m.Path())
		} else {
			root, err = r.roots[q/2], r.errs[q/2] // proof_r_old 0, proof_r_new 1
		}
		if err != nil {
			return fmt.Sprintf("%s: %v", m.name, err)
		}
		if root != m.root {
			return fmt.Sprintf("%s: the path of node %d hashes to %x, not to its root %x: a sibling or the leaf is wrong", m.name, c, root, m.root)
		}
	}
	// The encoding: label_r_new = label_r_old + label_d_new·rho(c's high bits).
	old, err1 := fr.LittleEndian.Element(&cp.ROld.Leaf)
	data, err2 := fr.LittleEndian.Element(&cp.DNew.Leaf)
	if err1 != nil || err2 != nil {
		return "a leaf is not a field element"
	}
	rho := Rho(phi, HighBits(p, c, p.H))
	var want fr.Element
	want.Mul(&data, &rho).Add(&want, &old)
	if got := domainOf(&want); got != cp.RNew.Leaf {
		return fmt.Sprintf("the new replica's node %x is not old + data·rho = %x: the data, the sector key or comm_d_new is not this update's", cp.RNew.Leaf, got)
	}
	// Tree D through the apex tree: the apex levels of the path are the apex
	// tree's, and the levels above it the partition path every challenge shares.
	lo, hi := p.TreeDLeafLevels(), p.ChallengeBits()
	leafIndex := int(c>>uint(lo)) & (p.ApexLeaves - 1)
	ap, err := apex.Path(leafIndex)
	if err != nil {
		return err.Error()
	}
	for j, e := range cp.DNew.Base[lo:hi] {
		if e.Hashes[0] != ap[j].Siblings[0] || int(e.Index) != ap[j].Index {
			return fmt.Sprintf("proof_d_new level %d is not the apex tree's (apex leaf %d)", lo+j, leafIndex)
		}
	}
	for j, e := range cp.DNew.Base[hi:] {
		if e.Hashes[0] != partitionPath[j].Hashes[0] || e.Index != partitionPath[j].Index {
			return fmt.Sprintf("proof_d_new level %d differs from challenge 0's partition path", hi+j)
		}
	}
	return ""
}

// domainOf encodes e as a 32-byte little-endian domain.
func domainOf(e *fr.Element) vanilla.Domain {
	var d vanilla.Domain
	fr.LittleEndian.PutElement(&d, *e)
	return d
}

// PublicInputs returns partition k's public inputs, as the verifier builds
// them: [k_and_h_select, comm_r_old, comm_d_new, comm_r_new], each
// commitment's 32 bytes read as a little-endian Fr.
func PublicInputs(p abi.UpdateProof, pub Commitments, k int) ([]fr.Element, error) {
	if k < 0 || k >= p.Partitions {
		return nil, fmt.Errorf("update: partition %d of %s: want 0 … %d", k, p.Name, p.Partitions-1)
	}
	out := make([]fr.Element, 4)
	out[0].SetUint64(p.KAndHSelect(k))
	for i, d := range []vanilla.Domain{pub.CommROld, pub.CommDNew, pub.CommRNew} {
		e, err := fr.LittleEndian.Element(&d)
		if err != nil {
			return nil, fmt.Errorf("update: commitment %d (%x) is not a field element", i, d)
		}
		out[i+1] = e
	}
	return out, nil
}

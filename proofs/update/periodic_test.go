package update

import (
	"bytes"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/merkle"
)

// periodicBlocks draws a sector key block and an fr32 data block for p.
func periodicBlocks(p abi.UpdateProof, seed byte) (fr.Element, []fr.Element, []merkle.Node) {
	s := testSeed
	s[1] ^= seed
	rng := newXorShift(s)
	b := PeriodicBlockLen(p)
	key := make([]fr.Element, b)
	data := make([]merkle.Node, b)
	for i := range key {
		key[i] = rng.randomFr()
		d := rng.randomFr()
		data[i] = domainOf(&d)
		data[i][31] &= 0x3f
	}
	return rng.randomFr(), key, data
}

// A periodic replica is the whole replica Encode makes of the same sector key
// and data spelled out: the same commitments and byte-equal partition proofs
// (2KiB, and 8MiB without -short).
func TestPeriodicEqualsEncode(t *testing.T) {
	sizes := []abi.UpdateProof{abi.AllUpdate()[0]}
	if !testing.Short() {
		sizes = append(sizes, abi.AllUpdate()[1])
	}
	for _, p := range sizes {
		commC, kb, db := periodicBlocks(p, 1)
		pr, err := EncodePeriodic(p, commC, kb, db)
		if err != nil {
			t.Fatal(err)
		}
		key := make([]fr.Element, p.Nodes)
		data := make([]merkle.Node, p.Nodes)
		for i := range key {
			key[i], data[i] = kb[i%len(kb)], db[i%len(db)]
		}
		r, err := Encode(p, commC, key, data)
		if err != nil {
			t.Fatal(err)
		}
		if pr.Commitments != r.Commitments {
			t.Fatalf("%s: periodic commitments %x, whole %x", p.Name, pr.Commitments, r.Commitments)
		}
		for k := range p.Partitions {
			a, err := pr.PartitionProof(k)
			if err != nil {
				t.Fatal(err)
			}
			b, err := r.PartitionProof(k)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Encode(), b.Encode()) {
				t.Fatalf("%s: partition %d's vanilla proof differs from the whole replica's", p.Name, k)
			}
		}
		for _, i := range []uint64{0, 5, p.Nodes/2 + 3, p.Nodes - 1} {
			if d, err := pr.Decode(i); err != nil || d != data[i] {
				t.Fatalf("%s: node %d decodes to %x (%v), the data is %x", p.Name, i, d, err, data[i])
			}
		}
	}
}

// At 32GiB and 64GiB a periodic replica's partitions pass the vanilla check
// (the first and the last), and not for another partition or comm_d_new.
func TestPeriodicBig(t *testing.T) {
	sizes := []abi.UpdateProof{abi.AllUpdate()[3]}
	if !testing.Short() {
		sizes = append(sizes, abi.AllUpdate()[4])
	}
	for _, p := range sizes {
		commC, kb, db := periodicBlocks(p, 2)
		r, err := EncodePeriodic(p, commC, kb, db)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{0, p.Partitions - 1} {
			pp, err := r.PartitionProof(k)
			if err != nil {
				t.Fatal(err)
			}
			dec, err := DecodePartitionProof(pp.Encode())
			if err != nil {
				t.Fatalf("%s k=%d: %v", p.Name, k, err)
			}
			if err := dec.Check(p, r.Commitments, k); err != nil {
				t.Fatalf("%s k=%d: %v", p.Name, k, err)
			}
			if err := dec.Check(p, r.Commitments, (k+1)%p.Partitions); err == nil {
				t.Fatalf("%s: partition %d's proof passes as another", p.Name, k)
			}
			bad := r.Commitments
			bad.CommDNew[0] ^= 1
			if err := dec.Check(p, bad, k); err == nil {
				t.Fatalf("%s: partition %d's proof passes for another comm_d_new", p.Name, k)
			}
		}
		if d, err := r.Decode(p.Nodes - 1); err != nil || d != db[len(db)-1] {
			t.Fatalf("%s: the last node decodes to %x (%v)", p.Name, d, err)
		}
	}
}

func TestEncodePeriodicErrors(t *testing.T) {
	p := abi.AllUpdate()[0]
	commC, kb, db := periodicBlocks(p, 3)
	if _, err := EncodePeriodic(p, commC, kb[1:], db); err == nil {
		t.Fatal("a short sector key block")
	}
	db[0][31] = 0xff
	if _, err := EncodePeriodic(p, commC, kb, db); err == nil {
		t.Fatal("a data node above the field")
	}
}

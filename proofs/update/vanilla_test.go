package update

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/vanilla"
)

// randomReplica encodes random data into a random sector key of p.
func randomReplica(t testing.TB, p abi.UpdateProof, seed byte) *Replica {
	t.Helper()
	s := testSeed
	s[0] ^= seed
	rng := newXorShift(s)
	key := make([]fr.Element, p.Nodes)
	data := make([]merkle.Node, p.Nodes)
	for i := range key {
		key[i] = rng.randomFr()
		d := rng.randomFr()
		data[i] = domainOf(&d)
		data[i][31] &= 0x3f // fr32
	}
	r, err := Encode(p, rng.randomFr(), key, data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// An encoded 2KiB (and, without -short, 8MiB) sector: each partition's
// vanilla proof passes Check, re-encodes byte for byte, and fails for
// another partition, another comm_d_new, comm_r_old or comm_r_new, or with
// any of its parts changed; decoding the replica gives the data back.
func TestPartitionProofs(t *testing.T) {
	sizes := []abi.UpdateProof{abi.AllUpdate()[0]}
	if !testing.Short() {
		sizes = append(sizes, abi.AllUpdate()[1])
	}
	for _, p := range sizes {
		r := randomReplica(t, p, 1)
		other := randomReplica(t, p, 2)
		for _, i := range []int{0, 1, int(p.Nodes) - 1} {
			if d, _ := r.Decode(i); d != r.DataNode[i] {
				t.Fatalf("%s: node %d decodes to %x, the data is %x", p.Name, i, d, r.DataNode[i])
			}
		}
		for k := range p.Partitions {
			pp, err := r.PartitionProof(k)
			if err != nil {
				t.Fatal(err)
			}
			enc := pp.Encode()
			dec, err := DecodePartitionProof(enc)
			if err != nil {
				t.Fatalf("%s k=%d: %v", p.Name, k, err)
			}
			if !bytes.Equal(dec.Encode(), enc) {
				t.Fatalf("%s k=%d: the re-encoding differs", p.Name, k)
			}
			if err := dec.Check(p, r.Commitments, k); err != nil {
				t.Fatalf("%s k=%d: %v", p.Name, k, err)
			}
			if k > 0 {
				continue // the tampering below once per size
			}
			if p.Partitions > 1 {
				if err := dec.Check(p, r.Commitments, 1); err == nil {
					t.Errorf("%s: partition 0's proof passes as partition 1", p.Name)
				}
			}
			for name, pub := range map[string]Commitments{
				"comm_d_new": {r.CommROld, other.CommDNew, r.CommRNew},
				"comm_r_old": {other.CommROld, r.CommDNew, r.CommRNew},
				"comm_r_new": {r.CommROld, r.CommDNew, other.CommRNew},
			} {
				var ce *CheckError
				if err := dec.Check(p, pub, k); !errors.As(err, &ce) {
					t.Errorf("%s: another %s: %v, want a CheckError", p.Name, name, err)
				}
			}
			tamper := []struct {
				name, want string
				f          func(*PartitionProof)
			}{
				{"comm_c", "Poseidon2(comm_c", func(q *PartitionProof) { q.CommC[0] ^= 1 }},
				{"apex leaf", "apex tree", func(q *PartitionProof) { q.ApexLeaves[3][0] ^= 1 }},
				{"old leaf", "proof_r_old", func(q *PartitionProof) { q.Challenges[2].ROld.Leaf[0] ^= 1 }},
				{"data leaf", "proof_d_new", func(q *PartitionProof) { q.Challenges[2].DNew.Leaf[0] ^= 1 }},
				{"new leaf", "proof_r_new", func(q *PartitionProof) { q.Challenges[2].RNew.Leaf[0] ^= 1 }},
				{"sibling", "proof_r_new: the path of node", func(q *PartitionProof) { q.Challenges[4].RNew.Base[0].Hashes[1][0] ^= 1 }},
				{"old sibling", "proof_r_old: the path of node", func(q *PartitionProof) { q.Challenges[5].ROld.Base[1].Hashes[2][0] ^= 1 }},
				{"challenges", "challenge proofs", func(q *PartitionProof) { q.Challenges = q.Challenges[1:] }},
				{"order", "opens node", func(q *PartitionProof) { q.Challenges[1], q.Challenges[2] = q.Challenges[2], q.Challenges[1] }},
			}
			for _, tc := range tamper {
				q, _ := DecodePartitionProof(enc)
				tc.f(q)
				err := q.Check(p, r.Commitments, k)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: %s changed: %v, want an error with %q", p.Name, tc.name, err, tc.want)
				}
			}
		}
	}
}

// DecodePartitionProof refuses truncations, a bad variant, a non-canonical
// element and trailing bytes, naming the offset.
func TestDecodePartitionProofErrors(t *testing.T) {
	p := abi.AllUpdate()[0]
	pp, err := randomReplica(t, p, 3).PartitionProof(0)
	if err != nil {
		t.Fatal(err)
	}
	enc := pp.Encode()
	cases := map[string][]byte{
		"truncated": enc[:len(enc)-1],
		"trailing":  append(append([]byte(nil), enc...), 0),
		"empty":     nil,
	}
	bad := append([]byte(nil), enc...)
	for i := range 32 {
		bad[i] = 0xff // comm_c ≥ r
	}
	cases["non-canonical comm_c"] = bad
	variant := append([]byte(nil), enc...)
	off := 32 + 8 + 32*p.ApexLeaves + 8
	variant[off] = 7
	cases["variant 7"] = variant
	for name, b := range cases {
		_, err := DecodePartitionProof(b)
		var de *vanilla.DecodeError
		if !errors.As(err, &de) || de.Offset > len(b) {
			t.Errorf("%s: %v, want a DecodeError inside the input", name, err)
		}
	}
}

package snap

import (
	"fmt"
	"math/rand/v2"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/update"
)

// maxFixtureNodes bounds RandomRequest to sectors held in memory (8MiB).
const maxFixtureNodes = 1 << 18

// RandomRequest is a test fixture: random data encoded into a random sector
// key of p (2KiB or 8MiB: in memory), seeded, and every partition's vanilla
// proof. It proves what a real update would, for commitments no sector on
// chain has.
func RandomRequest(p abi.UpdateProof, seed uint64) (*Request, *update.Replica, error) {
	if p.Nodes > maxFixtureNodes {
		return nil, nil, fmt.Errorf("snap: a random %s sector does not fit in memory: fixtures are 2KiB or 8MiB", p.Name)
	}
	random := fixtureRandom(seed)
	key, data := keyAndData(random, int(p.Nodes))
	r, err := update.Encode(p, random(), key, data)
	if err != nil {
		return nil, nil, err
	}
	req, err := requestOf(p, r.Commitments, r.PartitionProof)
	if err != nil {
		return nil, nil, err
	}
	return req, r, nil
}

// keyAndData draws n sector key nodes and n fr32 data nodes, interleaved.
func keyAndData(random func() fr.Element, n int) ([]fr.Element, []merkle.Node) {
	key := make([]fr.Element, n)
	data := make([]merkle.Node, n)
	for i := range key {
		key[i] = random()
		d := random()
		fr.LittleEndian.PutElement(&data[i], d)
	}
	return key, data
}

// requestOf is the request of an encoded update: its commitments and every
// partition's vanilla proof.
func requestOf(p abi.UpdateProof, c update.Commitments, partition func(k int) (*update.PartitionProof, error)) (*Request, error) {
	req := &Request{Proof: p, Commitments: c}
	for k := range p.Partitions {
		pp, err := partition(k)
		if err != nil {
			return nil, err
		}
		req.Vanilla = append(req.Vanilla, pp)
	}
	return req, nil
}

// fixtureRandom returns a seeded source of field elements below 2^254
// (valid fr32 data nodes too).
func fixtureRandom(seed uint64) func() fr.Element {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	return func() fr.Element {
		var b [32]byte
		for i := range 4 {
			v := rng.Uint64()
			for j := range 8 {
				b[8*i+j] = byte(v >> (8 * j))
			}
		}
		b[31] &= 0x3f // below 2^254 < r
		e, _ := fr.LittleEndian.Element(&b)
		return e
	}
}

// PeriodicRequest is a test fixture of any size, 32GiB and 64GiB included: a
// seeded random data block encoded into a sector key that repeats a seeded
// random block (update.EncodePeriodic), and every partition's vanilla proof.
// It is a whole, consistent update whose sector key is no sealed replica.
func PeriodicRequest(p abi.UpdateProof, seed uint64) (*Request, *update.PeriodicReplica, error) {
	random := fixtureRandom(seed)
	key, data := keyAndData(random, update.PeriodicBlockLen(p))
	r, err := update.EncodePeriodic(p, random(), key, data)
	if err != nil {
		return nil, nil, err
	}
	req, err := requestOf(p, r.Commitments, r.PartitionProof)
	if err != nil {
		return nil, nil, err
	}
	return req, r, nil
}

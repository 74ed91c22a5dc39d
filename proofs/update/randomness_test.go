package update

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
)

// xorShift is rand_xorshift's XorShiftRng (Marsaglia's xorshift128), the
// reference tests' generator.
type xorShift struct{ x, y, z, w uint32 }

// newXorShift seeds it as XorShiftRng::from_seed: four little-endian words.
func newXorShift(seed [16]byte) *xorShift {
	return &xorShift{binary.LittleEndian.Uint32(seed[0:]), binary.LittleEndian.Uint32(seed[4:]),
		binary.LittleEndian.Uint32(seed[8:]), binary.LittleEndian.Uint32(seed[12:])}
}

func (r *xorShift) next32() uint32 {
	t := r.x ^ r.x<<11
	r.x, r.y, r.z = r.y, r.z, r.w
	r.w = r.w ^ r.w>>19 ^ (t ^ t>>8)
	return r.w
}

// next64 is rand_core's next_u64 via two next_u32, low word first.
func (r *xorShift) next64() uint64 {
	lo := uint64(r.next32())
	return uint64(r.next32())<<32 | lo
}

// randomFr is blstrs' Scalar::random (Fr::random, PoseidonDomain::random):
// four next_u64 limbs, little-endian, the top bit cleared, drawn again until
// the number is below r.
func (r *xorShift) randomFr() fr.Element {
	for {
		n := new(big.Int)
		for i := range 4 {
			n.Or(n, new(big.Int).Lsh(new(big.Int).SetUint64(r.next64()), uint(64*i)))
		}
		n.SetBit(n, 255, 0)
		if n.Cmp(fr.Modulus()) < 0 {
			var e fr.Element
			e.SetBigInt(n)
			return e
		}
	}
}

// testSeed is storage-proofs-core's TEST_SEED.
var testSeed = [16]byte{0x59, 0x62, 0xbe, 0x5d, 0x76, 0x3d, 0x31, 0x8d, 0x17, 0xdb, 0x37, 0x32, 0x54, 0x06, 0xbc, 0xe5}

// The challenges equal storage-proofs-update's test_challenges_against_hardcoded
// (the first five of each partition listed) for the registered sizes, with
// comm_r_new drawn as the reference draws it.
func TestChallengesAgainstHardcoded(t *testing.T) {
	commRNew := newXorShift(testSeed).randomFr()
	vectors := map[[2]int][5]uint64{
		{0, 0}:  {53, 51, 56, 3, 0},
		{1, 0}:  {36085, 32783, 44060, 10950, 3731},
		{1, 1}:  {78878, 130797, 112892, 93994, 78379},
		{2, 0}:  {1019125, 116736, 706220, 59698, 799498},
		{2, 1}:  {2092548, 1213276, 1185483, 1164598, 1095197},
		{2, 14}: {15212432, 15665918, 15015423, 15012912, 15495223},
		{2, 15}: {16388544, 15794686, 16637142, 16319148, 16328348},
		{3, 0}:  {1019125, 27985696, 15282860, 11586600, 44651330},
		{3, 1}:  {109168525, 127316247, 80331041, 97065716, 72310052},
		{3, 14}: {990420169, 955146989, 968005601, 976863263, 944650706},
		{3, 15}: {1038629497, 1053983614, 1030421316, 1027373887, 1068685433},
		{4, 0}:  {1019125, 13992848, 3820715, 18225541, 57316660},
		{4, 1}:  {243386253, 197875851, 204632136, 171516766, 247789010},
		{4, 14}: {1997053129, 1920414070, 2003609080, 1900492803, 1963254685},
		{4, 15}: {2045262457, 2036941247, 2136653521, 2091356007, 2147167623},
	}
	for key, want := range vectors {
		p := abi.AllUpdate()[key[0]]
		got, err := Challenges(p, commRNew, key[1])
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != p.Challenges {
			t.Errorf("%s k=%d: %d challenges, want %d", p.Name, key[1], len(got), p.Challenges)
		}
		if fmt.Sprint(got[:5]) != fmt.Sprint(want[:]) {
			t.Errorf("%s k=%d: %v, want %v", p.Name, key[1], got[:5], want)
		}
	}
}

// Every challenge of partition k lies in the k-th 1/P of the sector
// (test_challenge_bucketing), and a partition out of range is an error.
func TestChallengeBucketing(t *testing.T) {
	rng := newXorShift(testSeed)
	for _, p := range abi.AllUpdate() {
		commRNew := rng.randomFr()
		span := p.Nodes / uint64(p.Partitions)
		for k := range p.Partitions {
			cs, err := Challenges(p, commRNew, k)
			if err != nil || len(cs) != p.Challenges {
				t.Fatalf("%s k=%d: %d challenges, %v", p.Name, k, len(cs), err)
			}
			for _, c := range cs {
				if c < uint64(k)*span || c >= uint64(k+1)*span {
					t.Fatalf("%s k=%d: challenge %d outside [%d, %d)", p.Name, k, c, uint64(k)*span, uint64(k+1)*span)
				}
			}
		}
		for _, k := range []int{-1, p.Partitions} {
			if _, err := Challenges(p, commRNew, k); err == nil {
				t.Errorf("%s: partition %d accepted", p.Name, k)
			}
		}
	}
}

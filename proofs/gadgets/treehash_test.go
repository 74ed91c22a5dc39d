package gadgets

import (
	"crypto/sha256"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// nativeNode is Sha256Function::node: SHA-256 of the two 32-byte
// little-endian children, trimmed to 254 bits.
func nativeNode(t testing.TB, a, b *fr.Element) fr.Element {
	return trimmedDigestFr(t, sha256.Sum256(append(frLE(a), frLE(b)...)))
}

// The tree-D node hash: two ToBitsLE (256 constraints each), the two-block
// SHA-256 and the pack (44 867), as spec §2.4's "512 + 44 867".
func TestHashMultiLeafSHA256(t *testing.T) {
	rng := newRand(t)
	for range 3 {
		a, b := randFr(rng), randFr(rng)
		want := nativeNode(t, &a, &b)
		for _, m := range []r1cs.Mode{r1cs.Witness, r1cs.Check} {
			cs := r1cs.New(m)
			x, y := AllocNum(cs, a), AllocNum(cs, b)
			c0 := cs.NumConstraints()
			got := HashMultiLeafSHA256(cs, []AllocatedNum{x, y})
			if n := cs.NumConstraints() - c0; n != 512+44867 {
				t.Errorf("%d constraints, want 512 + 44867", n)
			}
			if h2 := Hash2SHA256(cs, x, y); !h2.Value.Equal(&want) {
				t.Errorf("hash2_circuit differs")
			}
			mustFinish(t, cs)
			if !got.Value.Equal(&want) {
				t.Fatalf("%v: %s, want %s", m, got.Value.String(), want.String())
			}
		}
	}
	var a, b fr.Element
	corruptionCaught(t, func(cs *r1cs.System) {
		HashMultiLeafSHA256(cs, []AllocatedNum{AllocNum(cs, a), AllocNum(cs, b)})
	}, rng, 10)
}

// storage-proofs-core util.rs hash_leaf_bits_circuit: 45 387 constraints with
// the test's 512 bit allocations, and the value of Sha256Function::node.
func TestHashLeafBitsSHA256(t *testing.T) {
	rng := newRand(t)
	a, b := randFr(rng), randFr(rng)
	want := nativeNode(t, &a, &b)
	var got AllocatedNum
	checkSatisfied(t, func(cs *r1cs.System) {
		got = buildHashLeafBits(cs, frLE(&a), frLE(&b))
		if cs.NumConstraints() != 45387 {
			t.Errorf("%d constraints, want 45387", cs.NumConstraints())
		}
	})
	if !got.Value.Equal(&want) {
		t.Fatalf("%s, want %s", got.Value.String(), want.String())
	}
}

// util.rs test_reverse_bit_numbering: reverse_bit_numbering(to_bits_le(v))
// equals the bits of v's little-endian bytes, each byte MSB first.
func TestReverseBitNumbering(t *testing.T) {
	rng := newRand(t)
	cs := r1cs.New(r1cs.Check)
	for range 20 {
		v := randFr(rng)
		got := ReverseBitNumbering(AllocNum(cs, v).ToBitsLE(cs))
		want := BytesToBits(frLE(&v))
		if len(got) != 256 || !got[248].IsConstant() || got[248].Value() {
			t.Fatalf("%d bits; the pad bit 255 lands first in byte 31: %v", len(got), got[248])
		}
		for i := range want {
			if got[i].Value() != want[i] {
				t.Fatalf("bit %d", i)
			}
		}
	}
	mustFinish(t, cs)
	if got := ReverseBitNumbering([]Boolean{Constant(true), Constant(false), Constant(true)}); len(got) != 8 ||
		!got[7].Value() || got[6].Value() || !got[5].Value() || got[0].Value() {
		t.Fatal("padding a partial byte")
	}
}

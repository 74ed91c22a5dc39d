package poseidon

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// limbsElement builds an Fr from its four little-endian 64-bit limbs.
func limbsElement(l [4]uint64) fr.Element {
	var b [32]byte
	for i, v := range l {
		for j := range 8 {
			b[31-8*i-j] = byte(v >> (8 * j))
		}
	}
	var e fr.Element
	e.SetBytes(b[:])
	return e
}

// The custom-tag hash against ../shared/tools/poseidon_ref.py's plain
// permutation started from [tag, inputs] (the expected values were computed
// with it): tag 2^40 (CType::Arbitrary(1), SnapDeals' randomness) and 2^48
// (id 256); the optimised and plain permutations agree, and a custom tag
// gives another hash than the MerkleTree one.
func TestHashTagged(t *testing.T) {
	c := mustFor(t, 2)
	el := func(v uint64) fr.Element { var e fr.Element; e.SetUint64(v); return e }
	for _, v := range []struct {
		id     uint64
		in     [2]uint64
		digest [4]uint64
	}{
		{1, [2]uint64{0, 1}, [4]uint64{0xe5a74ec4bc077758, 0xe3580bea397367c7, 0xad1fc58134a0fe25, 0x314a35c4e7f0924e}},
		{1, [2]uint64{1, 2}, [4]uint64{0xe40d5f9cb5e92f3c, 0x54af845cdbb6bb53, 0x3018f4fbc1d4c748, 0x702c879bafdb05ab}},
	} {
		tag, err := CustomTag(v.id)
		if err != nil {
			t.Fatal(err)
		}
		in := []fr.Element{el(v.in[0]), el(v.in[1])}
		want := limbsElement(v.digest)
		if got := HashTagged(c, tag, in); !got.Equal(&want) {
			t.Errorf("id %d %v: %s, want %s", v.id, v.in, got.Text(16), want.Text(16))
		}
		if got := HashTaggedPlain(c, tag, in); !got.Equal(&want) {
			t.Errorf("id %d %v, plain: %s, want %s", v.id, v.in, got.Text(16), want.Text(16))
		}
		if m := Hash(c, in); m.Equal(&want) {
			t.Errorf("id %d: the custom tag hashes like MerkleTree", v.id)
		}
	}
	tag256, _ := CustomTag(256)
	want := "619d83b814525781d4e8a3dcf52365d4edf44d4e2c159d32ccee33feb44e1ca"
	if got := HashTagged(c, tag256, []fr.Element{el(5), el(7)}); got.Text(16) != want {
		t.Errorf("id 256: %s, want %s", got.Text(16), want)
	}
	if mt := HashTagged(c, c.MerkleTreeTag(), []fr.Element{el(1), el(2)}); mt != Hash(c, []fr.Element{el(1), el(2)}) {
		t.Error("HashTagged with the MerkleTree tag is not Hash")
	}
	for _, id := range []uint64{0, 257} {
		if _, err := CustomTag(id); err == nil {
			t.Errorf("CustomTag(%d) accepted", id)
		}
	}
}

// The custom-tag gadget: as many constraints as the MerkleTree one (311 at
// arity 2, spec §1.3), its output the native hash, satisfied, and differing
// from the MerkleTree gadget's R1CS only in constants (the same A·B = C
// variables in each row).
func TestHashCircuitTagged(t *testing.T) {
	c := mustFor(t, 2)
	tag, _ := CustomTag(1)
	vals := randomElements(t, 2)
	want := HashTagged(c, tag, vals)
	record := func(tag fr.Element) *r1cs.Circuit {
		cs := r1cs.New(r1cs.Record)
		if _, err := HashCircuitTagged(cs, c, tag, allocInputs(cs, vals)); err != nil {
			t.Fatal(err)
		}
		if err := cs.Finish(); err != nil {
			t.Fatal(err)
		}
		circ, err := cs.Circuit()
		if err != nil {
			t.Fatal(err)
		}
		return circ
	}
	custom, merkle := record(tag), record(c.MerkleTreeTag())
	if n := custom.NumConstraints - custom.NumInputs; n != 311 || n != c.GadgetConstraints() {
		t.Fatalf("%d constraints, want 311", n)
	}
	if custom.NumConstraints != merkle.NumConstraints || custom.NumAux != merkle.NumAux {
		t.Fatalf("custom %d/%d, MerkleTree %d/%d constraints/aux", custom.NumConstraints, custom.NumAux, merkle.NumConstraints, merkle.NumAux)
	}
	if custom.Digest(1<<20).Sum == merkle.Digest(1<<20).Sum {
		t.Error("the custom tag's R1CS equals the MerkleTree one")
	}
	cm, mm := custom.Matrices(), merkle.Matrices()
	for m := range cm {
		for row := range custom.NumConstraints {
			a, _ := cm[m].Row(row)
			b, _ := mm[m].Row(row)
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("matrix %d row %d: variables %v, MerkleTree's %v", m, row, a, b)
			}
		}
	}
	for _, m := range []r1cs.Mode{r1cs.Check, r1cs.Witness} {
		cs := r1cs.New(m)
		out, err := HashCircuitTagged(cs, c, tag, allocInputs(cs, vals))
		if err != nil {
			t.Fatal(err)
		}
		if !out.Val.Equal(&want) {
			t.Errorf("%v: output %s, native %s", m, out.Val.Text(16), want.Text(16))
		}
		if err := cs.Finish(); err != nil {
			t.Errorf("%v: %v", m, err)
		}
		if m == r1cs.Witness {
			inputs, aux := cs.Assignment()
			if i, err := custom.IsSatisfied(inputs, aux); err != nil || i != -1 {
				t.Errorf("the witness fails constraint %d of the recorded custom circuit (%v)", i, err)
			}
			if i, _ := merkle.IsSatisfied(inputs, aux); i == -1 {
				t.Error("the custom-tag witness satisfies the MerkleTree circuit")
			}
		}
	}
}

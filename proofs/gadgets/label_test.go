package gadgets

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// nativeLabel is the vanilla label of spec §1.5: SHA-256 of replica_id ‖
// layer (u32 BE) ‖ node (u64 BE) ‖ 20 zero bytes ‖ the 37 parents, trimmed.
func nativeLabel(t testing.TB, id []byte, layer uint32, node uint64, parents [][]byte) fr.Element {
	buf := append([]byte{}, id...)
	buf = binary.BigEndian.AppendUint32(buf, layer)
	buf = binary.BigEndian.AppendUint64(buf, node)
	buf = append(buf, make([]byte, 20)...)
	for _, p := range parents {
		buf = append(buf, p...)
	}
	if len(buf) != 1248 {
		t.Fatalf("label preimage %d bytes", len(buf))
	}
	return trimmedDigestFr(t, sha256.Sum256(buf))
}

// create_label.rs test_create_label: 532 025 constraints (the 37·256 + 256
// bit allocations included) and the vanilla label's value.
func TestCreateLabelTest(t *testing.T) {
	rng := newRand(t)
	id := randFr(rng)
	parents := testParents(rng)
	want := nativeLabel(t, frLE(&id), 3, 22, parents)
	var got AllocatedNum
	checkSatisfied(t, func(cs *r1cs.System) {
		got = buildCreateLabelTest(cs, frLE(&id), parents)
		if cs.NumConstraints() != 532025 {
			t.Errorf("%d constraints, want 532025", cs.NumConstraints())
		}
		if n := cs.NumConstraints() - 38*256; n != 522297 {
			t.Errorf("label SHA plus pack %d, want 522297", n)
		}
	})
	if !got.Value.Equal(&want) {
		t.Fatalf("%s, want %s", got.Value.String(), want.String())
	}
}

// The label as the PoRep circuit builds it (params.rs L188-243): replica id
// and parents through ToBitsLE and ReverseBitNumbering, the challenge an
// allocated UInt64, layers 1 (6 DRG parents ×6 + the first) and > 1 (14
// parents, twice, + the first 9). The SHA plus pack costs 522 269 (spec
// §2.4), and the value is the vanilla label.
func TestCreateLabelCircuitShape(t *testing.T) {
	rng := newRand(t)
	id := randFr(rng)
	node := rng.Uint64() >> 34
	raw := make([]fr.Element, 14)
	for i := range raw {
		raw[i] = randFr(rng)
	}
	for _, layer := range []uint32{1, 2, 11} {
		var order []int
		if layer == 1 {
			for range 6 {
				order = append(order, 0, 1, 2, 3, 4, 5)
			}
			order = append(order, 0)
		} else {
			for k := range 28 {
				order = append(order, k%14)
			}
			order = append(order, 0, 1, 2, 3, 4, 5, 6, 7, 8)
		}
		pbytes := make([][]byte, len(order))
		for i, k := range order {
			pbytes[i] = frLE(&raw[k])
		}
		want := nativeLabel(t, frLE(&id), layer, node, pbytes)
		for _, m := range []r1cs.Mode{r1cs.Witness, r1cs.Check} {
			cs := r1cs.New(m)
			idBits := ReverseBitNumbering(AllocNum(cs, id).ToBitsLE(cs))
			challenge := AllocUInt64(cs, node)
			np := 6
			if layer > 1 {
				np = 14
			}
			pbits := make([][]Boolean, np)
			for i := range pbits {
				pbits[i] = ReverseBitNumbering(AllocNum(cs, raw[i]).ToBitsLE(cs))
			}
			parents := make([][]Boolean, len(order))
			for i, k := range order {
				parents[i] = pbits[k]
			}
			c0 := cs.NumConstraints()
			got := CreateLabel(cs, idBits, parents, UInt32Constant(layer), challenge)
			if n := cs.NumConstraints() - c0; n != 522269 {
				t.Errorf("layer %d: label SHA plus pack %d, want 522269", layer, n)
			}
			mustFinish(t, cs)
			if !got.Value.Equal(&want) {
				t.Fatalf("layer %d, %v: %s, want %s", layer, m, got.Value.String(), want.String())
			}
		}
	}
}

// A changed aux of the label circuit breaks it; a forged parent bit is caught.
func TestCreateLabelCorruption(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	rng := newRand(t)
	id := randFr(rng)
	parents := testParents(rng)
	corruptionCaught(t, func(cs *r1cs.System) { buildCreateLabelTest(cs, frLE(&id), parents) }, rng, 5)
}

// BenchmarkCreateLabelWitness is the create_label test circuit (9 728 bit
// allocations and 20 compressions) in Witness mode, System allocation included.
func BenchmarkCreateLabelWitness(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	id := randFr(rng)
	parents := testParents(rng)
	b.ReportAllocs()
	for b.Loop() {
		cs := r1cs.New(r1cs.Witness, r1cs.WithCapacity(532000, 0))
		buildCreateLabelTest(cs, frLE(&id), parents)
	}
}

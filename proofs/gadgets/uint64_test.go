package gadgets

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// UInt64::alloc then pack_into_input, as the challenge of each PoRep proof:
// 64 bits and 64 + 1 constraints, one input equal to the challenge.
func TestUInt64(t *testing.T) {
	rng := newRand(t)
	for range 20 {
		v := rng.Uint64()
		cs := r1cs.New(r1cs.Check)
		u := AllocUInt64(cs, v)
		in := u.PackIntoInput(cs)
		if cs.NumAux() != 64 || cs.NumConstraints() != 65 || cs.NumInputs() != 2 {
			t.Fatalf("aux %d, constraints %d, inputs %d", cs.NumAux(), cs.NumConstraints(), cs.NumInputs())
		}
		inputs, _ := cs.Assignment()
		var want fr.Element
		want.SetUint64(v)
		if !inputs[in.Index()].Equal(&want) {
			t.Fatalf("input %s, want %d", inputs[in.Index()].String(), v)
		}
		be := u.ToBitsBE()
		le := u.ToBitsLE()
		if UInt64FromBitsBE(be[:]).Value != v || UInt64FromBits(le[:]).Value != v || be[0] != le[63] {
			t.Fatal("bit order")
		}
		c := UInt64Constant(v)
		if c.Value != v || !c.Bits[0].IsConstant() || UInt64FromBits(c.Bits[:]).Value != v {
			t.Fatal("constant")
		}
		mustFinish(t, cs)
	}
}

package gadgets

import (
	"testing"

	"github.com/filc2/filc2/proofs/r1cs"
)

func TestPackIntoInputs(t *testing.T) {
	rng := newRand(t)
	for _, n := range []int{1, 64, 253, 254, 255, 600} {
		data := randBytes(rng, (n+7)/8)
		vals := BytesToBitsLE(data)[:n]
		want := ComputeMultipacking(vals)
		if len(want) != (n+Capacity-1)/Capacity {
			t.Fatalf("%d bits: %d chunks", n, len(want))
		}
		cs := r1cs.New(r1cs.Check)
		bits := make([]Boolean, n)
		for i, v := range vals {
			switch i % 3 {
			case 0:
				bits[i] = Is(AllocBit(cs, v))
			case 1:
				bits[i] = Is(AllocBit(cs, !v)).Not()
			default:
				bits[i] = Constant(v)
			}
		}
		c0 := cs.NumConstraints()
		ins := PackIntoInputs(cs, bits)
		if len(ins) != len(want) || cs.NumConstraints()-c0 != len(want) {
			t.Fatalf("%d bits: %d inputs, %d constraints, want %d", n, len(ins), cs.NumConstraints()-c0, len(want))
		}
		inputs, _ := cs.Assignment()
		for k, in := range ins {
			if in.IsAux() || !inputs[in.Index()].Equal(&want[k]) {
				t.Fatalf("%d bits: input %d = %s, want %s", n, k, inputs[in.Index()].String(), want[k].String())
			}
		}
		p := PackBits(cs, bits)
		if !p.Value.Equal(&want[0]) {
			t.Fatalf("%d bits: PackBits %s, want the first chunk %s", n, p.Value.String(), want[0].String())
		}
		mustFinish(t, cs)
	}
	got := rows(t, 0, func(cs *r1cs.System) {
		PackIntoInputs(cs, []Boolean{Constant(true), Is(AllocBit(cs, true)).Not(), Constant(false)})
	})
	wantRows(t, "pack_into_inputs", got[1:], "3*ONE -2*a0 | 1*ONE | 1*in1")
	got = rows(t, 0, func(cs *r1cs.System) {
		PackBits(cs, []Boolean{Is(AllocBit(cs, true)), Constant(true)})
	})
	wantRows(t, "pack_bits", got[1:], "2*ONE 1*a0 | 1*ONE | 1*a1")
	checkUnsatisfied(t, func(cs *r1cs.System) {
		b := Is(AllocBit(cs, true))
		b.value = false
		PackBits(cs, []Boolean{b})
	})
}

func TestBytesToBits(t *testing.T) {
	be, le := BytesToBits([]byte{0x81, 0x02}), BytesToBitsLE([]byte{0x81, 0x02})
	wantBE := []bool{true, false, false, false, false, false, false, true, false, false, false, false, false, false, true, false}
	wantLE := []bool{true, false, false, false, false, false, false, true, false, true, false, false, false, false, false, false}
	for i := range wantBE {
		if be[i] != wantBE[i] || le[i] != wantLE[i] {
			t.Fatalf("bit %d", i)
		}
	}
}

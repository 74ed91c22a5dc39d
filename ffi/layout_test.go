package ffi

import (
	"encoding/binary"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// TestLimbLayout checks that gnark's 64-bit limbs, read as the device reads them
// (consecutive little-endian 32-bit words), are the 32-bit limbs of the same value.
func TestLimbLayout(t *testing.T) {
	var x fp.Element
	if _, err := x.SetRandom(); err != nil {
		t.Fatal(err)
	}
	words := (*[12]uint32)(unsafe.Pointer(&x))
	for i, limb := range x {
		if uint64(words[2*i]) != limb&0xffffffff || uint64(words[2*i+1]) != limb>>32 {
			t.Fatalf("fp limb %d: 32-bit words %08x %08x, 64-bit limb %016x: host is not little-endian", i,
				words[2*i], words[2*i+1], limb)
		}
	}
	var y fr.Element
	y.SetOne()
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&y)), 32)
	if binary.LittleEndian.Uint64(raw) != y[0] {
		t.Fatal("fr: host is not little-endian")
	}
}

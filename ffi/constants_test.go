package ffi

import (
	"math/big"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// TestDeviceConstants checks cuda/ff/bls12_381.cuh against gnark-crypto: the moduli,
// Montgomery one (R mod m), R² mod m and −m⁻¹ mod 2^32, limb by limb. It needs no GPU.
func TestDeviceConstants(t *testing.T) {
	src, err := os.ReadFile("../cuda/ff/bls12_381.cuh")
	if err != nil {
		t.Fatal(err)
	}
	hdr := string(src)
	array := func(name string) []uint32 {
		m := regexp.MustCompile(`\b` + name + `\[\d+\]\s*=\s*\{([^}]*)\}`).FindStringSubmatch(hdr)
		if m == nil {
			t.Fatalf("%s not found in bls12_381.cuh", name)
		}
		var out []uint32
		for _, f := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
			v, err := strconv.ParseUint(strings.TrimPrefix(f, "0x"), 16, 32)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out = append(out, uint32(v))
		}
		return out
	}
	scalar := func(name string) uint32 {
		m := regexp.MustCompile(`\b` + name + `\s*=\s*0x([0-9a-fA-F]+)`).FindStringSubmatch(hdr)
		if m == nil {
			t.Fatalf("%s not found in bls12_381.cuh", name)
		}
		v, _ := strconv.ParseUint(m[1], 16, 32)
		return uint32(v)
	}
	limbs := func(x *big.Int, n int) []uint32 {
		out := make([]uint32, n)
		mask := big.NewInt(0xffffffff)
		v := new(big.Int).Set(x)
		for i := range out {
			out[i] = uint32(new(big.Int).And(v, mask).Uint64())
			v.Rsh(v, 32)
		}
		return out
	}
	words := func(raw []uint64) []uint32 { // gnark's 64-bit limbs as 32-bit words
		out := make([]uint32, 0, 2*len(raw))
		for _, w := range raw {
			out = append(out, uint32(w), uint32(w>>32))
		}
		return out
	}
	equal := func(name string, got, want []uint32) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d limbs, want %d", name, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s limb %d: %08x, gnark-crypto %08x", name, i, got[i], want[i])
			}
		}
	}
	n0 := func(m *big.Int) uint32 { // −m⁻¹ mod 2^32
		two32 := new(big.Int).Lsh(big.NewInt(1), 32)
		inv := new(big.Int).ModInverse(m, two32)
		return uint32(new(big.Int).Sub(two32, inv).Uint64())
	}

	var one fp.Element
	one.SetOne()
	var four fp.Element
	four.SetUint64(4)
	r2 := new(big.Int).Lsh(big.NewInt(1), 2*384)
	r2.Mod(r2, fp.Modulus())
	equal("FP_MOD", array("FP_MOD"), limbs(fp.Modulus(), 12))
	equal("FP_ONE", array("FP_ONE"), words(one[:]))
	equal("FP_RR", array("FP_RR"), limbs(r2, 12))
	equal("FP_B4", array("FP_B4"), words(four[:]))
	if got, want := scalar("FP_M0"), n0(fp.Modulus()); got != want {
		t.Fatalf("FP_M0 %08x, want %08x", got, want)
	}

	var oner, fourr fr.Element
	oner.SetOne()
	fourr.SetUint64(4)
	r2r := new(big.Int).Lsh(big.NewInt(1), 2*256)
	r2r.Mod(r2r, fr.Modulus())
	equal("FR_MOD", array("FR_MOD"), limbs(fr.Modulus(), 8))
	equal("FR_ONE", array("FR_ONE"), words(oner[:]))
	equal("FR_RR", array("FR_RR"), limbs(r2r, 8))
	if got, want := scalar("FR_M0"), n0(fr.Modulus()); got != want {
		t.Fatalf("FR_M0 %08x, want %08x", got, want)
	}
	// gnark's own −m⁻¹ mod 2^64 (qInvNeg) reduces to the same 32-bit constant.
	if got := scalar("FP_M0"); uint64(got) != 9940570264628428797&0xffffffff {
		t.Fatalf("FP_M0 disagrees with gnark's qInvNeg")
	}
	if got := scalar("FR_M0"); uint64(got) != 18446744069414584319&0xffffffff {
		t.Fatalf("FR_M0 disagrees with gnark's qInvNeg")
	}
}

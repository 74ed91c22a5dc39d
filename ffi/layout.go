package ffi

import (
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Memory layout shared with cuda/ (cuda/README.md has the argument):
//
// A field element on the device is N little-endian 32-bit limbs of x·2^(32N) mod m
// (Montgomery form). gnark-crypto stores N/2 little-endian 64-bit limbs of
// x·2^(64·N/2) mod m; on a little-endian host those are the same bytes, and
// 2^(64·N/2) = 2^(32N), so the Montgomery constants agree too. Hence fr.Element
// (N = 8), fp.Element (N = 12), E2 (c0 then c1), G1Affine/G2Affine ((0, 0) is
// infinity on both sides) and G1Jac/G2Jac upload and download as they are, with no
// conversion. The sizes are asserted here at compile time; the limb order and the
// Montgomery constants by the tests (layout_test.go, constants_test.go, and the GPU
// tests, which compare device results on gnark values with gnark's).
const (
	frBytes    = 32
	fpBytes    = 48
	fp2Bytes   = 96
	g1AffBytes = 96
	g2AffBytes = 192
	g1JacBytes = 144
	g2JacBytes = 288
)

var (
	_ [frBytes - unsafe.Sizeof(fr.Element{})]byte
	_ [unsafe.Sizeof(fr.Element{}) - frBytes]byte
	_ [fpBytes - unsafe.Sizeof(fp.Element{})]byte
	_ [unsafe.Sizeof(fp.Element{}) - fpBytes]byte
	_ [fp2Bytes - unsafe.Sizeof(bls.E2{})]byte
	_ [unsafe.Sizeof(bls.E2{}) - fp2Bytes]byte
	_ [g1AffBytes - unsafe.Sizeof(bls.G1Affine{})]byte
	_ [unsafe.Sizeof(bls.G1Affine{}) - g1AffBytes]byte
	_ [g2AffBytes - unsafe.Sizeof(bls.G2Affine{})]byte
	_ [unsafe.Sizeof(bls.G2Affine{}) - g2AffBytes]byte
	_ [g1JacBytes - unsafe.Sizeof(bls.G1Jac{})]byte
	_ [unsafe.Sizeof(bls.G1Jac{}) - g1JacBytes]byte
	_ [g2JacBytes - unsafe.Sizeof(bls.G2Jac{})]byte
	_ [unsafe.Sizeof(bls.G2Jac{}) - g2JacBytes]byte
)

package groth16

import (
	"errors"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// Encoded sizes of points (zcash/blst encoding, which gnark-crypto shares).
const (
	G1Uncompressed = bls.SizeOfG1AffineUncompressed // 96
	G2Uncompressed = bls.SizeOfG2AffineUncompressed // 192
	G1Compressed   = bls.SizeOfG1AffineCompressed   // 48
	G2Compressed   = bls.SizeOfG2AffineCompressed   // 96
)

const (
	flagMask       = 0xe0
	flagCompressed = 0x80
	flagInfinity   = 0x40
)

var (
	errNotOnCurve = errors.New("not on the curve")
	errSubgroup   = errors.New("not in the prime-order subgroup")
	errInfinity   = errors.New("point at infinity")
	errBadFlags   = errors.New("bad encoding flags (want uncompressed)")
	errNonCanonic = errors.New("coordinate not below the field modulus")
	errCompressed = errors.New("bad encoding flags (want compressed)")
)

// decodeG1 decodes an uncompressed, finite G1 point, always checking that it
// lies on the curve and checking the subgroup only when asked.
func decodeG1(p *bls.G1Affine, b []byte, subgroup bool) error {
	if b[0]&flagMask != 0 {
		if b[0]&flagMask == flagInfinity {
			return errInfinity
		}
		return errBadFlags
	}
	if p.X.SetBytesCanonical(b[:fp.Bytes]) != nil || p.Y.SetBytesCanonical(b[fp.Bytes:2*fp.Bytes]) != nil {
		return errNonCanonic
	}
	if !p.IsOnCurve() {
		return errNotOnCurve
	}
	if subgroup && !p.IsInSubGroup() {
		return errSubgroup
	}
	return nil
}

// decodeG2 is decodeG1 for G2 (x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0).
func decodeG2(p *bls.G2Affine, b []byte, subgroup bool) error {
	if b[0]&flagMask != 0 {
		if b[0]&flagMask == flagInfinity {
			return errInfinity
		}
		return errBadFlags
	}
	const n = fp.Bytes
	if p.X.A1.SetBytesCanonical(b[:n]) != nil || p.X.A0.SetBytesCanonical(b[n:2*n]) != nil ||
		p.Y.A1.SetBytesCanonical(b[2*n:3*n]) != nil || p.Y.A0.SetBytesCanonical(b[3*n:4*n]) != nil {
		return errNonCanonic
	}
	if !p.IsOnCurve() {
		return errNotOnCurve
	}
	if subgroup && !p.IsInSubGroup() {
		return errSubgroup
	}
	return nil
}

// decodeG1Any decodes an uncompressed G1 point that may be the identity (the
// vk's fixed points may be, in principle).
func decodeG1Any(p *bls.G1Affine, b []byte, subgroup bool) error {
	if b[0]&flagMask == flagInfinity {
		_, err := p.SetBytes(b[:G1Uncompressed])
		return err
	}
	return decodeG1(p, b, subgroup)
}

func decodeG2Any(p *bls.G2Affine, b []byte, subgroup bool) error {
	if b[0]&flagMask == flagInfinity {
		_, err := p.SetBytes(b[:G2Uncompressed])
		return err
	}
	return decodeG2(p, b, subgroup)
}

// decodeG1Compressed decodes a compressed G1 point strictly: right flags,
// canonical, on the curve, in the subgroup, not the identity.
func decodeG1Compressed(p *bls.G1Affine, b []byte) error {
	if b[0]&flagCompressed == 0 {
		return errCompressed
	}
	if b[0]&flagInfinity != 0 {
		return errInfinity
	}
	if _, err := p.SetBytes(b[:G1Compressed]); err != nil {
		return err
	}
	return nil
}

func decodeG2Compressed(p *bls.G2Affine, b []byte) error {
	if b[0]&flagCompressed == 0 {
		return errCompressed
	}
	if b[0]&flagInfinity != 0 {
		return errInfinity
	}
	if _, err := p.SetBytes(b[:G2Compressed]); err != nil {
		return err
	}
	return nil
}

package groth16

import (
	"fmt"
	"io"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// randomScalar draws a uniform non-zero scalar from rd: 64 bytes reduced mod r
// (SetBytes reduces inputs longer than 32 bytes), so the bias is below 2^-256.
func randomScalar(rd io.Reader) (fr.Element, error) {
	var b [64]byte
	for {
		if _, err := io.ReadFull(rd, b[:]); err != nil {
			return fr.Element{}, fmt.Errorf("groth16: reading randomness: %w", err)
		}
		var s fr.Element
		s.SetBytes(b[:])
		if !s.IsZero() {
			return s, nil
		}
	}
}

package poseidon

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// compressRoundConstants moves every round constant behind the S-box that
// precedes it, as neptune's compress_round_constants does with all partial
// rounds preprocessed (spec §5.2). rc holds the (RF + RP)·t Grain constants,
// row r = rc[r·t : (r+1)·t]. The result, of length RF·t + RP, is consumed in
// order by the optimised permutation and by the gadget:
//
//	[0, t)                 rc row 0, added before the first S-boxes
//	[t, 4t)                rows 1..3 · M⁻¹, after the S-boxes of rounds 0..2
//	[4t, 5t)               the folded partial-round accumulator · M⁻¹ (round 3)
//	[5t, 5t+RP)            one key per partial round
//	[5t+RP, 8t+RP)         rows h+RP+1 .. h+RP+3 · M⁻¹ (final full rounds but the last)
func compressRoundConstants(t, rf, rp int, rc []fr.Element, mInv matrix) []fr.Element {
	h := rf / 2
	row := func(r int) []fr.Element { return rc[r*t : (r+1)*t] }

	out := make([]fr.Element, 0, rf*t+rp)
	out = append(out, row(0)...)
	for r := 1; r < h; r++ {
		out = append(out, vecMul(row(r), mInv)...)
	}

	// Fold the partial rounds backwards: the part of each row that is not
	// consumed by the single S-box is pushed through M⁻¹ into the row before.
	partial := make([]fr.Element, rp)
	acc := append([]fr.Element(nil), row(h+rp)...)
	for i := range rp {
		u := vecMul(acc, mInv)
		partial[rp-1-i] = u[0] // keys come out last round first
		u[0].SetZero()
		prev := row(h + rp - 1 - i)
		for j := range acc {
			acc[j].Add(&prev[j], &u[j])
		}
	}
	out = append(out, vecMul(acc, mInv)...)
	out = append(out, partial...)

	for r := 1; r < h; r++ {
		out = append(out, vecMul(row(h+rp+r), mInv)...)
	}
	return out
}

package poseidon

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// Grain LFSR parameters of the Poseidon paper as neptune instantiates them:
// a prime field (field = 1), the x^5 S-box (neptune encodes it as sbox = 1) and
// 255-bit elements.
const (
	grainField     = 1
	grainSBox      = 1
	grainFieldBits = 255
)

// grain is the 80-bit Grain LFSR in self-shrinking mode (Poseidon paper,
// appendix F), kept as a ring buffer: bit i of the state is s[(head+i) % 80].
type grain struct {
	s    [80]uint8
	head int
}

// newGrain seeds the LFSR with the 80-bit parameter string, most significant
// bit first (field 2 bits, sbox 4, field size 12, t 12, RF 10, RP 10, thirty
// ones), and discards the first 160 bits.
func newGrain(t, rf, rp int) *grain {
	g := &grain{}
	n := 0
	put := func(bits int, v uint64) {
		for i := bits - 1; i >= 0; i-- {
			g.s[n] = uint8(v>>uint(i)) & 1
			n++
		}
	}
	put(2, grainField)
	put(4, grainSBox)
	put(12, grainFieldBits)
	put(12, uint64(t))
	put(10, uint64(rf))
	put(10, uint64(rp))
	put(30, 1<<30-1)
	for range 160 {
		g.clock()
	}
	return g
}

// clock shifts in b62 ⊕ b51 ⊕ b38 ⊕ b23 ⊕ b13 ⊕ b0 and returns it.
func (g *grain) clock() uint8 {
	at := func(i int) uint8 { return g.s[(g.head+i)%80] }
	b := at(62) ^ at(51) ^ at(38) ^ at(23) ^ at(13) ^ at(0)
	g.s[g.head] = b // the slot of b0, which leaves the state
	g.head = (g.head + 1) % 80
	return b
}

// bit returns the next self-shrunk output bit: bits are read in pairs and the
// second is emitted when the first is 1.
func (g *grain) bit() uint8 {
	for g.clock() == 0 {
		g.clock()
	}
	return g.clock()
}

// field returns the next field element: 255 bits taken big-endian, candidates
// ≥ p rejected.
func (g *grain) field() fr.Element {
	for {
		var be [fr.Bytes]byte
		for i := range grainFieldBits {
			pos := i + 8*fr.Bytes - grainFieldBits // right-aligned in 256 bits
			be[pos/8] |= g.bit() << (7 - uint(pos%8))
		}
		if e, err := fr.BigEndian.Element(&be); err == nil {
			return e
		}
	}
}

// grainRoundConstants returns the (RF + RP)·t round constants of width t,
// row-major by round.
func grainRoundConstants(t, rf, rp int) []fr.Element {
	g := newGrain(t, rf, rp)
	rc := make([]fr.Element, (rf+rp)*t)
	for i := range rc {
		rc[i] = g.field()
	}
	return rc
}

package r1cs

import "math/bits"

// Bitset is a growable set of bit positions: the density bitmaps of a circuit.
type Bitset struct {
	words []uint64
	n     int
}

// NewBitset returns a bitset of n zero bits.
func NewBitset(n int) Bitset { return Bitset{words: make([]uint64, (n+63)/64), n: n} }

// Len is the number of bits.
func (b *Bitset) Len() int { return b.n }

// Grow extends the bitset with zero bits to length n.
func (b *Bitset) Grow(n int) {
	if n <= b.n {
		return
	}
	if w := (n + 63) / 64; w > len(b.words) {
		b.words = append(b.words, make([]uint64, w-len(b.words))...)
	}
	b.n = n
}

// Set sets bit i (i < Len).
func (b *Bitset) Set(i int) { b.words[i>>6] |= 1 << (uint(i) & 63) }

// Get reports bit i.
func (b *Bitset) Get(i int) bool { return b.words[i>>6]&(1<<(uint(i)&63)) != 0 }

// Count is the number of set bits.
func (b *Bitset) Count() int {
	c := 0
	for _, w := range b.words {
		c += bits.OnesCount64(w)
	}
	return c
}

// Words exposes the backing words, least significant bit first.
func (b *Bitset) Words() []uint64 { return b.words }

// Equal reports whether b and o hold the same bits.
func (b *Bitset) Equal(o *Bitset) bool {
	if b.n != o.n {
		return false
	}
	for i := range b.words {
		if b.words[i] != o.words[i] {
			return false
		}
	}
	return true
}

// Ranks returns the number of set bits before each word (len(Words)+1 entries),
// so that the rank of bit i is Ranks()[i/64] plus a popcount within word i/64.
func (b *Bitset) Ranks() []uint32 {
	r := make([]uint32, len(b.words)+1)
	for i, w := range b.words {
		r[i+1] = r[i] + uint32(bits.OnesCount64(w))
	}
	return r
}

package porep

import (
	"encoding/binary"
	"math/bits"
	"runtime"
	"sync"
)

// feistelRounds is FEISTEL_ROUNDS: keys[0..3] of the four derived keys are used.
const feistelRounds = 3

// feistel is the keyed permutation of [0, n) of storage-proofs-core
// crypto/feistel.rs: a balanced 3-round Feistel network on 2·half bits, where
// half is the least h ≥ 1 with 4^h ≥ n, and cycle walking down to n.
type feistel struct {
	n            uint64
	keys         [feistelRounds]uint64
	half         uint
	rmask, lmask uint64

	// table, when not nil, holds the masked round function: entry i<<half | R
	// is F(R, keys[i]) & rmask. half is at most 18 for n < 2^35, so the
	// table has at most 3·2^18 entries.
	table []uint32
}

// newFeistel returns the permutation of [0, n) keyed by seed =
// SHA-256("Filecoin_Feistel" ‖ porep_id), whose four little-endian u64 words
// are the keys (derive_feistel_keys).
func newFeistel(n uint64, seed [32]byte) feistel {
	f := feistel{n: n, half: 1}
	for next := uint64(4); next < n; next *= 4 { // precompute
		f.half++
	}
	f.rmask = 1<<f.half - 1
	f.lmask = f.rmask << f.half
	for i := range f.keys {
		f.keys[i] = binary.LittleEndian.Uint64(seed[8*i:])
	}
	return f
}

// permute returns the image of x < f.n: encode repeated until the value is
// below n.
func (f *feistel) permute(x uint64) uint64 {
	u := f.encode(x)
	for u >= f.n {
		u = f.encode(u)
	}
	return u
}

// invertPermute is the inverse of permute.
func (f *feistel) invertPermute(x uint64) uint64 {
	u := f.decode(x)
	for u >= f.n {
		u = f.decode(u)
	}
	return u
}

// encode is one pass of the network over 2·half bits: (L, R) ← (R, L ⊕ F(R, k))
// for each round key k.
func (f *feistel) encode(x uint64) uint64 {
	l, r := (x&f.lmask)>>f.half, x&f.rmask
	if t := f.table; t != nil {
		for i := range uint64(feistelRounds) {
			l, r = r, l^uint64(t[i<<f.half|r])
		}
		return l<<f.half | r
	}
	for _, k := range f.keys {
		l, r = r, l^(feistelRound(r, k)&f.rmask)
	}
	return l<<f.half | r
}

// decode inverts encode.
func (f *feistel) decode(x uint64) uint64 {
	l, r := (x&f.lmask)>>f.half, x&f.rmask
	for i := feistelRounds - 1; i >= 0; i-- {
		l, r = r^f.round(i, l), l
	}
	return l<<f.half | r
}

// round is the masked round function of round i.
func (f *feistel) round(i int, r uint64) uint64 {
	if f.table != nil {
		return uint64(f.table[uint64(i)<<f.half|r])
	}
	return feistelRound(r, f.keys[i]) & f.rmask
}

// tabulate fills f.table, splitting the work over GOMAXPROCS goroutines.
func (f *feistel) tabulate() {
	size := uint64(1) << f.half
	t := make([]uint32, feistelRounds*size)
	workers := uint64(min(runtime.GOMAXPROCS(0), 64))
	chunk := (uint64(len(t)) + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := uint64(0); lo < uint64(len(t)); lo += chunk {
		hi := min(lo+chunk, uint64(len(t)))
		wg.Go(func() {
			for j := lo; j < hi; j++ {
				t[j] = uint32(feistelRound(j&(size-1), f.keys[j>>f.half]) & f.rmask)
			}
		})
	}
	wg.Wait()
	f.table = t
}

// feistelRound is the round function F(R, k) before masking: the first 8
// bytes, read big-endian, of BLAKE2b-512(R as u64 big-endian ‖ k as u64
// big-endian). The message is one 16-byte final block, so this is one
// compression with message words m0 = bswap(R), m1 = bswap(k) and the rest
// zero, of which only the first output word is needed.
func feistelRound(r, k uint64) uint64 {
	return bits.ReverseBytes64(blake2b512Word0(bits.ReverseBytes64(r), bits.ReverseBytes64(k)))
}

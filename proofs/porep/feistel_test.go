package porep

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"golang.org/x/crypto/blake2b"
)

// feistelRoundModel is feistel.rs's round function written as the Rust is:
// BLAKE2b-512 of R and k as 8 big-endian bytes each, first 8 digest bytes
// big-endian, masked.
func feistelRoundModel(right, key, rmask uint64) uint64 {
	var data [16]byte
	binary.BigEndian.PutUint64(data[:8], right)
	binary.BigEndian.PutUint64(data[8:], key)
	h := blake2b.Sum512(data[:])
	return binary.BigEndian.Uint64(h[:8]) & rmask
}

func TestBlake2b512Word0(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 10000 {
		m0, m1 := r.Uint64(), r.Uint64()
		if i == 0 {
			m0, m1 = 0, 0
		}
		var data [16]byte
		binary.LittleEndian.PutUint64(data[:8], m0)
		binary.LittleEndian.PutUint64(data[8:], m1)
		h := blake2b.Sum512(data[:])
		if got, want := blake2b512Word0(m0, m1), binary.LittleEndian.Uint64(h[:8]); got != want {
			t.Fatalf("m = %#x, %#x: word 0 %#x, want %#x", m0, m1, got, want)
		}
	}
	for range 1000 {
		right, key := r.Uint64(), r.Uint64()
		mask := uint64(1)<<(1+r.UintN(63)) - 1
		if got, want := feistelRound(right, key)&mask, feistelRoundModel(right, key, mask); got != want {
			t.Fatalf("F(%#x, %#x) = %#x, want %#x", right, key, got, want)
		}
	}
}

// feistelKeysModel is derive_feistel_keys.
func feistelKeysModel(porepID [32]byte) [4]uint64 {
	h := sha256.Sum256(append([]byte("Filecoin_Feistel"), porepID[:]...))
	var k [4]uint64
	for i := range k {
		k[i] = binary.LittleEndian.Uint64(h[8*i:])
	}
	return k
}

func TestFeistelPrecompute(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		half uint
	}{{1, 1}, {2, 1}, {4, 1}, {5, 2}, {16, 2}, {17, 3}, {512, 5}, {1 << 33, 17}, {1<<33 + 1, 17}, {1 << 34, 17}, {1<<34 + 1, 18}} {
		f := newFeistel(tc.n, [32]byte{})
		if f.half != tc.half || f.rmask != 1<<tc.half-1 || f.lmask != (1<<tc.half-1)<<tc.half {
			t.Errorf("n = %d: half %d, masks %#x %#x; want half %d", tc.n, f.half, f.rmask, f.lmask, tc.half)
		}
	}
	id := [32]byte{3: 9}
	f := newFeistel(64, porepDomainSeed(feistelSeedTag, id))
	if k := feistelKeysModel(id); [3]uint64(k[:3]) != f.keys {
		t.Errorf("keys %x, want the first three of %x", f.keys, k)
	}
}

// Encode is a bijection of [0, 4^half) with decode its inverse, for small
// domains and the rust-fil-proofs test keys [1, 2, 3, 4]; permute is then a
// bijection of [0, n) (feistel.rs test_feistel_on_arbitrary_set, graph.rs
// test_shuffle).
func TestFeistelPermutation(t *testing.T) {
	var seed [32]byte
	for i := range 4 {
		binary.LittleEndian.PutUint64(seed[8*i:], uint64(i+1))
	}
	for _, n := range []uint64{4, 5, 6, 8, 12, 16, 17, 64, 100, 512, 1000, 1 << 13} {
		f := newFeistel(n, seed)
		full := uint64(1) << (2 * f.half)
		seen := make([]bool, full)
		for x := range full {
			y := f.encode(x)
			if y >= full || seen[y] {
				t.Fatalf("n = %d: encode(%d) = %d repeats or leaves [0, %d)", n, x, y, full)
			}
			seen[y] = true
			if f.decode(y) != x {
				t.Fatalf("n = %d: decode(encode(%d)) = %d", n, x, f.decode(y))
			}
		}
		clear(seen)
		for x := range n {
			y := f.permute(x)
			if y >= n || seen[y] {
				t.Fatalf("n = %d: permute(%d) = %d repeats or leaves [0, n)", n, x, y)
			}
			seen[y] = true
			if f.invertPermute(y) != x {
				t.Fatalf("n = %d: invert(permute(%d)) = %d", n, x, f.invertPermute(y))
			}
		}
	}
	// Encode is not itself a permutation of [0, n) for these n (feistel.rs BAD_NS).
	for _, n := range []uint64{5, 6, 8, 12, 17} {
		f := newFeistel(n, seed)
		ok := true
		for x := range n {
			if f.encode(x) >= n {
				ok = false
			}
		}
		if ok {
			t.Errorf("n = %d: encode alone stays in [0, n); the cycle walk went untested", n)
		}
	}
}

// encodeModel is feistel.rs encode over the round model.
func encodeModel(index uint64, keys [4]uint64, half uint) uint64 {
	rmask := uint64(1)<<half - 1
	left, right := (index&(rmask<<half))>>half, index&rmask
	for _, k := range keys[:3] {
		left, right = right, left^feistelRoundModel(right, k, rmask)
	}
	return left<<half | right
}

func TestFeistelEncodeModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []uint64{512, 1 << 21, 1 << 33, 1 << 34} {
		id := [32]byte{0: byte(n)}
		f := newFeistel(n, porepDomainSeed(feistelSeedTag, id))
		keys := feistelKeysModel(id)
		for range 500 {
			x := r.Uint64N(uint64(1) << (2 * f.half))
			if got, want := f.encode(x), encodeModel(x, keys, f.half); got != want {
				t.Fatalf("n = %d: encode(%d) = %d, want %d", n, x, got, want)
			}
		}
	}
}

func BenchmarkFeistelRound(b *testing.B) {
	x := uint64(12345)
	for b.Loop() {
		x = feistelRound(x, 0x0123456789abcdef)
	}
	sinkU64 = x
}

func BenchmarkBlake2bSum512(b *testing.B) {
	var data [16]byte
	for b.Loop() {
		h := blake2b.Sum512(data[:])
		data[0] = h[0]
	}
}

var sinkU64 uint64

package porep

import (
	"encoding/binary"
	"encoding/hex"
	"testing"
)

// chachaRng is a model of rand_chacha 0.3.1's ChaChaXRng: rand_core 0.6's
// BlockRng over a 4-block (64-word) buffer, refilled with the next four blocks
// when exhausted, and next_u64 as rand_core implements it, straddling a
// refill when the index is odd and at the last word.
type chachaRng struct {
	key          [8]uint32
	doubleRounds int
	counter      uint64 // block counter of the next refill
	buf          [64]uint32
	index        int
}

func newChachaRng(seed [32]byte, doubleRounds int) *chachaRng {
	r := &chachaRng{doubleRounds: doubleRounds, index: 64}
	for i := range r.key {
		r.key[i] = binary.LittleEndian.Uint32(seed[4*i:])
	}
	return r
}

func (r *chachaRng) generate() {
	for b := range 4 {
		chachaBlock((*[16]uint32)(r.buf[16*b:]), &r.key, r.counter+uint64(b), 0, r.doubleRounds)
	}
	r.counter += 4
}

func (r *chachaRng) nextU32() uint32 {
	if r.index >= len(r.buf) {
		r.generate()
		r.index = 0
	}
	v := r.buf[r.index]
	r.index++
	return v
}

func (r *chachaRng) nextU64() uint64 {
	n := len(r.buf)
	switch {
	case r.index < n-1:
		v := uint64(r.buf[r.index]) | uint64(r.buf[r.index+1])<<32
		r.index += 2
		return v
	case r.index >= n:
		r.generate()
		r.index = 2
		return uint64(r.buf[0]) | uint64(r.buf[1])<<32
	default: // straddle
		lo := uint64(r.buf[n-1])
		r.generate()
		r.index = 1
		return lo | uint64(r.buf[0])<<32
	}
}

func (r *chachaRng) fillBytes(b []byte) {
	for len(b) > 0 {
		var w [4]byte
		binary.LittleEndian.PutUint32(w[:], r.nextU32())
		b = b[copy(b, w[:]):]
	}
}

// TestChaCha20TrueValues runs the model with 20 rounds against rand_chacha
// 0.3.1's own tests (chacha.rs test_chacha_true_values_{a,b,c},
// test_chacha_construction, test_chacha_multiple_blocks,
// test_chacha_true_bytes), which pin the word layout, block order and
// counter.
func TestChaCha20TrueValues(t *testing.T) {
	words := func(r *chachaRng, n int) []uint32 {
		out := make([]uint32, n)
		for i := range out {
			out[i] = r.nextU32()
		}
		return out
	}
	eq := func(name string, got, want []uint32) {
		t.Helper()
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: word %d = %#08x, want %#08x", name, i, got[i], want[i])
				return
			}
		}
	}

	r := newChachaRng([32]byte{}, 10)
	eq("a block 0", words(r, 16), []uint32{
		0xade0b876, 0x903df1a0, 0xe56a5d40, 0x28bd8653, 0xb819d2bd, 0x1aed8da0, 0xccef36a8,
		0xc70d778b, 0x7c5941da, 0x8d485751, 0x3fe02477, 0x374ad8b8, 0xf4b8436a, 0x1ca11815,
		0x69b687c3, 0x8665eeb2})
	eq("a block 1", words(r, 16), []uint32{
		0xbee7079f, 0x7a385155, 0x7c97ba98, 0x0d082d73, 0xa0290fcb, 0x6965e348, 0x3e53c612,
		0xed7aee32, 0x7621b729, 0x434ee69c, 0xb03371d5, 0xd539d874, 0x281fed31, 0x45fb0a51,
		0x1f0ae1ac, 0x6f4d794b})

	var seed [32]byte
	seed[31] = 1
	r = newChachaRng(seed, 10)
	words(r, 16)
	eq("b block 1", words(r, 16), []uint32{
		0x2452eb3a, 0x9249f8ec, 0x8d829d9b, 0xddd4ceb1, 0xe8252083, 0x60818b01, 0xf38422b8,
		0x5aaa49c9, 0xbb00ca8e, 0xda3ba7b4, 0xc4b592d1, 0xfdf2732f, 0x4436274e, 0x2561b3c8,
		0xebdd4aa6, 0xa0136c00})

	seed = [32]byte{1: 0xff}
	r = newChachaRng(seed, 10)
	words(r, 32)
	eq("c block 2", words(r, 16), []uint32{
		0xfb4dd572, 0x4bc42ef1, 0xdf922636, 0x327f1394, 0xa78dea8f, 0x5e269039, 0xa1bebbc1,
		0xcaf09aae, 0xa25ab213, 0x48a6b46c, 0x1b9d9bcb, 0x092c5be6, 0x546ca624, 0x1bec45d5,
		0x87f47473, 0x96f0992e})

	seed = [32]byte{8: 1, 16: 2, 24: 3}
	if got := newChachaRng(seed, 10).nextU32(); got != 137206642 {
		t.Errorf("construction: first word %d, want 137206642", got)
	}

	for i := range 8 {
		seed[4*i] = byte(i)
	}
	r = newChachaRng(seed, 10)
	var diag []uint32
	for range 16 {
		diag = append(diag, r.nextU32())
		words(r, 16)
	}
	eq("multiple blocks", diag, []uint32{
		0xf225c81a, 0x6ab1be57, 0x04d42951, 0x70858036, 0x49884684, 0x64efec72, 0x4be2d186,
		0x3615b384, 0x11cfa18e, 0xd3c50049, 0x75c775f6, 0x434c6530, 0x2c5bad8f, 0x898881dc,
		0x5f1c86d9, 0xc1f8e7f4})

	b := make([]byte, 32)
	newChachaRng([32]byte{}, 10).fillBytes(b)
	if got, want := hex.EncodeToString(b), "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"; got != want {
		t.Errorf("true bytes %s, want %s", got, want)
	}
}

// TestChaCha8Keystream checks the 8-round block function against the
// draft-strombergson-chacha-test-vectors ChaCha8 256-bit-key cases (the
// original layout: 64-bit counter from 0, 64-bit IV in words 14-15): the first
// two blocks, exactly the words the DRG reads.
func TestChaCha8Keystream(t *testing.T) {
	for _, tc := range []struct {
		name, key, iv, stream string
	}{
		{"TC1 zero key and IV",
			"0000000000000000000000000000000000000000000000000000000000000000", "0000000000000000",
			"3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e984ce172b9216f419f445367456d5619314a42a3da86b001387bfdb80e0cfe42" +
				"d2aefa0deaa5c151bf0adb6c01f2a5adc0fd581259f9a2aadcf20f8fd566a26b5032ec38bbc5da98ee0c6f568b872a65a08abf251deb21bb4b56e5d8821e68aa"},
		{"TC2 one key bit",
			"0100000000000000000000000000000000000000000000000000000000000000", "0000000000000000",
			"cf5ee9a0494aa9613e05d5ed725b804b12f4a465ee635acc3a311de8740489ea289d04f43c7518db56eb4433e498a1238cd8464d3763ddbb9222ee3bd8fae3c8" +
				"b4355a7d93dd8867089ee643558b95754efa2bd1a8a1e2d75bcdb32015542638291941feb49965587c4fdfe219cf0ec132a6cd4dc067392e67982fe53278c0b4"},
		{"TC7 sequence patterns",
			"00112233445566778899aabbccddeeffffeeddccbbaa99887766554433221100", "0f1e2d3c4b596877",
			"60fdedbd1a280cb741d0593b6ea0309010acf18e1471f68968f4c9e311dca149b8e027b47c81e0353db013891aa5f68ea3b13dd2f3b8dd0873bf3746e7d6c567" +
				"fe882395601ce8aded444867fe62ed8741420002e5d28bb573113a418c1f4008e954c188f38ec4f26bb8555e2b7c92bf4380e2ea9e553187fdd42821794416de"},
		{"TC8 random key and IV",
			"c46ec1b18ce8a878725a37e780dfb7351f68ed2e194c79fbc6aebee1a667975d", "1ada31d5cf688221",
			"838751b42d8ddd8a3d77f48825a2ba752cf4047cb308a5978ef274973be374c96ad848065871417b08f034e681fe46a93f7d5c61d1306614d4aaf257a7cff08b" +
				"16f2fda170cc18a4b58a2667ed962774af792a6e7f3c77992540711a7a136d7e8a2f8d3f93816709d45a3fa5f8ce72fde15be7b841acba3a2abd557228d9fe4f"},
	} {
		keyB, _ := hex.DecodeString(tc.key)
		ivB, _ := hex.DecodeString(tc.iv)
		var key [8]uint32
		for i := range key {
			key[i] = binary.LittleEndian.Uint32(keyB[4*i:])
		}
		stream := binary.LittleEndian.Uint64(ivB)
		var got []byte
		for ctr := range uint64(2) {
			var blk [16]uint32
			chachaBlock(&blk, &key, ctr, stream, chacha8DoubleRounds)
			for _, w := range blk {
				got = binary.LittleEndian.AppendUint32(got, w)
			}
		}
		if hex.EncodeToString(got) != tc.stream {
			t.Errorf("%s: keystream\n%x\nwant\n%s", tc.name, got, tc.stream)
		}
	}
	// The ChaCha8Rng of the zero seed starts with the TC1 stream as u64s
	// (0xd6405f892fef003e first, as independent rand_chacha ports state).
	if got := newChachaRng([32]byte{}, chacha8DoubleRounds).nextU64(); got != 0xd6405f892fef003e {
		t.Errorf("ChaCha8Rng(0).next_u64() = %#x, want 0xd6405f892fef003e", got)
	}
}

// TestChaChaRngStraddle pins the model's next_u64 across a buffer refill:
// after an odd number of next_u32 it joins word 63 and word 64 of the stream.
// The DRG never draws a next_u32, so its reads stay even-aligned and ten
// next_u64 are stream words 0-19.
func TestChaChaRngStraddle(t *testing.T) {
	var seed [32]byte
	seed[5] = 7
	flat := newChachaRng(seed, chacha8DoubleRounds)
	var stream [128]uint32
	for i := range stream {
		stream[i] = flat.nextU32()
	}
	r := newChachaRng(seed, chacha8DoubleRounds)
	for range 63 {
		r.nextU32()
	}
	if got, want := r.nextU64(), uint64(stream[63])|uint64(stream[64])<<32; got != want {
		t.Errorf("straddling next_u64 = %#x, want %#x", got, want)
	}
	if got, want := r.nextU64(), uint64(stream[65])|uint64(stream[66])<<32; got != want {
		t.Errorf("next_u64 after the straddle = %#x, want %#x", got, want)
	}
	r = newChachaRng(seed, chacha8DoubleRounds)
	for i := range 64 {
		if got, want := r.nextU64(), uint64(stream[2*i])|uint64(stream[2*i+1])<<32; got != want {
			t.Fatalf("next_u64 %d = %#x, want %#x", i, got, want)
		}
	}
}

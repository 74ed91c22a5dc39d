package gadgets

import "github.com/filc2/filc2/proofs/r1cs"

var sha256RoundConstants = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

var sha256IV = [8]uint32{
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
}

// SHA256IV returns SHA-256's initial hash value as constant words.
func SHA256IV() (iv [8]UInt32) {
	for i := range iv {
		iv[i] = UInt32Constant(sha256IV[i])
	}
	return
}

// SHA256Compression is bellperson's sha256_compression_function: one block of
// 512 bits (each 32 a big-endian word) compressed into the state `current`.
// It owns one MultiEq, closed (the Rust Drop) after the eight final additions.
func SHA256Compression(cs *r1cs.System, input []Boolean, current *[8]UInt32) [8]UInt32 {
	var me MultiEq
	me.Reset(cs)
	out := sha256Compress(&me, input, current)
	me.Close()
	return out
}

// SHA256BlockNoPadding is bellperson's sha256_block_no_padding: one 512-bit
// block compressed from the IV, returned as 256 bits (big-endian words).
func SHA256BlockNoPadding(cs *r1cs.System, input []Boolean) []Boolean {
	iv := SHA256IV()
	h := SHA256Compression(cs, input, &iv)
	return appendWordsBE(make([]Boolean, 0, 256), &h)
}

// SHA256 is bellperson's sha256 gadget: the input (a multiple of 8 bits) with
// SHA-256 padding appended as constant bits (a true, falses, the 64-bit
// big-endian bit length), compressed block by block from the constant IV. It
// returns the 256 digest bits, most significant bit of word 0 first.
func SHA256(cs *r1cs.System, input []Boolean) []Boolean {
	h := SHA256Words(cs, input)
	return appendWordsBE(make([]Boolean, 0, 256), &h)
}

// SHA256Words is SHA256 returning the eight final state words.
func SHA256Words(cs *r1cs.System, input []Boolean) [8]UInt32 {
	if len(input)%8 != 0 {
		panic("gadgets: SHA256 input must be a multiple of 8 bits")
	}
	var s sha256Stream
	s.reset(cs)
	s.write(input)
	return s.finish()
}

func appendWordsBE(dst []Boolean, h *[8]UInt32) []Boolean {
	for i := range h {
		dst = h[i].AppendBitsBE(dst)
	}
	return dst
}

// sha256Stream feeds the SHA256 gadget block by block so that callers need not
// build the padded message; the blocks and their constraints are exactly those
// of SHA256 over the concatenated input.
type sha256Stream struct {
	cs    *r1cs.System
	me    MultiEq
	h     [8]UInt32
	buf   [512]Boolean
	n     int    // bits in buf
	total uint64 // message bits written
	block int
}

func (s *sha256Stream) reset(cs *r1cs.System) {
	s.cs, s.h, s.n, s.total, s.block = cs, SHA256IV(), 0, 0, 0
}

func (s *sha256Stream) compress(block []Boolean) {
	pushf(s.cs, "block %d", s.block)
	s.me.Reset(s.cs)
	s.h = sha256Compress(&s.me, block, &s.h)
	s.me.Close()
	s.cs.Pop()
	s.block++
}

func (s *sha256Stream) write(bits []Boolean) {
	s.total += uint64(len(bits))
	s.pad(bits)
}

// writeConst writes count constant message bits.
func (s *sha256Stream) writeConst(b bool, count int) {
	s.total += uint64(count)
	s.padConst(b, count)
}

// pad appends bits without counting them in the message length.
func (s *sha256Stream) pad(bits []Boolean) {
	for len(bits) > 0 {
		if s.n == 0 && len(bits) >= 512 {
			s.compress(bits[:512])
			bits = bits[512:]
			continue
		}
		k := copy(s.buf[s.n:], bits)
		s.n += k
		bits = bits[k:]
		if s.n == 512 {
			s.compress(s.buf[:])
			s.n = 0
		}
	}
}

func (s *sha256Stream) padConst(b bool, count int) {
	c := Constant(b)
	for range count {
		s.buf[s.n] = c
		s.n++
		if s.n == 512 {
			s.compress(s.buf[:])
			s.n = 0
		}
	}
}

func (s *sha256Stream) finish() [8]UInt32 {
	if s.total%8 != 0 {
		panic("gadgets: SHA256 input must be a multiple of 8 bits")
	}
	plen := s.total
	s.padConst(true, 1)
	s.padConst(false, (448-s.n+512)%512)
	var length [64]Boolean
	for i := range length {
		length[i] = Constant(plen>>uint(63-i)&1 == 1)
	}
	s.pad(length[:])
	if s.n != 0 {
		panic("gadgets: SHA256 padding left a partial block")
	}
	return s.h
}

// roundTemps holds one round's deferred operands (sha256.rs's Maybe::Deferred
// of e and a): temp1 = h, S1, ch, k, w; temp2 = S0, maj; and d.
type roundTemps struct {
	t1 [5]UInt32
	t2 [2]UInt32
	d  UInt32
}

func sha256Compress(me *MultiEq, input []Boolean, current *[8]UInt32) [8]UInt32 {
	if len(input) != 512 {
		panic("gadgets: SHA-256 compression needs a 512-bit block")
	}
	cs := me.cs
	var w [64]UInt32
	for i := range 16 {
		w[i] = UInt32FromBitsBE(input[32*i : 32*i+32])
	}
	for i := 16; i < 64; i++ {
		pushf(cs, "w extension %d", i)
		// s0 := (w[i-15] rotr 7) ^ (w[i-15] rotr 18) ^ (w[i-15] >> 3)
		x, y := w[i-15].Rotr(7), w[i-15].Rotr(18)
		s0 := x.Xor(cs, &y)
		y = w[i-15].Shr(3)
		s0 = s0.Xor(cs, &y)
		// s1 := (w[i-2] rotr 17) ^ (w[i-2] rotr 19) ^ (w[i-2] >> 10)
		x, y = w[i-2].Rotr(17), w[i-2].Rotr(19)
		s1 := x.Xor(cs, &y)
		y = w[i-2].Shr(10)
		s1 = s1.Xor(cs, &y)
		w[i] = AddMany(me, &w[i-16], &s0, &w[i-7], &s1)
		cs.Pop()
	}

	// sha256.rs keeps a and e as Maybe values: Concrete (the input state,
	// round 0) or Deferred (the operands of their addition), so that each
	// addition is done once, merged with the next: e = temp1 + d (6
	// operands), a = temp1 + temp2 (7), and at the end h0 = a + H0 (8),
	// h4 = e + H4 (7). The deferred operands of round i live in temps[i&1]
	// until round i+1 (or the final additions) consumes them.
	b, c, d := current[1], current[2], current[3]
	f, g, h := current[5], current[6], current[7]
	var temps [2]roundTemps

	for i := range 64 {
		pushf(cs, "compression round %d", i)
		t, p := &temps[i&1], &temps[(i+1)&1] // this round's, the previous round's

		// S1 := (e rotr 6) ^ (e rotr 11) ^ (e rotr 25)
		newE := current[4]
		if i > 0 {
			newE = AddMany(me, &p.t1[0], &p.t1[1], &p.t1[2], &p.t1[3], &p.t1[4], &p.d)
		}
		x, y := newE.Rotr(6), newE.Rotr(11)
		s1 := x.Xor(cs, &y)
		y = newE.Rotr(25)
		s1 = s1.Xor(cs, &y)

		// ch := (e and f) xor ((not e) and g)
		ch := UInt32SHA256Ch(cs, &newE, &f, &g)

		// temp1 := h + S1 + ch + k[i] + w[i]
		t.t1 = [5]UInt32{h, s1, ch, UInt32Constant(sha256RoundConstants[i]), w[i]}

		// S0 := (a rotr 2) ^ (a rotr 13) ^ (a rotr 22)
		newA := current[0]
		if i > 0 {
			newA = AddMany(me, &p.t1[0], &p.t1[1], &p.t1[2], &p.t1[3], &p.t1[4], &p.t2[0], &p.t2[1])
		}
		x, y = newA.Rotr(2), newA.Rotr(13)
		s0 := x.Xor(cs, &y)
		y = newA.Rotr(22)
		s0 = s0.Xor(cs, &y)

		// maj := (a and b) xor (a and c) xor (b and c)
		maj := UInt32SHA256Maj(cs, &newA, &b, &c)

		// temp2 := S0 + maj
		t.t2 = [2]UInt32{s0, maj}

		// h := g; g := f; f := e; e := d + temp1 (deferred);
		// d := c; c := b; b := a; a := temp1 + temp2 (deferred)
		h, g, f = g, f, newE
		t.d = d
		d, c, b = c, b, newA
		cs.Pop()
	}

	pushf(cs, "final additions %d", 0)
	t := &temps[63&1]
	var out [8]UInt32
	out[0] = AddMany(me, &t.t1[0], &t.t1[1], &t.t1[2], &t.t1[3], &t.t1[4], &t.t2[0], &t.t2[1], &current[0])
	out[1] = AddMany(me, &current[1], &b)
	out[2] = AddMany(me, &current[2], &c)
	out[3] = AddMany(me, &current[3], &d)
	out[4] = AddMany(me, &t.t1[0], &t.t1[1], &t.t1[2], &t.t1[3], &t.t1[4], &t.d, &current[4])
	out[5] = AddMany(me, &current[5], &f)
	out[6] = AddMany(me, &current[6], &g)
	out[7] = AddMany(me, &current[7], &h)
	cs.Pop()
	return out
}

// pushf enters a namespace named format(i), formatting only in Check mode
// (the only mode that reports names), so that hot paths do not allocate.
func pushf(cs *r1cs.System, format string, i int) {
	if cs.Mode() == r1cs.Check {
		cs.Pushf(format, i)
	}
}

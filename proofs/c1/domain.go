package c1

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
)

// Domain is one 32-byte value of a C1 file: a Poseidon or SHA-256 digest, a
// commitment, a label, the replica id, the seed or the ticket. Field elements
// are little-endian. Its JSON is an array of 32 integers 0–255, as serde
// writes [u8; 32].
type Domain [32]byte

// frModulus is r, the BLS12-381 scalar field modulus, as little-endian limbs.
var frModulus = [4]uint64{0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48}

// IsFieldElement reports whether d, read as a little-endian integer, is below
// r, the BLS12-381 scalar modulus: whether it is a canonical Fr (Poseidon
// domain) value.
func (d Domain) IsFieldElement() bool {
	for i := 3; i >= 0; i-- {
		l := binary.LittleEndian.Uint64(d[8*i:])
		if l != frModulus[i] {
			return l < frModulus[i]
		}
	}
	return false
}

// IsTrimmed reports whether d's top two bits are clear (byte 31 < 0x40), as
// they are in every fr32-trimmed SHA-256 digest and fr32-padded data node.
func (d Domain) IsTrimmed() bool { return d[31] < 0x40 }

// IsZero reports whether all 32 bytes of d are zero.
func (d Domain) IsZero() bool { return d == Domain{} }

// String returns d's 32 bytes as 64 hex digits, in byte order.
func (d Domain) String() string { return hex.EncodeToString(d[:]) }

// MarshalJSON returns d as serde_json writes [u8; 32]: "[1,2,…,32]".
func (d Domain) MarshalJSON() ([]byte, error) { return appendDomain(make([]byte, 0, 4*32+1), &d), nil }

// UnmarshalJSON sets d from a JSON array of exactly 32 integers 0–255 with no
// sign, fraction, exponent or leading zero. As for encoding/json, null leaves
// d unchanged.
func (d *Domain) UnmarshalJSON(b []byte) error {
	i := skipWS(b, 0)
	if len(b)-i >= 4 && string(b[i:i+4]) == "null" && skipWS(b, i+4) == len(b) {
		return nil
	}
	var v Domain
	end, msg := parseDomain(&v, b, i)
	if msg != "" {
		return fmt.Errorf("c1: domain at byte %d: %s", end, msg)
	}
	if end = skipWS(b, end); end != len(b) {
		return fmt.Errorf("c1: domain at byte %d: trailing data after the array", end)
	}
	*d = v
	return nil
}

// decimalComma holds, for every byte value, its decimal text and a comma,
// little-endian in the low bytes of a word, and the text's length.
var decimalComma = func() (t [256]struct {
	word uint32
	n    int
}) {
	for i := range t {
		s := strconv.Itoa(i) + ","
		var b [4]byte
		copy(b[:], s)
		t[i].word, t[i].n = binary.LittleEndian.Uint32(b[:]), len(s)
	}
	return t
}()

// appendDomain appends d's JSON to dst, writing each element's text and
// comma as one 4-byte store.
func appendDomain(dst []byte, d *Domain) []byte {
	n := len(dst)
	dst = slices.Grow(dst, compactSpan+4)
	out := dst[n : n+compactSpan+4]
	out[0] = '['
	p := 1
	for _, c := range d {
		e := decimalComma[c]
		binary.LittleEndian.PutUint32(out[p:], e.word)
		p += e.n
	}
	out[p-1] = ']'
	return dst[:n+p]
}

// isWS reports whether c is JSON whitespace.
func isWS(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// skipWS returns the offset of the first non-whitespace byte of b at or after i.
func skipWS(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && isWS(b[i]) {
		i++
	}
	return i
}

// parseDomain reads the JSON array of 32 bytes that starts at b[i] (after
// optional whitespace) into d. It returns the offset just past the closing
// bracket, or the offset of the problem and a message saying what is wrong.
func parseDomain(d *Domain, b []byte, i int) (int, string) {
	i = skipWS(b, i)
	if end, ok := parseDomainFast(d, b, i); ok {
		return end, ""
	}
	return parseDomainSlow(d, b, i)
}

// parseDomainFast is parseDomainCompact, also near the end of b.
func parseDomainFast(d *Domain, b []byte, i int) (int, bool) {
	if len(b)-i >= compactSpan {
		return parseDomainCompact(d, b, i)
	}
	var pad [compactSpan]byte // zeros end any element
	copy(pad[:], b[i:])
	end, ok := parseDomainCompact(d, pad[:], 0)
	return i + end, ok
}

// compactSpan is the bytes parseDomainCompact may read: the '[' and the
// longest compact array body, "255,…,255]" (128 bytes).
const compactSpan = 1 + 128

// parseDomainCompact parses the common case, an array without whitespace,
// two elements per 8-byte load: a SWAR test marks the word's non-digit bytes,
// so finding where each element ends takes no data-dependent branch. It
// reports false for anything else, which parseDomainSlow then reads or
// explains.
func parseDomainCompact(d *Domain, b []byte, i int) (int, bool) {
	if len(b)-i < compactSpan || b[i] != '[' {
		return i, false
	}
	s := b[i+1 : i+compactSpan]
	j := 0
	for k := 0; k < 32; k += 2 {
		if j > len(s)-8 {
			return i, false
		}
		x := binary.LittleEndian.Uint64(s[j:])
		// A byte is a digit iff its high nibble is 3 and its low nibble ≤ 9;
		// nd has a bit set in every other byte.
		nd := (x&0xf0f0f0f0f0f0f0f0 ^ 0x3030303030303030) | ((x&0x0f0f0f0f0f0f0f0f + 0x0606060606060606) & 0x1010101010101010)
		n1 := uint(bits.TrailingZeros64(nd)) >> 3 // digits of element k
		s2 := 8 * (n1 + 1)                        // bit offset of element k+1
		n2 := uint(bits.TrailingZeros64(nd>>s2|1<<63)) >> 3
		x2 := x >> s2
		v1, sep1 := digits(uint32(x), n1)
		v2, sep2 := digits(uint32(x2), n2)
		want := byte(',')
		if k == 30 {
			want = ']'
		}
		// 1-3 digits each, at most 255, no leading zero, the right
		// separators: never taken on good input.
		if n1-1 > 2 || n2-1 > 2 || v1|v2 > 255 || sep1 != ',' || sep2 != want ||
			byte(x) == '0' && n1 > 1 || byte(x2) == '0' && n2 > 1 {
			return i, false
		}
		d[k], d[k+1] = byte(v1), byte(v2)
		j += int(n1 + n2 + 2)
	}
	return i + 1 + j, true
}

// digits returns the value of the n (1-3) decimal digits at the bottom of x
// and the byte after them.
func digits(x uint32, n uint) (v uint32, sep byte) {
	sep = byte(x >> (8 * n & 31))
	z := (x & 0x0f0f0f0f) << ((24 - 8*n) & 31) // right-align the digits in bytes 0..2
	return (z&0xff)*100 + (z>>8&0xff)*10 + (z >> 16 & 0xff), sep
}

// parseDomainSlow reads a Domain byte by byte, allowing whitespace, and
// says what is wrong with a bad one.
func parseDomainSlow(d *Domain, b []byte, i int) (int, string) {
	if i >= len(b) || b[i] != '[' {
		return i, "want an array of 32 integers 0-255, found " + describe(b, i)
	}
	i++
	for k := 0; k < 32; k++ {
		if i < len(b) && b[i] <= ' ' {
			i = skipWS(b, i)
		}
		if i >= len(b) {
			return i, "unexpected end of input inside an array of 32 bytes"
		}
		c := b[i] - '0'
		if c > 9 {
			if b[i] == ']' {
				return i, fmt.Sprintf("array has %d elements, want 32", k)
			}
			return i, fmt.Sprintf("element %d: want an integer 0-255, found %s", k, describe(b, i))
		}
		v := uint(c)
		i++
		if v == 0 {
			if i < len(b) && b[i]-'0' <= 9 {
				return i, fmt.Sprintf("element %d: leading zero", k)
			}
		} else {
			for i < len(b) && b[i]-'0' <= 9 {
				v = v*10 + uint(b[i]-'0')
				i++
				if v > 255 {
					return i, fmt.Sprintf("element %d: integer above 255", k)
				}
			}
		}
		d[k] = byte(v)
		if i < len(b) && b[i] <= ' ' {
			i = skipWS(b, i)
		}
		if i >= len(b) {
			return i, "unexpected end of input inside an array of 32 bytes"
		}
		switch {
		case k < 31 && b[i] == ',', k == 31 && b[i] == ']':
			i++
		case b[i] == ']':
			return i, fmt.Sprintf("array has %d elements, want 32", k+1)
		case b[i] == ',':
			return i, "array has more than 32 elements"
		default:
			return i, fmt.Sprintf("element %d: want an integer 0-255, found %s", k, describe(b, i))
		}
	}
	return i, ""
}

// describe names what starts at b[i], for error messages.
func describe(b []byte, i int) string {
	if i >= len(b) {
		return "end of input"
	}
	const max = 12
	s := b[i:]
	if len(s) > max {
		return fmt.Sprintf("%q…", s[:max])
	}
	return fmt.Sprintf("%q", s)
}

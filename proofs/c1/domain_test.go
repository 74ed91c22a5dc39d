package c1

import (
	"encoding/binary"
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// domainOf returns the little-endian 32-byte encoding of n.
func domainOf(n *big.Int) Domain {
	var d Domain
	be := n.FillBytes(make([]byte, 32))
	for i := range d {
		d[i] = be[31-i]
	}
	return d
}

func TestFrModulus(t *testing.T) {
	var want Domain
	for i, l := range frModulus {
		binary.LittleEndian.PutUint64(want[8*i:], l)
	}
	if got := domainOf(fr.Modulus()); got != want {
		t.Fatalf("frModulus = %s, gnark-crypto r = %s", want, got)
	}
}

func TestIsFieldElement(t *testing.T) {
	r := fr.Modulus()
	one := big.NewInt(1)
	max := new(big.Int).Sub(new(big.Int).Lsh(one, 256), one)
	for _, c := range []struct {
		n    *big.Int
		want bool
	}{
		{big.NewInt(0), true},
		{new(big.Int).Sub(r, one), true},
		{r, false},
		{new(big.Int).Add(r, one), false},
		{new(big.Int).Lsh(one, 254), true},                     // above every trimmed value, still below r
		{new(big.Int).Sub(r, new(big.Int).Lsh(one, 64)), true}, // differs from r only in limb 1
		{new(big.Int).Add(r, new(big.Int).Lsh(one, 64)), false},
		{max, false},
	} {
		d := domainOf(c.n)
		if got := d.IsFieldElement(); got != c.want {
			t.Errorf("IsFieldElement(%s) = %v, want %v", d, got, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		var d Domain
		for i := range d {
			d[i] = byte(rng.Uint32())
		}
		d[31] = 0x73 // r's top byte: the lower bytes decide
		n := new(big.Int).SetBytes(reverse(d[:]))
		if got, want := d.IsFieldElement(), n.Cmp(r) < 0; got != want {
			t.Fatalf("IsFieldElement(%s) = %v, want %v", d, got, want)
		}
	}
}

func reverse(b []byte) []byte {
	out := make([]byte, len(b))
	for i := range b {
		out[i] = b[len(b)-1-i]
	}
	return out
}

func TestIsTrimmed(t *testing.T) {
	var d Domain
	for _, c := range []struct {
		top  byte
		want bool
	}{{0, true}, {0x3f, true}, {0x40, false}, {0x80, false}, {0xff, false}} {
		d[31] = c.top
		if d.IsTrimmed() != c.want {
			t.Errorf("IsTrimmed with byte 31 = %#x: %v, want %v", c.top, !c.want, c.want)
		}
	}
}

// TestDomainMarshalJSON checks MarshalJSON against encoding/json, which
// writes [32]byte as serde writes [u8; 32].
func TestDomainMarshalJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		var d Domain
		for j := range d {
			switch i % 3 {
			case 0:
				d[j] = byte(rng.Uint32())
			case 1:
				d[j] = byte(rng.Uint32() % 10) // one digit
			default:
				d[j] = byte(200 + rng.Uint32()%56) // three digits
			}
		}
		got, err := d.MarshalJSON()
		want, _ := json.Marshal([32]byte(d))
		if err != nil || string(got) != string(want) {
			t.Fatalf("MarshalJSON = %s, %v; want %s", got, err, want)
		}
		var back Domain
		if err := back.UnmarshalJSON(got); err != nil || back != d {
			t.Fatalf("UnmarshalJSON(%s) = %s, %v", got, back, err)
		}
	}
}

func TestDomainUnmarshalJSON(t *testing.T) {
	seq := make([]string, 32)
	for i := range seq {
		seq[i] = "0"
	}
	arr := func(mod func([]string) []string) string {
		s := append([]string(nil), seq...)
		return "[" + strings.Join(mod(s), ",") + "]"
	}
	set := func(i int, v string) func([]string) []string {
		return func(s []string) []string { s[i] = v; return s }
	}
	same := func(s []string) []string { return s }
	var want Domain
	want[0], want[5], want[31] = 255, 7, 100
	ok := "[255,0,0,0,0,7" + strings.Repeat(",0", 25) + ",100]"
	for _, s := range []string{
		ok,
		" \n\t" + ok + "\r\n ",
		strings.ReplaceAll(ok, ",", " , "),
		strings.ReplaceAll(strings.ReplaceAll(ok, "[", "[\n  "), "]", "\n]"),
	} {
		var d Domain
		if err := d.UnmarshalJSON([]byte(s)); err != nil || d != want {
			t.Errorf("UnmarshalJSON(%q) = %s, %v; want %s", s, d, err, want)
		}
	}
	d := want
	if err := d.UnmarshalJSON([]byte(" null ")); err != nil || d != want {
		t.Errorf("null changed the domain or failed: %v", err)
	}
	for _, c := range []struct{ in, msg string }{
		{arr(set(3, "256")), "element 3: integer above 255"},
		{arr(set(3, "1000")), "element 3: integer above 255"},
		{arr(set(3, "-1")), "element 3: want an integer 0-255"},
		{arr(set(3, "01")), "element 3: leading zero"},
		{arr(set(3, "00")), "element 3: leading zero"},
		{arr(set(3, "1.0")), "element 3: want an integer 0-255"},
		{arr(set(3, "1e2")), "element 3: want an integer 0-255"},
		{arr(set(3, `"1"`)), "element 3: want an integer 0-255"},
		{arr(set(31, "true")), "element 31: want an integer 0-255"},
		{arr(func(s []string) []string { return s[:31] }), "array has 31 elements, want 32"},
		{arr(func(s []string) []string { return append(s, "0") }), "array has more than 32 elements"},
		{"[]", "array has 0 elements, want 32"},
		{arr(same)[:40], "unexpected end of input"},
		{arr(same) + "x", "trailing data"},
		{`"AAAA"`, "want an array of 32 integers"},
		{"", "want an array of 32 integers"},
	} {
		var d Domain
		err := d.UnmarshalJSON([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("UnmarshalJSON(%q) = %v, want an error containing %q", c.in, err, c.msg)
		}
	}
}

// TestParseDomainCompact checks the SWAR parser against the byte-by-byte
// one on valid and damaged arrays: whenever it accepts, the slow parser
// accepts with the same value and end.
func TestParseDomainCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte("0123456789,] [-.e/:\x00\xb0")
	accepted := 0
	for i := range 200000 {
		var d Domain
		for j := range d {
			d[j] = byte(rng.Uint32())
		}
		b := appendDomain(nil, &d)
		for range i % 4 { // damage 0-3 bytes
			b[1+rng.IntN(len(b)-1)] = alphabet[rng.IntN(len(alphabet))]
		}
		b = append(b, ",[1,2]"[:i%7]...)
		b = append(b, make([]byte, i%150)...)
		var fast, slow Domain
		fe, fok := parseDomainFast(&fast, b, 0)
		se, msg := parseDomainSlow(&slow, b, 0)
		if !fok {
			if i%4 == 0 {
				t.Fatalf("%q: the compact parser rejects a compact array", b)
			}
			continue
		}
		accepted++
		if msg != "" || fe != se || fast != slow {
			t.Fatalf("%q: compact %v %d %s, slow %q %d %s", b, fok, fe, fast, msg, se, slow)
		}
		if i%4 == 0 && fast != d {
			t.Fatalf("%q: compact parsed %s, want %s", b, fast, d)
		}
	}
	if accepted < 50000 {
		t.Errorf("compact parser accepted only %d inputs", accepted)
	}
}

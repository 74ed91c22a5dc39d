package poseidon

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// TestHashValuesMerkleTree checks neptune's hash_values: H([0, 1, …, arity−1])
// for every arity, by the optimised and the plain permutation.
func TestHashValuesMerkleTree(t *testing.T) {
	want := byArity(t, loadPoseidonVectors(t).MerkleTree)
	for _, a := range Arities() {
		w, ok := want[a]
		if !ok {
			t.Fatalf("no MerkleTree vector for arity %d", a)
		}
		c := mustFor(t, a)
		in := counting(a)
		if got := Hash(c, in); !got.Equal(&w) {
			t.Errorf("arity %d: Hash = %s, want %s", a, got.Text(16), w.Text(16))
		}
		if got := HashPlain(c, in); !got.Equal(&w) {
			t.Errorf("arity %d: HashPlain = %s, want %s", a, got.Text(16), w.Text(16))
		}
	}
	if len(want) != len(Arities()) {
		t.Errorf("vectors cover arities %v, package has %v", len(want), Arities())
	}
}

// TestHashValuesConstantLength checks neptune's ConstantLength(4) vectors of
// [0, 1, 2, 3]: one padded permutation for arity ≥ 4, two sponge permutations
// at arity 2.
func TestHashValuesConstantLength(t *testing.T) {
	want := byArity(t, loadPoseidonVectors(t).ConstantLength)
	if len(want) == 0 {
		t.Fatal("no ConstantLength vectors")
	}
	for a, w := range want {
		c := mustFor(t, a)
		if got := HashConstantLength(c, counting(4)); !got.Equal(&w) {
			t.Errorf("arity %d: ConstantLength(4) = %s, want %s", a, got.Text(16), w.Text(16))
		}
	}
}

// TestConstantLengthSingleBlock checks that a ConstantLength hash of arity
// inputs is the permutation of [n·2^64, inputs].
func TestConstantLengthSingleBlock(t *testing.T) {
	for _, a := range []int{2, 8, 11} {
		c := mustFor(t, a)
		in := randomElements(t, a)
		s := append([]fr.Element{ConstantLengthTag(a)}, in...)
		c.PermutePlain(s)
		if got := HashConstantLength(c, in); !got.Equal(&s[1]) {
			t.Errorf("arity %d: sponge %s, permutation %s", a, got.Text(16), s[1].Text(16))
		}
	}
}

func TestConstantLengthTag(t *testing.T) {
	for _, n := range []int{1, 4, 11, 1000} {
		tag := ConstantLengthTag(n)
		if got := tag.Bits(); got != [4]uint64{0, uint64(n), 0, 0} {
			t.Errorf("tag(%d) = %x", n, got)
		}
	}
	c := mustFor(t, 8)
	if tag := c.MerkleTreeTag(); tag.Bits() != [4]uint64{255, 0, 0, 0} {
		t.Errorf("MerkleTree tag of arity 8 = %x", tag.Bits())
	}
}

// TestFilecoinHashers checks filecoin-hashers' poseidon.rs test values: node
// H2(1, 0), the binary root of leaves [1, 0, 0, 1] and hash_md over 71 ones.
func TestFilecoinHashers(t *testing.T) {
	h := loadPoseidonVectors(t).Hashers
	one, zero := fr.One(), fr.Element{}

	n1 := Hash2(one, zero)
	if w := namedVector(t, h, "H2(1,0) (tree node 4 of leaves [1,0,0,1])"); !n1.Equal(&w) {
		t.Errorf("H2(1,0) = %s, want %s", n1.Text(16), w.Text(16))
	}
	n2 := Hash2(zero, one)
	root := Hash2(n1, n2)
	if w := namedVector(t, h, "binary Poseidon Merkle root of leaves [1,0,0,1]"); !root.Equal(&w) {
		t.Errorf("root = %s, want %s", root.Text(16), w.Text(16))
	}

	ones := make([]fr.Element, 71)
	for i := range ones {
		ones[i].SetOne()
	}
	if got, w := hashMD(t, ones), namedVector(t, h, "hash_md(71 x Fr(1)) arity-36 MD fold"); !got.Equal(&w) {
		t.Errorf("hash_md = %s, want %s", got.Text(16), w.Text(16))
	}
}

// hashMD is filecoin-hashers' hash_md: a Merkle-Damgård fold of arity-36
// MerkleTree hashes, each of the running digest and the next 35 inputs, the
// last block padded with zeros.
func hashMD(t *testing.T, in []fr.Element) fr.Element {
	c := mustFor(t, 36)
	acc := in[0]
	for rest := in[1:]; len(rest) > 0; {
		n := min(len(rest), 35)
		block := make([]fr.Element, 36)
		block[0] = acc
		copy(block[1:], rest[:n])
		acc = Hash(c, block)
		rest = rest[n:]
	}
	return acc
}

// TestSpecTable checks the hash values the spec lists in §5 (its table of
// neptune hash_values and the two filecoin-hashers values), read from the spec.
func TestSpecTable(t *testing.T) {
	spec := string(readShared(t, "docs/porep-c2-spec.md"))
	start := strings.Index(spec, "## 5. Poseidon")
	end := strings.Index(spec, "### 5.1")
	if start < 0 || end < start {
		t.Fatal("spec §5 not found")
	}
	sec := spec[start:end]
	limbsRe := regexp.MustCompile(`\[(0x[0-9a-f]+), (0x[0-9a-f]+), (0x[0-9a-f]+), (0x[0-9a-f]+)\]`)
	parse := func(line string) fr.Element {
		m := limbsRe.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("no limbs in %q", line)
		}
		var l [4]uint64
		for i := range l {
			x, err := strconv.ParseUint(m[i+1][2:], 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			l[i] = x
		}
		return fromCanonicalLimbs(t, l)
	}
	rowRe := regexp.MustCompile(`(?m)^\| (\d+) \| (\[.*\]) \|$`)
	rows := rowRe.FindAllStringSubmatch(sec, -1)
	if len(rows) != 3 {
		t.Fatalf("spec table has %d rows, want 3", len(rows))
	}
	for _, r := range rows {
		a, _ := strconv.Atoi(r[1])
		w := parse(r[2])
		if got := Hash(mustFor(t, a), counting(a)); !got.Equal(&w) {
			t.Errorf("spec arity %d: got %s, want %s", a, got.Text(16), w.Text(16))
		}
	}
	one, zero := fr.One(), fr.Element{}
	checks := map[string]fr.Element{
		"`H2(1, 0)` =":      Hash2(one, zero),
		"4-leaf root of [1": Hash2(Hash2(one, zero), Hash2(zero, one)),
	}
	for marker, got := range checks {
		i := strings.Index(sec, marker)
		if i < 0 {
			t.Fatalf("spec line %q not found", marker)
		}
		line := sec[i:]
		line = line[:strings.IndexByte(line, '\n')]
		if w := parse(line); !got.Equal(&w) {
			t.Errorf("spec %q: got %s, want %s", marker, got.Text(16), w.Text(16))
		}
	}
}

// TestOptimizedEqualsPlain compares the optimised permutation with the plain
// one on random states (tag included) and hashes on random inputs.
func TestOptimizedEqualsPlain(t *testing.T) {
	for _, a := range Arities() {
		c := mustFor(t, a)
		for range 4 {
			s := randomElements(t, c.Width())
			p := append([]fr.Element(nil), s...)
			c.Permute(s)
			c.PermutePlain(p)
			for i := range s {
				if !s[i].Equal(&p[i]) {
					t.Fatalf("arity %d: element %d differs", a, i)
				}
			}
			in := randomElements(t, a)
			if h, p := Hash(c, in), HashPlain(c, in); !h.Equal(&p) {
				t.Fatalf("arity %d: Hash %s, HashPlain %s", a, h.Text(16), p.Text(16))
			}
		}
	}
}

// TestConvenienceHashes checks Hash2, Hash8, Hash11 and HashColumn against Hash.
func TestConvenienceHashes(t *testing.T) {
	in := randomElements(t, 11)
	if got, want := Hash2(in[0], in[1]), Hash(mustFor(t, 2), in[:2]); !got.Equal(&want) {
		t.Error("Hash2")
	}
	if got, want := Hash8((*[8]fr.Element)(in[:8])), Hash(mustFor(t, 8), in[:8]); !got.Equal(&want) {
		t.Error("Hash8")
	}
	if got, want := Hash11((*[11]fr.Element)(in)), Hash(mustFor(t, 11), in); !got.Equal(&want) {
		t.Error("Hash11")
	}
	if got, want := HashColumn(in), Hash(mustFor(t, 11), in); !got.Equal(&want) {
		t.Error("HashColumn(11)")
	}
	if got, want := HashColumn(in[:2]), Hash2(in[0], in[1]); !got.Equal(&want) {
		t.Error("HashColumn(2)")
	}
}

func TestHashPanicsOnWrongLength(t *testing.T) {
	for name, f := range map[string]func(){
		"Hash":       func() { Hash(mustFor(t, 8), make([]fr.Element, 7)) },
		"HashColumn": func() { HashColumn(make([]fr.Element, 8)) },
		"Permute":    func() { mustFor(t, 2).Permute(make([]fr.Element, 2)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

func TestHashDoesNotAllocate(t *testing.T) {
	for _, a := range Arities() {
		c := mustFor(t, a)
		in := randomElements(t, a)
		s := randomElements(t, c.Width())
		var sink fr.Element
		if n := testing.AllocsPerRun(20, func() { sink = Hash(c, in) }); n != 0 {
			t.Errorf("arity %d: Hash allocates %.0f times", a, n)
		}
		if n := testing.AllocsPerRun(20, func() { c.Permute(s) }); n != 0 {
			t.Errorf("arity %d: Permute allocates %.0f times", a, n)
		}
		if n := testing.AllocsPerRun(20, func() { sink = HashConstantLength(c, in) }); n != 0 {
			t.Errorf("arity %d: HashConstantLength allocates %.0f times", a, n)
		}
		_ = sink
	}
	x, y := randomElements(t, 1)[0], randomElements(t, 1)[0]
	if n := testing.AllocsPerRun(20, func() { x = Hash2(x, y) }); n != 0 {
		t.Errorf("Hash2 allocates %.0f times", n)
	}
}

func BenchmarkHash(b *testing.B) {
	for _, a := range []int{2, 8, 11} {
		c := mustFor(b, a)
		in := randomElements(b, a)
		b.Run(fmt.Sprintf("arity=%d", a), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				in[0] = Hash(c, in)
			}
		})
	}
}

func BenchmarkHashPlain(b *testing.B) {
	for _, a := range []int{2, 8, 11} {
		c := mustFor(b, a)
		in := randomElements(b, a)
		b.Run(fmt.Sprintf("arity=%d", a), func(b *testing.B) {
			for b.Loop() {
				in[0] = HashPlain(c, in)
			}
		})
	}
}

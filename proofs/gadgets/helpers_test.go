package gadgets

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/testvec"
	"github.com/filc2/filc2/proofs/r1cs"
)

// newRand returns a freshly seeded generator and logs the seed so that a
// failure can be replayed with GADGETS_SEED.
func newRand(t testing.TB) *rand.Rand {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("GADGETS_SEED"); s != "" {
		var err error
		if err = json.Unmarshal([]byte(s), &seed); err != nil {
			t.Fatalf("GADGETS_SEED: %v", err)
		}
	}
	t.Logf("seed %d (GADGETS_SEED to replay)", seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// randFr is a uniformly random field element (64 random bytes reduced mod r).
func randFr(rng *rand.Rand) fr.Element {
	var e fr.Element
	e.SetBytes(randBytes(rng, 64))
	return e
}

// frLE is the 32-byte little-endian encoding of e (fr_into_bytes).
func frLE(e *fr.Element) []byte {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, *e)
	return b[:]
}

// trimmedDigestFr is a SHA-256 digest with digest[31] &= 0x3f read as a
// little-endian field element (Sha256Domain → Fr, and the label rule).
func trimmedDigestFr(t testing.TB, d [32]byte) fr.Element {
	t.Helper()
	d[31] &= 0x3f
	e, err := fr.LittleEndian.Element(&d)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// boolsOfBooleans returns the values of bits.
func boolsOfBooleans(bits []Boolean) []bool {
	out := make([]bool, len(bits))
	for i := range bits {
		out[i] = bits[i].Value()
	}
	return out
}

// bitsToBytesBE packs bits (MSB first per byte) into bytes.
func bitsToBytesBE(bits []bool) []byte {
	out := make([]byte, len(bits)/8)
	for i, b := range bits {
		if b {
			out[i/8] |= 0x80 >> uint(i%8)
		}
	}
	return out
}

// mustFinish finishes cs and fails on an error.
func mustFinish(t testing.TB, cs *r1cs.System) {
	t.Helper()
	if err := cs.Finish(); err != nil {
		t.Fatalf("%v mode: %v", cs.Mode(), err)
	}
}

// record synthesises build in Record mode and returns the finished circuit.
func record(t testing.TB, build func(cs *r1cs.System)) *r1cs.Circuit {
	t.Helper()
	cs := r1cs.New(r1cs.Record)
	build(cs)
	mustFinish(t, cs)
	c, err := cs.Circuit()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// count synthesises build in Count mode and returns the constraints and aux
// it added (ONE and the trailing input constraints excluded).
func count(build func(cs *r1cs.System)) (constraints, aux int) {
	cs := r1cs.New(r1cs.Count)
	build(cs)
	return cs.NumConstraints(), cs.NumAux()
}

// checkSatisfied runs build in Check mode and fails if a constraint is false.
func checkSatisfied(t testing.TB, build func(cs *r1cs.System)) {
	t.Helper()
	cs := r1cs.New(r1cs.Check)
	build(cs)
	mustFinish(t, cs)
}

// checkUnsatisfied runs build in Check mode and fails unless Finish reports an
// unsatisfied constraint.
func checkUnsatisfied(t testing.TB, build func(cs *r1cs.System)) *r1cs.UnsatisfiedError {
	t.Helper()
	cs := r1cs.New(r1cs.Check)
	build(cs)
	var ue *r1cs.UnsatisfiedError
	if err := cs.Finish(); !errors.As(err, &ue) {
		t.Fatalf("Check mode accepted a corrupted witness (err %v)", err)
	}
	return ue
}

// corruptionCaught records build, computes its witness, checks that the
// witness satisfies the recorded circuit, then changes each of the aux values
// in idx (adding one) and checks that some constraint fails.
func corruptionCaught(t *testing.T, build func(cs *r1cs.System), rng *rand.Rand, tries int) {
	t.Helper()
	c := record(t, build)
	w := r1cs.New(r1cs.Witness)
	build(w)
	mustFinish(t, w)
	inputs, aux := w.Assignment()
	if i, err := c.IsSatisfied(inputs, aux); err != nil || i != -1 {
		t.Fatalf("witness does not satisfy the recorded circuit: constraint %d, %v", i, err)
	}
	for range tries {
		k := rng.IntN(len(aux))
		old := aux[k]
		aux[k].Add(&aux[k], &frOne)
		if i, _ := c.IsSatisfied(inputs, aux); i == -1 {
			t.Fatalf("aux %d changed and the circuit is still satisfied", k)
		}
		aux[k] = old
	}
}

// sharedVectors returns the shared/vectors folder.
func sharedVectors(t testing.TB) string { return testvec.Dir(t) }

// nativeCompress is a plain SHA-256 compression of one 64-byte block into h
// (FIPS 180-4 §6.2.2), the reference for the compression gadget.
func nativeCompress(h *[8]uint32, block []byte) {
	var w [64]uint32
	for i := range 16 {
		w[i] = binary.BigEndian.Uint32(block[4*i:])
	}
	rotr := func(x uint32, n uint) uint32 { return x>>n | x<<(32-n) }
	for i := 16; i < 64; i++ {
		s0 := rotr(w[i-15], 7) ^ rotr(w[i-15], 18) ^ w[i-15]>>3
		s1 := rotr(w[i-2], 17) ^ rotr(w[i-2], 19) ^ w[i-2]>>10
		w[i] = w[i-16] + s0 + w[i-7] + s1
	}
	a, b, c, d, e, f, g, hh := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	for i := range 64 {
		s1 := rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
		ch := (e & f) ^ (^e & g)
		t1 := hh + s1 + ch + sha256RoundConstants[i] + w[i]
		s0 := rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
		maj := (a & b) ^ (a & c) ^ (b & c)
		t2 := s0 + maj
		hh, g, f, e, d, c, b, a = g, f, e, d+t1, c, b, a, t1+t2
	}
	for i, v := range [8]uint32{a, b, c, d, e, f, g, hh} {
		h[i] += v
	}
}

// allocBitsOfBytesBE allocates the bits of data, each byte MSB first (the SHA
// input order of bellperson's test_against_vectors).
func allocBitsOfBytesBE(cs *r1cs.System, data []byte) []Boolean { return AllocBytesBE(cs, data) }

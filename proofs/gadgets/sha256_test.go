package gadgets

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/filc2/filc2/proofs/r1cs"
)

// The counts bellperson's tests assert (sha256.rs test_full_block,
// test_full_hash), net of the 512 input-bit allocations.
func TestSHA256Counts(t *testing.T) {
	n, aux := count(func(cs *r1cs.System) { buildFullBlock(cs, make([]byte, 64)) })
	if n-512 != 25840 {
		t.Errorf("full block: %d constraints after the 512 bits, want 25840", n-512)
	}
	if aux != 26326 {
		t.Errorf("full block: %d aux, want 26326", aux)
	}
	n, aux = count(func(cs *r1cs.System) { buildFullHash(cs, make([]byte, 64)) })
	if n-512 != 44874 {
		t.Errorf("full hash: %d constraints after the 512 bits, want 44874", n-512)
	}
	if aux != 45340 {
		t.Errorf("full hash: %d aux, want 45340", aux)
	}
	// bellperson test_blank_hash: an all-constant block costs nothing.
	n, _ = count(func(cs *r1cs.System) {
		in := make([]Boolean, 512)
		for i := range in {
			in[i] = Constant(i == 0)
		}
		iv := SHA256IV()
		out := SHA256Compression(cs, in, &iv)
		var got []byte
		for i := range out {
			got = binary.BigEndian.AppendUint32(got, out[i].Value)
		}
		if want := sha256.Sum256(nil); string(got) != string(want[:]) {
			t.Errorf("blank hash %x, want %x", got, want)
		}
	})
	if n != 0 {
		t.Errorf("blank hash: %d constraints, want 0", n)
	}
}

// TestSHA256MultiEqFlushes checks the MultiEq flushes inside one compression:
// the aux count is the constraint count minus the flushes (a flush allocates
// nothing, every other constraint allocates one aux), and the flushes follow
// the rule "flush when bits_used + n ≥ 254" over the addmany widths.
func TestSHA256MultiEqFlushes(t *testing.T) {
	cs := r1cs.New(r1cs.Count)
	bits := allocBitsOfBytesBE(cs, make([]byte, 64))
	iv := SHA256IV()
	var me MultiEq
	me.Reset(cs)
	n0, a0 := cs.NumConstraints(), cs.NumAux()
	sha256Compress(&me, bits, &iv)
	me.Close()
	n, a := cs.NumConstraints()-n0, cs.NumAux()-a0
	// Model: 48 w additions of 4 operands; rounds 1..63 add e (6 operands)
	// and rounds 1..63 a (7); round 0 has both concrete; then h0 (8), h1..h3
	// (2), h4 (7), h5..h7 (2).
	var widths []int
	for range 48 {
		widths = append(widths, AddManyWidth(4))
	}
	for range 63 {
		widths = append(widths, AddManyWidth(6), AddManyWidth(7))
	}
	widths = append(widths, AddManyWidth(8), AddManyWidth(2), AddManyWidth(2), AddManyWidth(2),
		AddManyWidth(7), AddManyWidth(2), AddManyWidth(2), AddManyWidth(2))
	used, flushes := 0, 0
	for _, w := range widths {
		if used+w >= Capacity {
			flushes++
			used = 0
		}
		used += w
	}
	if used > 0 {
		flushes++
	}
	if me.Flushes() != flushes || n-a != flushes {
		t.Errorf("flushes: MultiEq %d, constraints−aux %d, model %d", me.Flushes(), n-a, flushes)
	}
	if me.BitsUsed() != 0 {
		t.Errorf("Close left %d bits", me.BitsUsed())
	}
	t.Logf("%d additions, %d MultiEq constraints", len(widths), flushes)
}

// TestSHA256CompressionReplay compares our compression R1CS, constraint by
// constraint, with the independent replay in
// shared/vectors/r1cs/sha256_compression.json.gz and reports the first
// difference.
func TestSHA256CompressionReplay(t *testing.T) {
	f, err := os.Open(filepath.Join(sharedVectors(t), "r1cs", "sha256_compression.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var replay struct {
		Name        string        `json:"name"`
		Start       int           `json:"start"`
		Constraints [][3][][3]any `json:"constraints"`
	}
	dec := json.NewDecoder(zr)
	dec.UseNumber()
	if err := dec.Decode(&replay); err != nil {
		t.Fatal(err)
	}
	c := record(t, func(cs *r1cs.System) { buildFullBlock(cs, make([]byte, 64)) })
	if got, want := c.NumConstraints-c.NumInputs, len(replay.Constraints); got != want {
		t.Errorf("%d circuit constraints, replay has %d", got, want)
	}
	for i, rc := range replay.Constraints {
		row := replay.Start + i
		if row >= c.NumConstraints {
			break
		}
		for k, m := range c.Matrices() {
			got := ourRow(c, m, row)
			want := make([]string, len(rc[k]))
			for j, term := range rc[k] {
				want[j] = replayTerm(t, term)
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("first difference at constraint %d, %c:\n ours   %v\n replay %v", row, "ABC"[k], got, want)
			}
		}
	}
	// The trailing input constraint ONE·0 = 0.
	cols, _ := c.A.Row(c.NumConstraints - 1)
	if len(cols) != 1 || cols[0] != 0 {
		t.Errorf("last constraint A %v, want [input 0]", cols)
	}
}

// ourRow renders row of m as sorted "kind:index:coeff" strings.
func ourRow(c *r1cs.Circuit, m *r1cs.Matrix, row int) []string {
	cols, vals := m.Row(row)
	out := make([]string, len(cols))
	for j, col := range cols {
		kind, idx := 0, int(col)
		if idx >= c.NumInputs {
			kind, idx = 1, idx-c.NumInputs
		}
		var b big.Int
		c.Coeffs[vals[j]].BigInt(&b)
		out[j] = fmt.Sprintf("%d:%06d:%064x", kind, idx, &b)
	}
	slices.Sort(out)
	return out
}

func replayTerm(t *testing.T, term [3]any) string {
	ks, _ := term[0].(string)
	in, _ := term[1].(json.Number)
	coeff, _ := term[2].(string)
	kind, err1 := strconv.Atoi(ks)
	idx, err2 := strconv.Atoi(in.String())
	if err1 != nil || err2 != nil || len(coeff) != 64 {
		t.Fatalf("bad replay term %v", term)
	}
	return fmt.Sprintf("%d:%06d:%s", kind, idx, strings.ToLower(coeff))
}

// TestSHA256Witness checks the gadget's values against crypto/sha256 on fresh
// random messages of 0..300 bytes (1 to 5 blocks), in Witness and Check mode.
func TestSHA256Witness(t *testing.T) {
	rng := newRand(t)
	lengths := []int{0, 1, 31, 55, 56, 63, 64, 65, 119, 120, 128, 200, 300}
	for range 4 {
		lengths = append(lengths, rng.IntN(300))
	}
	for _, n := range lengths {
		msg := randBytes(rng, n)
		want := sha256.Sum256(msg)
		for _, m := range []r1cs.Mode{r1cs.Witness, r1cs.Check} {
			cs := r1cs.New(m)
			out := SHA256(cs, allocBitsOfBytesBE(cs, msg))
			mustFinish(t, cs)
			if got := bitsToBytesBE(boolsOfBooleans(out)); string(got) != string(want[:]) {
				t.Fatalf("%v, %d bytes: %x, want %x", m, n, got, want)
			}
		}
	}
}

// TestSHA256CompressionWitness checks one compression from a random state (not
// the IV, so that no word is folded) against a native compression.
func TestSHA256CompressionWitness(t *testing.T) {
	rng := newRand(t)
	for range 3 {
		block := randBytes(rng, 64)
		var st [8]uint32
		for i := range st {
			st[i] = rng.Uint32()
		}
		cs := r1cs.New(r1cs.Check)
		var cur [8]UInt32
		for i := range cur {
			cur[i] = AllocUInt32(cs, st[i])
		}
		out := SHA256Compression(cs, allocBitsOfBytesBE(cs, block), &cur)
		mustFinish(t, cs)
		want := st
		nativeCompress(&want, block)
		for i := range out {
			if out[i].Value != want[i] || UInt32FromBits(out[i].Bits[:]).Value != want[i] {
				t.Fatalf("word %d: %08x (bits %08x), want %08x", i, out[i].Value, UInt32FromBits(out[i].Bits[:]).Value, want[i])
			}
		}
	}
	// The native model itself against crypto/sha256 (one padded block).
	msg := randBytes(rng, 40)
	block := append(slices.Clone(msg), 0x80)
	block = append(block, make([]byte, 64-len(block)-8)...)
	block = binary.BigEndian.AppendUint64(block, uint64(8*len(msg)))
	st := sha256IV
	nativeCompress(&st, block)
	want := sha256.Sum256(msg)
	for i := range st {
		if st[i] != binary.BigEndian.Uint32(want[4*i:]) {
			t.Fatal("native compression model disagrees with crypto/sha256")
		}
	}
}

// TestSHA256Corruption checks that a changed aux value breaks the recorded
// compression circuit, and that Check mode rejects a forged input word.
func TestSHA256Corruption(t *testing.T) {
	rng := newRand(t)
	block := randBytes(rng, 64)
	corruptionCaught(t, func(cs *r1cs.System) { buildFullBlock(cs, block) }, rng, 20)

	checkUnsatisfied(t, func(cs *r1cs.System) {
		bits := allocBitsOfBytesBE(cs, block)
		bits[100] = bits[100].Not() // the Boolean claims the wrong value of its bit
		bits[100].value = !bits[100].value
		iv := SHA256IV()
		SHA256Compression(cs, bits, &iv)
	})
}

// benchmarkCompression times SHA256Compression into a System presized for a
// batch of compressions (as the prover presizes its witness), so that the
// numbers are the gadget's, not slice growth's. With warm set, the presized
// value storage is touched before timing (as a reused witness buffer would
// be), which removes the page faults of first use from the numbers.
func benchmarkCompression(b *testing.B, mode r1cs.Mode, warm bool) {
	const batch = 64
	block := make([]byte, 64)
	for i := range block {
		block[i] = byte(i * 37)
	}
	var (
		cs   *r1cs.System
		bits []Boolean
		done = batch
	)
	iv := SHA256IV()
	b.ReportAllocs()
	for b.Loop() {
		if done == batch {
			b.StopTimer()
			cs = r1cs.New(mode, r1cs.WithCapacity(512+batch*25814, 512+batch*25840))
			if _, aux := cs.Assignment(); warm {
				full := aux[:cap(aux)]
				for i := range full {
					full[i] = frOne
				}
			}
			bits = allocBitsOfBytesBE(cs, block)
			done = 0
			b.StartTimer()
		}
		SHA256Compression(cs, bits, &iv)
		done++
	}
}

// BenchmarkSHA256CompressionWitness is one compression (25 840 constraints,
// 25 814 aux) in Witness mode, the per-proof path, into warm memory.
func BenchmarkSHA256CompressionWitness(b *testing.B) { benchmarkCompression(b, r1cs.Witness, true) }

// BenchmarkSHA256CompressionWitnessColdMemory is the same into freshly
// allocated value storage (first-touch page faults included).
func BenchmarkSHA256CompressionWitnessColdMemory(b *testing.B) {
	benchmarkCompression(b, r1cs.Witness, false)
}

// BenchmarkSHA256CompressionRecord is one compression in Record mode.
func BenchmarkSHA256CompressionRecord(b *testing.B) { benchmarkCompression(b, r1cs.Record, false) }

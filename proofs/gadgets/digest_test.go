package gadgets

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// Builders of the reference tests, in the tests' own allocation order.

// buildFullBlock is bellperson sha256.rs test_full_block: 512 AllocBits, then
// one compression from the constant IV.
func buildFullBlock(cs *r1cs.System, block []byte) [8]UInt32 {
	bits := allocBitsOfBytesBE(cs, block)
	iv := SHA256IV()
	return SHA256Compression(cs, bits, &iv)
}

// buildFullHash is bellperson sha256.rs test_full_hash: 512 AllocBits, then
// sha256 (two blocks, the second all padding).
func buildFullHash(cs *r1cs.System, msg []byte) []Boolean {
	return SHA256(cs, allocBitsOfBytesBE(cs, msg))
}

// buildHashLeafBits is storage-proofs-core util.rs hash_leaf_bits_circuit:
// left and right each 256 bits from bytes_into_boolean_vec (LSB first per
// byte), then hash_leaf_bits_circuit.
func buildHashLeafBits(cs *r1cs.System, left, right []byte) AllocatedNum {
	l := AllocBytesLE(cs, left)
	r := AllocBytesLE(cs, right)
	return HashLeafBitsSHA256(cs, l, r)
}

// buildCreateLabelTest is create_label.rs test_create_label: the 37 parents'
// bits (bytes_into_boolean_vec_be), then the replica id's, then
// create_label_circuit with layer 3 and node 22 as constants.
func buildCreateLabelTest(cs *r1cs.System, id []byte, parents [][]byte) AllocatedNum {
	pbits := make([][]Boolean, len(parents))
	for i, p := range parents {
		pbits[i] = AllocBytesBE(cs, p)
	}
	idBits := AllocBytesBE(cs, id)
	return CreateLabel(cs, idBits, pbits, UInt32Constant(3), UInt64Constant(22))
}

// buildInsertTest is insertion.rs test_insert: size−1 elements, the element to
// insert, log2(size) index bits, then insert.
func buildInsertTest(cs *r1cs.System, elements []fr.Element, x fr.Element, index int) (in []AllocatedNum, ins AllocatedNum, out []AllocatedNum) {
	for _, e := range elements {
		in = append(in, AllocNum(cs, e))
	}
	ins = AllocNum(cs, x)
	var bits []Boolean
	for i := 0; 1<<i < len(elements)+1; i++ {
		bits = append(bits, Is(AllocBit(cs, index>>uint(i)&1 == 1)))
	}
	return in, ins, Insert(cs, ins, bits, in)
}

// testParents returns the 37 parent byte strings of the create_label test's
// shape: 14 distinct nodes, then the 14 again, then the first 9.
func testParents(rng *rand.Rand) [][]byte {
	raw := make([][]byte, 14)
	for i := range raw {
		e := randFr(rng)
		raw[i] = frLE(&e)
	}
	p := append(append(append([][]byte{}, raw...), raw...), raw[:9]...)
	return p
}

type digestEntry struct {
	NumInputs      int    `json:"num_inputs"`
	NumAux         int    `json:"num_aux"`
	NumConstraints int    `json:"num_constraints"`
	Circuit        int    `json:"circuit_constraints"`
	NNZA           int    `json:"nnz_A"`
	NNZB           int    `json:"nnz_B"`
	NNZC           int    `json:"nnz_C"`
	AAuxDensity    int    `json:"a_aux_density"`
	BInputDensity  int    `json:"b_input_density"`
	BAuxDensity    int    `json:"b_aux_density"`
	Digest         string `json:"digest"`
	Published      string `json:"published"`
}

func loadDigests(t *testing.T) map[string]digestEntry {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(sharedVectors(t), "r1cs", "digests.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Components map[string]digestEntry `json:"components"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f.Components
}

// TestComponentDigests builds every non-Poseidon component of digests.json as
// its reference test builds it and compares the shape, non-zeros, densities
// and canonical digest.
func TestComponentDigests(t *testing.T) {
	want := loadDigests(t)
	rng := newRand(t)
	builders := map[string]func(cs *r1cs.System){
		"sha256_compression":    func(cs *r1cs.System) { buildFullBlock(cs, randBytes(rng, 64)) },
		"sha256_full_512":       func(cs *r1cs.System) { buildFullHash(cs, randBytes(rng, 64)) },
		"sha256_hash_leaf_bits": func(cs *r1cs.System) { buildHashLeafBits(cs, randBytes(rng, 32), randBytes(rng, 32)) },
		"create_label_test": func(cs *r1cs.System) {
			id := randFr(rng)
			buildCreateLabelTest(cs, frLE(&id), testParents(rng))
		},
		"insert_8_test": func(cs *r1cs.System) {
			el := make([]fr.Element, 7)
			for i := range el {
				el[i] = randFr(rng)
			}
			buildInsertTest(cs, el, randFr(rng), rng.IntN(8))
		},
	}
	for name, build := range builders {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name == "create_label_test" {
				t.Skip("short")
			}
			w, ok := want[name]
			if !ok {
				t.Fatalf("%s missing from digests.json", name)
			}
			c := record(t, build)
			s := c.Stats()
			got := digestEntry{
				NumInputs: c.NumInputs, NumAux: c.NumAux, NumConstraints: c.NumConstraints,
				Circuit: c.NumConstraints - c.NumInputs,
				NNZA:    c.A.NNZ(), NNZB: c.B.NNZ(), NNZC: c.C.NNZ(),
				AAuxDensity: s.AAuxDensity, BInputDensity: s.BInputDensity, BAuxDensity: s.BAuxDensity,
				Digest: c.Digest(r1cs.DefaultChunk).Hex(), Published: w.Published,
			}
			if got != w {
				t.Errorf("%s (%s):\n got  %+v\n want %+v", name, w.Published, got, w)
			}
		})
	}
}

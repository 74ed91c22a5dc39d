package poseidon

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/testvec"
)

// sharedDir returns the project's shared reference folder, ../shared beside
// the module root (every checkout and CI has it).
func sharedDir(t testing.TB) string { return filepath.Dir(testvec.Dir(t)) }

func readShared(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedDir(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// vectorValue is one field element of poseidon_sdr.json in its three spellings.
type vectorValue struct {
	Limbs   []string `json:"u64_limbs_le"`
	IntBE   string   `json:"int_hex_be"`
	BytesLE string   `json:"bytes_le_hex"`
}

// element parses the canonical limbs and checks the other two spellings agree.
func (v vectorValue) element(t testing.TB) fr.Element {
	t.Helper()
	if len(v.Limbs) != 4 {
		t.Fatalf("vector with %d limbs", len(v.Limbs))
	}
	var limbs [4]uint64
	for i, s := range v.Limbs {
		x, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		limbs[i] = x
	}
	e := fromCanonicalLimbs(t, limbs)
	var be fr.Element
	if _, err := be.SetString(v.IntBE); err != nil || !be.Equal(&e) {
		t.Fatalf("int_hex_be %s disagrees with limbs %v", v.IntBE, v.Limbs)
	}
	raw, err := hex.DecodeString(v.BytesLE)
	if err != nil || len(raw) != fr.Bytes {
		t.Fatalf("bad bytes_le_hex %q", v.BytesLE)
	}
	le, err := fr.LittleEndian.Element((*[fr.Bytes]byte)(raw))
	if err != nil || !le.Equal(&e) {
		t.Fatalf("bytes_le_hex %s disagrees with limbs %v", v.BytesLE, v.Limbs)
	}
	return e
}

// fromCanonicalLimbs returns the element whose canonical value has these
// little-endian limbs, failing on a non-canonical value.
func fromCanonicalLimbs(t testing.TB, limbs [4]uint64) fr.Element {
	t.Helper()
	var b [fr.Bytes]byte
	for i, l := range limbs {
		for j := range 8 {
			b[8*i+j] = byte(l >> (8 * j))
		}
	}
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		t.Fatalf("limbs %x: %v", limbs, err)
	}
	return e
}

// poseidonVectors is the part of poseidon_sdr.json this package checks.
type poseidonVectors struct {
	MerkleTree     map[string]json.RawMessage `json:"neptune_MerkleTree_Standard_hash_of_0_to_arity_minus_1"`
	ConstantLength map[string]json.RawMessage `json:"neptune_ConstantLength4_Standard_hash_of_0_1_2_3"`
	Hashers        map[string]json.RawMessage `json:"filecoin_hashers_poseidon"`
	Params         struct {
		RPByArity map[string]int `json:"RP_by_arity"`
	} `json:"poseidon_params"`
}

func loadPoseidonVectors(t testing.TB) poseidonVectors {
	t.Helper()
	var v poseidonVectors
	if err := json.Unmarshal(readShared(t, "vectors/poseidon_sdr.json"), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// byArity returns the vectors of a section keyed by arity (other keys, such as
// "source", are notes).
func byArity(t testing.TB, section map[string]json.RawMessage) map[int]fr.Element {
	t.Helper()
	out := make(map[int]fr.Element)
	for k, raw := range section {
		a, err := strconv.Atoi(k)
		if err != nil {
			continue
		}
		var v vectorValue
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("arity %s: %v", k, err)
		}
		out[a] = v.element(t)
	}
	return out
}

func namedVector(t testing.TB, section map[string]json.RawMessage, name string) fr.Element {
	t.Helper()
	raw, ok := section[name]
	if !ok {
		t.Fatalf("vector %q missing", name)
	}
	var v vectorValue
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v.element(t)
}

func counting(n int) []fr.Element {
	out := make([]fr.Element, n)
	for i := range out {
		out[i].SetUint64(uint64(i))
	}
	return out
}

func randomElements(t testing.TB, n int) []fr.Element {
	t.Helper()
	out := make([]fr.Element, n)
	for i := range out {
		if _, err := out[i].SetRandom(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func mustFor(t testing.TB, arity int) *Constants {
	t.Helper()
	c, err := ConstantsFor(arity)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

package poseidon

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// allocInputs allocates the preimage as aux variables, as the reference tests do.
func allocInputs(cs *r1cs.System, vals []fr.Element) []Num {
	out := make([]Num, len(vals))
	for i, v := range vals {
		out[i] = Num{Var: cs.Alloc(v), Val: v}
	}
	return out
}

// recordGadget records one gadget call on freshly allocated inputs and returns
// the finished circuit.
func recordGadget(t *testing.T, arity int) *r1cs.Circuit {
	t.Helper()
	c := mustFor(t, arity)
	cs := r1cs.New(r1cs.Record)
	if _, err := HashCircuit(cs, c, allocInputs(cs, randomElements(t, arity))); err != nil {
		t.Fatal(err)
	}
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
	circ, err := cs.Circuit()
	if err != nil {
		t.Fatal(err)
	}
	return circ
}

type legacyDump struct {
	Arity       int                 `json:"arity"`
	Constraints [][]json.RawMessage `json:"constraints"`
}

// TestGadgetMatchesReference compares the recorded R1CS with the replay of
// neptune's legacy gadget constraint by constraint (same variables, same
// coefficients; terms within an LC are unordered).
func TestGadgetMatchesReference(t *testing.T) {
	for _, a := range []int{2, 8, 11} {
		t.Run(fmt.Sprintf("arity=%d", a), func(t *testing.T) {
			var dump legacyDump
			raw := readShared(t, fmt.Sprintf("vectors/poseidon-gadget-r1cs/legacy_r1cs_arity%d.json", a))
			if err := json.Unmarshal(raw, &dump); err != nil {
				t.Fatal(err)
			}
			if dump.Arity != a {
				t.Fatalf("dump is for arity %d", dump.Arity)
			}
			circ := recordGadget(t, a)
			// The gadget's constraints, then Finish's one per input (ONE only here).
			if got := circ.NumConstraints - circ.NumInputs; got != len(dump.Constraints) {
				t.Fatalf("%d gadget constraints, reference has %d", got, len(dump.Constraints))
			}
			column := func(name string) int {
				var base, i int
				switch {
				case name == "ONE":
					return 0
				case strings.HasPrefix(name, "x"):
					base = circ.NumInputs
				case strings.HasPrefix(name, "w"):
					base = circ.NumInputs + a
				default:
					t.Fatalf("unknown variable %q", name)
				}
				i, err := strconv.Atoi(name[1:])
				if err != nil {
					t.Fatalf("variable %q: %v", name, err)
				}
				return base + i
			}
			bad := 0
			for r, con := range dump.Constraints {
				if len(con) != 4 {
					t.Fatalf("constraint %d has %d fields", r, len(con))
				}
				var name string
				if err := json.Unmarshal(con[0], &name); err != nil {
					t.Fatal(err)
				}
				for k, m := range circ.Matrices() {
					var terms [][2]string
					if err := json.Unmarshal(con[1+k], &terms); err != nil {
						t.Fatal(err)
					}
					want := make(map[int]string, len(terms))
					for _, tm := range terms {
						want[column(tm[0])] = strings.ToLower(tm[1])
					}
					got := rowTerms(circ, m, r)
					if !equalTerms(got, want) {
						if bad++; bad <= 5 {
							t.Errorf("constraint %d (%s) %c: got %v, want %v", r, name, "ABC"[k], got, want)
						}
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d mismatching LCs", bad)
			}
		})
	}
}

// rowTerms returns row r of m as column → 64-hex canonical coefficient.
func rowTerms(c *r1cs.Circuit, m *r1cs.Matrix, r int) map[int]string {
	cols, vals := m.Row(r)
	out := make(map[int]string, len(cols))
	for i, col := range cols {
		b := c.Coeffs[vals[i]].Bytes()
		out[int(col)] = hex.EncodeToString(b[:])
	}
	return out
}

func equalTerms(a, b map[int]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestGadgetCount checks the constraint and aux count of every arity against
// the formula and the published numbers (spec §2.4; neptune circuit.rs tests
// for 2…36, rust-fil-proofs hash_single_column for 11).
func TestGadgetCount(t *testing.T) {
	published := map[int]int{2: 311, 4: 377, 8: 505, 11: 598, 16: 761, 24: 1009, 36: 1385}
	for _, a := range Arities() {
		c := mustFor(t, a)
		cs := r1cs.New(r1cs.Count)
		in := allocInputs(cs, make([]fr.Element, a))
		if _, err := HashCircuit(cs, c, in); err != nil {
			t.Fatal(err)
		}
		n, aux := cs.NumConstraints(), cs.NumAux()-a
		if n != published[a] || n != c.GadgetConstraints() || aux != n {
			t.Errorf("arity %d: %d constraints, %d aux; published %d, GadgetConstraints %d",
				a, n, aux, published[a], c.GadgetConstraints())
		}
		// neptune's own expression: 3·(t·RF + RP − 1) + (t·RF + RP − arity).
		tw, rp := a+1, c.PartialRounds()
		if alt := 3*(tw*FullRounds+rp-1) + (tw*FullRounds + rp - a); alt != n {
			t.Errorf("arity %d: neptune's formula gives %d", a, alt)
		}
	}
}

// TestGadgetWitness checks that the gadget's output is the native hash and that
// Check mode finds every constraint satisfied, in Witness and Check modes alike.
func TestGadgetWitness(t *testing.T) {
	for _, a := range Arities() {
		c := mustFor(t, a)
		vals := randomElements(t, a)
		want := Hash(c, vals)

		var assignments [2][]fr.Element
		for k, m := range []r1cs.Mode{r1cs.Check, r1cs.Witness} {
			cs := r1cs.New(m)
			out, err := HashCircuit(cs, c, allocInputs(cs, vals))
			if err != nil {
				t.Fatal(err)
			}
			if !out.Val.Equal(&want) {
				t.Errorf("arity %d %v: output %s, native %s", a, m, out.Val.Text(16), want.Text(16))
			}
			if err := cs.Finish(); err != nil {
				t.Errorf("arity %d %v: %v", a, m, err)
			}
			_, assignments[k] = cs.Assignment()
			if got := assignments[k][len(assignments[k])-1]; !got.Equal(&want) {
				t.Errorf("arity %d %v: last aux is not the digest", a, m)
			}
		}
		if fmt.Sprint(assignments[0]) != fmt.Sprint(assignments[1]) {
			t.Errorf("arity %d: Witness and Check assignments differ", a)
		}
	}
}

// TestGadgetRejectsWrongValues checks soundness of the replayed shape: an input
// whose claimed value differs from its assignment fails Check mode, and
// changing any single aux of a valid assignment breaks some constraint.
func TestGadgetRejectsWrongValues(t *testing.T) {
	for _, a := range []int{2, 8, 11} {
		c := mustFor(t, a)
		vals := randomElements(t, a)

		cs := r1cs.New(r1cs.Check)
		in := allocInputs(cs, vals)
		in[a-1].Val.SetUint64(7) // the gadget computes from a value the variable does not hold
		if _, err := HashCircuit(cs, c, in); err != nil {
			t.Fatal(err)
		}
		var ue *r1cs.UnsatisfiedError
		if err := cs.Finish(); !errors.As(err, &ue) {
			t.Errorf("arity %d: Check accepted a wrong input value (%v)", a, err)
		} else if ue.Index != 3*(a-1) || !strings.Contains(ue.Path, "square_sum/r0/sbox") {
			t.Errorf("arity %d: first failure %d at %q, want %d (square_sum of the last input)", a, ue.Index, ue.Path, 3*(a-1))
		}

		circ := recordGadget(t, a)
		ws := r1cs.New(r1cs.Witness)
		if _, err := HashCircuit(ws, c, allocInputs(ws, vals)); err != nil {
			t.Fatal(err)
		}
		if err := ws.Finish(); err != nil {
			t.Fatal(err)
		}
		inputs, aux := ws.Assignment()
		if i, err := circ.IsSatisfied(inputs, aux); err != nil || i != -1 {
			t.Fatalf("arity %d: valid assignment fails constraint %d (%v)", a, i, err)
		}
		one := fr.One()
		for k := a; k < len(aux); k++ {
			aux[k].Add(&aux[k], &one)
			if i, err := circ.IsSatisfied(inputs, aux); err != nil || i < 0 {
				t.Fatalf("arity %d: aux %d changed, still satisfied (%v)", a, k, err)
			}
			aux[k].Sub(&aux[k], &one)
		}
	}
}

// TestConcurrentUse builds constants and the gadget template from many
// goroutines at once (run with -race).
func TestConcurrentUse(t *testing.T) {
	done := make(chan error)
	for i := range 8 {
		go func() {
			a := []int{2, 8, 11, 16}[i%4]
			c, err := ConstantsFor(a)
			if err == nil {
				cs := r1cs.New(r1cs.Count)
				in := make([]fr.Element, a)
				_ = Hash(c, in)
				_, err = HashCircuit(cs, c, allocInputs(cs, in))
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestHashCircuitWrongArity(t *testing.T) {
	cs := r1cs.New(r1cs.Count)
	if _, err := HashCircuit(cs, mustFor(t, 8), allocInputs(cs, make([]fr.Element, 2))); err == nil {
		t.Error("2 inputs accepted at arity 8")
	}
}

// digestComponent is one entry of vectors/r1cs/digests.json.
type digestComponent struct {
	NumInputs      int      `json:"num_inputs"`
	NumAux         int      `json:"num_aux"`
	Circuit        int      `json:"circuit_constraints"`
	NumConstraints int      `json:"num_constraints"`
	NNZA           int      `json:"nnz_A"`
	NNZB           int      `json:"nnz_B"`
	NNZC           int      `json:"nnz_C"`
	AAuxDensity    int      `json:"a_aux_density"`
	BInputDensity  int      `json:"b_input_density"`
	BAuxDensity    int      `json:"b_aux_density"`
	Digest         string   `json:"digest"`
	ChunkSize      int      `json:"chunk_size"`
	ChunkDigests   []string `json:"chunk_digests"`
	Published      string   `json:"published"`
}

// TestGadgetDigests builds the reference tests' circuits — rust-fil-proofs
// test_hash2_circuit (a and b allocated, then hash2_circuit), neptune
// test_poseidon_hash U8 (8 allocations, then poseidon_hash) and
// test_hash_single_column_circuit (11 allocations, then hash_single_column) —
// and compares their canonical digests, counts and densities with digests.json.
func TestGadgetDigests(t *testing.T) {
	var file struct {
		Components map[string]digestComponent `json:"components"`
	}
	if err := json.Unmarshal(readShared(t, "vectors/r1cs/digests.json"), &file); err != nil {
		t.Fatal(err)
	}
	for _, a := range []int{2, 8, 11} {
		name := fmt.Sprintf("poseidon_%d", a)
		want, ok := file.Components[name]
		if !ok {
			t.Fatalf("%s missing", name)
		}
		circ := recordGadget(t, a)
		got := digestComponent{
			NumInputs: circ.NumInputs, NumAux: circ.NumAux,
			Circuit: circ.NumConstraints - circ.NumInputs, NumConstraints: circ.NumConstraints,
			NNZA: circ.A.NNZ(), NNZB: circ.B.NNZ(), NNZC: circ.C.NNZ(),
			AAuxDensity: circ.AAux.Count(), BInputDensity: circ.BInput.Count(), BAuxDensity: circ.BAux.Count(),
		}
		d := circ.Digest(r1cs.DefaultChunk)
		got.Digest = d.Hex()
		for _, ch := range d.Chunks {
			got.ChunkDigests = append(got.ChunkDigests, hex.EncodeToString(ch[:]))
		}
		got.ChunkSize, got.Published = want.ChunkSize, want.Published
		if want.ChunkSize != r1cs.DefaultChunk {
			t.Errorf("%s: chunk size %d", name, want.ChunkSize)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s (%s):\n got %+v\nwant %+v", name, want.Published, got, want)
		}

		// The streaming digest of Count mode agrees.
		h := r1cs.Header{NumInputs: want.NumInputs, NumAux: want.NumAux, NumConstraints: want.NumConstraints}
		cs := r1cs.New(r1cs.Count, r1cs.WithDigest(h, r1cs.DefaultChunk))
		if _, err := HashCircuit(cs, mustFor(t, a), allocInputs(cs, make([]fr.Element, a))); err != nil {
			t.Fatal(err)
		}
		if err := cs.Finish(); err != nil {
			t.Fatal(err)
		}
		sd, err := cs.Digest()
		if err != nil {
			t.Fatal(err)
		}
		if sd.Hex() != want.Digest {
			t.Errorf("%s: Count-mode digest %s, want %s", name, sd.Hex(), want.Digest)
		}
	}
}

func BenchmarkHashCircuit(b *testing.B) {
	for _, m := range []r1cs.Mode{r1cs.Witness, r1cs.Count} {
		for _, a := range []int{2, 8, 11} {
			c := mustFor(b, a)
			vals := randomElements(b, a)
			b.Run(fmt.Sprintf("%v/arity=%d", m, a), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					cs := r1cs.New(m, r1cs.WithCapacity(c.GadgetConstraints()+a, 0))
					if _, err := HashCircuit(cs, c, allocInputs(cs, vals)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// In Witness mode, the gadget and Trace do not allocate (their scratch comes
// from the Constants' pool): they run once per hash of a witness.
func TestWitnessGadgetDoesNotAllocate(t *testing.T) {
	c := mustFor(t, 8)
	vals := randomElements(t, 8)
	cs := r1cs.New(r1cs.Witness, r1cs.WithCapacity(1<<20, 1<<20))
	in := allocInputs(cs, vals)
	if n := testing.AllocsPerRun(50, func() { HashCircuit(cs, c, in) }); n != 0 {
		t.Errorf("HashCircuit in Witness mode allocates %.0f times", n)
	}
	tr := make([]fr.Element, c.GadgetConstraints())
	if n := testing.AllocsPerRun(50, func() { c.Trace(tr, vals) }); n != 0 {
		t.Errorf("Trace allocates %.0f times", n)
	}
}

// A run returned to the pool refers to nothing of its call: a pooled run must
// not keep a System and its witness reachable.
func TestPutRunForgetsTheCall(t *testing.T) {
	c := mustFor(t, 2)
	cs := r1cs.New(r1cs.Witness)
	g := c.getRun()
	*g = gadgetRun{cs: cs, inputs: allocInputs(cs, randomElements(t, 2)), aux: make([]r1cs.Variable, 1),
		trace: make([]fr.Element, 1), shape: c.gadgetShape()}
	c.putRun(g)
	if g.cs != nil || g.inputs != nil || g.aux != nil || g.trace != nil || g.shape != nil {
		t.Errorf("a pooled run still refers to its call: %+v", g)
	}
}

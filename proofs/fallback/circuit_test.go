package fallback

import (
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/r1cs"
)

// count synthesises p's blank circuit in Count mode and returns the
// constraints without bellperson's trailing input constraints, and the inputs
// (ONE included).
func count(t *testing.T, p abi.PoStProof, workers int) (constraints, inputs int) {
	t.Helper()
	cs := r1cs.New(r1cs.Count)
	if err := Synthesize(cs, p, Blank(p), WithParallelism(workers)); err != nil {
		t.Fatal(err)
	}
	if err := cs.Finish(); err != nil {
		t.Fatal(err)
	}
	st := cs.Stats()
	return st.Constraints - st.Inputs, st.Inputs
}

// The storage-proofs-post tests/fallback_circuit.rs counts: 64 leaves per
// base tree, 5 challenges; and the 32GiB bench_cs blank circuit (an 8-0-0
// tree of 2^30 leaves, 5 sectors of 10 challenges).
func TestReferenceTestCounts(t *testing.T) {
	toy := func(tree abi.TreeShape, sectors, challenges int, nodes uint64) abi.PoStProof {
		return abi.PoStProof{Name: "toy", Kind: abi.Window, Nodes: nodes, Tree: tree, SectorCount: sectors, ChallengeCount: challenges, APIVersion: abi.APIVersion1_1_0}
	}
	cases := []struct {
		p                   abi.PoStProof
		constraints, inputs int
	}{
		{toy(abi.TreeShape{Base: 8}, 3, 5, 64), 16_869, 19},
		{toy(abi.TreeShape{Base: 8, Sub: 4}, 3, 5, 64*4), 22_674, 19},
		{toy(abi.TreeShape{Base: 8, Sub: 4, Top: 2}, 3, 5, 64*8), 27_384, 19},
		{toy(abi.TreeShape{Base: 8}, 2, 5, 64), 11_246, 13},
		{toy(abi.TreeShape{Base: 8}, 5, 10, 1<<30), 266_665, 56},
	}
	for _, c := range cases {
		got, in := count(t, c.p, 1)
		if got != c.constraints || in != c.inputs {
			t.Errorf("%v %d×%d: %d constraints, %d inputs; the reference counts %d, %d", c.p.Tree, c.p.SectorCount, c.p.ChallengeCount, got, in, c.constraints, c.inputs)
		}
	}
}

// Every production circuit: the published counts (Window 32GiB and 64GiB from
// filecoin-proofs constants.rs, Winning 32GiB from circuitinfo) and the
// spec's model counts for the rest; inputs as generate_public_inputs makes.
func TestProductionCounts(t *testing.T) {
	want := map[string][2]int{
		"StackedDrgWindow2KiBV1_1": {21_866, 23}, "StackedDrgWindow8MiBV1_1": {64_266, 23}, "StackedDrgWindow512MiBV1_1": {85_466, 23},
		"StackedDrgWindow32GiBV1_1": {125_279_217, 25_840}, "StackedDrgWindow64GiBV1_1": {129_887_900, 25_301},
		"StackedDrgWinning2KiBV1": {90_750, 133}, "StackedDrgWinning8MiBV1": {230_670, 133}, "StackedDrgWinning512MiBV1": {300_630, 133},
		"StackedDrgWinning32GiBV1": {370_590, 133}, "StackedDrgWinning64GiBV1": {391_314, 133},
	}
	for name, w := range want {
		p, err := abi.ParsePoStName(name)
		if err != nil {
			t.Fatal(err)
		}
		if p.SectorSize >= 32<<30 && p.Kind == abi.Window && testing.Short() {
			continue
		}
		got, in := count(t, p, 0)
		if got != w[0] || in != w[1] || in != NumInputs(p) {
			t.Errorf("%s: %d constraints, %d inputs (NumInputs %d), want %d, %d", name, got, in, NumInputs(p), w[0], w[1])
		}
	}
}

// The sequential and parallel syntheses record the same circuit.
func TestParallelRecordingEqual(t *testing.T) {
	p, _ := abi.ParsePoStName("StackedDrgWindow2KiBV1_1")
	w, _ := abi.ParsePoStName("StackedDrgWinning2KiBV1")
	for _, p := range []abi.PoStProof{p, w} {
		var digests []string
		for _, workers := range []int{1, 2, 5} {
			cs := r1cs.New(r1cs.Record)
			if err := Synthesize(cs, p, Blank(p), WithParallelism(workers)); err != nil {
				t.Fatal(err)
			}
			if err := cs.Finish(); err != nil {
				t.Fatal(err)
			}
			c, err := cs.Circuit()
			if err != nil {
				t.Fatal(err)
			}
			digests = append(digests, c.Digest(1<<12).Hex())
		}
		if digests[0] != digests[1] || digests[0] != digests[2] {
			t.Errorf("%s: recordings differ with 1, 2, 5 workers: %v", p.Name, digests)
		}
	}
}

// sparseVanilla makes the vanilla proof of a sparse sector for r.
func sparseVanilla(t testing.TB, p abi.PoStProof, sectorID uint64, sectorIndex int, r Randomness) *SectorVanilla {
	t.Helper()
	chs := VanillaChallenges(p, r, sectorID, sectorIndex)
	tree, err := SparseSectorTree(p, [32]byte{byte(sectorID), 7}, chs)
	if err != nil {
		t.Fatal(err)
	}
	v, err := GenerateSectorVanilla(p, sectorID, tree, chs)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A partition's witness satisfies the circuit (Check mode) and its inputs are
// PublicInputs; with another randomness's public inputs, or a wrong leaf, it
// does not. The Winning 32GiB and 64GiB circuits cover the Sub and Top trees.
func TestCircuitSatisfied(t *testing.T) {
	r := MaskRandomness([32]byte{1, 2, 3, 0xff, 31: 0xff})
	for _, tc := range []struct {
		name    string
		sectors int
		k       int
	}{
		{"StackedDrgWindow2KiBV1_1", 1, 0}, {"StackedDrgWindow2KiBV1_1", 2, 0}, {"StackedDrgWindow2KiBV1", 2, 3},
		{"StackedDrgWindow8MiBV1", 1, 1}, {"StackedDrgWinning2KiBV1", 1, 0}, {"StackedDrgWinning32GiBV1", 1, 0}, {"StackedDrgWinning64GiBV1", 1, 0},
	} {
		p, _ := abi.ParsePoStName(tc.name)
		var vs []*SectorVanilla
		for i := range tc.sectors {
			vs = append(vs, sparseVanilla(t, p, uint64(100+i), tc.k*p.SectorCount+i, r))
		}
		pt, err := NewPartition(p, vs, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		if err := pt.Check(r); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		in, err := pt.CircuitInput()
		if err != nil {
			t.Fatal(err)
		}
		var pubs []PublicSector
		for _, v := range vs {
			pubs = append(pubs, PublicSector{ID: v.SectorID, CommR: v.CommR})
		}
		want, err := PublicInputs(p, r, pubs, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		inputs, err := check(p, in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(inputs) != len(want)+1 {
			t.Fatalf("%s: %d inputs, PublicInputs %d", tc.name, len(inputs), len(want))
		}
		for i := range want {
			if !inputs[i+1].Equal(&want[i]) {
				t.Fatalf("%s: input %d differs from PublicInputs", tc.name, i+1)
			}
		}
		// A flipped leaf fails the first PoR.
		in.Blocks[0].Leaves[0].SetUint64(5)
		var ue *r1cs.UnsatisfiedError
		if _, err := check(p, in); !errors.As(err, &ue) {
			t.Errorf("%s: a wrong leaf: %v", tc.name, err)
		}
	}
}

func check(p abi.PoStProof, in *CircuitInput) ([]fr.Element, error) {
	cs := r1cs.New(r1cs.Check)
	if err := Synthesize(cs, p, in); err != nil {
		return nil, err
	}
	if err := cs.Finish(); err != nil {
		return nil, err
	}
	inputs, _ := cs.Assignment()
	return inputs, nil
}

// Witness mode, where the paths' hashes are traced ahead (blockTracer), gives
// the assignment and constraint count of Check mode, which computes each
// hash in its gadget: sequentially and forked, for Window (many challenges a
// block, more blocks than a tracer group) and Winning 32GiB (one challenge a
// block, sub-tree levels). A padded partition, whose last blocks Witness mode
// copies (RepeatLast) instead of synthesising, gives Check mode's assignment
// too.
func TestWitnessEqualsCheck(t *testing.T) {
	r := MaskRandomness([32]byte{8, 31: 0xff})
	const grown = 2*traceBlockPaths + 3 // more blocks than one tracer group
	for _, tc := range []struct {
		name    string
		sectors int
		grow    int  // > 0: grow to this many blocks, repeating the blocks in turn
		padded  bool // grow by copying the last sector's block, as NewPartition pads
		copies  int  // the trailing copies Witness mode repeats
	}{
		{"StackedDrgWindow2KiBV1_1", 2, grown, false, 0},
		{"StackedDrgWinning32GiBV1", 1, grown, false, grown - 67}, // 66 blocks, then block 0 over and over
		{"StackedDrgWindow8MiBV1", 1, 0, false, 1},                // NewPartition's padding
		{"StackedDrgWindow2KiBV1_1", 2, grown, true, grown - 2},
	} {
		p, _ := abi.ParsePoStName(tc.name)
		var vs []*SectorVanilla
		for i := range tc.sectors {
			vs = append(vs, sparseVanilla(t, p, uint64(40+i), i, r))
		}
		pt, err := NewPartition(p, vs, 0)
		if err != nil {
			t.Fatal(err)
		}
		in, err := pt.CircuitInput()
		if err != nil {
			t.Fatal(err)
		}
		if tc.grow > 0 {
			p.SectorCount = tc.grow
			if tc.padded {
				in.Blocks = in.Blocks[:tc.sectors]
			}
			for len(in.Blocks) < p.SectorCount {
				if tc.padded {
					in.Blocks = append(in.Blocks, in.Blocks[tc.sectors-1])
				} else {
					in.Blocks = append(in.Blocks, in.Blocks[len(in.Blocks)%tc.sectors])
				}
			}
		}
		if got := trailingCopies(in.Blocks); got != tc.copies {
			t.Fatalf("%s: %d trailing copies, want %d", tc.name, got, tc.copies)
		}
		cc := r1cs.New(r1cs.Check)
		if err := Synthesize(cc, p, in); err != nil {
			t.Fatal(err)
		}
		if err := cc.Finish(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		wantIn, wantAux := cc.Assignment()
		for _, workers := range []int{1, 3} {
			ws := r1cs.New(r1cs.Witness)
			if err := Synthesize(ws, p, in, WithParallelism(workers)); err != nil {
				t.Fatal(err)
			}
			if err := ws.Finish(); err != nil {
				t.Fatal(err)
			}
			gotIn, gotAux := ws.Assignment()
			if ws.NumConstraints() != cc.NumConstraints() || len(gotIn) != len(wantIn) || len(gotAux) != len(wantAux) {
				t.Fatalf("%s, %d workers: %d/%d constraints, %d/%d inputs, %d/%d aux", tc.name, workers,
					ws.NumConstraints(), cc.NumConstraints(), len(gotIn), len(wantIn), len(gotAux), len(wantAux))
			}
			for i := range wantAux {
				if !gotAux[i].Equal(&wantAux[i]) {
					t.Fatalf("%s, %d workers: aux %d differs", tc.name, workers, i)
				}
			}
			for i := range wantIn {
				if !gotIn[i].Equal(&wantIn[i]) {
					t.Fatalf("%s, %d workers: input %d differs", tc.name, workers, i)
				}
			}
		}
	}
}

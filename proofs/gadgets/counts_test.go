package gadgets

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/r1cs"
)

// productionLabelCost is the constraints of CreateLabel alone as the PoRep
// circuit calls it (replica id and parents from ToBitsLE + reverse, the
// challenge allocated).
func productionLabelCost() int {
	cs := r1cs.New(r1cs.Count)
	var zero fr.Element
	id := ReverseBitNumbering(AllocNum(cs, zero).ToBitsLE(cs))
	node := AllocUInt64(cs, 0)
	p := ReverseBitNumbering(AllocNum(cs, zero).ToBitsLE(cs))
	parents := make([][]Boolean, LabelParents)
	for i := range parents {
		parents[i] = p
	}
	c0 := cs.NumConstraints()
	CreateLabel(cs, id, parents, UInt32Constant(1), node)
	return cs.NumConstraints() - c0
}

// TestCountsAgainstModel cross-checks our counts with the bit-level model
// shared/tools/porep_counts.py (skipped without python3).
func TestCountsAgainstModel(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	tools := filepath.Join(filepath.Dir(sharedVectors(t)), "tools")
	script := `import sys; sys.path.insert(0, sys.argv[1]); import porep_counts as p
print(p.test_full_block(), p.test_full_hash(), p.test_create_label(), p.sha_leaf_pair_cost(),
      p.create_label_cost(p.fr_bits_reversed(), [p.V]*64, [p.fr_bits_reversed()]*37, 1))`
	out, err := exec.Command(py, "-c", script, tools).CombinedOutput()
	if err != nil {
		t.Fatalf("porep_counts.py: %v\n%s", err, out)
	}
	var model []int
	for _, f := range strings.Fields(string(out)) {
		v, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("model output %q", out)
		}
		model = append(model, v)
	}
	block, _ := count(func(cs *r1cs.System) { buildFullBlock(cs, make([]byte, 64)) })
	hash, _ := count(func(cs *r1cs.System) { buildFullHash(cs, make([]byte, 64)) })
	label, _ := count(func(cs *r1cs.System) { buildCreateLabelTest(cs, make([]byte, 32), testParents(newRand(t))) })
	leaf, _ := count(func(cs *r1cs.System) {
		HashMultiLeafSHA256(cs, []AllocatedNum{AllocNum(cs, frZero), AllocNum(cs, frZero)})
	})
	ours := []int{block - 512, hash - 512, label, leaf - 512, productionLabelCost()}
	names := []string{"full block", "full hash", "create_label test", "tree-D node (SHA + pack)", "PoRep label (SHA + pack)"}
	if len(model) != len(ours) {
		t.Fatalf("model printed %v", model)
	}
	for i := range ours {
		if ours[i] != model[i] {
			t.Errorf("%s: ours %d, model %d", names[i], ours[i], model[i])
		} else {
			t.Logf("%s: %d", names[i], ours[i])
		}
	}
}

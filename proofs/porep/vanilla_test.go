package porep

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/poseidon"
)

// vanillaData is fr32-padded 2KiB-periodic test data, so that the encoding
// wraps mod r on some nodes.
func vanillaData(size uint64) []byte {
	d := make([]byte, size)
	for i := range d {
		d[i] = byte(i*7 + i/2048)
		if i%32 == 31 {
			d[i] &= 0x3f
		}
	}
	return d
}

// vanillaSeal seals a sector of the named proof type with vanillaData (or
// committed capacity if cc), with sealFor's prover, sector and ticket.
func vanillaSeal(tb testing.TB, name string, cc bool) *Sector {
	tb.Helper()
	p, err := abi.ParseName(name)
	if err != nil {
		tb.Fatal(err)
	}
	var data []byte
	if !cc {
		data = vanillaData(uint64(p.SectorSize))
	}
	var ticket [32]byte
	ticket[0], ticket[5] = 7, 9
	s, err := Seal(context.Background(), SealInput{Proof: p, ProverID: ProverID(1000), SectorID: 42, Ticket: ticket, Data: data}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// vanillaSeed is the interactive seed of the fixtures.
var vanillaSeed = testSeed(9)

var vanillaFixtures sync.Map // "name/cc" → C1 JSON

// vanillaC1 returns a fresh decoded C1 of our sealer for the named proof
// type (sealed once per test binary), so that a test may corrupt it.
func vanillaC1(tb testing.TB, name string, cc bool) *c1.Commit1Out {
	tb.Helper()
	key := fmt.Sprintf("%s/%v", name, cc)
	js, ok := vanillaFixtures.Load(key)
	if !ok {
		out, err := vanillaSeal(tb, name, cc).Commit1(vanillaSeed)
		if err != nil {
			tb.Fatal(err)
		}
		b, err := c1.Encode(out)
		if err != nil {
			tb.Fatal(err)
		}
		js, _ = vanillaFixtures.LoadOrStore(key, b)
	}
	out, err := c1.Decode(js.([]byte))
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// wantVanillaError checks that err is a *VanillaError of partition k and
// challenge j at path whose message contains msg.
func wantVanillaError(t *testing.T, err error, k, j int, path, msg string) {
	t.Helper()
	var ve *VanillaError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v, want a *VanillaError at %s", err, path)
	}
	if ve.Partition != k || ve.Challenge != j || ve.Path != path || !strings.Contains(ve.Msg, msg) {
		t.Fatalf("got partition %d challenge %d: %v\nwant partition %d challenge %d at %s, saying %q", ve.Partition, ve.Challenge, err, k, j, path, msg)
	}
	if !strings.Contains(err.Error(), path) {
		t.Fatalf("%q does not name %s", err.Error(), path)
	}
}

// Our sealer's C1s pass: 2KiB V1, V1_1, SyntheticPoRep and NI-PoRep (13
// partitions), with data and committed capacity, and 8MiB V1_1.
func TestVerifyVanillaAcceptsOurC1(t *testing.T) {
	for _, tc := range []struct {
		name string
		cc   bool
	}{
		{"StackedDrg2KiBV1", false}, {"StackedDrg2KiBV1", true},
		{"StackedDrg2KiBV1_1", false}, {"StackedDrg2KiBV1_1", true},
		{"StackedDrg2KiBV1_1_Feat_SyntheticPoRep", false}, {"StackedDrg2KiBV1_1_Feat_SyntheticPoRep", true},
		{"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", false},
		{"StackedDrg8MiBV1_1", false},
	} {
		out := vanillaC1(t, tc.name, tc.cc)
		if err := out.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, w := range []int{0, 1, 3} {
			if err := VerifyVanilla(context.Background(), out, VanillaWorkers(w)); err != nil {
				t.Fatalf("%s (cc %v, %d workers): %v", tc.name, tc.cc, w, err)
			}
		}
	}
}

// Each targeted corruption of a 2KiB V1_1 C1 fails with an error that names
// the corrupted value. Most corruptions keep the file valid for c1.Validate:
// only the vanilla checks catch them.
func TestVerifyVanillaCorruptions(t *testing.T) {
	const name = "StackedDrg2KiBV1_1"
	const pre = "vanilla_proofs.StackedDrg2KiBV1[0][1]."
	p, _ := abi.ParseName(name)
	g, err := NewGraphFor(p)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(d *c1.Domain) { d[0] ^= 1 }
	for _, tc := range []struct {
		name     string
		mutate   func(t *testing.T, out *c1.Commit1Out) (j int, path string) // returns the challenge and path expected
		msg      string
		validate bool // c1.Validate still accepts the file
	}{
		{"label parent", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.VanillaProofs.Partitions[0][1].LabelingProofs[1].Parents[4])
			return 1, pre + "labeling_proofs[1].parents[4]"
		}, "labeling proof does not hash the challenge's parent columns", true},
		{"layer-1 label parent", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.VanillaProofs.Partitions[0][1].LabelingProofs[0].Parents[36])
			return 1, pre + "labeling_proofs[0].parents[36]"
		}, "layer-1 label of DRG parent 0", true},
		{"tree D sibling", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.VanillaProofs.Partitions[0][1].CommDProofs.Data.Single.Path.Path[3].Hashes[0])
			return 1, pre + "comm_d_proofs.data.Single.path"
		}, "a sibling is corrupt", true},
		{"tree R-last sibling", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.VanillaProofs.Partitions[0][1].CommRLastProof.Data.Single.Path.Path[1].Hashes[6])
			return 1, pre + "comm_r_last_proof.data.Single.path"
		}, "a sibling is corrupt", true},
		{"tree C sibling of a parent", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.VanillaProofs.Partitions[0][1].ReplicaColumnProofs.DrgParents[2].InclusionProof.Data.Single.Path.Path[0].Hashes[5])
			return 1, pre + "replica_column_proofs.drg_parents[2].inclusion_proof.data.Single.path"
		}, "recompute", true},
		{"tree C sibling of c_x", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.VanillaProofs.Partitions[0][1].ReplicaColumnProofs.CX.InclusionProof.Data.Single.Path.Path[1].Hashes[0])
			return 1, pre + "replica_column_proofs.c_x.inclusion_proof.data.Single.path"
		}, "not comm_c", true},
		{"tree C leaf", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.VanillaProofs.Partitions[0][1].ReplicaColumnProofs.ExpParents[7].InclusionProof.Data.Single.Leaf)
			return 1, pre + "replica_column_proofs.exp_parents[7].inclusion_proof.data.Single.leaf"
		}, "is not the column hash", true},
		{"comm_r", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.CommR)
			return -1, "comm_r"
		}, "is not Poseidon2(comm_c, comm_r_last)", true},
		{"seed", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.Seed)
			chs, err := Challenges(p, out.ReplicaID, out.Seed, out.CommR, 0)
			if err != nil {
				t.Fatal(err)
			}
			for j, ch := range chs {
				if ch != out.VanillaProofs.Partitions[0][j].Challenge() {
					return j, fmt.Sprintf("vanilla_proofs.StackedDrg2KiBV1[0][%d].labeling_proofs[0].node", j)
				}
			}
			t.Fatal("the flipped seed gives the same challenges")
			return 0, ""
		}, "derived for StackedDrg2KiBV1_1 from replica_id and seed", true},
		{"parent column row", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.VanillaProofs.Partitions[0][1].ReplicaColumnProofs.ExpParents[3].Column.Rows[0])
			return 1, pre + "replica_column_proofs.exp_parents[3].column.rows"
		}, "a row is corrupt", true},
		{"c_x column row", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.VanillaProofs.Partitions[0][1].ReplicaColumnProofs.CX.Column.Rows[1])
			return 1, pre + "replica_column_proofs.c_x.column.rows"
		}, "a row is corrupt", true},
		{"data leaf", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.VanillaProofs.Partitions[0][1].CommDProofs.Data.Single.Leaf)
			return 1, pre + "comm_d_proofs.data.Single.leaf"
		}, "the data leaf is corrupt", true},
		{"replica leaf", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.VanillaProofs.Partitions[0][1].CommRLastProof.Data.Single.Leaf)
			return 1, pre + "comm_r_last_proof.data.Single.leaf"
		}, "the replica leaf is corrupt", true},
		{"swapped parent columns", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			ps := out.VanillaProofs.Partitions[0][1].ReplicaColumnProofs.ExpParents
			for a := range ps {
				for b := a + 1; b < len(ps); b++ {
					if ps[a].Column.Index != ps[b].Column.Index {
						ps[a], ps[b] = ps[b], ps[a]
						return 1, fmt.Sprintf("%sreplica_column_proofs.exp_parents[%d].column.index", pre, a)
					}
				}
			}
			t.Fatal("all expander parents are one node")
			return 0, ""
		}, "the column is not the parent's", true},
		{"wrong column index", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			cp := &out.VanillaProofs.Partitions[0][1].ReplicaColumnProofs.DrgParents[4]
			cp.Column.Index = (cp.Column.Index + 1) % uint32(p.Nodes)
			return 1, pre + "replica_column_proofs.drg_parents[4].column.index"
		}, "DRG parent 4 of challenge", false},
		{"another node's c_x", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			prs := out.VanillaProofs.Partitions[0]
			if prs[0].Challenge() == prs[1].Challenge() {
				t.Fatal("both challenges are one node")
			}
			prs[1].ReplicaColumnProofs.CX = prs[0].ReplicaColumnProofs.CX
			return 1, pre + "replica_column_proofs.c_x.column.index"
		}, "but the challenge", false},
		{"encoding_proof parent", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.VanillaProofs.Partitions[0][1].EncodingProof.Parents[7])
			return 1, pre + "encoding_proof.parents[7]"
		}, "must hash the same parents", true},
		{"labeling proof node", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			out.VanillaProofs.Partitions[0][1].LabelingProofs[1].Node++
			return 1, pre + "labeling_proofs[1].node"
		}, "but the challenge", false},
		{"encoding_proof layer", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			out.VanillaProofs.Partitions[0][1].EncodingProof.LayerIndex = 1
			return 1, pre + "encoding_proof.layer_index"
		}, "want 2", false},
		{"two corruptions: the lower challenge is reported", func(t *testing.T, out *c1.Commit1Out) (int, string) {
			flip(&out.VanillaProofs.Partitions[0][1].LabelingProofs[1].Parents[4])
			flip(&out.VanillaProofs.Partitions[0][0].EncodingProof.Parents[0])
			return 0, "vanilla_proofs.StackedDrg2KiBV1[0][0].encoding_proof.parents[0]"
		}, "must hash the same parents", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := vanillaC1(t, name, false)
			j, path := tc.mutate(t, out)
			if err := out.Validate(); (err == nil) != tc.validate {
				t.Fatalf("c1.Validate: %v, want an error: %v", err, !tc.validate)
			}
			for _, w := range []int{1, 4} {
				err := VerifyVanilla(context.Background(), out, VanillaWorkers(w), VanillaGraph(g))
				wantVanillaError(t, err, 0, j, path, tc.msg)
				if w == 1 {
					t.Log(err)
				}
			}
		})
	}
}

// vanillaTamper seals a 2KiB V1_1 sector, changes the label of layer of the
// partition's first challenge and rebuilds tree C and comm_r over the
// changed labels: a C1 whose openings are all consistent, but whose label
// does not follow from its parents, as for a C1 of another replica.
func vanillaTamper(t *testing.T, layer int) *c1.Commit1Out {
	s := vanillaSeal(t, "StackedDrg2KiBV1_1", false)
	p := s.Proof
	chs, err := Challenges(p, s.ReplicaID, vanillaSeed, s.CommR, 0) // interactive: comm_r does not matter
	if err != nil {
		t.Fatal(err)
	}
	s.labels[layer-1][chs[0]][0] ^= 1
	cols := make([]fr.Element, p.Nodes)
	row := make([]fr.Element, p.Layers)
	for v := range cols {
		for l := range row {
			row[l] = mustElement(&s.labels[l][v])
		}
		cols[v] = poseidon.HashColumn(row)
	}
	if s.treeC, err = merkle.BuildPoseidon(cols, merkle.Shape{Base: p.Tree.Base, Sub: p.Tree.Sub, Top: p.Tree.Top}); err != nil {
		t.Fatal(err)
	}
	commC := s.treeC.Root()
	commRLast, _ := fr.LittleEndian.Element(&s.CommRLast)
	fr.LittleEndian.PutElement(&s.CommC, commC)
	fr.LittleEndian.PutElement(&s.CommR, poseidon.Hash2(commC, commRLast))
	out, err := s.Commit1(vanillaSeed)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Validate(); err != nil {
		t.Fatal(err)
	}
	return out
}

// A label that does not follow from its parents, in a C1 consistent with
// its commitments, fails the label recomputation; a last-layer label that
// does not encode the replica fails the encoding.
func TestVerifyVanillaLabelAndEncoding(t *testing.T) {
	const pre = "vanilla_proofs.StackedDrg2KiBV1[0][0]."
	err := VerifyVanilla(context.Background(), vanillaTamper(t, 1))
	wantVanillaError(t, err, 0, 0, pre+"labeling_proofs[0]", "label does not match its parents")
	if !strings.Contains(err.Error(), "produced for another replica; regenerate it with SealCommitPhase1") {
		t.Fatalf("no remedy in %q", err)
	}
	err = VerifyVanilla(context.Background(), vanillaTamper(t, 2))
	wantVanillaError(t, err, 0, 0, pre+"comm_r_last_proof.data.Single.leaf", "is not the encoding of the data node")
}

// With 13 partitions checked in parallel, the lowest failing partition and
// challenge is reported whatever the worker count.
func TestVerifyVanillaDeterministic(t *testing.T) {
	const name = "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"
	for range 5 {
		for _, w := range []int{1, 2, 5, 13, 64} {
			out := vanillaC1(t, name, false)
			parts := out.VanillaProofs.Partitions
			parts[11][0].ReplicaColumnProofs.DrgParents[0].Column.Rows[0][3] ^= 4
			parts[9][0].LabelingProofs[1].Parents[20][2] ^= 1
			parts[4][1].EncodingProof.Parents[36][0] ^= 1
			parts[12][1].CommDProofs.Data.Single.Leaf[0] ^= 1
			err := VerifyVanilla(context.Background(), out, VanillaWorkers(w))
			wantVanillaError(t, err, 4, 1, "vanilla_proofs.StackedDrg2KiBV1[4][1].encoding_proof.parents[36]", "must hash the same parents")

			parts[4][1].EncodingProof.Parents[36][0] ^= 1 // the next one down
			err = VerifyVanilla(context.Background(), out, VanillaWorkers(w))
			wantVanillaError(t, err, 9, 0, "vanilla_proofs.StackedDrg2KiBV1[9][0].labeling_proofs[1].parents[20]", "labeling proof does not hash")
		}
	}
}

// errAfterCtx is a context whose Err reports cancellation after n calls.
type errAfterCtx struct {
	context.Context
	mu sync.Mutex
	n  int
}

func (c *errAfterCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n <= 0 {
		return context.Canceled
	}
	c.n--
	return nil
}

func TestVerifyVanillaContext(t *testing.T) {
	out := vanillaC1(t, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := VerifyVanilla(ctx, out); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled context: %v", err)
	}
	for _, n := range []int{1, 5, 20} { // cancelled during the partitions, then during the challenges
		ctx := &errAfterCtx{Context: context.Background(), n: n}
		if err := VerifyVanilla(ctx, out, VanillaWorkers(2)); !errors.Is(err, context.Canceled) {
			t.Fatalf("context canceled after %d checks: %v", n, err)
		}
	}
}

// The graph decides the parents: one of another porep_id rejects the C1,
// the proof type's own accepts it.
func TestVerifyVanillaGraphOption(t *testing.T) {
	out := vanillaC1(t, "StackedDrg2KiBV1_1", false)
	p, _ := out.ProofType()
	other, err := NewGraph(p.Nodes, abi.MakePoRepID(uint64(p.Proof), 1), p.APIVersion)
	if err != nil {
		t.Fatal(err)
	}
	var ve *VanillaError
	if err := VerifyVanilla(context.Background(), out, VanillaGraph(other)); !errors.As(err, &ve) || !strings.HasSuffix(ve.Path, ".column.index") {
		t.Fatalf("graph of another porep_id: %v", err)
	}
	own, _ := NewGraphFor(p, WithFeistelTable())
	if err := VerifyVanilla(context.Background(), out, VanillaGraph(own)); err != nil {
		t.Fatal(err)
	}
	small, _ := NewGraph(p.Nodes/2, p.PoRepID(), p.APIVersion)
	if err := VerifyVanilla(context.Background(), out, VanillaGraph(small)); err == nil {
		t.Fatal("graph of another size accepted")
	}
}

// A C1 that c1.Validate would reject fails without a panic.
func TestVerifyVanillaMalformed(t *testing.T) {
	for _, mutate := range []func(*c1.Commit1Out){
		func(o *c1.Commit1Out) { o.VanillaProofs.Partitions = o.VanillaProofs.Partitions[:0] },
		func(o *c1.Commit1Out) { o.VanillaProofs.Partitions[0] = o.VanillaProofs.Partitions[0][:1] },
		func(o *c1.Commit1Out) { o.RegisteredProof = "StackedDrg3KiBV1" },
		func(o *c1.Commit1Out) {
			o.VanillaProofs.Partitions[0][0].LabelingProofs = o.VanillaProofs.Partitions[0][0].LabelingProofs[:1]
		},
		func(o *c1.Commit1Out) {
			r := &o.VanillaProofs.Partitions[0][0].ReplicaColumnProofs
			r.DrgParents = r.DrgParents[:5]
		},
		func(o *c1.Commit1Out) {
			c := &o.VanillaProofs.Partitions[0][0].ReplicaColumnProofs.ExpParents[1].Column
			c.Rows = c.Rows[:1]
		},
		func(o *c1.Commit1Out) {
			lp := &o.VanillaProofs.Partitions[0][0].LabelingProofs[1]
			lp.Parents = lp.Parents[:36]
		},
		func(o *c1.Commit1Out) {
			o.VanillaProofs.Partitions[0][0].CommRLastProof.Data.Single.Path.Path[0].Index = 1 << 63
		},
		func(o *c1.Commit1Out) {
			e := &o.VanillaProofs.Partitions[0][0].ReplicaColumnProofs.CX.InclusionProof.Data.Single.Path.Path[1]
			e.Hashes = e.Hashes[:3]
		},
		func(o *c1.Commit1Out) {
			e := &o.VanillaProofs.Partitions[0][0].CommDProofs.Data.Single.Path.Path[2]
			e.Hashes = append(e.Hashes, c1.Domain{})
		},
		func(o *c1.Commit1Out) {
			for i := range o.VanillaProofs.Partitions[0][0].ReplicaColumnProofs.DrgParents[0].Column.Rows[0] {
				o.VanillaProofs.Partitions[0][0].ReplicaColumnProofs.DrgParents[0].Column.Rows[0][i] = 0xff
			}
		},
	} {
		out := vanillaC1(t, "StackedDrg2KiBV1_1", false)
		mutate(out)
		if err := VerifyVanilla(context.Background(), out); err == nil {
			t.Fatal("malformed C1 accepted")
		}
	}
}

var vanillaFakes sync.Map // name → *c1.Commit1Out, read only

func vanillaFakeOnce(tb testing.TB, name string) *c1.Commit1Out {
	if v, ok := vanillaFakes.Load(name); ok {
		return v.(*c1.Commit1Out)
	}
	v, _ := vanillaFakes.LoadOrStore(name, sparseC1(tb, name, 1))
	return v.(*c1.Commit1Out)
}

// Production shapes: 32GiB (Sub proofs, 11 layers, 10×18 challenges) and
// 64GiB (Top proofs) C1s pass, and corruptions of their sub and top levels
// are named.
func TestVerifyVanillaLargeSectors(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 32GiB and 64GiB C1s")
	}
	for _, tc := range []struct{ name, key, variant, level string }{
		{"StackedDrg32GiBV1_1", "StackedDrg32GiBV1", "Sub", "SubProof"},
		{"StackedDrg64GiBV1", "StackedDrg64GiBV1", "Top", "TopProof"},
	} {
		out := vanillaFakeOnce(t, tc.name)
		if err := out.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := VerifyVanilla(context.Background(), out); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		// Corrupt the upper level of an expander parent's tree-C path, in
		// partition 7, challenge 17, and copy back.
		pr := &out.VanillaProofs.Partitions[7][17]
		cp := &pr.ReplicaColumnProofs.ExpParents[6].InclusionProof
		var up *c1.InclusionPath
		if tc.variant == "Sub" {
			up = &cp.Data.Sub.SubProof
		} else {
			up = &cp.Data.Top.TopProof
		}
		h := &up.Path[0].Hashes[0]
		old := *h
		h[0] ^= 1
		err := VerifyVanilla(context.Background(), out)
		*h = old
		wantVanillaError(t, err, 7, 17, fmt.Sprintf("vanilla_proofs.%s[7][17].replica_column_proofs.exp_parents[6].inclusion_proof.data.%s", tc.key, tc.variant), "a sibling is corrupt")

		lp := &pr.LabelingProofs[10].Parents[30]
		lp[1] ^= 1
		err = VerifyVanilla(context.Background(), out)
		lp[1] ^= 1
		// slot 30 of layer 11 is parent 30 mod 14 = 2, a DRG parent, in layer 11
		wantVanillaError(t, err, 7, 17, fmt.Sprintf("vanilla_proofs.%s[7][17].labeling_proofs[10].parents[30]", tc.key), "layer-11 label of DRG parent 2")
		if err := VerifyVanilla(context.Background(), out); err != nil {
			t.Fatalf("%s restored: %v", tc.name, err)
		}
	}
}

func BenchmarkVerifyVanilla(b *testing.B) {
	for _, name := range []string{"StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1", "StackedDrg32GiBV1_1"} {
		var out *c1.Commit1Out
		if strings.Contains(name, "GiB") {
			out = vanillaFakeOnce(b, name)
		} else {
			out = vanillaC1(b, name, false)
		}
		for _, w := range []int{1, 0} {
			b.Run(fmt.Sprintf("%s/workers=%d", name, w), func(b *testing.B) {
				cpu := vanillaCPU()
				for b.Loop() {
					if err := VerifyVanilla(context.Background(), out, VanillaWorkers(w)); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(vanillaCPU()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// vanillaCPU returns the process's user and system CPU time so far, which a
// loaded machine inflates less than wall time.
func vanillaCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The pieces of a challenge check, to extrapolate to sector sizes. Per
// challenge a check hashes 15 columns (HashColumn of Layers rows), up to 16
// tree R and C paths (Hash8 per level), a tree-D path (SHA-256 per level),
// Layers labels (Label) and draws the parents (Parents).
func BenchmarkVanillaPieces(b *testing.B) {
	var in [11]fr.Element
	for i := range in {
		in[i].SetUint64(uint64(i + 1))
	}
	run := func(name string, f func()) {
		b.Run(name, func(b *testing.B) {
			cpu := vanillaCPU()
			for b.Loop() {
				f()
			}
			b.ReportMetric(float64(vanillaCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
	run("Hash8", func() { in[0] = poseidon.Hash8((*[8]fr.Element)(in[:8])) })
	run("HashColumn11", func() { in[0] = poseidon.HashColumn(in[:]) })
	run("HashColumn2", func() { in[0] = poseidon.HashColumn(in[:2]) })
	var buf [64 + 32*37]byte
	run("Label", func() {
		s := sha256.Sum256(buf[:])
		buf[0] = s[0]
	})
	var pair [2]merkle.Node
	run("TreeDLevel", func() { pair[0] = merkle.TrimmedSHA256(pair[0][:], pair[1][:]) })
	p, _ := abi.ParseName("StackedDrg32GiBV1_1")
	g, _ := NewGraphFor(p)
	var ps [14]uint32
	v := uint64(1 << 29)
	run("Parents32GiB", func() {
		g.Parents(v, &ps)
		v++
	})
}

package porep

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/gadgets"
	"github.com/filc2/filc2/proofs/merkle"
	"github.com/filc2/filc2/proofs/poseidon"
)

// VanillaError reports a C1 vanilla proof that fails a check of
// VerifyVanilla: a value that is well formed (c1.Validate accepts it) but
// inconsistent with the sector's commitments, its challenges, its graph or
// the SDR labeling rules.
type VanillaError struct {
	Partition int    // partition k of the failing proof; -1 for a check of the whole file
	Challenge int    // challenge j within the partition; -1 for a check of the whole partition (comm_r, challenge derivation)
	Path      string // JSON path of the offending value, as in c1.ValidationError, such as "vanilla_proofs.StackedDrg2KiBV1[0][1].labeling_proofs[1].parents[4]"
	Msg       string // what is wrong and what to do about it
}

func (e *VanillaError) Error() string { return "porep: " + e.Path + ": " + e.Msg }

// A VanillaOption configures VerifyVanilla.
type VanillaOption func(*vanillaConfig)

type vanillaConfig struct {
	workers int
	graph   *Graph
	gate    *par.Gate
}

// VanillaGate runs each partition's and each challenge's check inside g
// (par.Gate), sharing its threads with whatever else goes through g. The
// result does not depend on it.
func VanillaGate(g *par.Gate) VanillaOption { return func(c *vanillaConfig) { c.gate = g } }

// VanillaWorkers sets how many goroutines VerifyVanilla checks challenges on;
// n ≤ 0 (the default) means GOMAXPROCS. The result does not depend on it.
func VanillaWorkers(n int) VanillaOption { return func(c *vanillaConfig) { c.workers = n } }

// VanillaGraph makes VerifyVanilla take the challenges' parents from g
// instead of NewGraphFor(p): for a chain that pairs porep_id and API version
// differently from the registered network (NewGraph), or to reuse a graph. g
// must have the proof type's node count.
func VanillaGraph(g *Graph) VanillaOption { return func(c *vanillaConfig) { c.graph = g } }

// Endings of messages about damage no honest C1 run produces.
const (
	vanillaCorrupt = "the C1 file is corrupt or was edited; regenerate it with SealCommitPhase1"
	vanillaOther   = "the C1 file is corrupt or was produced for another replica; regenerate it with SealCommitPhase1"
	vanillaInvalid = "the C1 file is malformed (c1.Validate rejects it); validate it before VerifyVanilla"
)

// VerifyVanilla checks the vanilla proofs of a C1 output against the sector's
// commitments, as rust-fil-proofs' StackedDrg::verify_all_partitions does and
// more strictly, so that a C1 output the circuit cannot satisfy fails in
// milliseconds, with the JSON path of the bad value, instead of after
// synthesis. c must have passed c1.Validate, whose structural checks (shapes,
// counts, field ranges, roots shared by all challenges) are not repeated.
//
// Per partition k it checks that comm_r = Poseidon2(comm_c, comm_r_last) for
// the partition's roots (c1.Commit1Out.PartitionRoots) and derives the
// challenges (Challenges). Per challenge j it checks, in this order:
//   - the challenge: labeling_proofs[0].node is challenge j, and every
//     labeling proof and the encoding proof name it and their layer;
//   - the parents: the 6 DRG and 8 expander parent columns are of the graph's
//     parents of the challenge in slot order (NewGraphFor(p), or VanillaGraph),
//     the c_x column of the challenge, and each inclusion proof opens its
//     column's node;
//   - the columns: each of the 15 columns hashes (poseidon.HashColumn) to its
//     inclusion proof's leaf and the leaf and path recompute comm_c;
//   - trees D and R-last and the encoding: the data leaf and tree-D path
//     recompute comm_d (merkle.SHA256Root), the replica leaf and tree-R path
//     recompute comm_r_last, both open the challenge, and the replica node is
//     the last layer's label (c_x's last row) plus the data node mod r;
//   - the labels: in every layer the labeling proof's 37 parents are the
//     parent columns' labels in the expansion layout (layer 1: the DRG
//     parents' labels of layer 1, six times, then the first; later layers: the
//     DRG parents' labels of the layer and the expander parents' of the layer
//     before, twice, then the first nine), and the trimmed SHA-256 of the
//     labeling preimage is c_x's row of the layer;
//   - the encoding proof: its parents are the last labeling proof's.
//
// Partitions and challenges are checked on VanillaWorkers goroutines. The
// error returned is deterministic: that of the lowest partition, a
// partition's own checks before its challenges', then the lowest challenge,
// and in a challenge the first check above that fails, as a *VanillaError.
// If ctx ends first, VerifyVanilla returns ctx's error.
func VerifyVanilla(ctx context.Context, c *c1.Commit1Out, opts ...VanillaOption) error {
	var cfg vanillaConfig
	for _, o := range opts {
		o(&cfg)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := c.ProofType()
	if err != nil {
		return &VanillaError{Partition: -1, Challenge: -1, Path: "registered_proof", Msg: err.Error() + "; " + vanillaInvalid}
	}
	g := cfg.graph
	if g == nil {
		if g, err = NewGraphFor(p); err != nil {
			return err
		}
	} else if g.Nodes() != p.Nodes {
		return fmt.Errorf("porep: VanillaGraph has %d nodes, a %s sector %d", g.Nodes(), p.Name, p.Nodes)
	}
	v := &vanilla{p: p, g: g, c: c, key: "vanilla_proofs." + c.VanillaProofs.Key}
	parts := c.VanillaProofs.Partitions
	if len(parts) != p.Partitions {
		return &VanillaError{Partition: -1, Challenge: -1, Path: v.key,
			Msg: fmt.Sprintf("%d partitions, want %d for %s; %s", len(parts), p.Partitions, p.Name, vanillaInvalid)}
	}
	cpp := p.ChallengesPerPartition
	for k := range parts {
		if len(parts[k]) != cpp {
			return &VanillaError{Partition: k, Challenge: -1, Path: v.key + "[" + strconv.Itoa(k) + "]",
				Msg: fmt.Sprintf("%d challenge proofs, want %d for %s; %s", len(parts[k]), cpp, p.Name, vanillaInvalid)}
		}
	}
	workers := cfg.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}

	// The partitions' own checks, then the challenges of the partitions
	// below the first that failed: a partition's error outranks its
	// challenges'.
	v.parts = make([]vanillaPartition, len(parts))
	gated := func(f func(int) error) func(int) error {
		if cfg.gate == nil {
			return f
		}
		return func(i int) (err error) {
			cfg.gate.Do(func() { err = f(i) })
			return err
		}
	}
	k0, perr := vanillaLowestError(ctx, len(parts), workers, gated(v.partition))
	if err := ctx.Err(); err != nil {
		return err
	}
	_, cerr := vanillaLowestError(ctx, k0*cpp, workers, gated(func(i int) error { return v.challenge(i/cpp, i%cpp) }))
	if cerr != nil {
		return cerr
	}
	return perr
}

// vanillaLowestError runs f(0), …, f(n−1) on up to workers goroutines, in
// increasing order of start, and returns the lowest i whose f fails and its
// error, or n and nil. Calls above a failed one are skipped; the result does
// not depend on scheduling. If ctx ends before all needed calls ran, it
// returns ctx's error.
func vanillaLowestError(ctx context.Context, n, workers int, f func(i int) error) (int, error) {
	if n == 0 {
		return 0, nil
	}
	var (
		next     atomic.Int64
		best     atomic.Int64 // lowest failed index so far, n if none
		mu       sync.Mutex
		bestErr  error
		canceled atomic.Bool
		wg       sync.WaitGroup
	)
	best.Store(int64(n))
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= best.Load() { // also i ≥ n
					return
				}
				if ctx.Err() != nil {
					canceled.Store(true)
					return
				}
				if err := f(int(i)); err != nil {
					mu.Lock()
					if i < best.Load() {
						best.Store(i)
						bestErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if canceled.Load() {
		return n, ctx.Err()
	}
	return int(best.Load()), bestErr
}

// vanilla is one VerifyVanilla run.
type vanilla struct {
	p     abi.SealProof
	g     *Graph
	c     *c1.Commit1Out
	key   string // "vanilla_proofs.<variant>"
	parts []vanillaPartition
	memo  vanillaMemo
}

// vanillaPartition is what the partition checks leave for the challenges'.
type vanillaPartition struct {
	commC, commRLast c1.Domain // the partition's roots, authenticated by comm_r
	challenges       []uint64
}

// partition checks comm_r against partition k's roots and derives its
// challenges.
func (v *vanilla) partition(k int) error {
	c, p := v.c, v.p
	perr := func(path, format string, args ...any) error {
		return &VanillaError{Partition: k, Challenge: -1, Path: path, Msg: fmt.Sprintf(format, args...)}
	}
	commRLast, commC, err := c.PartitionRoots(k)
	if err != nil {
		var ve *c1.ValidationError
		if errors.As(err, &ve) {
			return perr(ve.Path, "%s", ve.Msg)
		}
		return perr(fmt.Sprintf("%s[%d]", v.key, k), "%v; %s", err, vanillaInvalid)
	}
	first := &c.VanillaProofs.Partitions[k][0]
	eC, err := fr.LittleEndian.Element((*[32]byte)(&commC))
	if err != nil {
		return perr(fmt.Sprintf("%s[%d][0].replica_column_proofs.c_x.inclusion_proof.data.%s.root", v.key, k, first.ReplicaColumnProofs.CX.InclusionProof.Variant()),
			"comm_c %s is not a field element; %s", commC, vanillaInvalid)
	}
	eR, err := fr.LittleEndian.Element((*[32]byte)(&commRLast))
	if err != nil {
		return perr(fmt.Sprintf("%s[%d][0].comm_r_last_proof.data.%s.root", v.key, k, first.CommRLastProof.Variant()),
			"comm_r_last %s is not a field element; %s", commRLast, vanillaInvalid)
	}
	var want c1.Domain
	fr.LittleEndian.PutElement((*[32]byte)(&want), poseidon.Hash2(eC, eR))
	if want != c.CommR {
		return perr("comm_r", "%s is not Poseidon2(comm_c, comm_r_last) = %s for partition %d's roots (comm_c %s, the root of its c_x inclusion proofs; "+
			"comm_r_last %s, the root of its comm_r_last_proofs): the comm_r belongs to another sector or the tree openings were edited; "+
			"pass this sector's comm_r (from PreCommit2) and regenerate the C1 file with SealCommitPhase1", c.CommR, want, k, commC, commRLast)
	}
	chs, err := Challenges(p, c.ReplicaID, c.Seed, c.CommR, k)
	if err != nil {
		return perr("comm_r", "deriving the challenges of partition %d: %v", k, err)
	}
	v.parts[k] = vanillaPartition{commC: commC, commRLast: commRLast, challenges: chs}
	return nil
}

// vanillaChallengeInputs names what a proof type's challenges derive from.
func vanillaChallengeInputs(kind abi.ChallengeKind) string {
	switch kind {
	case abi.Synthetic:
		return "replica_id, comm_r and seed"
	case abi.NonInteractive:
		return "replica_id and comm_r"
	}
	return "replica_id and seed"
}

// vanillaCheck is the checking of one challenge proof.
type vanillaCheck struct {
	*vanilla
	k, j   int
	prefix string // "vanilla_proofs.<variant>[k][j]."
}

func (ck *vanillaCheck) errorf(path, format string, args ...any) error {
	return &VanillaError{Partition: ck.k, Challenge: ck.j, Path: ck.prefix + path, Msg: fmt.Sprintf(format, args...)}
}

// vanillaColumn is a parent or challenge column being checked.
type vanillaColumn struct {
	cp   *c1.ColumnProof
	name string // path below the challenge proof, such as "replica_column_proofs.drg_parents[3]"
	what string // for messages, such as "DRG parent 3"
}

// challenge checks challenge proof j of partition k.
func (v *vanilla) challenge(k, j int) error {
	p, c := v.p, v.c
	ck := &vanillaCheck{vanilla: v, k: k, j: j, prefix: fmt.Sprintf("%s[%d][%d].", v.key, k, j)}
	ps := &v.parts[k]
	pr := &c.VanillaProofs.Partitions[k][j]
	rcp := &pr.ReplicaColumnProofs
	layers := p.Layers

	// Guards against what c1.Validate rejects, so that nothing below panics.
	if len(pr.LabelingProofs) != layers {
		return ck.errorf("labeling_proofs", "%d labeling proofs, want %d (one per layer of %s); %s", len(pr.LabelingProofs), layers, p.Name, vanillaInvalid)
	}
	if len(rcp.DrgParents) != abi.BaseDegree || len(rcp.ExpParents) != abi.ExpansionDegree {
		return ck.errorf("replica_column_proofs", "%d DRG and %d expander parent columns, want %d and %d; %s",
			len(rcp.DrgParents), len(rcp.ExpParents), abi.BaseDegree, abi.ExpansionDegree, vanillaInvalid)
	}

	// The challenge, and the node and layer every labeling proof names.
	ch := pr.LabelingProofs[0].Node
	if want := ps.challenges[j]; ch != want {
		return ck.errorf("labeling_proofs[0].node", "%d, but challenge %d of partition %d, derived for %s from %s, is node %d: "+
			"the C1 output was made with another seed or replica_id (or for another proof type), or was edited; "+
			"regenerate it with SealCommitPhase1 and this sector's seed", ch, j, k, p.Name, vanillaChallengeInputs(p.ChallengeKind), want)
	}
	for l := range pr.LabelingProofs {
		lp := &pr.LabelingProofs[l]
		if err := ck.labelingProof(fmt.Sprintf("labeling_proofs[%d]", l), lp.Parents, lp.LayerIndex, lp.Node, l+1, ch); err != nil {
			return err
		}
	}
	e := &pr.EncodingProof
	if err := ck.labelingProof("encoding_proof", e.Parents, e.LayerIndex, e.Node, layers, ch); err != nil {
		return err
	}

	// The parents: the graph's, in slot order; and the openings of the columns.
	var parents [abi.BaseDegree + abi.ExpansionDegree]uint32
	v.g.Parents(ch, &parents)
	var cols [1 + abi.BaseDegree + abi.ExpansionDegree]vanillaColumn
	cols[0] = vanillaColumn{&rcp.CX, "replica_column_proofs.c_x", "the challenge"}
	for i := range rcp.DrgParents {
		cols[1+i] = vanillaColumn{&rcp.DrgParents[i], "replica_column_proofs.drg_parents[" + strconv.Itoa(i) + "]", "DRG parent " + strconv.Itoa(i)}
	}
	for i := range rcp.ExpParents {
		cols[1+abi.BaseDegree+i] = vanillaColumn{&rcp.ExpParents[i], "replica_column_proofs.exp_parents[" + strconv.Itoa(i) + "]", "expander parent " + strconv.Itoa(i)}
	}
	for i := range cols {
		col := &cols[i]
		want := ch
		if i > 0 {
			want = uint64(parents[i-1])
		}
		got := uint64(col.cp.Column.Index)
		if got != want {
			if i == 0 {
				return ck.errorf(col.name+".column.index", "%d, but the challenge (labeling_proofs[0].node) is %d; %s", got, ch, vanillaCorrupt)
			}
			return ck.errorf(col.name+".column.index", "node %d, but %s of challenge %d is node %d (%s graph, parents in slot order): "+
				"the column is not the parent's; %s", got, col.what, ch, want, p.Name, vanillaCorrupt)
		}
		if pi := col.cp.InclusionProof.PathIndex(); pi != got {
			return ck.errorf(col.name+".inclusion_proof", "opens node %d, but its column is node %d; %s", pi, got, vanillaCorrupt)
		}
		if len(col.cp.Column.Rows) != layers {
			return ck.errorf(col.name+".column.rows", "%d rows, want %d; %s", len(col.cp.Column.Rows), layers, vanillaInvalid)
		}
	}

	// The columns: hash to their leaves, which tree C authenticates.
	var key fr.Element // the challenge's last label, the encoding key
	for i := range cols {
		h, err := ck.columnProof(&cols[i], ps.commC)
		if err != nil {
			return err
		}
		if i == 0 {
			key = h
		}
	}

	// Trees D and R-last, and the encoding.
	if err := ck.replica(pr, ch, &key, ps.commRLast); err != nil {
		return err
	}

	// The labels.
	var buf [64 + 32*gadgets.LabelParents]byte
	for l := range pr.LabelingProofs {
		layer := l + 1
		lp := &pr.LabelingProofs[l]
		n := abi.BaseDegree
		if layer > 1 {
			n = abi.BaseDegree + abi.ExpansionDegree
		}
		for i := range lp.Parents {
			q := i % n
			src, row := &cols[1+q], l
			if q >= abi.BaseDegree {
				row = l - 1
			}
			want := &src.cp.Column.Rows[row]
			if lp.Parents[i] != *want {
				return ck.errorf(fmt.Sprintf("labeling_proofs[%d].parents[%d]", l, i),
					"%s, but slot %d of layer %d hashes the layer-%d label of %s (node %d), %s (%s.column.rows[%d]), "+
						"which tree C authenticates: the labeling proof does not hash the challenge's parent columns; %s",
					lp.Parents[i], i, layer, row+1, src.what, src.cp.Column.Index, *want, src.name, row, vanillaCorrupt)
			}
		}
		labelHeader(buf[:], (*[32]byte)(&c.ReplicaID), layer, ch)
		for i := range lp.Parents {
			copy(buf[64+32*i:], lp.Parents[i][:])
		}
		label := c1.Domain(sha256.Sum256(buf[:]))
		label[31] &= 0x3f
		if got := rcp.CX.Column.Rows[l]; label != got {
			return ck.errorf(fmt.Sprintf("labeling_proofs[%d]", l), "label does not match its parents: the trimmed SHA-256 of replica_id, layer %d, node %d and "+
				"these 37 parent labels is %s, but the challenge's label (replica_column_proofs.c_x.column.rows[%d]) is %s; %s",
				layer, ch, label, l, got, vanillaOther)
		}
	}

	// The encoding proof hashes the last layer's parents.
	last := pr.LabelingProofs[layers-1].Parents
	for i := range e.Parents {
		if e.Parents[i] != last[i] {
			return ck.errorf(fmt.Sprintf("encoding_proof.parents[%d]", i), "%s differs from labeling_proofs[%d].parents[%d] %s: the encoding key is the "+
				"last layer's label, so the encoding proof must hash the same parents; %s", e.Parents[i], layers-1, i, last[i], vanillaCorrupt)
		}
	}
	return nil
}

// labelingProof checks the node, layer and parent count of a labeling or
// encoding proof.
func (ck *vanillaCheck) labelingProof(name string, parents []c1.Domain, layer uint32, node uint64, wantLayer int, ch uint64) error {
	switch {
	case node != ch:
		return ck.errorf(name+".node", "%d, but the challenge (labeling_proofs[0].node) is %d; %s", node, ch, vanillaCorrupt)
	case uint64(layer) != uint64(wantLayer):
		return ck.errorf(name+".layer_index", "%d, want %d; %s", layer, wantLayer, vanillaCorrupt)
	case len(parents) != gadgets.LabelParents:
		return ck.errorf(name+".parents", "%d parent labels, want %d; %s", len(parents), gadgets.LabelParents, vanillaInvalid)
	}
	return nil
}

// columnProof checks that a column hashes to its inclusion proof's leaf and that
// the leaf and path recompute comm_c. It returns the column's last row (the
// layer-L label) as a field element. On failure it uses the other of the
// two to tell a bad row, a bad leaf and a bad sibling apart.
func (ck *vanillaCheck) columnProof(col *vanillaColumn, commC c1.Domain) (fr.Element, error) {
	cp := col.cp
	if n := len(cp.Column.Rows); n != 2 && n != 11 {
		return fr.Element{}, ck.errorf(col.name+".column.rows", "%d rows: columns have 2 or 11; %s", n, vanillaInvalid)
	}
	var buf [11]fr.Element
	rows := buf[:len(cp.Column.Rows)]
	for r := range rows {
		var err error
		if rows[r], err = fr.LittleEndian.Element((*[32]byte)(&cp.Column.Rows[r])); err != nil {
			return fr.Element{}, ck.errorf(fmt.Sprintf("%s.column.rows[%d]", col.name, r), "not a field element; %s", vanillaInvalid)
		}
	}
	last := rows[len(rows)-1]
	var hash c1.Domain
	fr.LittleEndian.PutElement((*[32]byte)(&hash), poseidon.HashColumn(rows))

	m := &cp.InclusionProof
	ip := col.name + ".inclusion_proof"
	leaf := m.Leaf()
	root, err := ck.memo.root(leaf, m)
	if err != nil {
		return fr.Element{}, ck.errorf(ip, "%v; %s", err, vanillaInvalid)
	}
	switch {
	case root == commC && hash == leaf:
		return last, nil
	case root == commC:
		return fr.Element{}, ck.errorf(col.name+".column.rows", "the column (%s, node %d) hashes to %s, not to its inclusion proof's leaf %s, "+
			"which tree C (comm_c) authenticates: a row is corrupt; %s", col.what, cp.Column.Index, hash, leaf, vanillaCorrupt)
	case hash == leaf:
		return fr.Element{}, ck.errorf(ip+"."+vanillaSiblings(m), "the leaf, which is the column hash, and this path recompute %s, not comm_c %s: "+
			"a sibling is corrupt; %s", root, commC, vanillaCorrupt)
	}
	if alt, err := ck.memo.root(hash, m); err == nil && alt == commC {
		return fr.Element{}, ck.errorf(ip+".data."+m.Variant()+".leaf", "%s is not the column hash %s, with which the path recomputes comm_c: "+
			"the leaf is corrupt; %s", leaf, hash, vanillaCorrupt)
	}
	return fr.Element{}, ck.errorf(ip, "neither the leaf %s nor the column hash %s recomputes comm_c %s with this path: "+
		"the column proof of %s (node %d) is corrupt; %s", leaf, hash, commC, col.what, cp.Column.Index, vanillaCorrupt)
}

// replica checks the tree-D and tree-R-last openings of the challenge and
// the encoding replica = key + data mod r, where key is the challenge's last
// label (authenticated by tree C). Each of the three relations vouches for
// the leaves of the others, which tells a bad leaf from a bad path.
func (ck *vanillaCheck) replica(pr *c1.Proof, ch uint64, key *fr.Element, commRLast c1.Domain) error {
	c := ck.c
	md, mr := &pr.CommDProofs, &pr.CommRLastProof
	dName, rName := "comm_d_proofs", "comm_r_last_proof"
	if pi := md.PathIndex(); pi != ch {
		return ck.errorf(dName, "opens node %d, but the challenge is %d; %s", pi, ch, vanillaCorrupt)
	}
	if pi := mr.PathIndex(); pi != ch {
		return ck.errorf(rName, "opens node %d, but the challenge is %d; %s", pi, ch, vanillaCorrupt)
	}
	dLeaf, rLeaf := md.Leaf(), mr.Leaf()
	dLeafPath, rLeafPath := dName+".data."+md.Variant()+".leaf", rName+".data."+mr.Variant()+".leaf"
	data, err := fr.LittleEndian.Element((*[32]byte)(&dLeaf))
	if err != nil {
		return ck.errorf(dLeafPath, "not a field element; %s", vanillaInvalid)
	}
	rep, err := fr.LittleEndian.Element((*[32]byte)(&rLeaf))
	if err != nil {
		return ck.errorf(rLeafPath, "not a field element; %s", vanillaInvalid)
	}
	dPath := vanillaPath(md)
	dRoot, err := merkle.SHA256Root(dLeaf, dPath)
	if err != nil {
		return ck.errorf(dName, "%v; %s", err, vanillaInvalid)
	}
	rRoot, err := ck.memo.root(rLeaf, mr)
	if err != nil {
		return ck.errorf(rName, "%v; %s", err, vanillaInvalid)
	}
	var enc fr.Element
	enc.Add(key, &data)
	dOK, rOK, eOK := c1.Domain(dRoot) == c.CommD, rRoot == commRLast, enc.Equal(&rep)
	switch {
	case dOK && rOK && eOK:
		return nil
	case !dOK && eOK && rOK:
		return ck.errorf(dName+"."+vanillaSiblings(md), "the data leaf %s and this path recompute %s, not comm_d %s; the leaf agrees with the replica node "+
			"(tree R-last) and the label (tree C), so a sibling is corrupt; %s", dLeaf, c1.Domain(dRoot), c.CommD, vanillaCorrupt)
	case !dOK && rOK:
		var want fr.Element
		want.Sub(&rep, key)
		var alt c1.Domain
		fr.LittleEndian.PutElement((*[32]byte)(&alt), want)
		if root, err := merkle.SHA256Root(alt, dPath); err == nil && c1.Domain(root) == c.CommD {
			return ck.errorf(dLeafPath, "%s is not the data node %s (the replica node minus the last layer's label), with which the path recomputes "+
				"comm_d: the data leaf is corrupt; %s", dLeaf, alt, vanillaCorrupt)
		}
		fallthrough
	case !dOK:
		return ck.errorf(dName, "the data leaf %s and its path recompute %s, not comm_d %s: the tree-D opening of node %d is corrupt; %s",
			dLeaf, c1.Domain(dRoot), c.CommD, ch, vanillaCorrupt)
	case !rOK && eOK:
		return ck.errorf(rName+"."+vanillaSiblings(mr), "the replica leaf %s and this path recompute %s, not comm_r_last %s; the leaf is the label plus "+
			"the data node, so a sibling is corrupt; %s", rLeaf, rRoot, commRLast, vanillaCorrupt)
	case !rOK:
		var alt c1.Domain
		fr.LittleEndian.PutElement((*[32]byte)(&alt), enc)
		if root, err := ck.memo.root(alt, mr); err == nil && root == commRLast {
			return ck.errorf(rLeafPath, "%s is not the replica node %s (the last layer's label plus the data node), with which the path recomputes "+
				"comm_r_last: the replica leaf is corrupt; %s", rLeaf, alt, vanillaCorrupt)
		}
		return ck.errorf(rName, "the replica leaf %s and its path recompute %s, not comm_r_last %s: the tree-R-last opening of node %d is corrupt; %s",
			rLeaf, rRoot, commRLast, ch, vanillaCorrupt)
	}
	var keyB, sum c1.Domain
	fr.LittleEndian.PutElement((*[32]byte)(&keyB), *key)
	fr.LittleEndian.PutElement((*[32]byte)(&sum), enc)
	return ck.errorf(rLeafPath, "the replica node %s is not the encoding of the data node: the last layer's label %s "+
		"(replica_column_proofs.c_x.column.rows[%d]) plus the data leaf %s is %s mod r, though trees R-last, C and D authenticate all three; %s",
		rLeaf, keyB, ck.p.Layers-1, dLeaf, sum, vanillaOther)
}

// vanillaPath converts a C1 Merkle proof's path for the merkle package.
func vanillaPath(m *c1.MerkleProof) merkle.Path {
	sibs, idx := m.Siblings(), m.Indices()
	n := 0
	for _, s := range sibs {
		n += len(s)
	}
	nodes := make([]merkle.Node, 0, n)
	path := make(merkle.Path, len(sibs))
	for l, s := range sibs {
		lo := len(nodes)
		for i := range s {
			nodes = append(nodes, merkle.Node(s[i]))
		}
		index := -1 // out of range: the merkle package rejects it
		if idx[l] < uint64(len(s))+1 {
			index = int(idx[l])
		}
		path[l] = merkle.Level{Siblings: nodes[lo:len(nodes):len(nodes)], Index: index}
	}
	return path
}

// vanillaMemo computes the Poseidon roots of tree R and C paths, caching
// every node hash by its inputs: the paths of a sector's challenges and
// their parents share their upper levels (and DRG parents, mostly close to
// the challenge, lower ones too), so that about half the hashes of a 32GiB
// C1 are repeats. A hit returns what hashing would, so no check is weakened.
// It is safe for concurrent use.
type vanillaMemo struct {
	shards [64]struct {
		sync.Mutex
		m map[vanillaMemoKey]c1.Domain
	}
}

// vanillaMemoShard bounds a shard (about 45 MB in all when full); beyond it
// hashes are computed, not kept.
const vanillaMemoShard = 2048

// vanillaMemoKey is a node hash's inputs: arity and children.
type vanillaMemoKey struct {
	arity int8
	in    [8]c1.Domain
}

func (mm *vanillaMemo) shard(k *vanillaMemoKey) *struct {
	sync.Mutex
	m map[vanillaMemoKey]c1.Domain
} {
	return &mm.shards[k.in[0][0]%uint8(len(mm.shards))]
}

// root recomputes the root of m from leaf, level by level (base, then sub
// and top): each level hashes its arity children, the current node at its
// index and the siblings in order around it, with Poseidon's MerkleTree
// hash of arity 2 or 8 (what merkle.PoseidonRoot does).
func (mm *vanillaMemo) root(leaf c1.Domain, m *c1.MerkleProof) (c1.Domain, error) {
	cur := leaf
	var in [8]fr.Element
	for l := range m.Len() {
		e := m.Level(l)
		a := len(e.Hashes) + 1
		if (a != 2 && a != 8) || e.Index >= uint64(a) {
			return c1.Domain{}, fmt.Errorf("path level %d has arity %d and index %d: trees R and C have arity 2 or 8", l, a, e.Index)
		}
		key := vanillaMemoKey{arity: int8(a)}
		for c, s := 0, 0; c < a; c++ {
			if uint64(c) == e.Index {
				key.in[c] = cur
				continue
			}
			key.in[c] = e.Hashes[s]
			s++
		}
		sh := mm.shard(&key)
		sh.Lock()
		h, ok := sh.m[key]
		sh.Unlock()
		if ok {
			cur = h
			continue
		}
		for c := range a {
			var err error
			if in[c], err = fr.LittleEndian.Element((*[32]byte)(&key.in[c])); err != nil {
				return c1.Domain{}, fmt.Errorf("path level %d: %s is not a field element", l, key.in[c])
			}
		}
		var out fr.Element
		if a == 2 {
			out = poseidon.Hash2(in[0], in[1])
		} else {
			out = poseidon.Hash8(&in)
		}
		fr.LittleEndian.PutElement((*[32]byte)(&cur), out)
		sh.Lock()
		if sh.m == nil {
			sh.m = make(map[vanillaMemoKey]c1.Domain)
		}
		if len(sh.m) < vanillaMemoShard {
			sh.m[key] = cur
		}
		sh.Unlock()
	}
	return cur, nil
}

// vanillaSiblings is the path below a Merkle proof of its levels: "data.Single.path",
// or "data.Sub" / "data.Top", whose levels are split in base, sub and top paths.
func vanillaSiblings(m *c1.MerkleProof) string {
	v := m.Variant()
	if v == "Single" {
		return "data.Single.path"
	}
	return "data." + v
}

package c1

import (
	"fmt"

	"github.com/filc2/filc2/proofs/abi"
)

// Counts fixed by the StackedDRG construction.
const (
	ColumnParents = abi.BaseDegree + abi.ExpansionDegree // parent columns a challenge opens: DRG, then expander
	LabelParents  = 37                                   // hashed parent labels of a labeling or encoding proof
)

// vanillaKeys are the VanillaSealProof variants.
var vanillaKeys = []string{"StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg512MiBV1", "StackedDrg32GiBV1", "StackedDrg64GiBV1"}

// domainKind says which rule a Domain must obey.
type domainKind uint8

const (
	frValue   domainKind = iota // a Poseidon (Fr) value: below r
	shaDigest                   // a tree-D (SHA-256) value: trimmed to 254 bits
)

// treeShape is the shape of a Merkle path: the ProofData variant and the
// arity of each level, leaf to root.
type treeShape struct {
	variant string // "Single", "Sub" or "Top"
	levels  []int  // arity per level: base levels, then sub, then top
	base    int    // number of base levels
	desc    string // how the tree is built, for messages
}

// treeDShape returns the shape of tree D: one binary SHA-256 tree.
func treeDShape(p abi.SealProof) treeShape {
	n := p.TreeDLevels()
	s := treeShape{variant: "Single", base: n, desc: fmt.Sprintf("tree D of %s is a binary tree of 2^%d leaves", p.Name, n)}
	for range n {
		s.levels = append(s.levels, 2)
	}
	return s
}

// treeRShape returns the shape of trees R and C: 1, Sub or Sub·Top base
// trees of arity Base, joined by a sub and a top level.
func treeRShape(p abi.SealProof) (treeShape, error) {
	t := p.Tree
	count, variant := 1, "Single"
	if t.Sub > 0 {
		count, variant = t.Sub, "Sub"
	}
	if t.Top > 0 {
		if t.Sub == 0 {
			return treeShape{}, fmt.Errorf("c1: %s has a top level without a sub level", p.Name)
		}
		count, variant = t.Sub*t.Top, "Top"
	}
	leaves := p.Nodes / uint64(count)
	var s treeShape
	for l := leaves; l > 1; l /= uint64(t.Base) {
		if t.Base < 2 || l%uint64(t.Base) != 0 {
			return treeShape{}, fmt.Errorf("c1: %s: %d nodes per base tree is not a power of %d", p.Name, leaves, t.Base)
		}
		s.levels = append(s.levels, t.Base)
	}
	s.base = len(s.levels)
	if t.Sub > 0 {
		s.levels = append(s.levels, t.Sub)
	}
	if t.Top > 0 {
		s.levels = append(s.levels, t.Top)
	}
	if len(s.levels) != p.TreeRLevels() {
		return treeShape{}, fmt.Errorf("c1: %s: %d tree R levels, abi says %d", p.Name, len(s.levels), p.TreeRLevels())
	}
	s.variant = variant
	s.desc = fmt.Sprintf("trees R and C of %s are %d base trees of %d leaves (arity %d)", p.Name, count, leaves, t.Base)
	if t.Sub > 0 {
		s.desc += fmt.Sprintf(" under a sub level of arity %d", t.Sub)
	}
	if t.Top > 0 {
		s.desc += fmt.Sprintf(" and a top level of arity %d", t.Top)
	}
	return s, nil
}

// corrupt ends messages about damage that no honest C1 run produces.
const corrupt = "the C1 file is corrupt or was edited; re-run C1 for this sector"

// Validate checks c against the rules of its proof type listed in the
// package documentation and returns the first violation as a *ValidationError.
func (c *Commit1Out) Validate() error {
	v := validator{}
	p, err := abi.ParseName(c.RegisteredProof)
	if err != nil || p.Name != c.RegisteredProof {
		return &ValidationError{Path: "registered_proof", Msg: fmt.Sprintf(
			"unknown proof type %q: want StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}{V1,V1_1,V1_1_Feat_SyntheticPoRep,V1_2_Feat_NonInteractivePoRep}", c.RegisteredProof)}
	}
	v.p = p
	if v.treeR, err = treeRShape(p); err != nil {
		return err
	}
	v.treeD = treeDShape(p)

	if err := v.scalars(c); err != nil {
		return err
	}
	key := c.VanillaProofs.Key
	v.path.key("vanilla_proofs")
	if key != p.VanillaKey() {
		known := false
		for _, k := range vanillaKeys {
			known = known || k == key
		}
		if known {
			return v.errorf("variant %s does not belong to registered_proof %s, whose vanilla proofs are %s: the file mixes two proof types; %s",
				key, p.Name, p.VanillaKey(), corrupt)
		}
		return v.errorf("unknown variant %q: want %s for %s", key, p.VanillaKey(), p.Name)
	}
	v.path.key(key)
	parts := c.VanillaProofs.Partitions
	if len(parts) != p.Partitions {
		return v.errorf("%s, want %d for %s: the C1 output is truncated or was made for another proof type; re-run C1",
			plural(len(parts), "partition"), p.Partitions, p.Name)
	}
	for k, part := range parts {
		v.path.idx(k)
		if len(part) != p.ChallengesPerPartition {
			return v.errorf("%s, want %d per partition for %s: the C1 output is truncated or was made for another proof type; re-run C1",
				plural(len(part), "challenge proof"), p.ChallengesPerPartition, p.Name)
		}
		for j := range part {
			v.path.idx(j)
			if err := v.proof(c, &part[j], &part[0], &parts[0][0], k, j); err != nil {
				return err
			}
			v.path.pop()
		}
		v.path.pop()
	}
	return nil
}

// validator walks a Commit1Out, keeping the JSON path for messages.
type validator struct {
	p            abi.SealProof
	treeR, treeD treeShape
	path         jsonPath
}

// errorf returns a *ValidationError at the current path.
func (v *validator) errorf(format string, args ...any) error {
	return &ValidationError{Path: v.path.String(), Msg: fmt.Sprintf(format, args...)}
}

// scalars checks the top-level 32-byte fields.
func (v *validator) scalars(c *Commit1Out) error {
	for _, f := range []struct {
		name    string
		d       Domain
		nonzero string // message when it must not be zero
		fr      bool
	}{
		{"comm_r", c.CommR, "C2 rejects a zero comm_r: pass the comm_r of PreCommit2", true},
		{"comm_d", c.CommD, "C2 rejects a zero comm_d: pass the comm_d of PreCommit2", true},
		{"replica_id", c.ReplicaID, "", true},
		{"seed", c.Seed, "C2 rejects a zero seed: run C1 with the interactive seed (the chain randomness of the commit epoch; NI-PoRep ignores it, but it must still be nonzero)", false},
	} {
		v.path.key(f.name)
		if f.nonzero != "" && f.d.IsZero() {
			return v.errorf("all zero: %s", f.nonzero)
		}
		if f.fr && !f.d.IsFieldElement() {
			return v.errorf("%s is not below the BLS12-381 scalar modulus r, so it is no field element (C2 requires %s < r); %s", f.d, f.name, corrupt)
		}
		v.path.pop()
	}
	return nil
}

// domain checks one Domain of the given kind, at the current path.
func (v *validator) domain(d *Domain, kind domainKind) error {
	switch {
	case kind == frValue && !d.IsFieldElement():
		return v.errorf("%s is not below the BLS12-381 scalar modulus r, so it is no Poseidon field element; %s", d, corrupt)
	case kind == shaDigest && !d.IsTrimmed():
		return v.errorf("byte 31 is 0x%02x, but tree-D (SHA-256) values are trimmed to 254 bits (byte 31 < 0x40); %s", d[31], corrupt)
	}
	return nil
}

// keyed checks one Domain of the given kind under key.
func (v *validator) keyed(d *Domain, kind domainKind, key string) error {
	v.path.key(key)
	if err := v.domain(d, kind); err != nil {
		return err
	}
	v.path.pop()
	return nil
}

// domains checks a list of want Domains of the given kind under key.
func (v *validator) domains(ds []Domain, want int, kind domainKind, key, what string) error {
	v.path.key(key)
	if len(ds) != want {
		return v.errorf("%s, want %d; %s", plural(len(ds), what), want, corrupt)
	}
	for i := range ds {
		v.path.idx(i)
		if err := v.domain(&ds[i], kind); err != nil {
			return err
		}
		v.path.pop()
	}
	v.path.pop()
	return nil
}

// merkle checks a Merkle proof's shape and values, and that it opens node
// want. It returns the proof's root.
func (v *validator) merkle(m *MerkleProof, s *treeShape, kind domainKind, want uint64, key string) (Domain, error) {
	v.path.key(key)
	d := &m.Data
	v.path.key("data")
	variant, n := d.variant()
	if n != 1 {
		return Domain{}, v.errorf("%d ProofData variants set, want exactly one (%s)", n, s.variant)
	}
	if variant != s.variant {
		return Domain{}, v.errorf("a %s proof, want %s: %s; %s", variant, s.variant, s.desc, corrupt)
	}
	v.path.key(variant)
	pp := d.parts()
	levels := s.levels
	for i, ip := range pp.list() {
		var want []int
		switch {
		case i == 0:
			want = levels[:s.base]
		default:
			want = levels[s.base+i-1 : s.base+i]
		}
		v.path.key(pp.keys[i])
		if err := v.inclusionPath(ip, want, kind, s.desc); err != nil {
			return Domain{}, err
		}
		v.path.pop()
	}
	if err := v.keyed(pp.root, kind, "root"); err != nil {
		return Domain{}, err
	}
	if err := v.keyed(pp.leaf, kind, "leaf"); err != nil {
		return Domain{}, err
	}
	v.path = v.path[:len(v.path)-2] // variant, data
	if got := m.PathIndex(); got != want {
		return Domain{}, v.errorf("opens node %d, want node %d; %s", got, want, corrupt)
	}
	v.path.pop()
	return *pp.root, nil
}

// inclusionPath checks one InclusionPath against the arities of its levels.
func (v *validator) inclusionPath(ip *InclusionPath, arities []int, kind domainKind, desc string) error {
	v.path.key("path")
	if len(ip.Path) != len(arities) {
		return v.errorf("%s, want %d: %s; %s", plural(len(ip.Path), "level"), len(arities), desc, corrupt)
	}
	for l := range ip.Path {
		e := &ip.Path[l]
		a := arities[l]
		v.path.idx(l)
		if e.Index >= uint64(a) {
			v.path.key("index")
			return v.errorf("%d, want 0-%d at a level of arity %d; %s", e.Index, a-1, a, corrupt)
		}
		if len(e.Hashes) != a-1 {
			v.path.key("hashes")
			return v.errorf("%s, want %d at a level of arity %d; %s", plural(len(e.Hashes), "sibling"), a-1, a, corrupt)
		}
		if err := v.domains(e.Hashes, a-1, kind, "hashes", "sibling"); err != nil {
			return err
		}
		v.path.pop()
	}
	v.path.pop()
	return nil
}

// column checks a column proof, at the current path: layers rows, opened
// in tree C at its index.
func (v *validator) column(cp *ColumnProof) (Domain, error) {
	v.path.key("column")
	if err := v.domains(cp.Column.Rows, v.p.Layers, frValue, "rows", "row"); err != nil {
		return Domain{}, err
	}
	v.path.pop()
	return v.merkle(&cp.InclusionProof, &v.treeR, frValue, uint64(cp.Column.Index), "inclusion_proof")
}

// proof checks challenge proof j of partition k. first is the partition's
// first proof and sector the sector's first, whose roots all must share.
func (v *validator) proof(c *Commit1Out, pr, first, sector *Proof, k, j int) error {
	p := v.p
	if len(pr.LabelingProofs) == 0 {
		v.path.key("labeling_proofs")
		return v.errorf("empty, want %d (one per layer); %s", p.Layers, corrupt)
	}
	challenge := pr.LabelingProofs[0].Node
	if challenge == 0 || challenge >= p.Nodes {
		v.at("labeling_proofs")
		v.path.idx(0)
		v.at("node")
		return v.errorf("challenge %d is outside 1..%d, the nodes of a %s sector other than node 0; %s", challenge, p.Nodes-1, p.Name, corrupt)
	}

	// comm_d_proofs: tree D, rooted at comm_d.
	root, err := v.merkle(&pr.CommDProofs, &v.treeD, shaDigest, challenge, "comm_d_proofs")
	if err != nil {
		return err
	}
	if root != c.CommD {
		v.at("comm_d_proofs", "data", v.treeD.variant, "root")
		return v.errorf("%s differs from comm_d %s: the proof does not open this sector's data; %s", root, c.CommD, corrupt)
	}

	// comm_r_last_proof: tree R-last, one root per sector.
	root, err = v.merkle(&pr.CommRLastProof, &v.treeR, frValue, challenge, "comm_r_last_proof")
	if err != nil {
		return err
	}
	if err := v.sameRoot(root, first.CommRLastProof.Root(), sector.CommRLastProof.Root(), k, j, "comm_r_last_proof", "comm_r_last", "tree R-last"); err != nil {
		return err
	}

	// replica_column_proofs: tree C, one root per sector.
	v.path.key("replica_column_proofs")
	r := &pr.ReplicaColumnProofs
	v.path.key("c_x")
	if uint64(r.CX.Column.Index) != challenge {
		v.path.key("column")
		v.path.key("index")
		return v.errorf("%d, but the challenge (labeling_proofs[0].node) is %d; %s", r.CX.Column.Index, challenge, corrupt)
	}
	commC, err := v.column(&r.CX)
	if err != nil {
		return err
	}
	firstC, sectorC := first.ReplicaColumnProofs.CX.InclusionProof.Root(), sector.ReplicaColumnProofs.CX.InclusionProof.Root()
	if err := v.sameRoot(commC, firstC, sectorC, k, j, "inclusion_proof", "comm_c", "tree C"); err != nil {
		return err
	}
	v.path.pop()
	for _, g := range []struct {
		key  string
		cols []ColumnProof
		want int
	}{{"drg_parents", r.DrgParents, abi.BaseDegree}, {"exp_parents", r.ExpParents, abi.ExpansionDegree}} {
		v.path.key(g.key)
		if len(g.cols) != g.want {
			return v.errorf("%s, want %d; %s", plural(len(g.cols), "parent column"), g.want, corrupt)
		}
		for i := range g.cols {
			v.path.idx(i)
			root, err := v.column(&g.cols[i])
			if err != nil {
				return err
			}
			if root != commC {
				v.at("inclusion_proof", "data", v.treeR.variant, "root")
				return v.errorf("root %s differs from the c_x root %s: every column of a challenge opens tree C (comm_c); %s", root, commC, corrupt)
			}
			v.path.pop()
		}
		v.path.pop()
	}
	v.path.pop()

	// labeling_proofs and encoding_proof.
	v.path.key("labeling_proofs")
	if len(pr.LabelingProofs) != p.Layers {
		return v.errorf("%s, want %d (one per layer of %s); %s", plural(len(pr.LabelingProofs), "labeling proof"), p.Layers, p.Name, corrupt)
	}
	for l := range pr.LabelingProofs {
		lp := &pr.LabelingProofs[l]
		v.path.idx(l)
		if err := v.label(lp.Parents, lp.LayerIndex, lp.Node, uint32(l+1), challenge); err != nil {
			return err
		}
		v.path.pop()
	}
	v.path.pop()
	v.path.key("encoding_proof")
	e := &pr.EncodingProof
	if err := v.label(e.Parents, e.LayerIndex, e.Node, uint32(p.Layers), challenge); err != nil {
		return err
	}
	v.path.pop()
	return nil
}

// label checks a labeling or encoding proof.
func (v *validator) label(parents []Domain, layer uint32, node uint64, wantLayer uint32, challenge uint64) error {
	if err := v.domains(parents, LabelParents, frValue, "parents", "parent label"); err != nil {
		return err
	}
	if layer != wantLayer {
		v.path.key("layer_index")
		return v.errorf("%d, want %d; %s", layer, wantLayer, corrupt)
	}
	if node != challenge {
		v.path.key("node")
		return v.errorf("%d, but the challenge (labeling_proofs[0].node) is %d; %s", node, challenge, corrupt)
	}
	return nil
}

// sameRoot checks that challenge j of partition k has the root of its
// partition's first proof, and a partition's first proof the sector's.
func (v *validator) sameRoot(root, first, sector Domain, k, j int, key, name, tree string) error {
	v.at(key, "data", v.treeR.variant, "root")
	defer func() { v.path = v.path[:len(v.path)-4] }()
	switch {
	case j > 0 && root != first:
		return v.errorf("root %s differs from %s %s of the partition's first proof: every challenge of a partition opens the same %s (rust-fil-proofs: inconsistent %ss); %s",
			root, name, first, tree, name, corrupt)
	case j == 0 && k > 0 && root != sector:
		return v.errorf("root %s differs from partition 0's %s %s: all partitions of a sector open the same %s; %s", root, name, sector, tree, corrupt)
	}
	return nil
}

// at pushes keys on the path.
func (v *validator) at(keys ...string) {
	for _, k := range keys {
		v.path.key(k)
	}
}

// plural writes "1 row" or "n rows".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

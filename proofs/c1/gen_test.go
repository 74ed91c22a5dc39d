package c1

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
)

// gen builds valid Commit1Out values of a proof type from a seeded RNG. The
// values are random but obey every rule of Validate; nothing is hashed.
type gen struct {
	p         abi.SealProof
	rng       *rand.Rand
	base      int   // base levels of trees R and C
	upper     []int // arities of the sub and top levels
	commRLast Domain
	commC     Domain
	commD     Domain
}

func newGen(tb testing.TB, name string, seed uint64) *gen {
	p, err := abi.ParseName(name)
	if err != nil {
		panic(err)
	}
	g := &gen{p: p, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	for _, a := range []int{p.Tree.Sub, p.Tree.Top} {
		if a > 0 {
			g.upper = append(g.upper, a)
		}
	}
	g.base = p.TreeRLevels() - len(g.upper)
	g.commRLast, g.commC, g.commD = g.fr(), g.fr(), g.sha()
	return g
}

// fr returns a random field element (top byte below r's 0x73).
func (g *gen) fr() Domain {
	var d Domain
	for i := 0; i < 32; i += 8 {
		v := g.rng.Uint64()
		for j := range 8 {
			d[i+j] = byte(v >> (8 * j))
		}
	}
	d[31] %= 0x73
	return d
}

// sha returns a random trimmed SHA-256 value.
func (g *gen) sha() Domain {
	d := g.fr()
	d[31] &= 0x3f
	return d
}

func (g *gen) frs(n int) []Domain {
	out := make([]Domain, n)
	for i := range out {
		out[i] = g.fr()
	}
	return out
}

// path returns a path opening leaf through levels of the given arities.
func (g *gen) path(leaf uint64, arities []int, mk func() Domain) (InclusionPath, uint64) {
	var ip InclusionPath
	for _, a := range arities {
		e := PathElement{Index: leaf % uint64(a)}
		leaf /= uint64(a)
		for range a - 1 {
			e.Hashes = append(e.Hashes, mk())
		}
		ip.Path = append(ip.Path, e)
	}
	return ip, leaf
}

func repeat(a, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = a
	}
	return out
}

// treeD returns a tree-D proof of node.
func (g *gen) treeD(node uint64) MerkleProof {
	ip, _ := g.path(node, repeat(2, g.p.TreeDLevels()), g.sha)
	return MerkleProof{Data: ProofData{Single: &SingleProof{Root: g.commD, Leaf: g.sha(), Path: ip}}}
}

// treeR returns a tree-R or tree-C proof of node with the given root.
func (g *gen) treeR(node uint64, root Domain) MerkleProof {
	base, rest := g.path(node, repeat(g.p.Tree.Base, g.base), g.fr)
	var up []InclusionPath
	for _, a := range g.upper {
		var ip InclusionPath
		ip, rest = g.path(rest, []int{a}, g.fr)
		up = append(up, ip)
	}
	leaf := g.fr()
	switch len(up) {
	case 0:
		return MerkleProof{Data: ProofData{Single: &SingleProof{Root: root, Leaf: leaf, Path: base}}}
	case 1:
		return MerkleProof{Data: ProofData{Sub: &SubProof{BaseProof: base, SubProof: up[0], Root: root, Leaf: leaf}}}
	}
	return MerkleProof{Data: ProofData{Top: &TopProof{BaseProof: base, SubProof: up[0], TopProof: up[1], Root: root, Leaf: leaf}}}
}

func (g *gen) column(node uint64) ColumnProof {
	return ColumnProof{Column: Column{Index: uint32(node), Rows: g.frs(g.p.Layers)}, InclusionProof: g.treeR(node, g.commC)}
}

// proof returns a challenge proof.
func (g *gen) proof() Proof {
	p := g.p
	node := 1 + g.rng.Uint64N(p.Nodes-1)
	pr := Proof{
		CommDProofs:    g.treeD(node),
		CommRLastProof: g.treeR(node, g.commRLast),
	}
	pr.ReplicaColumnProofs.CX = g.column(node)
	for range abi.BaseDegree {
		pr.ReplicaColumnProofs.DrgParents = append(pr.ReplicaColumnProofs.DrgParents, g.column(g.rng.Uint64N(node)))
	}
	for range abi.ExpansionDegree {
		pr.ReplicaColumnProofs.ExpParents = append(pr.ReplicaColumnProofs.ExpParents, g.column(g.rng.Uint64N(p.Nodes)))
	}
	for l := range p.Layers {
		pr.LabelingProofs = append(pr.LabelingProofs, LabelingProof{Parents: g.frs(LabelParents), LayerIndex: uint32(l + 1), Node: node})
	}
	last := pr.LabelingProofs[p.Layers-1]
	pr.EncodingProof = EncodingProof{Parents: append([]Domain(nil), last.Parents...), LayerIndex: uint32(p.Layers), Node: node}
	return pr
}

// commit1Out returns a Commit1Out with parts partitions of chals proofs
// each; the proof type's own counts make it valid.
func (g *gen) commit1Out(parts, chals int) *Commit1Out {
	c := &Commit1Out{
		RegisteredProof: g.p.Name,
		VanillaProofs:   VanillaProofs{Key: g.p.VanillaKey()},
		CommR:           g.fr(),
		CommD:           g.commD,
		ReplicaID:       g.sha(),
		Seed:            g.fr(),
		Ticket:          g.fr(),
	}
	for range parts {
		var part []Proof
		for range chals {
			part = append(part, g.proof())
		}
		c.VanillaProofs.Partitions = append(c.VanillaProofs.Partitions, part)
	}
	return c
}

// valid returns a valid Commit1Out of the named proof type.
func valid(tb testing.TB, name string, seed uint64) *Commit1Out {
	g := newGen(tb, name, seed)
	return g.commit1Out(g.p.Partitions, g.p.ChallengesPerPartition)
}

// fixture32 is an encoded, valid 32GiB-shaped C1 file, built once.
var fixture32 = sync.OnceValues(func() (*Commit1Out, []byte) {
	c := valid(nil, "StackedDrg32GiBV1_1", 32)
	b, err := Encode(c)
	if err != nil {
		panic(err)
	}
	return c, b
})

// mustEncode encodes c or fails the test.
func mustEncode(tb testing.TB, c *Commit1Out) []byte {
	tb.Helper()
	b, err := Encode(c)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

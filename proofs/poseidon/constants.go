package poseidon

import (
	"fmt"
	"slices"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// FullRounds is RF, the number of full rounds at Strength::Standard (4 before
// and 4 after the partial rounds).
const FullRounds = 8

// maxWidth is the largest supported width (arity 36).
const maxWidth = 37

// partialRounds returns RP for the width t = arity + 1 of a supported arity,
// at Strength::Standard (neptune round_numbers.rs, security margin included).
func partialRounds(t int) (int, bool) {
	switch t {
	case 3:
		return 55, true
	case 5:
		return 56, true
	case 9, 12:
		return 57, true
	case 17, 25:
		return 59, true
	case 37:
		return 60, true
	}
	return 0, false
}

// Arities returns the supported arities in increasing order: 2, 4, 8, 11, 16, 24, 36.
func Arities() []int { return []int{2, 4, 8, 11, 16, 24, 36} }

// Constants are the parameters of Poseidon at one arity: the Grain round
// constants, the MDS matrix and the compressed constants and sparse matrices of
// the optimised form. They are built once per arity by ConstantsFor and are
// read-only; one value serves any number of goroutines.
type Constants struct {
	arity, width int
	rp           int
	rc           []fr.Element // Grain constants, (RF+RP)·t, row-major by round
	crc          []fr.Element // compressed round constants, RF·t + RP
	mds          matrix
	mdsInv       matrix
	preSparse    matrix
	sparse       []sparseMatrix
	merkleTag    fr.Element

	// Hashing tables, laid out for the inner loops: mixM and mixPre hold the
	// transposes of M and pre_sparse (row j = the column that yields new[j]);
	// mixSparse holds each partial round's w_hat then v_rest.
	mixM, mixPre, mixSparse []fr.Element

	gadgetOnce sync.Once
	gadget     *gadgetShape // the MerkleTree tag's template
	tagShapes  sync.Map     // fr.Element (another tag) → *gadgetShape
	runs       sync.Pool    // *gadgetRun, the gadget's scratch
}

// constantsCache builds each arity's Constants on first use.
var constantsCache = func() map[int]func() (*Constants, error) {
	m := make(map[int]func() (*Constants, error))
	for _, a := range Arities() {
		rp, _ := partialRounds(a + 1)
		m[a] = sync.OnceValues(func() (*Constants, error) { return newConstants(a, rp) })
	}
	return m
}()

// ConstantsFor returns the Strength::Standard constants of the given arity,
// computing them on the first call for that arity.
func ConstantsFor(arity int) (*Constants, error) {
	build, ok := constantsCache[arity]
	if !ok {
		return nil, fmt.Errorf("poseidon: unsupported arity %d (have %v)", arity, Arities())
	}
	return build()
}

// mustConstants is ConstantsFor for the arities the package's own helpers use.
func mustConstants(arity int) *Constants {
	c, err := ConstantsFor(arity)
	if err != nil {
		panic(err)
	}
	return c
}

func newConstants(arity, rp int) (*Constants, error) {
	t := arity + 1
	c := &Constants{arity: arity, width: t, rp: rp}
	c.rc = grainRoundConstants(t, FullRounds, rp)
	c.mds = cauchyMDS(t)
	var err error
	if c.mdsInv, err = c.mds.inverse(); err != nil {
		return nil, err
	}
	c.crc = compressRoundConstants(t, FullRounds, rp, c.rc, c.mdsInv)
	if c.preSparse, c.sparse, err = factorSparse(c.mds, rp); err != nil {
		return nil, err
	}
	c.merkleTag.SetUint64(1<<uint(arity) - 1)

	c.mixM = c.mds.transpose().a
	c.mixPre = c.preSparse.transpose().a
	c.mixSparse = make([]fr.Element, 0, rp*(2*t-1))
	for _, s := range c.sparse {
		c.mixSparse = append(c.mixSparse, s.wHat...)
		c.mixSparse = append(c.mixSparse, s.vRest...)
	}
	return c, nil
}

// Arity is the number of inputs of one hash.
func (c *Constants) Arity() int { return c.arity }

// Width is the permutation width t = arity + 1.
func (c *Constants) Width() int { return c.width }

// PartialRounds is RP.
func (c *Constants) PartialRounds() int { return c.rp }

// MerkleTreeTag is the HashType::MerkleTree domain tag, 2^arity − 1.
func (c *Constants) MerkleTreeTag() fr.Element { return c.merkleTag }

// CustomTag is the HashType::Custom(CType::Arbitrary(id)) domain tag,
// id·2^40, for id in [1, 256]; it does not depend on the arity. SnapDeals
// derives its randomness (phi, rho, the challenge digests) with id 1.
func CustomTag(id uint64) (fr.Element, error) {
	if id < 1 || id > 256 {
		return fr.Element{}, fmt.Errorf("poseidon: custom domain tag id %d: want 1 … 256", id)
	}
	var tag, two40 fr.Element
	tag.SetUint64(id)
	two40.SetUint64(1 << 40)
	return *tag.Mul(&tag, &two40), nil
}

// ConstantLengthTag is the HashType::ConstantLength(n) domain tag, n·2^64; it
// does not depend on the arity.
func ConstantLengthTag(n int) fr.Element {
	var tag fr.Element
	tag.SetUint64(uint64(n))
	var two64 fr.Element
	two64.SetUint64(1 << 32)
	two64.Square(&two64)
	return *tag.Mul(&tag, &two64)
}

// RoundConstants returns a copy of the (RF + RP)·t Grain round constants,
// row-major by round, as the plain permutation adds them.
func (c *Constants) RoundConstants() []fr.Element { return slices.Clone(c.rc) }

// CompressedRoundConstants returns a copy of the RF·t + RP compressed round
// constants the optimised permutation and the gadget consume (spec §5.2).
func (c *Constants) CompressedRoundConstants() []fr.Element { return slices.Clone(c.crc) }

// SupraSealTables returns the optimised form's tables in supraseal's layout:
// the compressed round constants (RF·t + RP), M (t², row-major), pre_sparse (t²,
// row-major), then for each partial round w_hat (t) and v_rest (t − 1).
func (c *Constants) SupraSealTables() []fr.Element {
	t := c.width
	out := make([]fr.Element, 0, len(c.crc)+2*t*t+len(c.mixSparse))
	out = append(out, c.crc...)
	out = append(out, c.mds.a...)
	out = append(out, c.preSparse.a...)
	return append(out, c.mixSparse...)
}

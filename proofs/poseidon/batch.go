package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/utils/cpu"
)

// Batch computes many MerkleTree hashes of one arity together: the state is
// held element by element as vectors across the hashes, so that the
// permutation's field products run on gnark-crypto's vector kernels (AVX-512
// IFMA, about twice the throughput of one product at a time). On a CPU
// without them it hashes one input at a time. A Batch is not safe for
// concurrent use; make one per goroutine and reuse it.
type Batch struct {
	c      *Constants
	n      int
	vector bool // the vector form (false: Hash per input)
	in     []fr.Element

	bufS, bufT [maxWidth]fr.Vector // the state and the next one, n long
	bufP       fr.Vector
	s, tmp     [maxWidth]fr.Vector // the first m elements of bufS, bufT (swapped by mulDense)
	prod       fr.Vector
}

// NewBatch returns a Batch of n hashes with c's arity.
func NewBatch(c *Constants, n int) *Batch {
	return newBatch(c, n, cpu.SupportAVX512IFMA)
}

func newBatch(c *Constants, n int, vector bool) *Batch {
	if n < 1 {
		panic(fmt.Sprintf("poseidon: a batch of %d hashes", n))
	}
	b := &Batch{c: c, n: n, vector: vector, in: make([]fr.Element, n*c.arity)}
	if vector {
		for i := range c.width {
			b.bufS[i] = make(fr.Vector, n)
			b.bufT[i] = make(fr.Vector, n)
		}
		b.bufP = make(fr.Vector, n)
	}
	return b
}

// Arity is the number of inputs of each hash.
func (b *Batch) Arity() int { return b.c.arity }

// Len is the number of hashes a Batch computes.
func (b *Batch) Len() int { return b.n }

// Input returns the inputs of hash i (Arity elements) for the caller to fill.
func (b *Batch) Input(i int) []fr.Element {
	a := b.c.arity
	return b.in[i*a : (i+1)*a : (i+1)*a]
}

// Hash sets out[i] to Hash of Input(i) for every i < len(out) ≤ Len: the
// first len(out) inputs are hashed.
func (b *Batch) Hash(out []fr.Element) {
	if len(out) > b.n {
		panic(fmt.Sprintf("poseidon: %d outputs for a batch of %d", len(out), b.n))
	}
	if !b.vector {
		for i := range out {
			out[i] = Hash(b.c, b.Input(i))
		}
		return
	}
	c, t, n := b.c, b.c.width, len(out)
	for i := range t {
		b.s[i], b.tmp[i] = b.bufS[i][:n], b.bufT[i][:n]
	}
	b.prod = b.bufP[:n]
	s := b.s[:t]
	for k := range n {
		s[0][k] = c.merkleTag
	}
	for i := 1; i < t; i++ {
		si := s[i]
		for k := range n {
			si[k] = b.in[k*c.arity+i-1]
		}
	}
	b.permute()
	b.dot(out, c.mixM[t:2*t])
}

// permute is Constants.permute on the vectors.
func (b *Batch) permute() {
	c, t, h := b.c, b.c.width, FullRounds/2
	crc := c.crc
	for i := range t {
		addConst(b.s[i], &crc[i])
	}
	k := t
	for r := range h {
		b.fullRound(crc[k : k+t])
		k += t
		if r == h-1 {
			b.mulDense(c.mixPre)
		} else {
			b.mulDense(c.mixM)
		}
	}
	stride := 2*t - 1
	for p := range c.rp {
		b.sbox(b.s[0])
		addConst(b.s[0], &crc[k])
		k++
		b.mulSparse(c.mixSparse[p*stride : (p+1)*stride])
	}
	for range h - 1 {
		b.fullRound(crc[k : k+t])
		k += t
		b.mulDense(c.mixM)
	}
	for i := range t {
		b.sbox(b.s[i])
	}
}

// sbox sets x to x^5, element-wise.
func (b *Batch) sbox(x fr.Vector) {
	b.prod.Mul(x, x)
	b.prod.Mul(b.prod, b.prod)
	x.Mul(x, b.prod)
}

// fullRound applies x^5 then adds key to every element of the state.
func (b *Batch) fullRound(key []fr.Element) {
	for i := range b.c.width {
		b.sbox(b.s[i])
		addConst(b.s[i], &key[i])
	}
}

// mulDense sets the state to s·P where mt = Pᵀ row-major, as mulDense does.
func (b *Batch) mulDense(mt []fr.Element) {
	t := b.c.width
	for j := range t {
		b.dotInto(b.tmp[j], mt[j*t:(j+1)*t])
	}
	b.s, b.tmp = b.tmp, b.s
}

// mulSparse is mulSparse on the vectors: new[0] = Σ w_hat[i]·s[i],
// new[j] = s[j] + v_rest[j−1]·s[0].
func (b *Batch) mulSparse(w []fr.Element) {
	t := b.c.width
	wHat, vRest := w[:t], w[t:2*t-1]
	n0 := b.tmp[0]
	b.dotInto(n0, wHat)
	for j := 1; j < t; j++ {
		b.prod.ScalarMul(b.s[0], &vRest[j-1])
		b.s[j].Add(b.s[j], b.prod)
	}
	b.s[0], b.tmp[0] = n0, b.s[0]
}

// dotInto sets dst to Σ row[i]·s[i].
func (b *Batch) dotInto(dst fr.Vector, row []fr.Element) {
	dst.ScalarMul(b.s[0], &row[0])
	for i := 1; i < b.c.width; i++ {
		b.prod.ScalarMul(b.s[i], &row[i])
		dst.Add(dst, b.prod)
	}
}

// dot writes Σ row[i]·s[i] to out.
func (b *Batch) dot(out []fr.Element, row []fr.Element) {
	b.dotInto(b.tmp[0], row)
	copy(out, b.tmp[0])
}

// addConst adds c to every element of v.
func addConst(v fr.Vector, c *fr.Element) {
	for k := range v {
		v[k].Add(&v[k], c)
	}
}

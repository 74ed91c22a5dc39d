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

	bufS, bufT  [maxWidth]fr.Vector // the state and the next one, n long
	bufP, bufP2 fr.Vector
	s, tmp      [maxWidth]fr.Vector // the first m elements of bufS, bufT (swapped by mulDense)
	prod, prod2 fr.Vector
	trace       [][]fr.Element // HashTrace's output, nil for Hash
	emitted     int            // gadget values traced so far
}

// vectorMin is the fewest hashes Batch computes as vectors: gnark-crypto's
// kernels take blocks of 8 elements, and below that a vector operation is a
// call per product.
const vectorMin = 8

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
		b.bufP, b.bufP2 = make(fr.Vector, n), make(fr.Vector, n)
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
func (b *Batch) Hash(out []fr.Element) { b.run(out, nil) }

// HashTrace is Hash that also writes Trace of each input: hash i's
// GadgetConstraints values to traces[i] (len(traces) = len(out)).
func (b *Batch) HashTrace(out []fr.Element, traces [][]fr.Element) {
	g := b.c.GadgetConstraints()
	if len(traces) != len(out) {
		panic(fmt.Sprintf("poseidon: %d traces for %d hashes", len(traces), len(out)))
	}
	for _, tr := range traces {
		if len(tr) != g {
			panic(fmt.Sprintf("poseidon: a trace of %d values, arity %d allocates %d", len(tr), b.c.arity, g))
		}
	}
	b.run(out, traces)
}

func (b *Batch) run(out []fr.Element, trace [][]fr.Element) {
	if len(out) > b.n {
		panic(fmt.Sprintf("poseidon: %d outputs for a batch of %d", len(out), b.n))
	}
	c, t, m := b.c, b.c.width, len(out)
	if m == 0 {
		return
	}
	if !b.vector || m < vectorMin {
		for i := range out {
			if trace != nil {
				out[i] = c.Trace(trace[i], b.Input(i))
			} else {
				out[i] = Hash(c, b.Input(i))
			}
		}
		return
	}
	for i := range t {
		b.s[i], b.tmp[i] = b.bufS[i][:m], b.bufT[i][:m]
	}
	b.prod, b.prod2 = b.bufP[:m], b.bufP2[:m]
	b.trace, b.emitted = trace, 0
	walkGadget(c, c.merkleTag, b)
	b.dotInto(b.tmp[0], c.mixM[t:2*t])
	copy(out, b.tmp[0])
	b.emit(b.tmp[0])
	b.trace = nil
}

// constant fills element 0 with k0.
func (b *Batch) constant(k0 fr.Element) {
	for k := range b.s[0] {
		b.s[0][k] = k0
	}
}

// sboxPreAdd sets input element i to (x + pre)^5 + post, emitting (x + pre)²,
// its square and the result as gadgetRun.sboxPreAdd allocates them.
func (b *Batch) sboxPreAdd(i int, pre, post *fr.Element) {
	u, a := b.s[i], b.c.arity
	for k := range u {
		u[k] = b.in[k*a+i-1]
	}
	addConst(u, pre)
	b.prod.Mul(u, u)
	b.emit(b.prod)
	b.prod2.Mul(b.prod, b.prod)
	b.emit(b.prod2)
	u.Mul(u, b.prod2)
	addConst(u, post)
	b.emit(u)
}

// sbox sets element i to x^5 (+ key), emitting x, x², x⁴ and the result as
// gadgetRun.sbox allocates them.
func (b *Batch) sbox(i, _ int, key *fr.Element) {
	x := b.s[i]
	b.emit(x)
	b.prod.Mul(x, x)
	b.emit(b.prod)
	b.prod2.Mul(b.prod, b.prod)
	b.emit(b.prod2)
	x.Mul(x, b.prod2)
	if key != nil {
		addConst(x, key)
	}
	b.emit(x)
}

// emit records v as the next gadget value of each hash, when tracing.
func (b *Batch) emit(v fr.Vector) {
	if b.trace == nil {
		return
	}
	e := b.emitted
	for k := range v {
		b.trace[k][e] = v[k]
	}
	b.emitted++
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

// addConst adds c to every element of v.
func addConst(v fr.Vector, c *fr.Element) {
	for k := range v {
		v[k].Add(&v[k], c)
	}
}

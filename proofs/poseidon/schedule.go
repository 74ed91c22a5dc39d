package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// gadgetSteps is one reading of the gadget's round schedule (walkGadget):
// the constraint template (shapeBuilder), the witness (gadgetRun) and the
// vector batch (Batch) each give the steps their own meaning.
type gadgetSteps interface {
	// constant sets element 0 to k0, its value after round 0: the domain
	// tag's S-box is a constant.
	constant(k0 fr.Element)
	// sboxPreAdd is round 0 on input element i ≥ 1: (x + pre)^5 + post.
	sboxPreAdd(i int, pre, post *fr.Element)
	// sbox is element i's S-box in round r, then + key (nil: no key).
	sbox(i, r int, key *fr.Element)
	// mulDense multiplies the state by P, given transposed (row j yields new[j]).
	mulDense(mt []fr.Element)
	// mulSparse multiplies the state by a partial round's sparse factor w.
	mulSparse(w []fr.Element)
}

// walkGadget runs neptune's legacy gadget schedule with domain tag tag on s:
// round 0, the first full rounds ending in pre_sparse, the partial rounds,
// the last full rounds and the terminal S-boxes. The final M product (of
// which the hash is element 1) is the caller's.
func walkGadget(c *Constants, tag fr.Element, s gadgetSteps) {
	t, h := c.width, FullRounds/2
	crc := c.crc
	k0 := tag
	k0.Add(&k0, &crc[0])
	sbox(&k0)
	k0.Add(&k0, &crc[t])
	s.constant(k0)
	for i := 1; i < t; i++ {
		s.sboxPreAdd(i, &crc[i], &crc[t+i])
	}
	s.mulDense(c.mixM)

	round, k := 1, 2*t
	for ; round < h; round++ {
		for i := range t {
			s.sbox(i, round, &crc[k+i])
		}
		k += t
		if round == h-1 {
			s.mulDense(c.mixPre)
		} else {
			s.mulDense(c.mixM)
		}
	}
	stride := 2*t - 1
	for p := range c.rp {
		s.sbox(0, round, &crc[k])
		k++
		s.mulSparse(c.mixSparse[p*stride : (p+1)*stride])
		round++
	}
	for range h - 1 {
		for i := range t {
			s.sbox(i, round, &crc[k+i])
		}
		k += t
		s.mulDense(c.mixM)
		round++
	}
	for i := range t { // terminal round: no key
		s.sbox(i, round, nil)
	}
	if k != len(crc) {
		panic(fmt.Sprintf("poseidon: gadget used %d of %d compressed constants", k, len(crc)))
	}
}

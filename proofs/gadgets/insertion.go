package gadgets

import "github.com/filc2/filc2/proofs/r1cs"

// Pick is insertion.rs pick: aux c = cond ? a : b with the constraint
// (b − a)·cond = b − c.
func Pick(cs *r1cs.System, cond Boolean, a, b AllocatedNum) AllocatedNum {
	v := b.Value
	if cond.value {
		v = a.Value
	}
	c := AllocNum(cs, v)
	cs.Enforce(func(la, lb, lc *r1cs.LC) {
		la.Add(b.Var)
		la.Sub(a.Var)
		cond.addTo(lb)
		lc.Add(b.Var)
		lc.Sub(c.Var)
	})
	return c
}

// Insert is insertion.rs insert: element inserted into elements at the
// position given by bits (least significant first); len(elements)+1 must be
// 2^len(bits). Sizes 2, 4 and 8 use the hand-optimised Insert2, Insert4 and
// Insert8; other sizes select every position with Select (size·(size−1) picks).
func Insert(cs *r1cs.System, element AllocatedNum, bits []Boolean, elements []AllocatedNum) []AllocatedNum {
	size := len(elements) + 1
	if 1<<len(bits) != size {
		panic("gadgets: Insert needs 2^len(bits) = len(elements)+1")
	}
	switch size {
	case 2:
		return Insert2(cs, element, bits, elements)
	case 4:
		return Insert4(cs, element, bits, elements)
	case 8:
		return Insert8(cs, element, bits, elements)
	}
	result := make([]AllocatedNum, 0, size)
	choices := make([]AllocatedNum, size)
	for pos := range size {
		// The candidate at pos when the index is idx: elements[pos] before
		// the insertion point, the element at it, elements[pos-1] after it.
		for idx := range size {
			switch {
			case pos < idx:
				choices[idx] = elements[pos]
			case pos == idx:
				choices[idx] = element
			default:
				choices[idx] = elements[pos-1]
			}
		}
		pushf(cs, "choice at %d", pos)
		result = append(result, Select(cs, choices, bits))
		cs.Pop()
	}
	return result
}

// Insert2 is insertion.rs insert_2: two picks, [b ? e0 : x, b ? x : e0].
func Insert2(cs *r1cs.System, element AllocatedNum, bits []Boolean, elements []AllocatedNum) []AllocatedNum {
	if len(elements) != 1 || len(bits) != 1 {
		panic("gadgets: Insert2 needs 1 element and 1 bit")
	}
	return []AllocatedNum{
		Pick(cs, bits[0], elements[0], element),
		Pick(cs, bits[0], element, elements[0]),
	}
}

// Insert4 is insertion.rs insert_4: eight picks in the reference order.
func Insert4(cs *r1cs.System, element AllocatedNum, bits []Boolean, elements []AllocatedNum) []AllocatedNum {
	if len(elements) != 3 || len(bits) != 2 {
		panic("gadgets: Insert4 needs 3 elements and 2 bits")
	}
	b0, b1 := bits[0], bits[1]
	a, b, c, d := element, elements[0], elements[1], elements[2]

	p0x0 := Pick(cs, b0, b, a)
	p0 := Pick(cs, b1, b, p0x0)

	p1x0 := Pick(cs, b0, a, b)
	p1 := Pick(cs, b1, c, p1x0)

	p2x1 := Pick(cs, b0, d, a)
	p2 := Pick(cs, b1, p2x1, c)

	p3x1 := Pick(cs, b0, a, d)
	p3 := Pick(cs, b1, p3x1, d)

	return []AllocatedNum{p0, p1, p2, p3}
}

// Insert8 is insertion.rs insert_8: NorBits(b0, b1), AndBits(b0, b1), then 20
// picks in the reference order (22 constraints). bits[0] and bits[1] must be
// allocated, non-negated bits.
func Insert8(cs *r1cs.System, element AllocatedNum, bits []Boolean, elements []AllocatedNum) []AllocatedNum {
	if len(elements) != 7 || len(bits) != 3 {
		panic("gadgets: Insert8 needs 7 elements and 3 bits")
	}
	b0, b1, b2 := bits[0], bits[1], bits[2]
	if b0.kind != KindIs || b1.kind != KindIs {
		panic("gadgets: Insert8 bits must be allocated and unnegated")
	}
	a, b, c, d := element, elements[0], elements[1], elements[2]
	e, f, g, h := elements[3], elements[4], elements[5], elements[6]

	b0NorB1 := Is(NorBits(cs, b0.bit(), b1.bit()))
	b0AndB1 := Is(AndBits(cs, b0.bit(), b1.bit()))

	p0xx0 := Pick(cs, b0NorB1, a, b)
	p0 := Pick(cs, b2, b, p0xx0)

	p1x00 := Pick(cs, b0, a, b)
	p1xx0 := Pick(cs, b1, c, p1x00)
	p1 := Pick(cs, b2, c, p1xx0)

	p2x10 := Pick(cs, b0, d, a)
	p2xx0 := Pick(cs, b1, p2x10, c)
	p2 := Pick(cs, b2, d, p2xx0)

	p3xx0 := Pick(cs, b0AndB1, a, d)
	p3 := Pick(cs, b2, e, p3xx0)

	p4xx1 := Pick(cs, b0NorB1, a, f)
	p4 := Pick(cs, b2, p4xx1, e)

	p5x01 := Pick(cs, b0, a, f)
	p5xx1 := Pick(cs, b1, g, p5x01)
	p5 := Pick(cs, b2, p5xx1, f)

	p6x11 := Pick(cs, b0, h, a)
	p6xx1 := Pick(cs, b1, p6x11, g)
	p6 := Pick(cs, b2, p6xx1, g)

	p7xx1 := Pick(cs, b0AndB1, a, h)
	p7 := Pick(cs, b2, p7xx1, h)

	return []AllocatedNum{p0, p1, p2, p3, p4, p5, p6, p7}
}

// Select is insertion.rs select: from[n] for n given by pathBits (least
// significant first); len(from) must be 2^len(pathBits). It consumes the most
// significant bit first, picking state[half+j] over state[j] (len(from)−1 picks).
func Select(cs *r1cs.System, from []AllocatedNum, pathBits []Boolean) AllocatedNum {
	if 1<<len(pathBits) != len(from) {
		panic("gadgets: Select needs 2^len(pathBits) = len(from)")
	}
	state := append([]AllocatedNum(nil), from...)
	half := len(from) / 2
	for i := len(pathBits) - 1; i >= 0; i-- {
		bit := pathBits[i]
		next := make([]AllocatedNum, half)
		for j := range half {
			next[j] = Pick(cs, bit, state[half+j], state[j])
		}
		state = next
		half /= 2
	}
	return state[0]
}

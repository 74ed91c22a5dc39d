package r1cs

import (
	"errors"
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Layout is how many inputs, aux variables and constraints one piece of a
// circuit adds when it is synthesised.
type Layout struct {
	Inputs      int
	Aux         int
	Constraints int
}

// Add returns l + o.
func (l Layout) Add(o Layout) Layout {
	return Layout{Inputs: l.Inputs + o.Inputs, Aux: l.Aux + o.Aux, Constraints: l.Constraints + o.Constraints}
}

func (l Layout) String() string {
	return fmt.Sprintf("%d inputs, %d aux, %d constraints", l.Inputs, l.Aux, l.Constraints)
}

// layout is what cs has synthesised itself (for a forked child: since the fork).
func (cs *System) layout() Layout {
	return Layout{Inputs: cs.numInputs, Aux: cs.numAux, Constraints: cs.constraints}
}

// Fork reserves, one after the other at cs's current position, a block of
// variables and constraints for each layout, and returns one child System per
// block. cs carries on after the blocks as if they had been synthesised into it
// in order; each child synthesises its block, concurrently with cs and with the
// other children, numbering its variables as cs would have at that point. So the
// finished System is exactly that of synthesising the blocks in order into cs,
// provided each child adds exactly its layout, which Join checks.
//
// In Witness mode a child keeps values only, written in place into cs's
// assignment; it may refer to cs's variables allocated before the fork (their
// values travel in the gadgets, not through the System). Fork grows cs's storage
// to fit the blocks unless cs has children outstanding (their windows pin it);
// with outstanding children the blocks must fit the capacity already there
// (WithCapacity). A child's storage cannot grow.
//
// In Record and Count mode (without a digest, which streams constraints in
// order) a child records its block's constraints and densities on its own, and
// Join appends them to cs in the children's order: the matrices, the
// coefficient table and the densities are the sequential recording's, entry for
// entry. cs may allocate after the blocks while children are outstanding but,
// in Record mode, must not enforce (its rows would come before the blocks').
// Check mode cannot fork: its failure report follows the sequential order.
//
// A child is a System of cs's mode that cannot be finished (Join it instead);
// it may Fork in turn. cs must not be used concurrently with its children other
// than to allocate after the reserved blocks; Join must happen after the
// children's synthesis is over (for example after a sync.WaitGroup's Wait).
func (cs *System) Fork(layouts ...Layout) ([]*System, error) {
	switch {
	case !cs.CanFork():
		return nil, fmt.Errorf("r1cs: Fork needs Witness, Record or Count mode without a digest, have %v", cs.mode)
	case cs.finished:
		return nil, errors.New("r1cs: Fork after Finish")
	case cs.err != nil:
		return nil, fmt.Errorf("r1cs: Fork of a failed System: %w", cs.err)
	}
	var total Layout
	for i, l := range layouts {
		if l.Inputs < 0 || l.Aux < 0 || l.Constraints < 0 {
			return nil, fmt.Errorf("r1cs: Fork: layout %d is negative (%v)", i, l)
		}
		total = total.Add(l)
	}
	values := cs.mode == Witness
	if values && !cs.discard {
		var err error
		if cs.inputs, err = cs.reserve(cs.inputs, total.Inputs, "inputs"); err != nil {
			return nil, err
		}
		if cs.aux, err = cs.reserve(cs.aux, total.Aux, "aux"); err != nil {
			return nil, err
		}
	}
	children := make([]*System, len(layouts))
	for i, l := range layouts {
		ch := &System{
			mode: cs.mode, fast: values, failed: -1, parent: cs, reserved: l, window: values, discard: cs.discard || !values,
			inputOff: cs.inputOff + cs.numInputs, auxOff: cs.auxOff + cs.numAux, seq: cs.forked,
		}
		cs.forked++
		if values && !cs.discard {
			ni, na := len(cs.inputs), len(cs.aux)
			ch.inputs, cs.inputs = cs.inputs[ni:ni:ni+l.Inputs], cs.inputs[:ni+l.Inputs]
			ch.aux, cs.aux = cs.aux[na:na:na+l.Aux], cs.aux[:na+l.Aux]
		}
		if !values {
			// Densities by global index: the child may mark cs's earlier variables.
			ch.aAux.Grow(ch.auxOff)
			ch.bAux.Grow(ch.auxOff)
			ch.bInput.Grow(ch.inputOff)
			if cs.mode == Record {
				ch.rec = newRecorder()
			}
		}
		cs.numInputs += l.Inputs
		cs.numAux += l.Aux
		cs.constraints += l.Constraints
		children[i] = ch
	}
	if !values {
		cs.growDensities()
	}
	cs.outstanding += len(children)
	return children, nil
}

// CanFork reports whether Fork works in cs's mode: Witness, Record, and Count
// without a digest.
func (cs *System) CanFork() bool {
	switch cs.mode {
	case Witness, Record:
		return true
	case Count:
		return cs.dig == nil
	}
	return false
}

// growDensities extends the density bitmaps to every variable allocated so far
// (by global index).
func (cs *System) growDensities() {
	cs.aAux.Grow(cs.auxOff + cs.numAux)
	cs.bAux.Grow(cs.auxOff + cs.numAux)
	cs.bInput.Grow(cs.inputOff + cs.numInputs)
}

// reserve makes room for n more values, growing the storage when nothing pins it.
func (cs *System) reserve(values []fr.Element, n int, kind string) ([]fr.Element, error) {
	if len(values)+n <= cap(values) {
		return values, nil
	}
	switch {
	case cs.window:
		return values, fmt.Errorf("r1cs: Fork of %d %s in a forked child with room for %d", n, kind, cap(values)-len(values))
	case cs.outstanding > 0:
		return values, fmt.Errorf("r1cs: Fork of %d %s with room for %d while forked children are outstanding: reserve room with WithCapacity or one Fork", n, kind, cap(values)-len(values))
	}
	return slices.Grow(values, n), nil
}

// Join closes children forked from cs once their synthesis is over, and
// checks that each added exactly the layout reserved for it, without error
// and with its own children joined. In Record and Count mode it then appends
// each child's constraints and densities to cs, so Record-mode children must
// be joined in the order they were forked (all at once, or in turn). A failure
// is also recorded in cs (Finish returns it): cs is then not the sequential
// System. A joined child can no longer be used.
func (cs *System) Join(children ...*System) error {
	var first error
	if cs.rec != nil {
		cs.rec.reserve(children)
	}
	for i, ch := range children {
		var err error
		switch {
		case ch == nil || ch.parent != cs:
			err = fmt.Errorf("r1cs: Join: System %d was not forked from this one", i)
		case ch.finished:
			err = fmt.Errorf("r1cs: Join: child %d is already joined", i)
		default:
			ch.close()
			cs.outstanding--
			switch got := ch.layout(); {
			case ch.err != nil:
				err = fmt.Errorf("r1cs: forked child %d: %w", i, ch.err)
			case ch.outstanding > 0:
				err = fmt.Errorf("r1cs: forked child %d has %d children not joined", i, ch.outstanding)
			case got != ch.reserved:
				err = fmt.Errorf("r1cs: forked child %d synthesised %v, its block has %v", i, got, ch.reserved)
			case cs.rec != nil && ch.seq != cs.joined:
				err = fmt.Errorf("r1cs: Join: child %d joined out of order (fork %d, expected %d): the rows would move", i, ch.seq, cs.joined)
			case cs.mode != Witness:
				cs.absorb(ch)
			}
			cs.joined++
		}
		if err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		cs.fail(first)
	}
	return first
}

// absorb adds a finished Record or Count child's densities and rows to cs.
func (cs *System) absorb(ch *System) {
	for _, d := range [][2]*Bitset{{&cs.aAux, &ch.aAux}, {&cs.bAux, &ch.bAux}, {&cs.bInput, &ch.bInput}} {
		dst, src := d[0].words, d[1].words
		for i, w := range src {
			dst[i] |= w
		}
	}
	if cs.rec != nil {
		cs.rec.append(ch.rec)
	}
	ch.rec = nil
	ch.aAux, ch.bAux, ch.bInput = Bitset{}, Bitset{}, Bitset{}
}

// Measure runs f on a scratch System and returns what f synthesised into it.
// The scratch System is in Witness mode, numbers its variables on from cs's
// and keeps no values; cs itself is not changed (f may read cs's variables
// and values but must not synthesise into cs). It is how a caller learns a
// piece's Layout before forking it: a circuit's structure does not depend on
// its values.
func (cs *System) Measure(f func(scratch *System) error) (Layout, error) {
	m := &System{
		mode: Witness, fast: true, failed: -1, discard: true,
		inputOff: cs.inputOff + cs.numInputs, auxOff: cs.auxOff + cs.numAux,
	}
	if err := f(m); err != nil {
		return Layout{}, err
	}
	if m.err != nil {
		return Layout{}, m.err
	}
	if m.outstanding > 0 {
		return Layout{}, fmt.Errorf("r1cs: Measure: %d forked children not joined", m.outstanding)
	}
	return m.layout(), nil
}

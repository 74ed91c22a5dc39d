package r1cs

import (
	"errors"
	"fmt"

	"github.com/filc2/filc2/internal/par"
)

// RepeatLast appends copies copies of the piece of circuit just synthesised,
// whose layout is l: the last l.Inputs inputs and l.Aux aux values are appended
// again, copies times in order, and l.Constraints constraints counted for each.
// It is what synthesising the same piece with the same values copies more times
// would give, without running its gadgets: a padded PoSt partition's repeated
// sector. Only a Witness System (which keeps values and counts constraints) can
// repeat, and only its own storage, with no forked children outstanding. The
// copy runs on every core: storage for a padded 32GiB partition is 4 GB.
func (cs *System) RepeatLast(l Layout, copies int) error {
	cs.mutable()
	switch {
	case cs.err != nil:
		return cs.err
	case cs.mode != Witness:
		return fmt.Errorf("r1cs: RepeatLast in %v mode (only Witness mode keeps values without constraints)", cs.mode)
	case cs.parent != nil || cs.outstanding > 0:
		return errors.New("r1cs: RepeatLast on a forked child or with children outstanding")
	case copies < 0 || l.Inputs < 0 || l.Aux < 0 || l.Constraints < 0:
		return fmt.Errorf("r1cs: RepeatLast of %d copies of %v", copies, l)
	case l.Inputs > cs.numInputs || l.Aux > cs.numAux:
		return fmt.Errorf("r1cs: RepeatLast of %v, the System holds %d inputs and %d aux", l, cs.numInputs, cs.numAux)
	case cs.discard:
		return errors.New("r1cs: RepeatLast on a Measure System")
	}
	cs.inputs = repeatTail(cs.inputs, l.Inputs, copies)
	cs.aux = repeatTail(cs.aux, l.Aux, copies)
	cs.numInputs += copies * l.Inputs
	cs.numAux += copies * l.Aux
	cs.constraints += copies * l.Constraints
	return nil
}

// repeatTail appends copies copies of the last n elements of v, growing it once.
func repeatTail[T any](v []T, n, copies int) []T {
	if n == 0 || copies == 0 {
		return v
	}
	old := len(v)
	want := old + n*copies
	if cap(v) < want {
		g := make([]T, old, want)
		copy(g, v)
		v = g
	}
	v = v[:want]
	tail := v[old-n : old]
	// A task copies about 1 MB or more (32 K elements of 32 bytes, or one whole tail).
	per := max(1, (1<<15)/max(1, n))
	par.Each((copies+per-1)/per, 0, func(t int) {
		for c := t * per; c < min(copies, (t+1)*per); c++ {
			copy(v[old+c*n:old+(c+1)*n], tail)
		}
	})
	return v
}

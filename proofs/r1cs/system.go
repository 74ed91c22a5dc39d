package r1cs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Mode selects what a System keeps of the circuit synthesised into it.
type Mode int

const (
	// Count keeps counts and density bitmaps, no matrices and no values.
	Count Mode = iota
	// Record keeps the CSR matrices and densities (the PCE), no values.
	Record
	// Witness keeps values only; Enforce does not even build the constraint.
	Witness
	// Check keeps values and evaluates every constraint as it is enforced.
	Check
)

func (m Mode) String() string {
	switch m {
	case Count:
		return "count"
	case Record:
		return "record"
	case Witness:
		return "witness"
	case Check:
		return "check"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// System is a constraint system in one Mode. The zero value is not usable; call New.
type System struct {
	mode        Mode
	numInputs   int // allocated by this System (for a forked child: since the fork)
	numAux      int
	constraints int
	finished    bool
	fast        bool // Witness mode and not finished: Alloc and Enforce take their fast paths
	err         error

	inputs, aux []fr.Element // Witness and Check

	// Fork state (fork.go). A forked child numbers its variables from the
	// offsets its parent reserved and stores its values in place, in a window
	// of the parent's storage that must never move.
	inputOff, auxOff int     // global index of the first input and aux this System allocates
	parent           *System // a forked child's parent
	reserved         Layout  // what a forked child must synthesise
	window           bool    // storage is a window of the parent's: it cannot grow
	discard          bool    // Measure's scratch System: values are not kept
	outstanding      int     // children forked and not yet joined: storage cannot move
	forked, joined   int     // children forked and joined so far (Record mode joins them in order)
	seq              int     // a forked child's place among its parent's children

	aAux, bInput, bAux Bitset // every mode but Witness

	rec        *recorder // Record
	dig        *digester // Count with WithDigest
	la, lb, lc LC        // scratch handed to Enforce's builder

	names      []string // Check: the namespace stack
	failed     int      // Check: index of the first unsatisfied constraint, or -1
	failedPath string
}

// Option configures a System.
type Option func(*System)

// WithCapacity presizes the value and matrix storage for a circuit of about
// aux variables and constraints constraints.
func WithCapacity(aux, constraints int) Option {
	return func(cs *System) {
		if (cs.mode == Witness || cs.mode == Check) && cap(cs.aux) < aux {
			cs.aux = make([]fr.Element, 0, aux)
		}
		if cs.rec != nil {
			cs.rec.grow(constraints)
		}
	}
}

// WithStorage makes a Witness or Check System store its values in the backing
// arrays of inputs and aux, overwriting their contents, so that a caller can
// recycle the storage of an assignment it is done with; the arrays must not be
// in use elsewhere while the System is. A WithCapacity after it replaces an
// array that is too small.
func WithStorage(inputs, aux []fr.Element) Option {
	return func(cs *System) {
		if cs.mode == Witness || cs.mode == Check {
			cs.inputs, cs.aux = inputs[:0], aux[:0]
		}
	}
}

// WithDigest streams the canonical R1CS digest (spec §2.5) while counting. The
// digest's header comes first, so the final counts must be known: they are
// checked by Finish.
func WithDigest(want Header, chunkSize int) Option {
	return func(cs *System) { cs.dig = newDigester(want, chunkSize) }
}

// New returns a System in mode m with ONE allocated as input 0.
func New(m Mode, opts ...Option) *System {
	cs := &System{mode: m, failed: -1, fast: m == Witness}
	if m == Record {
		cs.rec = newRecorder()
	}
	for _, o := range opts {
		o(cs)
	}
	if cs.dig != nil && m != Count {
		cs.err = errors.New("r1cs: WithDigest needs Count mode")
	}
	cs.AllocInput(frOne)
	return cs
}

// Mode is the System's mode.
func (cs *System) Mode() Mode { return cs.mode }

// Constraining reports whether Enforce builds constraints (every mode but
// Witness). Gadgets may skip building linear combinations when it is false.
func (cs *System) Constraining() bool { return cs.mode != Witness }

// NumInputs is the number of inputs allocated so far, ONE included.
func (cs *System) NumInputs() int { return cs.numInputs }

// NumAux is the number of aux variables allocated so far.
func (cs *System) NumAux() int { return cs.numAux }

// NumConstraints is the number of constraints enforced so far.
func (cs *System) NumConstraints() int { return cs.constraints }

// Alloc allocates an aux variable with value v (ignored in Count and Record).
func (cs *System) Alloc(v fr.Element) Variable {
	// The fast path (Witness mode, room in storage) is what witness
	// synthesis spends most of its calls on.
	if cs.fast && len(cs.aux) < cap(cs.aux) {
		i := cs.auxOff + cs.numAux
		cs.numAux++
		cs.aux = append(cs.aux, v)
		return AuxVar(i)
	}
	return cs.allocSlow(v)
}

func (cs *System) allocSlow(v fr.Element) Variable {
	cs.mutable()
	i := cs.auxOff + cs.numAux
	cs.numAux++
	switch cs.mode {
	case Witness, Check:
		cs.aux = cs.store(cs.aux, &v, "aux")
	}
	if cs.mode != Witness {
		cs.aAux.Grow(i + 1)
		cs.bAux.Grow(i + 1)
	}
	return AuxVar(i)
}

// AllocInput allocates a public input with value v.
func (cs *System) AllocInput(v fr.Element) Variable {
	cs.mutable()
	i := cs.inputOff + cs.numInputs
	cs.numInputs++
	switch cs.mode {
	case Witness, Check:
		cs.inputs = cs.store(cs.inputs, &v, "inputs")
	}
	if cs.mode != Witness {
		cs.bInput.Grow(i + 1)
	}
	return InputVar(i)
}

// store appends v to values unless the System keeps none (Measure) or the
// storage is full and may not move (a forked child's window, or a parent with
// children outstanding, whose windows point into it): that is an error.
func (cs *System) store(values []fr.Element, v *fr.Element, kind string) []fr.Element {
	switch {
	case cs.discard:
		return values
	case len(values) == cap(values) && cs.window:
		cs.fail(fmt.Errorf("r1cs: forked child allocated more %s than the %d reserved", kind, cap(values)))
		return values
	case len(values) == cap(values) && cs.outstanding > 0:
		cs.fail(fmt.Errorf("r1cs: %s storage full (%d) while forked children are outstanding: reserve room with WithCapacity or Fork", kind, cap(values)))
		return values
	}
	return append(values, *v)
}

// fail records err as the System's error unless it already has one.
func (cs *System) fail(err error) {
	if cs.err == nil {
		cs.err = err
	}
}

// Enforce adds the constraint A·B = C. build appends the terms of A, B and C to
// the three empty LCs it is given; it is not called in Witness mode, and must not
// keep the LCs or call back into the System.
func (cs *System) Enforce(build func(a, b, c *LC)) {
	if cs.fast {
		cs.constraints++
		return
	}
	cs.enforce(build)
}

func (cs *System) enforce(build func(a, b, c *LC)) {
	cs.mutable()
	idx := cs.constraints
	cs.constraints++
	if cs.mode == Witness {
		return
	}
	if cs.rec != nil && cs.outstanding > 0 {
		cs.fail(errors.New("r1cs: Record mode: a constraint enforced while forked children are outstanding (it would precede their rows): Join them first"))
		return
	}
	cs.la, cs.lb, cs.lc = cs.la[:0], cs.lb[:0], cs.lc[:0]
	build(&cs.la, &cs.lb, &cs.lc)
	cs.take(idx, cs.la, cs.lb, cs.lc)
}

// SkipConstraints counts n constraints that a gadget did not build because
// the System is not constraining (Witness mode), so that NumConstraints stays
// that of the circuit. In a constraining mode it is an error: every
// constraint must be enforced.
func (cs *System) SkipConstraints(n int) {
	cs.mutable()
	if cs.mode != Witness {
		cs.fail(fmt.Errorf("r1cs: SkipConstraints in %v mode", cs.mode))
		return
	}
	cs.constraints += n
}

// EnforceLC adds the constraint a·b = c for linear combinations the caller built.
func (cs *System) EnforceLC(a, b, c LC) {
	cs.Enforce(func(la, lb, lc *LC) {
		la.AddLC(a)
		lb.AddLC(b)
		lc.AddLC(c)
	})
}

func (cs *System) take(idx int, a, b, c LC) {
	a, b, c = normalize(a), normalize(b), normalize(c)
	cs.la, cs.lb, cs.lc = a, b, c
	for i := range a {
		if v := a[i].Var; v.IsAux() {
			cs.aAux.Set(v.Index())
		}
	}
	for i := range b {
		if v := b[i].Var; v.IsAux() {
			cs.bAux.Set(v.Index())
		} else {
			cs.bInput.Set(v.Index())
		}
	}
	switch {
	case cs.rec != nil:
		cs.rec.add(a, b, c)
	case cs.dig != nil:
		cs.dig.constraint(a, b, c)
	}
	if cs.mode == Check && cs.failed < 0 {
		av, bv, cv := a.Eval(cs.inputs, cs.aux), b.Eval(cs.inputs, cs.aux), c.Eval(cs.inputs, cs.aux)
		av.Mul(&av, &bv)
		if !av.Equal(&cv) {
			cs.failed = idx
			cs.failedPath = strings.Join(cs.names, "/")
		}
	}
}

// Push enters a namespace; names only matter to Check mode's failure report.
func (cs *System) Push(name string) {
	if cs.mode == Check {
		cs.names = append(cs.names, name)
	}
}

// Pushf enters a namespace named by a format (formatted only in Check mode).
func (cs *System) Pushf(format string, args ...any) {
	if cs.mode == Check {
		cs.names = append(cs.names, fmt.Sprintf(format, args...))
	}
}

// Pop leaves the innermost namespace.
func (cs *System) Pop() {
	if cs.mode == Check && len(cs.names) > 0 {
		cs.names = cs.names[:len(cs.names)-1]
	}
}

// close marks the System finished: every later use is an error.
func (cs *System) close() { cs.finished, cs.fast = true, false }

func (cs *System) mutable() {
	if cs.finished && cs.err == nil {
		cs.err = errors.New("r1cs: System used after Finish")
	}
}

// Finish appends bellperson's trailing constraint input_i·0 = 0 for every input
// and closes the System. It reports misuse, a digest whose counts differ from the
// announced header, and (in Check mode) the first unsatisfied constraint.
func (cs *System) Finish() error {
	if cs.parent != nil {
		cs.fail(errors.New("r1cs: Finish of a forked child: Join it into its parent instead"))
		return cs.err
	}
	if cs.finished {
		return cs.err
	}
	if cs.outstanding > 0 {
		cs.fail(fmt.Errorf("r1cs: Finish with %d forked children not joined", cs.outstanding))
	}
	for i := 0; i < cs.numInputs; i++ {
		v := InputVar(i)
		cs.Enforce(func(a, _, _ *LC) { a.Add(v) })
	}
	cs.close()
	if cs.err != nil {
		return cs.err
	}
	if cs.rec != nil {
		if err := cs.rec.finish(cs.numInputs, cs.numAux); err != nil {
			cs.err = err
			return err
		}
	}
	if cs.dig != nil {
		if err := cs.dig.finish(cs.header()); err != nil {
			cs.err = err
			return err
		}
	}
	if cs.failed >= 0 {
		cs.err = &UnsatisfiedError{Index: cs.failed, Path: cs.failedPath}
	}
	return cs.err
}

// UnsatisfiedError reports the first constraint that a Check-mode System found false.
type UnsatisfiedError struct {
	Index int    // constraint index in enforce order
	Path  string // namespace path at the time it was enforced
}

func (e *UnsatisfiedError) Error() string {
	return fmt.Sprintf("r1cs: constraint %d (%s) is not satisfied", e.Index, e.Path)
}

// Header holds the three numbers that fix an R1CS's shape.
type Header struct {
	NumInputs      int // ONE included
	NumAux         int
	NumConstraints int // trailing input constraints included
}

func (cs *System) header() Header {
	return Header{NumInputs: cs.numInputs, NumAux: cs.numAux, NumConstraints: cs.constraints}
}

// Stats are a finished circuit's counts as bellperson's prover sees them.
type Stats struct {
	Constraints   int `json:"constraints"` // trailing input constraints included
	Inputs        int `json:"inputs"`      // ONE included
	Aux           int `json:"aux"`
	AAuxDensity   int `json:"a_aux_density"`
	BInputDensity int `json:"b_input_density"`
	BAuxDensity   int `json:"b_aux_density"`
}

// DomainLog2 is log2 of the evaluation domain: the smallest power of two ≥ Constraints.
func (s Stats) DomainLog2() int {
	k := 0
	for 1<<k < s.Constraints {
		k++
	}
	return k
}

// Stats returns the counts so far (densities are zero in Witness mode).
func (cs *System) Stats() Stats {
	return Stats{
		Constraints:   cs.constraints,
		Inputs:        cs.numInputs,
		Aux:           cs.numAux,
		AAuxDensity:   cs.aAux.Count(),
		BInputDensity: cs.bInput.Count(),
		BAuxDensity:   cs.bAux.Count(),
	}
}

// Assignment returns the input (ONE first) and aux values of a Witness or Check System.
func (cs *System) Assignment() (inputs, aux []fr.Element) { return cs.inputs, cs.aux }

// Circuit returns the recorded circuit of a finished Record System.
func (cs *System) Circuit() (*Circuit, error) {
	if cs.mode != Record {
		return nil, fmt.Errorf("r1cs: Circuit needs Record mode, have %v", cs.mode)
	}
	if !cs.finished {
		return nil, errors.New("r1cs: Circuit before Finish")
	}
	if cs.err != nil {
		return nil, cs.err
	}
	r := cs.rec
	return &Circuit{
		NumInputs: cs.numInputs, NumAux: cs.numAux, NumConstraints: cs.constraints,
		A: r.m[0], B: r.m[1], C: r.m[2], Coeffs: r.coeffs,
		AAux: cs.aAux, BInput: cs.bInput, BAux: cs.bAux,
	}, nil
}

// Digest returns the canonical digest and its chunk digests of a finished Count
// System made WithDigest.
func (cs *System) Digest() (Digest, error) {
	if cs.dig == nil {
		return Digest{}, errors.New("r1cs: System was not made WithDigest")
	}
	if !cs.finished {
		return Digest{}, errors.New("r1cs: Digest before Finish")
	}
	if cs.err != nil {
		return Digest{}, cs.err
	}
	return cs.dig.result(), nil
}

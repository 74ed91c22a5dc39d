//go:build cuda

package ffi

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/filc2/filc2/proofs/groth16"
)

// foldDefault is whether a prover folds a padded partition's small MSMs when FILC2_FOLD is
// unset: on since TestFold and TestBackendPaddedWindow passed on an H100 (session 17).
const foldDefault = true

// foldFromEnv reads FILC2_FOLD: 1 folds a padded partition's small MSMs (groth16.Repeat),
// 0 runs them in full; unset: foldDefault.
func foldFromEnv() (bool, error) {
	switch v := os.Getenv("FILC2_FOLD"); v {
	case "":
		return foldDefault, nil
	case "1":
		return true, nil
	case "0":
		return false, nil
	default:
		return false, fmt.Errorf("FILC2_FOLD=%q: want 1 (fold a padded partition's L, A and B MSMs) or 0 (run them in full)", v)
	}
}

// foldSet holds the folded bases of one groth16.Repeat: for the L, A and B queries, the
// repeated runs of their points summed on the device (G1Bases.Fold), so that a padded
// partition's MSMs run over the first run's scalars only. A nil handle: that query's
// copies are not alike, it runs in full.
type foldSet struct {
	key        groth16.Repeat
	l, a, b    groth16.Span
	fl, fa, fb *G1Bases
	fb2        *G2Bases
}

// handles are the set's folded handles that exist.
func (f *foldSet) handles() []*handle {
	var hs []*handle
	for _, b := range []*G1Bases{f.fl, f.fa, f.fb} {
		if b != nil {
			hs = append(hs, &b.handle)
		}
	}
	if f.fb2 != nil {
		hs = append(hs, &f.fb2.handle)
	}
	return hs
}

func (f *foldSet) close() error {
	var errs []error
	for _, h := range f.handles() {
		errs = append(errs, h.close())
	}
	return errors.Join(errs...)
}

// foldsFor returns r's folded bases, made on first use; the prover keeps the last
// Repeat's (a miner's short partitions are mostly padded alike). p.gpu held.
func (p *Prover) foldsFor(r groth16.Repeat) (*foldSet, error) {
	if p.folds != nil && p.folds.key == r {
		return p.folds, nil
	}
	if p.folds != nil {
		err := p.folds.close()
		p.folds = nil
		if err != nil {
			return nil, err
		}
	}
	f := &foldSet{key: r}
	f.l, f.a, f.b = r.Spans(p.shape.NumInputs, p.dens)
	fail := func(err error) (*foldSet, error) { return nil, errors.Join(err, f.close()) }
	var err error
	if f.fl, err = p.l.Fold(f.l.Start, f.l.Per, f.l.Copies); err != nil {
		return fail(err)
	}
	nA, nB := p.shape.NumInputs+p.shape.AAux, p.shape.BInput+p.shape.BAux
	if f.a.Per > 0 && f.a.Start+f.a.Copies*f.a.Per == nA {
		if f.fa, err = p.a.Fold(f.a.Start, f.a.Per, f.a.Copies); err != nil {
			return fail(err)
		}
	}
	if f.b.Per > 0 && f.b.Start+f.b.Copies*f.b.Per == nB {
		if f.fb, err = p.bg1.Fold(f.b.Start, f.b.Per, f.b.Copies); err != nil {
			return fail(err)
		}
		if f.fb2, err = p.bg2.Fold(f.b.Start, f.b.Per, f.b.Copies); err != nil {
			return fail(err)
		}
	}
	// The folded handles plan in the prover's scratch, reserved at load for the H MSM:
	// a scratch of their own would plan in whatever the device has left, and a 32GiB
	// Window on an 80 GB card leaves too little (a proof after the first failed there).
	for _, h := range f.handles() {
		if err := h.shareScratch(&p.h.handle); err != nil {
			return fail(fmt.Errorf("sharing the MSM scratch with folded bases on device %d: %w", p.device, err))
		}
	}
	p.folds = f
	return f, nil
}

// msmDevice is the MSM of a query's bases over device scalars (G1Bases, G2Bases).
type msmDevice[J any] interface {
	MSMDevice(scalars unsafe.Pointer, n int, split bool) (J, error)
}

// spans returns the repeated spans of L, A and B that the folded handles stand for (zero
// spans for a nil set).
func (f *foldSet) spans() (l, a, b groth16.Span) {
	if f == nil {
		return
	}
	return f.l, f.a, f.b
}

// devices returns the folded handles as MSMs, nil where a query runs in full (also for
// a nil set).
func (f *foldSet) devices() (l, a, b msmDevice[bls.G1Jac], b2 msmDevice[bls.G2Jac]) {
	if f == nil {
		return nil, nil, nil, nil
	}
	l = f.fl
	if f.fa != nil {
		a = f.fa
	}
	if f.fb != nil {
		b, b2 = f.fb, f.fb2
	}
	return l, a, b, b2
}

// queryMSM is the split MSM of n device scalars over full's points; with folded bases
// (not nil) the span's repeated runs are taken as the first run's scalars over folded,
// and st.Folded counts it.
func queryMSM[J any, PJ interface {
	*J
	AddAssign(*J) *J
}](full, folded msmDevice[J], sp groth16.Span, scalars unsafe.Pointer, n int, st *StageTimes) (J, error) {
	if folded == nil {
		return full.MSMDevice(scalars, n, true)
	}
	st.Folded++
	t, err := folded.MSMDevice(unsafe.Add(scalars, sp.Start*32), sp.Per, true)
	if err != nil || sp.Start == 0 {
		return t, err
	}
	out, err := full.MSMDevice(scalars, sp.Start, true)
	if err != nil {
		return out, err
	}
	PJ(&out).AddAssign(&t)
	return out, nil
}

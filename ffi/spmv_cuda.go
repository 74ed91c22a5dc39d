//go:build cuda

package ffi

/*
#include "filc2_cuda.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/filc2/filc2/proofs/r1cs"
)

// DeviceCircuit is a recorded circuit resident on one device (cuda/filc2_spmv.h): its
// three matrices, coefficient table and the gather lists of the compacted A and B query
// scalars, so that a witness on the device gives a, b, c and the query scalars without
// the host. Immutable; safe for concurrent use.
type DeviceCircuit struct {
	h      *C.filc2_r1cs
	device int
	rows   int
	vars   int
	nA, nB int
}

// UploadCircuit copies c's matrices to device.
func UploadCircuit(device int, c *r1cs.Circuit) (*DeviceCircuit, error) {
	vars := c.NumInputs + c.NumAux
	if c.NumConstraints == 0 || vars == 0 || vars > math.MaxUint32 || c.NumConstraints > math.MaxUint32-1 {
		return nil, invalid("circuit of %d constraints and %d variables", c.NumConstraints, vars)
	}
	g := &DeviceCircuit{device: device, rows: c.NumConstraints, vars: vars}
	if err := check(C.filc2_r1cs_new(C.int32_t(device), C.uint32_t(g.rows), C.uint32_t(vars), ptr(c.Coeffs),
		C.uint32_t(len(c.Coeffs)), &g.h)); err != nil {
		return nil, fmt.Errorf("circuit on device %d: %w", device, err)
	}
	fail := func(err error) (*DeviceCircuit, error) {
		g.Close()
		return nil, fmt.Errorf("circuit on device %d: %w", device, err)
	}
	for k, m := range c.Matrices() {
		if len(m.RowPtr) != g.rows+1 || len(m.Col) != len(m.Val) {
			return fail(invalid("matrix %c: %d row pointers, %d columns, %d values", "ABC"[k], len(m.RowPtr), len(m.Col), len(m.Val)))
		}
		if err := check(C.filc2_r1cs_set_matrix(g.h, C.int32_t(k), (*C.uint32_t)(ptr(m.RowPtr)),
			(*C.uint32_t)(ptr(m.Col)), (*C.uint32_t)(ptr(m.Val)), C.uint64_t(len(m.Col)))); err != nil {
			return fail(fmt.Errorf("matrix %c: %w", "ABC"[k], err))
		}
	}
	av, bv := QueryVariables(c)
	g.nA, g.nB = len(av), len(bv)
	for which, v := range [][]uint32{av, bv} {
		if err := check(C.filc2_r1cs_set_gather(g.h, C.int32_t(which), (*C.uint32_t)(ptr(v)), C.uint32_t(len(v)))); err != nil {
			return fail(err)
		}
	}
	runtime.KeepAlive(c)
	return g, nil
}

// QueryVariables returns the variables (inputs first, then aux offset by NumInputs)
// whose values are the compacted A and B query scalars, in groth16.QueryScalars' order.
func QueryVariables(c *r1cs.Circuit) (a, b []uint32) {
	ni := c.NumInputs
	a = make([]uint32, 0, ni+c.AAux.Count())
	b = make([]uint32, 0, c.BInput.Count()+c.BAux.Count())
	for i := 0; i < ni; i++ {
		a = append(a, uint32(i))
		if c.BInput.Get(i) {
			b = append(b, uint32(i))
		}
	}
	for j := 0; j < c.NumAux; j++ {
		if c.AAux.Get(j) {
			a = append(a, uint32(ni+j))
		}
	}
	for j := 0; j < c.NumAux; j++ {
		if c.BAux.Get(j) {
			b = append(b, uint32(ni+j))
		}
	}
	return a, b
}

// Vars is the number of variables (inputs and aux); QueryLens the lengths of the
// compacted A and B scalar vectors.
func (g *DeviceCircuit) Vars() int               { return g.vars }
func (g *DeviceCircuit) QueryLens() (nA, nB int) { return g.nA, g.nB }
func (g *DeviceCircuit) DeviceBytes() (uint64, error) {
	if g.h == nil {
		return 0, errors.New("ffi: circuit closed")
	}
	var n C.uint64_t
	err := check(C.filc2_r1cs_device_bytes(g.h, &n))
	return uint64(n), err
}

// Eval computes a, b, c (domain elements each, zero-padded) and the compacted A and B
// scalars from the witness w (inputs then aux), all device buffers of this device,
// asynchronously on stream (nil: the legacy default stream).
func (g *DeviceCircuit) Eval(w, a, b, c, as, bs *FrBuffer, domain int, stream unsafe.Pointer) error {
	if g.h == nil {
		return errors.New("ffi: circuit closed")
	}
	for _, x := range []struct {
		buf  *FrBuffer
		n    int
		name string
	}{{w, g.vars, "witness"}, {a, domain, "a"}, {b, domain, "b"}, {c, domain, "c"}, {as, g.nA, "A scalars"}, {bs, g.nB, "B scalars"}} {
		if x.buf == nil || x.buf.p == nil || x.buf.n < x.n || x.buf.device != g.device {
			return invalid("%s buffer does not hold %d elements on device %d", x.name, x.n, g.device)
		}
	}
	if domain < g.rows {
		return invalid("domain %d smaller than %d constraints", domain, g.rows)
	}
	return check(C.filc2_r1cs_eval(g.h, w.p, a.p, b.p, c.p, C.uint64_t(domain), as.p, bs.p, stream))
}

// Close frees the device memory. Idempotent.
func (g *DeviceCircuit) Close() error {
	if g == nil || g.h == nil {
		return nil
	}
	err := check(C.filc2_r1cs_free(g.h))
	g.h = nil
	return err
}

// bench times Eval's parts (filc2_r1cs_bench): A·w, B·w, C·w, the A and B gathers and
// the whole, in device ms averaged over reps runs; split false runs the long rows
// thread-per-row like the short ones.
func (g *DeviceCircuit) bench(w, a, b, c, as, bs *FrBuffer, domain int, split bool, reps int) ([6]float32, error) {
	var ms [6]float32
	if g.h == nil {
		return ms, errors.New("ffi: circuit closed")
	}
	s := C.int32_t(0)
	if split {
		s = 1
	}
	err := check(C.filc2_r1cs_bench(g.h, w.p, a.p, b.p, c.p, C.uint64_t(domain), as.p, bs.p, s, C.int32_t(reps),
		(*C.float)(unsafe.Pointer(&ms[0]))))
	return ms, err
}

//go:build cuda

package ffi

/*
#include "filc2_cuda.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Bindings of cuda/filc2_ntt.h: Fr NTT domains on a device, transforms over host slices
// (tests) and device buffers (the backend), and the H pipeline of a Groth16 proof.

// Order says how a transform reads its input and writes its output: natural, or
// bit-reversed (position p holds index bitrev(p)).
type Order int

const (
	// OrderNN: natural in, natural out.
	OrderNN Order = C.FILC2_NTT_NN
	// OrderNR: natural in, bit-reversed out (gnark's fft.DIF).
	OrderNR Order = C.FILC2_NTT_NR
	// OrderRN: bit-reversed in, natural out (gnark's fft.DIT).
	OrderRN Order = C.FILC2_NTT_RN
)

func (o Order) String() string {
	switch o {
	case OrderNN:
		return "NN"
	case OrderNR:
		return "NR"
	case OrderRN:
		return "RN"
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// MaxNTTLog is the largest domain, 2^28 points.
const MaxNTTLog = 28

// DomainOptions configure NewDomainWith; the zero value is the default.
type DomainOptions struct {
	Device int
	// Compact drops the first pass's twiddle table (16·N bytes: 2 GiB at 2^27) at the cost
	// of one more field product per element in that pass.
	Compact bool
	// MaxPassLog (5–11, 0 = 10) and TileLog (5–11, 0 = 10) override the pass plan: the
	// largest sub-transform one kernel pass does, and the elements per thread block (both at
	// most 10 with 4 elements a thread: larger values are capped there).
	MaxPassLog int
	TileLog    int
	// Greedy splits the transform into passes of MaxPassLog bits and a smaller last one
	// instead of passes of equal size.
	Greedy bool
	// ThreadElems is the elements a pass kernel's thread holds: 4 (radix-4 rounds, 80
	// registers, passes and blocks of at most 2^10 elements), 8 (radix-8 rounds, 128
	// registers, half the shared-memory exchanges) or 0 for the default, 4.
	ThreadElems int
}

// Domain is an NTT domain of 2^LogN points on one device: bellperson's ω = 7^((r−1)/2^LogN)
// (gnark's fft.Generator), the coset shift 7, and the twiddle tables, computed once. It is
// safe for concurrent use; Close frees it.
type Domain struct {
	h      *C.filc2_ntt_domain
	logN   int
	device int
}

// DomainInfo describes a domain's plan and memory.
type DomainInfo struct {
	LogN       int
	Device     int
	TableBytes uint64
	PassBits   []int // bits per kernel pass (empty: a one-thread transform, LogN ≤ 4)
	PassLines  []int // log2 of the lines each block of that pass holds
	// ThreadElems is the elements one thread of a pass kernel holds (4 or 8).
	ThreadElems int
	Omega       fr.Element
	OmegaInv    fr.Element
}

func invalid(format string, args ...any) error {
	return &Error{Code: codeInvalidArgument, Msg: fmt.Sprintf(format, args...)}
}

// NewDomain returns a domain of 2^logN points (1 ≤ logN ≤ 28) on device 0.
func NewDomain(logN int) (*Domain, error) { return NewDomainWith(logN, DomainOptions{}) }

// NewDomainWith returns a domain with options.
func NewDomainWith(logN int, o DomainOptions) (*Domain, error) {
	if logN < 1 || logN > MaxNTTLog {
		return nil, invalid("NTT log size %d out of 1..%d", logN, MaxNTTLog)
	}
	var flags C.uint32_t
	if o.Compact {
		flags |= C.FILC2_NTT_COMPACT
	}
	if o.Greedy {
		flags |= C.FILC2_NTT_GREEDY
	}
	switch o.ThreadElems {
	case 0:
	case 4:
		flags |= 2 << 16 // FILC2_NTT_THREAD_LOG(2)
	case 8:
		flags |= 3 << 16 // FILC2_NTT_THREAD_LOG(3)
	default:
		return nil, invalid("NTT elements a thread %d: want 4 or 8 (0 = default)", o.ThreadElems)
	}
	flags |= C.uint32_t(o.MaxPassLog&15) << 8
	flags |= C.uint32_t(o.TileLog&15) << 12
	if (o.MaxPassLog != 0 && (o.MaxPassLog < 5 || o.MaxPassLog > 11)) || (o.TileLog != 0 && (o.TileLog < 5 || o.TileLog > 11)) {
		return nil, invalid("NTT plan override out of 5..11: %+v", o)
	}
	var h *C.filc2_ntt_domain
	if err := check(C.filc2_ntt_domain_new(C.int32_t(o.Device), C.int32_t(logN), flags, &h)); err != nil {
		return nil, err
	}
	d := &Domain{h: h, logN: logN, device: o.Device}
	runtime.SetFinalizer(d, func(d *Domain) { _ = d.Close() })
	return d, nil
}

// Close frees the domain's device memory (after its stream drains). Idempotent.
func (d *Domain) Close() error {
	if d == nil || d.h == nil {
		return nil
	}
	err := check(C.filc2_ntt_domain_free(d.h))
	d.h = nil
	runtime.SetFinalizer(d, nil)
	return err
}

// LogN returns log2 of the domain size; Size the size.
func (d *Domain) LogN() int { return d.logN }
func (d *Domain) Size() int { return 1 << d.logN }

func (d *Domain) live() error {
	if d == nil || d.h == nil {
		return invalid("NTT domain is closed")
	}
	return nil
}

// Info returns the domain's plan, table memory and generator.
func (d *Domain) Info() (DomainInfo, error) {
	if err := d.live(); err != nil {
		return DomainInfo{}, err
	}
	var in C.filc2_ntt_info
	err := check(C.filc2_ntt_domain_info(d.h, &in))
	runtime.KeepAlive(d)
	if err != nil {
		return DomainInfo{}, err
	}
	out := DomainInfo{LogN: int(in.log_n), Device: int(in.device), TableBytes: uint64(in.table_bytes),
		ThreadElems: 1 << int(in.thread_log)}
	for i := 0; i < int(in.passes) && i < 4; i++ {
		out.PassBits = append(out.PassBits, int(in.pass_bits[i]))
		out.PassLines = append(out.PassLines, int(in.pass_lines[i]))
	}
	out.Omega = *(*fr.Element)(unsafe.Pointer(&in.omega[0]))
	out.OmegaInv = *(*fr.Element)(unsafe.Pointer(&in.omega_inv[0]))
	return out, nil
}

// NTT transforms src (natural order) into dst (natural order): forward
// X_k = Σ_i x_i·(7^i if coset)·ω^(ik), or the inverse (scaled by 1/N, and by 7^−i on the
// coset). Host slices of Size() elements; dst may be src. Synchronous.
func (d *Domain) NTT(dst, src []fr.Element, inverse, coset bool) error {
	return d.NTTOrder(dst, src, inverse, coset, OrderNN)
}

// NTTOrder is NTT with an explicit order: OrderNR is gnark's FFT/FFTInverse with fft.DIF,
// OrderRN with fft.DIT (bit-reversed input).
func (d *Domain) NTTOrder(dst, src []fr.Element, inverse, coset bool, order Order) error {
	return d.nttHost(dst, src, inverse, coset, order, false)
}

func (d *Domain) nttHost(dst, src []fr.Element, inverse, coset bool, order Order, inPlace bool) error {
	if err := d.live(); err != nil {
		return err
	}
	if len(src) != d.Size() || len(dst) != d.Size() {
		return invalid("NTT of 2^%d points on slices of %d and %d", d.logN, len(src), len(dst))
	}
	err := check(C.filc2_ntt_host(d.h, ptr(dst), ptr(src), cbool(inverse), cbool(coset), C.int32_t(order), cbool(inPlace)))
	runtime.KeepAlive(d)
	return err
}

// H returns bellperson's H coefficients h_0 … h_{N−2} from the evaluations a, b, c of the
// constraint system (Size() elements each, padded with zeros), exactly as
// proofs/groth16's computeH: the value of iNTT, coset NTT, (a·b − c)/(7^N − 1), coset iNTT
// (computed with c's coset NTT and its inverse left out: they cancel). The inputs
// are not modified. Synchronous.
func (d *Domain) H(a, b, c []fr.Element) ([]fr.Element, error) {
	if err := d.live(); err != nil {
		return nil, err
	}
	n := d.Size()
	if len(a) != n || len(b) != n || len(c) != n {
		return nil, invalid("H over 2^%d points with inputs of %d, %d, %d", d.logN, len(a), len(b), len(c))
	}
	h := make([]fr.Element, n)
	err := check(C.filc2_ntt_h_host(d.h, ptr(h), ptr(a), ptr(b), ptr(c)))
	runtime.KeepAlive(d)
	if err != nil {
		return nil, err
	}
	return h[:n-1], nil
}

// HPipeline computes H on device 0 with a domain made for the occasion (tests; a prover
// keeps its Domain). len(a) must be a power of two.
func HPipeline(a, b, c []fr.Element) ([]fr.Element, error) {
	n := len(a)
	if n < 2 || n&(n-1) != 0 {
		return nil, invalid("H needs a power-of-two size ≥ 2, got %d", n)
	}
	logN := 0
	for 1<<logN < n {
		logN++
	}
	d, err := NewDomain(logN)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.H(a, b, c)
}

// Stream returns the domain's CUDA stream (a cudaStream_t, non-blocking), on which the
// Device methods run, for ordering other work after them.
func (d *Domain) Stream() (unsafe.Pointer, error) {
	if err := d.live(); err != nil {
		return nil, err
	}
	var s unsafe.Pointer
	err := check(C.filc2_ntt_domain_stream(d.h, &s))
	runtime.KeepAlive(d)
	return s, err
}

// Sync waits for the domain's stream.
func (d *Domain) Sync() error {
	if err := d.live(); err != nil {
		return err
	}
	err := check(C.filc2_ntt_sync(d.h, nil))
	runtime.KeepAlive(d)
	return err
}

// FrBuffer is a vector of Fr elements in device memory.
type FrBuffer struct {
	p      unsafe.Pointer
	n      int
	device int
}

// AllocFr allocates n elements on a device (uninitialised).
func AllocFr(device, n int) (*FrBuffer, error) {
	if n <= 0 {
		return nil, invalid("device buffer of %d elements", n)
	}
	var p unsafe.Pointer
	if err := check(C.filc2_ntt_alloc(C.int32_t(device), C.uint64_t(n), &p)); err != nil {
		return nil, err
	}
	return &FrBuffer{p: p, n: n, device: device}, nil
}

// Len returns the number of elements; Pointer the device address (for other kernels).
func (b *FrBuffer) Len() int                { return b.n }
func (b *FrBuffer) Pointer() unsafe.Pointer { return b.p }

// Free releases the memory. Idempotent.
func (b *FrBuffer) Free() error {
	if b == nil || b.p == nil {
		return nil
	}
	err := check(C.filc2_ntt_free(C.int32_t(b.device), b.p))
	b.p = nil
	return err
}

// Upload copies src (len ≤ Len) to the start of the buffer; Download the start of the
// buffer into dst. Both synchronous (legacy default stream), so not ordered with work on a
// domain's stream: Sync the domain first.
func (b *FrBuffer) Upload(src []fr.Element) error {
	if b.p == nil || len(src) > b.n {
		return invalid("upload of %d elements into a buffer of %d", len(src), b.n)
	}
	if len(src) == 0 {
		return nil
	}
	return check(C.filc2_ntt_copy(C.int32_t(b.device), b.p, ptr(src), C.uint64_t(len(src)), 0, nil))
}

func (b *FrBuffer) Download(dst []fr.Element) error {
	if b.p == nil || len(dst) > b.n {
		return invalid("download of %d elements from a buffer of %d", len(dst), b.n)
	}
	if len(dst) == 0 {
		return nil
	}
	return check(C.filc2_ntt_copy(C.int32_t(b.device), ptr(dst), b.p, C.uint64_t(len(dst)), 1, nil))
}

func (d *Domain) fits(bufs ...*FrBuffer) error {
	for _, b := range bufs {
		if b == nil || b.p == nil || b.n < d.Size() || b.device != d.device {
			return invalid("device buffer does not fit an NTT of 2^%d points on device %d", d.logN, d.device)
		}
	}
	return nil
}

// NTTDevice transforms src into dst (device buffers of at least Size() elements, on the
// domain's device; dst may be src) on the domain's stream, asynchronously: Sync, or a
// synchronous copy on the legacy stream after Sync, before reading dst.
func (d *Domain) NTTDevice(dst, src *FrBuffer, inverse, coset bool, order Order) error {
	if err := d.live(); err != nil {
		return err
	}
	if err := d.fits(dst, src); err != nil {
		return err
	}
	err := check(C.filc2_ntt_run(d.h, dst.p, src.p, cbool(inverse), cbool(coset), C.int32_t(order), nil))
	runtime.KeepAlive(d)
	return err
}

// HDevice runs the H pipeline in place on a, b, c (device buffers of Size() elements
// holding the evaluations) on the domain's stream and returns the buffer that holds the
// result — a: Size() coefficients in natural order, the first Size()−1 being h, ready for
// the H MSM. b and c are clobbered. Asynchronous like NTTDevice.
func (d *Domain) HDevice(a, b, c *FrBuffer) (*FrBuffer, error) {
	if err := d.live(); err != nil {
		return nil, err
	}
	if err := d.fits(a, b, c); err != nil {
		return nil, err
	}
	if a.p == b.p || b.p == c.p || a.p == c.p {
		return nil, invalid("H needs three distinct buffers")
	}
	var h unsafe.Pointer
	err := check(C.filc2_ntt_h(d.h, a.p, b.p, c.p, &h, nil))
	runtime.KeepAlive(d)
	if err != nil {
		return nil, err
	}
	for _, x := range []*FrBuffer{a, b, c} {
		if x.p == h {
			return x, nil
		}
	}
	return nil, &Error{Code: codeInternal, Msg: "H result in an unknown buffer"}
}

// nttBench returns the device time in ms of each of reps runs of a benchmark op
// (filc2_ntt_bench) on the domain.
func (d *Domain) nttBench(op, reps int) ([]float32, error) {
	if err := d.live(); err != nil {
		return nil, err
	}
	ms := make([]float32, reps)
	err := check(C.filc2_ntt_bench(d.h, C.int32_t(op), C.int32_t(reps), (*C.float)(unsafe.Pointer(&ms[0]))))
	runtime.KeepAlive(d)
	return ms, err
}

// Benchmark ops of filc2_ntt_bench.
const (
	nttBenchFwd      = C.FILC2_NTT_BENCH_FWD
	nttBenchInv      = C.FILC2_NTT_BENCH_INV
	nttBenchCoset    = C.FILC2_NTT_BENCH_COSET
	nttBenchFwdRN    = C.FILC2_NTT_BENCH_FWD_RN
	nttBenchCosetRN  = C.FILC2_NTT_BENCH_COSET_RN
	nttBenchFwdNN    = C.FILC2_NTT_BENCH_FWD_NN
	nttBenchCosetInv = C.FILC2_NTT_BENCH_COSET_INV
	nttBenchH        = C.FILC2_NTT_BENCH_H
)

// nttInPlace is NTTOrder run in place on the device (test hook).
func (d *Domain) nttInPlace(dst, src []fr.Element, inverse, coset bool, order Order) error {
	return d.nttHost(dst, src, inverse, coset, order, true)
}

func cbool(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

// UploadAt copies src into the buffer from element off on (synchronous, like Upload).
func (b *FrBuffer) UploadAt(off int, src []fr.Element) error {
	if b.p == nil || off < 0 || off+len(src) > b.n {
		return invalid("upload of %d elements at %d into a buffer of %d", len(src), off, b.n)
	}
	if len(src) == 0 {
		return nil
	}
	return check(C.filc2_ntt_copy(C.int32_t(b.device), unsafe.Add(b.p, off*32), ptr(src), C.uint64_t(len(src)), 0, nil))
}

// RepeatAt copies the n elements from off on to the copies−1 runs of n that follow
// them, on the device (doubling the copied runs: about log2(copies) copies), so that
// the buffer holds copies runs of the same n elements from off on. Synchronous.
func (b *FrBuffer) RepeatAt(off, n, copies int) error {
	if b.p == nil || off < 0 || n < 0 || copies < 1 || n > 0 && copies > (b.n-off)/n {
		return invalid("%d copies of %d elements at %d in a buffer of %d", copies, n, off, b.n)
	}
	for done := 1; done < copies && n > 0; {
		k := min(done, copies-done)
		err := check(C.filc2_ntt_copy(C.int32_t(b.device), unsafe.Add(b.p, (off+done*n)*32), unsafe.Add(b.p, off*32),
			C.uint64_t(k*n), 2, nil))
		if err != nil {
			return err
		}
		done += k
	}
	return nil
}

// At is the device address of element off (for kernels that take a sub-vector).
func (b *FrBuffer) At(off int) unsafe.Pointer { return unsafe.Add(b.p, off*32) }

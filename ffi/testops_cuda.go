//go:build cuda

package ffi

/*
#include "filc2_cuda.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Bindings of the test and throughput entry points of cuda/filc2_cuda.h, for the GPU
// tests of this package (cgo cannot appear in _test.go files). Device 0, host slices
// in and out; gnark values go to the device as they are (layout.go).

type fieldOp int32

const (
	opMul      fieldOp = C.FILC2_FIELD_MUL
	opAdd      fieldOp = C.FILC2_FIELD_ADD
	opSub      fieldOp = C.FILC2_FIELD_SUB
	opSqr      fieldOp = C.FILC2_FIELD_SQR
	opInv      fieldOp = C.FILC2_FIELD_INV
	opNeg      fieldOp = C.FILC2_FIELD_NEG
	opToMont   fieldOp = C.FILC2_FIELD_TO_MONT
	opFromMont fieldOp = C.FILC2_FIELD_FROM_MONT
	// opInvVartime is the divstep inversion of ff/inverse.cuh (the batch-affine MSM's).
	opInvVartime fieldOp = C.FILC2_FIELD_INV_VARTIME
)

func (op fieldOp) String() string {
	return [...]string{"mul", "add", "sub", "sqr", "inv", "neg", "to_mont", "from_mont", "inv_vartime"}[op]
}

func (op fieldOp) binary() bool { return op == opMul || op == opAdd || op == opSub }

type curveOp int32

const (
	ecAdd  curveOp = C.FILC2_EC_ADD
	ecMadd curveOp = C.FILC2_EC_MADD
	ecDbl  curveOp = C.FILC2_EC_DBL
	ecSmul curveOp = C.FILC2_EC_SMUL
	ecNeg  curveOp = C.FILC2_EC_NEG
)

func (op curveOp) String() string { return [...]string{"add", "madd", "dbl", "smul", "neg"}[op] }

type outFormat int32

const (
	outAffine      outFormat = C.FILC2_OUT_AFFINE
	outAffineBatch outFormat = C.FILC2_OUT_AFFINE_BATCH
	outJacobian    outFormat = C.FILC2_OUT_JACOBIAN
)

func (f outFormat) String() string { return [...]string{"affine", "affine-batch", "jacobian"}[f] }

func lengths(n int, b int, out int, binary bool) error {
	if out != n || (binary && b != n) {
		return fmt.Errorf("ffi: lengths a %d, b %d, out %d", n, b, out)
	}
	return nil
}

func testFr(op fieldOp, out, a, b []fr.Element) error {
	if err := lengths(len(a), len(b), len(out), op.binary()); err != nil {
		return err
	}
	return check(C.filc2_test_fr(0, C.int32_t(op), ptr(a), ptr(b), ptr(out), C.size_t(len(a))))
}

func testFp(op fieldOp, out, a, b []fp.Element) error {
	if err := lengths(len(a), len(b), len(out), op.binary()); err != nil {
		return err
	}
	return check(C.filc2_test_fp(0, C.int32_t(op), ptr(a), ptr(b), ptr(out), C.size_t(len(a))))
}

func testFp2(op fieldOp, out, a, b []bls.E2) error {
	if err := lengths(len(a), len(b), len(out), op.binary()); err != nil {
		return err
	}
	return check(C.filc2_test_fp2(0, C.int32_t(op), ptr(a), ptr(b), ptr(out), C.size_t(len(a))))
}

// testG1 writes n results to out, which must hold n G1Affine (affine formats) or n
// G1Jac (Jacobian).
func testG1(op curveOp, f outFormat, out unsafe.Pointer, a, b []bls.G1Affine, s []fr.Element) error {
	return check(C.filc2_test_g1(0, C.int32_t(op), C.int32_t(f), ptr(a), ptr(b), ptr(s), out, C.size_t(len(a))))
}

// testG2 is testG1 for G2 (G2Affine or G2Jac results).
func testG2(op curveOp, f outFormat, out unsafe.Pointer, a, b []bls.G2Affine, s []fr.Element) error {
	return check(C.filc2_test_g2(0, C.int32_t(op), C.int32_t(f), ptr(a), ptr(b), ptr(s), out, C.size_t(len(a))))
}

// testAlloc allocates and frees bytes of device memory.
func testAlloc(device int, bytes uint64) error {
	return check(C.filc2_test_alloc(C.int32_t(device), C.uint64_t(bytes)))
}

// benchMul returns the device time in ms of each of reps launches (filc2_bench_mul).
func benchMul(device, field, op, chain int, n uint64, reps int) ([]float32, error) {
	ms := make([]float32, reps)
	err := check(C.filc2_bench_mul(C.int32_t(device), C.int32_t(field), C.int32_t(op), C.int32_t(chain), C.uint64_t(n),
		C.int32_t(reps), (*C.float)(unsafe.Pointer(&ms[0]))))
	return ms, err
}

// codes lists the C error codes, for the test that Go's copies agree.
func codes() map[string][2]int {
	return map[string][2]int{
		"out of memory":    {codeOutOfMemory, C.FILC2_ERR_OUT_OF_MEMORY},
		"no device":        {codeNoDevice, C.FILC2_ERR_NO_DEVICE},
		"invalid argument": {codeInvalidArgument, C.FILC2_ERR_INVALID_ARGUMENT},
		"cuda":             {codeCUDA, C.FILC2_ERR_CUDA},
		"host memory":      {codeHostMemory, C.FILC2_ERR_HOST_MEMORY},
		"internal":         {codeInternal, C.FILC2_ERR_INTERNAL},
	}
}

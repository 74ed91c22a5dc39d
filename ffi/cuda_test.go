//go:build cuda

package ffi

import (
	"errors"
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

func TestCompiled(t *testing.T) {
	if !Compiled() {
		t.Fatal("Compiled() is false in a cuda build")
	}
	if b, err := NewBackend(); err != nil || b.Name() != "cuda" {
		t.Fatalf("NewBackend: %v, %v", b, err)
	}
	if _, err := NewBackendOn(1 << 20); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("NewBackendOn(2^20): %v, want ErrNoDevice", err)
	}
}

func TestErrorCodesAgree(t *testing.T) {
	for name, c := range codes() {
		if c[0] != c[1] {
			t.Errorf("%s: Go code %d, C code %d", name, c[0], c[1])
		}
	}
}

func TestDevices(t *testing.T) {
	rt, drv, err := Versions()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("CUDA runtime %d, driver %d", rt, drv)
	devs, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) == 0 {
		t.Fatal("no devices")
	}
	for _, d := range devs {
		t.Logf("device %d: %s, %.1f GiB (%.1f free), %d SMs, compute %d.%d", d.Ordinal, d.Name,
			float64(d.Memory)/(1<<30), float64(d.Free)/(1<<30), d.SMs, d.CCMajor, d.CCMinor)
		if d.Memory == 0 || d.SMs == 0 || d.CCMajor < 7 || d.Name == "" {
			t.Errorf("implausible device %+v", d)
		}
	}
}

// TestOutOfMemory: an allocation larger than any GPU comes back as ErrOutOfMemory, not
// a crash, and the device stays usable.
func TestOutOfMemory(t *testing.T) {
	err := testAlloc(0, 1<<50)
	if !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("allocating 1 PiB: %v, want ErrOutOfMemory", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.CUDA != 2 { // cudaErrorMemoryAllocation
		t.Fatalf("allocating 1 PiB: %#v, want the CUDA error 2", err)
	}
	t.Logf("as expected: %v", err)
	if err := testAlloc(0, 1<<20); err != nil {
		t.Fatalf("1 MiB after the failure: %v", err)
	}
	a := randomFr(3)
	out := make([]fr.Element, 3)
	if err := testFr(opSqr, out, a, nil); err != nil {
		t.Fatalf("a kernel after the failure: %v", err)
	}
}

// TestBadArguments: bad ordinals, ops and formats are errors, not crashes.
func TestBadArguments(t *testing.T) {
	if err := testAlloc(1000, 16); err == nil || errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("device 1000: %v, want an invalid-argument error", err)
	} else {
		t.Logf("as expected: %v", err)
	}
	a := randomFr(2)
	out := make([]fr.Element, 2)
	if err := testFr(fieldOp(99), out, a, a); err == nil {
		t.Fatal("unknown field op accepted")
	}
	if err := testFp2(opToMont, nil, nil, nil); err == nil {
		t.Fatal("to_mont on Fp2 accepted")
	}
	if err := testG1(curveOp(42), outAffine, nil, nil, nil, nil); err == nil {
		t.Fatal("unknown curve op accepted")
	}
	if err := testG1(ecDbl, outFormat(7), unsafe.Pointer(&out[0]), nil, nil, nil); err == nil {
		t.Fatal("unknown output format accepted")
	}
	if _, err := benchMul(0, 5, 0, 0, 16, 1); err == nil {
		t.Fatal("unknown bench field accepted")
	}
}

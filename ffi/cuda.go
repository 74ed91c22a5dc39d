//go:build cuda

package ffi

/*
#cgo CFLAGS: -I${SRCDIR}/../cuda
#cgo LDFLAGS: -L${SRCDIR}/../build/cuda -lfilc2cuda -l:libstdc++.a -lm -ldl -lpthread -lrt
#include "filc2_cuda.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// The library is build/cuda/libfilc2cuda.a (cuda/build.sh), with the CUDA runtime
// folded in: a cuda binary needs only the NVIDIA driver where it runs.

// Compiled reports whether CUDA support is compiled into this binary.
func Compiled() bool { return true }

// Devices returns the CUDA devices this process can use; no device or no driver is an
// error matching ErrNoDevice.
func Devices() ([]Device, error) {
	var n C.int32_t
	if err := check(C.filc2_device_count(&n)); err != nil {
		return nil, err
	}
	out := make([]Device, 0, int(n))
	for i := 0; i < int(n); i++ {
		var info C.filc2_device_info
		if err := check(C.filc2_device_get(C.int32_t(i), &info)); err != nil {
			return nil, err
		}
		out = append(out, Device{
			Ordinal: i,
			Name:    C.GoString(&info.name[0]),
			Memory:  uint64(info.total_memory),
			Free:    uint64(info.free_memory),
			SMs:     int(info.sm_count),
			CCMajor: int(info.cc_major),
			CCMinor: int(info.cc_minor),
		})
	}
	return out, nil
}

// Versions returns the CUDA runtime version linked in and the driver's CUDA version
// (1000·major + 10·minor; the driver's is 0 where no driver is installed).
func Versions() (runtime, driver int, err error) {
	var r, d C.int32_t
	if err := check(C.filc2_versions(&r, &d)); err != nil {
		return 0, 0, err
	}
	return int(r), int(d), nil
}

// ProbeDevice checks that device works: it synchronises it and writes and
// reads back 1 MiB. With reset set it first re-initialises the device
// (cudaDeviceReset), which a device lost to a sticky error needs; nothing
// of this process may be resident there then (every allocation is gone).
func ProbeDevice(device int, reset bool) error {
	r := 0
	if reset {
		r = 1
	}
	if err := check(C.filc2_device_probe(C.int32_t(device), C.int32_t(r))); err != nil {
		return fmt.Errorf("probing device %d: %w", device, err)
	}
	return nil
}

// check turns a filc2_status into nil or an *Error.
func check(st C.filc2_status) error {
	if st.code == C.FILC2_OK {
		return nil
	}
	return &Error{Code: int(st.code), CUDA: int(st.cuda), Msg: C.GoString(&st.msg[0])}
}

// ptr is the address of a slice's first element, nil for an empty slice. The slices
// passed to C hold field elements and points only: no Go pointers inside.
func ptr[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

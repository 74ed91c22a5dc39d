//go:build cuda

package ffi

/*
#include "filc2_cuda.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Uploader copies host memory to device memory through pinned staging buffers on a
// stream of its own (filc2_uploader): the copy is not ordered with, and does not hold
// up, kernels that other goroutines run on the same device meanwhile, unlike a pageable
// cudaMemcpy on the legacy default stream. One copy at a time per Uploader.
type Uploader struct {
	mu     sync.Mutex
	h      *C.filc2_uploader
	device int
}

// NewUploader makes an Uploader on a device with `buffers` (2–4) pinned staging buffers
// of chunk bytes each (0: 16 MiB).
func NewUploader(device, chunk, buffers int) (*Uploader, error) {
	if chunk < 0 {
		return nil, invalid("uploader chunk of %d bytes", chunk)
	}
	var h *C.filc2_uploader
	if err := check(C.filc2_uploader_new(C.int32_t(device), C.uint64_t(chunk), C.int32_t(buffers), &h)); err != nil {
		return nil, fmt.Errorf("uploader on device %d: %w", device, err)
	}
	return &Uploader{h: h, device: device}, nil
}

// copyBytes copies bytes from host address src to device address dst and returns when they
// are on the device.
func (u *Uploader) copyBytes(dst, src unsafe.Pointer, bytes int) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.h == nil {
		return errors.New("ffi: the uploader is closed")
	}
	return check(C.filc2_uploader_copy(u.h, dst, src, C.uint64_t(bytes)))
}

// UploadAt copies src into b from element off on.
func (u *Uploader) UploadAt(b *FrBuffer, off int, src []fr.Element) error {
	if b.p == nil || off < 0 || off+len(src) > b.n || b.device != u.device {
		return invalid("staged upload of %d elements at %d into a buffer of %d on device %d", len(src), off, b.n, b.device)
	}
	if len(src) == 0 {
		return nil
	}
	return u.copyBytes(b.At(off), ptr(src), len(src)*fr.Bytes)
}

// Close frees the staging buffers and the stream. Idempotent.
func (u *Uploader) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.h == nil {
		return nil
	}
	err := check(C.filc2_uploader_free(u.h))
	u.h = nil
	return err
}

// uploadPool keeps a device's Uploaders for reuse; a large copy is split over several
// of them, each with its own host thread doing the memcpy into pinned memory.
type uploadPool struct {
	device int
	ways   int // Uploaders per copy of a large vector
	kept   freeList[*Uploader]
}

func newUploadPool(device, ways int) *uploadPool {
	return &uploadPool{device: device, ways: ways, kept: freeList[*Uploader]{max: maxPooledUploaders}}
}

// maxPooledUploaders bounds the Uploaders (32 MiB of pinned memory each) a pool keeps.
const maxPooledUploaders = 8

// minSplit is the least a part of a split upload carries (smaller copies are not split).
const minSplit = 64 << 20

func (p *uploadPool) get() (*Uploader, error) {
	u, ok, closed := p.kept.take()
	switch {
	case closed:
		return nil, errors.New("ffi: the prover is closed")
	case ok:
		return u, nil
	}
	return NewUploader(p.device, 0, 2)
}

func (p *uploadPool) put(u *Uploader) {
	if !p.kept.put(u) {
		u.Close()
	}
}

// uploadAt copies src into b from element off on, split over up to p.ways Uploaders
// copying at once.
func (p *uploadPool) uploadAt(b *FrBuffer, off int, src []fr.Element) error {
	ways := max(1, min(p.ways, len(src)*fr.Bytes/minSplit))
	per := (len(src) + ways - 1) / ways
	errs := make([]error, ways)
	var wg sync.WaitGroup
	for k := 0; k < ways; k++ {
		lo, hi := k*per, min(len(src), (k+1)*per)
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			u, err := p.get()
			if err != nil {
				errs[k] = err
				return
			}
			errs[k] = u.UploadAt(b, off+lo, src[lo:hi])
			p.put(u)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// close frees the pooled Uploaders; later gets fail.
func (p *uploadPool) close() error {
	var errs []error
	for _, u := range p.kept.close() {
		errs = append(errs, u.Close())
	}
	return errors.Join(errs...)
}

// defaultUploadWays is how many Uploaders copy one witness at once: each is one host
// thread's memcpy (~10 GB/s) into pinned memory, the bus takes ~50 GB/s.
const defaultUploadWays = 4

// uploadPoolFromEnv makes a Prover's upload pool as FILC2_UPLOAD says: unset or
// "staged" (defaultUploadWays), "staged:N" (N Uploaders per witness), or "pageable"
// (nil: the witness goes up by plain cudaMemcpy, for comparisons).
func uploadPoolFromEnv(device int) (*uploadPool, error) {
	v := os.Getenv("FILC2_UPLOAD")
	switch {
	case v == "" || v == "staged":
		return newUploadPool(device, defaultUploadWays), nil
	case v == "pageable":
		return nil, nil
	case strings.HasPrefix(v, "staged:"):
		n, err := strconv.Atoi(strings.TrimPrefix(v, "staged:"))
		if err == nil && n >= 1 && n <= maxPooledUploaders {
			return newUploadPool(device, n), nil
		}
	}
	return nil, fmt.Errorf("FILC2_UPLOAD=%q: want staged, staged:N (1 ≤ N ≤ %d) or pageable", v, maxPooledUploaders)
}

package ffi

import (
	"fmt"
	"os"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// scratchPolicy is how a CUDA prover sizes the MSM scratch it holds back while its key goes
// up (FILC2_MSM_SCRATCH). The scratch is shared by the five MSMs of a proof; what is held
// back decides how much of the key stays on the device.
type scratchPolicy int

const (
	// scratchAuto sizes the scratch for the H MSM only where that brings the whole key onto
	// the device and the worst case would not (leanPays); otherwise as scratchWorst.
	scratchAuto scratchPolicy = iota
	// scratchWorst holds back the largest plan: a split MSM's worst case (every scalar
	// neither 0 nor 1). The split MSMs then never run in chunks.
	scratchWorst
	// scratchH holds back the H MSM's plan (lent its section buffers and its scalars); the
	// split MSMs get what is free after the key and run in chunks where that is short.
	scratchH
)

// scratchPolicyFromEnv reads FILC2_MSM_SCRATCH: auto (or unset), worst or h.
func scratchPolicyFromEnv() (scratchPolicy, error) {
	switch v := os.Getenv("FILC2_MSM_SCRATCH"); v {
	case "", "auto":
		return scratchAuto, nil
	case "worst":
		return scratchWorst, nil
	case "h":
		return scratchH, nil
	default:
		return scratchAuto, fmt.Errorf("FILC2_MSM_SCRATCH=%q: want auto (the default), worst (the split MSMs' worst case "+
			"held back while the key goes up) or h (sized for the H MSM, the split MSMs in chunks where short)", v)
	}
}

// g1Bytes and g2Bytes are an affine point's bytes in a key's query, on the device or in pinned
// host memory (the uploads copy gnark's layout).
const (
	g1Bytes = uint64(unsafe.Sizeof(bls.G1Affine{}))
	g2Bytes = uint64(unsafe.Sizeof(bls.G2Affine{}))
)

// allocGranule is what each of the key's device allocations is rounded up to (the CUDA
// allocator's large-allocation page).
const allocGranule = 2 << 20

// keyDeviceBytes is the device memory a key of these query lengths (H, L, A, B_G1 as G1,
// B_G2 as G2 affine points) takes when all of it is resident.
func keyDeviceBytes(lengths [5]int) uint64 {
	var total uint64
	for i, n := range lengths {
		size := g1Bytes
		if i == 4 {
			size = g2Bytes
		}
		b := uint64(max(n, 1)) * size
		total += (b + allocGranule - 1) / allocGranule * allocGranule
	}
	return total
}

// leanPays reports whether holding back the H MSM's plan (lean bytes) instead of the worst
// case (held bytes, already allocated) brings the whole key (key bytes) onto the device,
// where free is the device's free memory now. Where the key fits anyway, or does not fit
// either way, the worst case is kept: measured on an H100 (cuda/NOTES.md, session 22), the
// smaller scratch pays only by making a query resident that would stream (PoRep 32GiB:
// B_G2, 13.8 → 13.1 s a proof) and costs where the key streams regardless (WindowPoSt
// 32GiB: L and A in chunks, the section 5.86 → 6.03 s).
func leanPays(free, key, held, lean uint64) bool {
	if free >= key {
		return false
	}
	return free+held >= key+lean
}

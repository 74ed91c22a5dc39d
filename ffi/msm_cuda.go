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
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/groth16"
)

// Multi-scalar multiplication over bases resident in device memory (cuda/filc2_msm.h,
// cuda/msm/). A G1Bases or G2Bases holds its points on one device from the upload to
// Close, with a stream and a scratch arena that later calls reuse; a call passes only
// scalars. Calls on one value are serialised (safe from several goroutines, one at a
// time on the device); separate values run independently. Device memory exhaustion is an
// error matching ErrOutOfMemory and leaves the value usable.

// ErrClosed is returned by every method of a closed G1Bases or G2Bases.
var ErrClosed = errors.New("ffi: MSM bases are closed")

// msmConfig tunes one MSM (zero fields: chosen from the size); for tests and benchmarks.
type msmConfig struct {
	WindowBits int // c in [4, 24]
	Chunk      int // pairs per thread in the first accumulation level
	MaxGroup   int // at most this many windows per pass
	Variant    int // first accumulation kernel: 0 XYZZ, 1 XYZZ capped at 128 registers (G1), 2–4 batch-affine with 8, 16, 4 sub-streams a lane (G1; half for G2), 5–6: 0 and 2 on the FP64 product (G1), 7: 0 as before session 14, the addition's equal-x case by reference (G1), 8: 0 as before session 14, the Fp2 product reduced three times (G2), 9: 0 with the Karatsuba Fp product (G1), 10: 0 as before session 16, the equal-x case by reference (G2)
	SortKiB    int // windows per pass so that their bucket counters fit this many KiB; -1 no cap
	Sort       int // 0 the default (radix), 1 the atomic counting sort, 2 the binned sort, 3 the radix sort (CUB)
}

// msmInfo is what a call reports besides the sum.
type msmInfo struct {
	WindowBits int
	Windows    int
	Ones       uint64 // points added with scalar 1 (split, batch addition)
	Others     uint64 // scalars that went through Pippenger
	PerPass    int    // Pippenger: windows sorted and accumulated a pass
	Lent       int    // pair buffers the call put in lent device memory (MSMDeviceLent)
	Chunks     int    // 0: the scalars at once; else the chunks the scratch's room split them in
}

// Lend is what a dense MSM over device scalars may use besides its scratch (MSMDeviceLent):
// up to two buffers, whose contents it overwrites with its sort's pair buffers where they
// fit, and, with Scalars, the scalars themselves (prepared in place).
type Lend struct {
	Buffers []*FrBuffer
	Scalars bool
}

func (l Lend) flags() C.int32_t {
	if l.Scalars {
		return C.FILC2_MSM_OVERWRITE
	}
	return 0
}

const maxWindows = C.FILC2_MSM_MAX_WINDOWS

// handle is the part shared by G1Bases and G2Bases.
type handle struct {
	mu sync.RWMutex // read: a call in progress; write: Close
	h  *C.filc2_msm_bases
	n  int
}

func (b *handle) use(f func(h *C.filc2_msm_bases) error) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.h == nil {
		return ErrClosed
	}
	return f(b.h)
}

func (b *handle) close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.h == nil {
		return nil
	}
	err := check(C.filc2_msm_free(b.h))
	b.h = nil
	return err
}

// HostResident reports whether the points live in host memory (forced, or the device
// had no room for them when they were uploaded).
func (b *handle) HostResident() (bool, error) {
	var yes C.int32_t
	err := b.use(func(h *C.filc2_msm_bases) error { return check(C.filc2_msm_host_resident(h, &yes)) })
	return yes != 0, err
}

// StreamChunk is the number of points a host-resident handle's MSMs copy to the device at
// a time (0: device-resident points, or gathered over the bus; cuda/filc2_msm.h).
func (b *handle) StreamChunk() (int, error) {
	var n C.size_t
	err := b.use(func(h *C.filc2_msm_bases) error { return check(C.filc2_msm_stream_chunk(h, &n)) })
	return int(n), err
}

// SetStreamChunk sets that chunk (0: the kernels gather the points over the bus) and returns
// the chunk it got: smaller where the device has no room for two buffers of it, 0 below 2^16
// points; no effect on device-resident points.
func (b *handle) SetStreamChunk(points int) (int, error) {
	if points < 0 {
		return 0, fmt.Errorf("msm: stream chunk %d: want 0 or more points", points)
	}
	var got C.size_t
	err := b.use(func(h *C.filc2_msm_bases) error {
		return check(C.filc2_msm_set_stream_chunk(h, C.size_t(points), &got))
	})
	return int(got), err
}

// fold makes a device-resident handle of per points, point j = Σ_k this handle's point
// start + k·per + j for k < copies (filc2_msm_fold).
func (b *handle) fold(start, per, copies int) (*C.filc2_msm_bases, error) {
	if start < 0 || per <= 0 || copies <= 0 || per > (b.n-start)/copies {
		return nil, fmt.Errorf("msm: fold of %d runs of %d points from %d outside %d points", copies, per, start, b.n)
	}
	var h *C.filc2_msm_bases
	err := b.use(func(src *C.filc2_msm_bases) error {
		return check(C.filc2_msm_fold(src, C.size_t(start), C.size_t(per), C.size_t(copies), &h))
	})
	return h, err
}

// Fold returns the bases an MSM needs where its scalars repeat in copies runs of per from
// start: point j is the sum of points start + k·per + j over the runs (device memory).
func (b *G1Bases) Fold(start, per, copies int) (*G1Bases, error) {
	h, err := b.fold(start, per, copies)
	if err != nil {
		return nil, err
	}
	return &G1Bases{handle{h: h, n: per}}, nil
}

// Fold is G1Bases.Fold in G2.
func (b *G2Bases) Fold(start, per, copies int) (*G2Bases, error) {
	h, err := b.fold(start, per, copies)
	if err != nil {
		return nil, err
	}
	return &G2Bases{handle{h: h, n: per}}, nil
}

// streamChunkFromEnv reads FILC2_MSM_STREAM_CHUNK (parseStreamChunk).
func streamChunkFromEnv() (int, error) {
	return parseStreamChunk(os.Getenv("FILC2_MSM_STREAM_CHUNK"))
}

// msmVariantFromEnv reads FILC2_MSM_VARIANT, the first accumulation kernel a Prover's
// MSMs use (msmConfig.Variant; unset: 0, the default). For measuring the batch-affine
// and FP64 kernels in whole proofs before one of them becomes the default.
func msmVariantFromEnv() (int, error) {
	return intFromEnv("FILC2_MSM_VARIANT", maxMSMVariant, "filc2_msm_config.variant")
}

// intFromEnv reads an integer 0 … max from the environment variable name (unset: 0); field
// names what it sets, for the error.
func intFromEnv(name string, max int, field string) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > max {
		return 0, fmt.Errorf("%s=%q: want 0 to %d (cuda/filc2_msm.h, %s)", name, v, max, field)
	}
	return n, nil
}

// overlapFromEnv says whether a Prover runs the L, A and B MSMs beside the H pipeline
// (FILC2_OVERLAP=1) or after the H MSM (0; unset: 0 until the overlap has been measured on a
// device, which session 13 could not: cuda/NOTES.md).
func overlapFromEnv() (bool, error) {
	switch v := os.Getenv("FILC2_OVERLAP"); v {
	case "1":
		return true, nil
	case "", "0":
		return false, nil
	default:
		return false, fmt.Errorf("FILC2_OVERLAP=%q: want 1 (the L, A and B MSMs beside the H pipeline) or 0 (after it)", v)
	}
}

// maxMSMVariant is the highest msmConfig.Variant (filc2_msm.h's FILC2_MSM_MAX_VARIANT).
const maxMSMVariant = C.FILC2_MSM_MAX_VARIANT

// maxMSMSort is the highest msmConfig.Sort (filc2_msm.h's FILC2_MSM_MAX_SORT).
const maxMSMSort = C.FILC2_MSM_MAX_SORT

// msmSortFromEnv reads FILC2_MSM_SORT: the sort of a prover's MSMs (msmConfig.Sort: 1 the
// atomic counting sort, 2 the binned sort, 3 the radix sort; unset or 0 the engine's default).
func msmSortFromEnv() (int, error) {
	return intFromEnv("FILC2_MSM_SORT", maxMSMSort, "filc2_msm_config.sort")
}

// setSort sets the sort of the calls made without a config and of reserveScratch.
func (b *handle) setSort(v int) error {
	return b.use(func(h *C.filc2_msm_bases) error { return check(C.filc2_msm_set_sort(h, C.int32_t(v))) })
}

// setVariant sets the first accumulation kernel of the calls made without a config
// (MSMDevice, MSM, the batch additions) and of reserveScratch (msmConfig.Variant).
func (b *handle) setVariant(v int) error {
	return b.use(func(h *C.filc2_msm_bases) error { return check(C.filc2_msm_set_variant(h, C.int32_t(v))) })
}

func (b *handle) trim() error {
	return b.use(func(h *C.filc2_msm_bases) error { return check(C.filc2_msm_trim(h)) })
}

// shareScratch makes b plan its calls in src's scratch (one device): handles sharing
// a scratch hold the largest plan once and run one at a time.
func (b *handle) shareScratch(src *handle) error {
	return b.use(func(dst *C.filc2_msm_bases) error {
		return src.use(func(s *C.filc2_msm_bases) error { return check(C.filc2_msm_share_scratch(dst, s)) })
	})
}

// reserveScratch sizes b's scratch for a call over n scalars (split: msm_split with any
// mix of ones) with as many windows per pass as the free device memory allows, and fixes
// it: later calls plan within it. It returns the scratch's bytes.
func (b *handle) reserveScratch(n int, split bool) (uint64, error) {
	var flags C.int32_t
	if split {
		flags = C.FILC2_MSM_RESERVE_SPLIT
	}
	var got C.uint64_t
	err := b.use(func(h *C.filc2_msm_bases) error { return check(C.filc2_msm_reserve(h, C.size_t(n), flags, &got)) })
	return uint64(got), err
}

// reserveScratchLent is reserveScratch for dense calls that lend what l does (buffers of
// these sizes; MSMDeviceLent): the scratch holds what the loans do not.
func (b *handle) reserveScratchLent(n int, l Lend) (uint64, error) {
	loans, k, err := cLoans(l.Buffers, true)
	if err != nil {
		return 0, err
	}
	var got C.uint64_t
	err = b.use(func(h *C.filc2_msm_bases) error {
		return check(C.filc2_msm_reserve_lent(h, C.size_t(n), l.flags(), &loans[0], k, &got))
	})
	return uint64(got), err
}

// scratchPlanBytesLent is scratchPlanBytes for a dense call that lends what l does.
func scratchPlanBytesLent(g2 bool, n int, l Lend) (uint64, error) {
	group := C.int32_t(C.FILC2_MSM_G1)
	if g2 {
		group = C.FILC2_MSM_G2
	}
	loans, k, err := cLoans(l.Buffers, true)
	if err != nil {
		return 0, err
	}
	var v C.uint64_t
	err = check(C.filc2_msm_plan_bytes_lent(group, C.size_t(n), l.flags(), &loans[0], k, &v))
	return uint64(v), err
}

// scratchPlanBytes is the scratch a call over n scalars of a group (G2: g2 true) plans
// with no memory limit.
func scratchPlanBytes(g2 bool, n int, split bool) (uint64, error) {
	group := C.int32_t(C.FILC2_MSM_G1)
	if g2 {
		group = C.FILC2_MSM_G2
	}
	var flags C.int32_t
	if split {
		flags = C.FILC2_MSM_RESERVE_SPLIT
	}
	var v C.uint64_t
	err := check(C.filc2_msm_plan_bytes(group, C.size_t(n), flags, &v))
	return uint64(v), err
}

func (b *handle) deviceBytes() (uint64, error) {
	var v C.uint64_t
	err := b.use(func(h *C.filc2_msm_bases) error { return check(C.filc2_msm_info(h, nil, nil, &v)) })
	return uint64(v), err
}

func cConfig(cfg *msmConfig) *C.filc2_msm_config {
	if cfg == nil {
		return nil
	}
	return &C.filc2_msm_config{
		window_bits:       C.int32_t(cfg.WindowBits),
		chunk:             C.int32_t(cfg.Chunk),
		max_group_windows: C.int32_t(cfg.MaxGroup),
		variant:           C.int32_t(cfg.Variant),
		sort_kib:          C.int32_t(cfg.SortKiB),
		sort:              C.int32_t(cfg.Sort),
	}
}

func infoOf(r *C.filc2_msm_result) msmInfo {
	return msmInfo{WindowBits: int(r.window_bits), Windows: int(r.windows), Ones: uint64(r.ones),
		Others: uint64(r.others), PerPass: int(r.per_pass), Lent: int(r.lent), Chunks: int(r.chunks)}
}

// maxLoans is the most device buffers one MSM call may borrow (filc2_msm_run_lent).
const maxLoans = C.FILC2_MSM_MAX_LOANS

// cLoans is lent as filc2_msm_loans (nil buffers skipped); sizesOnly leaves the pointers out
// (filc2_msm_reserve_lent reads the sizes).
func cLoans(lent []*FrBuffer, sizesOnly bool) ([maxLoans]C.filc2_msm_loan, C.int32_t, error) {
	var out [maxLoans]C.filc2_msm_loan
	k := 0
	for _, l := range lent {
		if l == nil {
			continue
		}
		if k == maxLoans {
			return out, 0, fmt.Errorf("ffi: more than %d buffers lent to one MSM", maxLoans)
		}
		if !sizesOnly {
			if l.p == nil {
				return out, 0, ErrClosed
			}
			out[k].ptr = l.p
		}
		out[k].bytes = C.size_t(uint64(l.n) * fr.Bytes)
		k++
	}
	return out, C.int32_t(k), nil
}

// runLent is run (dense, scalars on the device) with what l lends.
func (b *handle) runLent(scalars unsafe.Pointer, n int, l Lend, windows unsafe.Pointer) (msmInfo, error) {
	if n < 0 || n > b.n {
		return msmInfo{}, fmt.Errorf("ffi: %d scalars for %d bases", n, b.n)
	}
	loans, k, err := cLoans(l.Buffers, false)
	if err != nil {
		return msmInfo{}, err
	}
	var res C.filc2_msm_result
	err = b.use(func(h *C.filc2_msm_bases) error {
		return check(C.filc2_msm_run_lent(h, scalars, C.size_t(n), C.FILC2_MSM_ON_DEVICE|l.flags(), nil, &loans[0], k,
			windows, &res))
	})
	runtime.KeepAlive(l.Buffers)
	return infoOf(&res), err
}

// run calls filc2_msm_run or _split; windows must hold maxWindows Jacobian points.
func (b *handle) run(split bool, scalars unsafe.Pointer, n int, flags C.int32_t, cfg *msmConfig,
	windows unsafe.Pointer) (msmInfo, error) {
	if n < 0 || n > b.n {
		return msmInfo{}, fmt.Errorf("ffi: %d scalars for %d bases", n, b.n)
	}
	var res C.filc2_msm_result
	err := b.use(func(h *C.filc2_msm_bases) error {
		if split {
			return check(C.filc2_msm_split(h, scalars, C.size_t(n), flags, cConfig(cfg), windows, &res))
		}
		return check(C.filc2_msm_run(h, scalars, C.size_t(n), flags, cConfig(cfg), windows, &res))
	})
	return infoOf(&res), err
}

func (b *handle) batchAdd(bitmap []uint64, sum unsafe.Pointer) (msmInfo, error) {
	words := (b.n + 63) / 64
	if len(bitmap) > words {
		return msmInfo{}, fmt.Errorf("ffi: a bitmap of %d words for %d bases", len(bitmap), b.n)
	}
	nbits := min(64*len(bitmap), b.n)
	var res C.filc2_msm_result
	err := b.use(func(h *C.filc2_msm_bases) error {
		return check(C.filc2_msm_batch_add(h, (*C.uint64_t)(ptr(bitmap)), C.size_t(nbits), 0, sum, &res))
	})
	return infoOf(&res), err
}

func (b *handle) batchAddIndices(idx []uint32, sum unsafe.Pointer) (msmInfo, error) {
	var res C.filc2_msm_result
	err := b.use(func(h *C.filc2_msm_bases) error {
		return check(C.filc2_msm_batch_add_indices(h, (*C.uint32_t)(ptr(idx)), C.size_t(len(idx)), 0, sum, &res))
	})
	return infoOf(&res), err
}

func (b *handle) download(first, count int, out unsafe.Pointer) error {
	if first < 0 || count < 0 || first > b.n || count > b.n-first {
		return fmt.Errorf("ffi: points [%d, %d) of %d", first, first+count, b.n)
	}
	return b.use(func(h *C.filc2_msm_bases) error {
		return check(C.filc2_msm_download(h, C.size_t(first), C.size_t(count), out))
	})
}

// bench runs filc2_msm_bench: device ms of each of reps runs, the last result's windows.
func (b *handle) bench(op, n int, seed uint64, cfg *msmConfig, reps int, windows unsafe.Pointer) ([]float32, msmInfo,
	error) {
	return b.benchWith(op, n, seed, cfg, reps, nil, windows)
}

// msmPhases are the device ms of an MSM's phases (FILC2_MSM_PHASE_*): prepare, the sort's
// scatter, first accumulation level, later levels, reduce, finish, the sort's histogram.
type msmPhases [C.FILC2_MSM_PHASES]float32

// msmPhaseNames name msmPhases' entries.
var msmPhaseNames = [C.FILC2_MSM_PHASES]string{"prepare", "scatter", "acc0", "acck", "reduce", "finish", "hist"}

// benchPhases is bench with the time of each phase, summed over the reps runs.
func (b *handle) benchPhases(op, n int, seed uint64, cfg *msmConfig, reps int, windows unsafe.Pointer) ([]float32,
	msmPhases, msmInfo, error) {
	var ph msmPhases
	ms, info, err := b.benchWith(op, n, seed, cfg, reps, &ph, windows)
	return ms, ph, info, err
}

func (b *handle) benchWith(op, n int, seed uint64, cfg *msmConfig, reps int, phases *msmPhases,
	windows unsafe.Pointer) ([]float32, msmInfo, error) {
	ms := make([]float32, reps)
	var res C.filc2_msm_result
	var ph *C.float
	if phases != nil {
		ph = (*C.float)(unsafe.Pointer(&phases[0]))
	}
	err := b.use(func(h *C.filc2_msm_bases) error {
		return check(C.filc2_msm_bench(h, C.int32_t(op), C.size_t(n), C.uint64_t(seed), cConfig(cfg), C.int32_t(reps),
			(*C.float)(unsafe.Pointer(&ms[0])), ph, windows, &res))
	})
	return ms, infoOf(&res), err
}

// Bench operations (filc2_msm_bench).
const (
	benchMSM          = C.FILC2_MSM_BENCH_MSM
	benchSplit        = C.FILC2_MSM_BENCH_SPLIT
	benchBatchWitness = C.FILC2_MSM_BENCH_BATCH_WITNESS
	benchBatchAll     = C.FILC2_MSM_BENCH_BATCH_ALL
	benchMSMWitness   = C.FILC2_MSM_BENCH_MSM_WITNESS
)

// deviceScalars returns the device's scalar generator output (the bench inputs):
// mode 0 uniform, 1 witness-shaped (51 % zeros, 47 % ones, 2 % uniform).
func deviceScalars(device, mode, n int, seed uint64) ([]fr.Element, error) {
	out := make([]fr.Element, n)
	err := check(C.filc2_msm_random_scalars(C.int32_t(device), C.int32_t(mode), C.size_t(n), C.uint64_t(seed),
		ptr(out)))
	return out, err
}

// ---- G1 ------------------------------------------------------------------------

// G1Bases is a set of G1 points resident in device memory.
type G1Bases struct{ handle }

// UploadG1 copies points to device 0 and keeps them there until Close.
func UploadG1(points []bls.G1Affine) (*G1Bases, error) { return UploadG1On(0, points) }

// UploadG1On copies points to the given device.
func UploadG1On(device int, points []bls.G1Affine) (*G1Bases, error) {
	var h *C.filc2_msm_bases
	if err := check(C.filc2_msm_g1_upload(C.int32_t(device), ptr(points), C.size_t(len(points)), &h)); err != nil {
		return nil, err
	}
	return &G1Bases{handle{h: h, n: len(points)}}, nil
}

// UploadG1HostResident keeps the points in mapped pinned host memory that the kernels
// read over the bus (what UploadG1On falls back to when the device has no room).
func UploadG1HostResident(device int, points []bls.G1Affine) (*G1Bases, error) {
	var h *C.filc2_msm_bases
	if err := check(C.filc2_msm_g1_upload_flags(C.int32_t(device), ptr(points), C.size_t(len(points)),
		C.FILC2_MSM_HOST_RESIDENT, &h)); err != nil {
		return nil, err
	}
	return &G1Bases{handle{h: h, n: len(points)}}, nil
}

// GenerateG1 makes n distinct points on the device, for tests and benchmarks: point i
// is (k_b + i mod 64)·G with b = i/64, k_b = (splitmix64(seed + b) >> 2) + 1 and G the
// generator (GeneratedScalar gives the multiplier).
func GenerateG1(device, n int, seed uint64) (*G1Bases, error) {
	_, _, g, _ := bls.Generators()
	var h *C.filc2_msm_bases
	if err := check(C.filc2_msm_g1_generate(C.int32_t(device), unsafe.Pointer(&g), C.size_t(n), C.uint64_t(seed),
		&h)); err != nil {
		return nil, err
	}
	return &G1Bases{handle{h: h, n: n}}, nil
}

// FixedBaseG1 makes len(scalars) bases on device, point i = scalars[i]·G, from G's window
// table in groth16.G1Table's layout (TableWindows·TableHalf points): the setup's
// fixed-base multiplications, on the GPU. The points stay where uploaded keys go (device
// memory, else pinned host memory).
func FixedBaseG1(device int, table []bls.G1Affine, scalars []fr.Element) (*G1Bases, error) {
	if err := checkTable(len(table)); err != nil {
		return nil, err
	}
	var h *C.filc2_msm_bases
	if err := check(C.filc2_msm_g1_fixed_base(C.int32_t(device), ptr(table), ptr(scalars), C.size_t(len(scalars)),
		&h)); err != nil {
		return nil, err
	}
	return &G1Bases{handle{h: h, n: len(scalars)}}, nil
}

// checkTable refuses a fixed-base table of the wrong length (the C side reads exactly
// FILC2_FB_WINDOWS·FILC2_FB_HALF points).
func checkTable(n int) error {
	if want := C.FILC2_FB_WINDOWS * C.FILC2_FB_HALF; n != want || want != groth16.TableWindows*groth16.TableHalf {
		return fmt.Errorf("ffi: a fixed-base table of %d points, want %d", n, groth16.TableWindows*groth16.TableHalf)
	}
	return nil
}

// Len is the number of points.
func (b *G1Bases) Len() int { return b.n }

// MSM returns Σ scalars[i]·points[i] (len(scalars) ≤ Len(); missing scalars are 0).
func (b *G1Bases) MSM(scalars []fr.Element) (bls.G1Jac, error) {
	r, _, err := b.msm(false, scalars, nil)
	return r, err
}

// MSMSplit returns the same sum as MSM, classifying the scalars on the device first:
// zeros are skipped, ones batch-added, the rest go through Pippenger. Faster when most
// scalars are 0 or 1 (witnesses).
func (b *G1Bases) MSMSplit(scalars []fr.Element) (bls.G1Jac, error) {
	r, _, err := b.msm(true, scalars, nil)
	return r, err
}

// MSMDevice is MSM with n scalars (fr.Element layout) already in this device's memory.
func (b *G1Bases) MSMDevice(scalars unsafe.Pointer, n int, split bool) (bls.G1Jac, error) {
	var w [maxWindows]bls.G1Jac
	info, err := b.run(split, scalars, n, C.FILC2_MSM_ON_DEVICE, nil, unsafe.Pointer(&w[0]))
	if err != nil {
		return bls.G1Jac{}, err
	}
	return combineG1(w[:info.Windows], info.WindowBits), nil
}

// MSMDeviceLent is MSMDevice (dense) with what l lends: up to two device buffers of this
// device, which the call may overwrite and where it puts its sort's pair buffers if they
// fit, and with l.Scalars the scalars too (prepared in place), so that the MSM scratch holds
// only the rest of its plan (more windows a pass in a scratch reserved for it). The buffers
// must not overlap the scalars.
func (b *G1Bases) MSMDeviceLent(scalars unsafe.Pointer, n int, l Lend) (bls.G1Jac, error) {
	r, _, err := b.msmDeviceLent(scalars, n, l)
	return r, err
}

func (b *G1Bases) msmDeviceLent(scalars unsafe.Pointer, n int, l Lend) (bls.G1Jac, msmInfo, error) {
	var w [maxWindows]bls.G1Jac
	info, err := b.runLent(scalars, n, l, unsafe.Pointer(&w[0]))
	if err != nil {
		return bls.G1Jac{}, info, err
	}
	return combineG1(w[:info.Windows], info.WindowBits), info, nil
}

func (b *G1Bases) msm(split bool, scalars []fr.Element, cfg *msmConfig) (bls.G1Jac, msmInfo, error) {
	var w [maxWindows]bls.G1Jac
	info, err := b.run(split, ptr(scalars), len(scalars), 0, cfg, unsafe.Pointer(&w[0]))
	if err != nil {
		return bls.G1Jac{}, info, err
	}
	return combineG1(w[:info.Windows], info.WindowBits), info, nil
}

// BatchAdd returns Σ points[i] over the set bits i of bitmap (bit i%64 of word i/64;
// bits at or past Len() are ignored).
func (b *G1Bases) BatchAdd(bitmap []uint64) (bls.G1Jac, error) {
	var s bls.G1Jac
	_, err := b.batchAdd(bitmap, unsafe.Pointer(&s))
	return s, err
}

// BatchAddIndices returns Σ points[idx[i]] (each index < Len()).
func (b *G1Bases) BatchAddIndices(idx []uint32) (bls.G1Jac, error) {
	var s bls.G1Jac
	_, err := b.batchAddIndices(idx, unsafe.Pointer(&s))
	return s, err
}

// Points copies points [first, first+count) back from the device.
func (b *G1Bases) Points(first, count int) ([]bls.G1Affine, error) {
	out := make([]bls.G1Affine, max(count, 0))
	return out, b.download(first, count, ptr(out))
}

// DeviceBytes is the device memory held: the points plus the scratch arena.
func (b *G1Bases) DeviceBytes() (uint64, error) { return b.deviceBytes() }

// Trim releases the scratch arena (the next call allocates it again).
func (b *G1Bases) Trim() error { return b.trim() }

// Close releases the device memory; later calls return ErrClosed. Idempotent.
func (b *G1Bases) Close() error { return b.close() }

// combineG1 is Σ_w 2^(c·w)·w[w] (Horner, c doublings between windows).
func combineG1(w []bls.G1Jac, c int) bls.G1Jac {
	var r bls.G1Jac
	r.X.SetOne()
	r.Y.SetOne()
	if len(w) == 0 {
		return r
	}
	r = w[len(w)-1]
	for i := len(w) - 2; i >= 0; i-- {
		for k := 0; k < c; k++ {
			r.DoubleAssign()
		}
		r.AddAssign(&w[i])
	}
	return r
}

// ---- G2 ------------------------------------------------------------------------

// G2Bases is a set of G2 points resident in device memory.
type G2Bases struct{ handle }

// UploadG2 copies points to device 0 and keeps them there until Close.
func UploadG2(points []bls.G2Affine) (*G2Bases, error) { return UploadG2On(0, points) }

// UploadG2On copies points to the given device.
func UploadG2On(device int, points []bls.G2Affine) (*G2Bases, error) {
	var h *C.filc2_msm_bases
	if err := check(C.filc2_msm_g2_upload(C.int32_t(device), ptr(points), C.size_t(len(points)), &h)); err != nil {
		return nil, err
	}
	return &G2Bases{handle{h: h, n: len(points)}}, nil
}

// UploadG2HostResident is UploadG1HostResident over G2.
func UploadG2HostResident(device int, points []bls.G2Affine) (*G2Bases, error) {
	var h *C.filc2_msm_bases
	if err := check(C.filc2_msm_g2_upload_flags(C.int32_t(device), ptr(points), C.size_t(len(points)),
		C.FILC2_MSM_HOST_RESIDENT, &h)); err != nil {
		return nil, err
	}
	return &G2Bases{handle{h: h, n: len(points)}}, nil
}

// GenerateG2 is GenerateG1 over G2 (the same multipliers times the G2 generator).
func GenerateG2(device, n int, seed uint64) (*G2Bases, error) {
	_, _, _, g := bls.Generators()
	var h *C.filc2_msm_bases
	if err := check(C.filc2_msm_g2_generate(C.int32_t(device), unsafe.Pointer(&g), C.size_t(n), C.uint64_t(seed),
		&h)); err != nil {
		return nil, err
	}
	return &G2Bases{handle{h: h, n: n}}, nil
}

// FixedBaseG2 is FixedBaseG1 in G2 (table in groth16.G2Table's layout).
func FixedBaseG2(device int, table []bls.G2Affine, scalars []fr.Element) (*G2Bases, error) {
	if err := checkTable(len(table)); err != nil {
		return nil, err
	}
	var h *C.filc2_msm_bases
	if err := check(C.filc2_msm_g2_fixed_base(C.int32_t(device), ptr(table), ptr(scalars), C.size_t(len(scalars)),
		&h)); err != nil {
		return nil, err
	}
	return &G2Bases{handle{h: h, n: len(scalars)}}, nil
}

// Len is the number of points.
func (b *G2Bases) Len() int { return b.n }

// MSM returns Σ scalars[i]·points[i] (len(scalars) ≤ Len()).
func (b *G2Bases) MSM(scalars []fr.Element) (bls.G2Jac, error) {
	r, _, err := b.msm(false, scalars, nil)
	return r, err
}

// MSMSplit is MSM with the 0/1 classification first (see G1Bases.MSMSplit).
func (b *G2Bases) MSMSplit(scalars []fr.Element) (bls.G2Jac, error) {
	r, _, err := b.msm(true, scalars, nil)
	return r, err
}

// MSMDevice is MSM with n scalars already in this device's memory.
func (b *G2Bases) MSMDevice(scalars unsafe.Pointer, n int, split bool) (bls.G2Jac, error) {
	var w [maxWindows]bls.G2Jac
	info, err := b.run(split, scalars, n, C.FILC2_MSM_ON_DEVICE, nil, unsafe.Pointer(&w[0]))
	if err != nil {
		return bls.G2Jac{}, err
	}
	return combineG2(w[:info.Windows], info.WindowBits), nil
}

func (b *G2Bases) msm(split bool, scalars []fr.Element, cfg *msmConfig) (bls.G2Jac, msmInfo, error) {
	var w [maxWindows]bls.G2Jac
	info, err := b.run(split, ptr(scalars), len(scalars), 0, cfg, unsafe.Pointer(&w[0]))
	if err != nil {
		return bls.G2Jac{}, info, err
	}
	return combineG2(w[:info.Windows], info.WindowBits), info, nil
}

// BatchAdd returns Σ points[i] over the set bits i of bitmap.
func (b *G2Bases) BatchAdd(bitmap []uint64) (bls.G2Jac, error) {
	var s bls.G2Jac
	_, err := b.batchAdd(bitmap, unsafe.Pointer(&s))
	return s, err
}

// BatchAddIndices returns Σ points[idx[i]].
func (b *G2Bases) BatchAddIndices(idx []uint32) (bls.G2Jac, error) {
	var s bls.G2Jac
	_, err := b.batchAddIndices(idx, unsafe.Pointer(&s))
	return s, err
}

// Points copies points [first, first+count) back from the device.
func (b *G2Bases) Points(first, count int) ([]bls.G2Affine, error) {
	out := make([]bls.G2Affine, max(count, 0))
	return out, b.download(first, count, ptr(out))
}

// DeviceBytes is the device memory held: the points plus the scratch arena.
func (b *G2Bases) DeviceBytes() (uint64, error) { return b.deviceBytes() }

// Trim releases the scratch arena.
func (b *G2Bases) Trim() error { return b.trim() }

// Close releases the device memory; later calls return ErrClosed. Idempotent.
func (b *G2Bases) Close() error { return b.close() }

func combineG2(w []bls.G2Jac, c int) bls.G2Jac {
	var r bls.G2Jac
	r.X.SetOne()
	r.Y.SetOne()
	if len(w) == 0 {
		return r
	}
	r = w[len(w)-1]
	for i := len(w) - 2; i >= 0; i-- {
		for k := 0; k < c; k++ {
			r.DoubleAssign()
		}
		r.AddAssign(&w[i])
	}
	return r
}

// GeneratedScalar is the multiplier of point i of GenerateG1/GenerateG2 with seed:
// (splitmix64(seed + i/64) >> 2) + 1 + i mod 64.
func GeneratedScalar(seed uint64, i int) uint64 {
	return (splitmix64(seed+uint64(i/64)) >> 2) + 1 + uint64(i%64)
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

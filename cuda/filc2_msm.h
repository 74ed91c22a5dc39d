/* cuda/filc2_msm.h — the C ABI of the MSM: resident bases, Pippenger, batch addition,
 * split MSM (included by filc2_cuda.h; cuda/msm/ holds the kernels).
 *
 * A filc2_msm_bases handle holds n affine points (G1 or G2) in device memory, a stream
 * and a scratch arena kept between calls. Later calls pass only scalars (host arrays, or
 * device pointers with FILC2_MSM_ON_DEVICE). Calls on one handle are serialised; handles
 * are independent. Every function returns a filc2_status (filc2_cuda.h); running out of
 * device memory is FILC2_ERR_OUT_OF_MEMORY and leaves the handle usable.
 *
 * Layouts are gnark-crypto's (filc2_cuda.h): points G1Affine (96 B) / G2Affine (192 B),
 * infinity (0, 0); scalars fr.Element in Montgomery form (32 B); results G1Jac (144 B) /
 * G2Jac (288 B).
 *
 * Results as window sums: an MSM writes `windows` Jacobian points S_w and the window size
 * c (filc2_msm_result); the sum is  Σ_w 2^(c·w)·S_w  (Horner: c doublings between
 * windows, ~260 in all, left to the caller's CPU, where they take microseconds; ffi/
 * does it). `windows` is at most FILC2_MSM_MAX_WINDOWS; 0 means the point at infinity.
 */
#ifndef FILC2_MSM_H
#define FILC2_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "filc2_cuda.h" /* filc2_status (that header includes this one at its end) */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct filc2_msm_bases filc2_msm_bases; /* opaque */

#define FILC2_MSM_MAX_WINDOWS 64

enum {
	FILC2_MSM_G1 = 1,
	FILC2_MSM_G2 = 2
};

/* flags */
enum {
	FILC2_MSM_ON_DEVICE = 1, /* scalars / bitmap / indices are device pointers (same device) */
	FILC2_MSM_OVERWRITE = 2  /* filc2_msm_run_lent, with FILC2_MSM_ON_DEVICE: the call may overwrite the
	                          * scalars too (they are prepared in place, no scratch for them); also
	                          * filc2_msm_reserve_lent's and filc2_msm_plan_bytes_lent's flag for such calls */
};

/* Tuning (NULL or zero fields: chosen from the size). */
typedef struct filc2_msm_config {
	int32_t window_bits;       /* c in [4, 24] */
	int32_t chunk;             /* pairs per thread in the first accumulation level (≥ 1) */
	int32_t max_group_windows; /* at most this many windows sorted and accumulated at once */
	int32_t variant;           /* first accumulation kernel: 0 XYZZ (default), 1 XYZZ capped at 128
	                            * registers (G1), 2–4 batch-affine with 8, 16, 4 sub-streams a lane
	                            * (G1; half as many for G2), 5 and 6: 0 and 2 with the product on the
	                            * FP64 pipe (G1; G2 runs 0 and 2), 7: 0 as before session 14 (the
	                            * equal-x case of the addition by reference; G1, G2 runs 0), 8: 0 as
	                            * before session 14 (the Fp2 product reduced three times; G2, G1 runs 0),
	                            * 9: 0 with the Karatsuba Fp product (G1; G2 runs 0), 10: 0 with the
	                            * equal-x case by reference (G2 before session 16; G1 runs 10 as 0),
	                            * 11: 0 with ZZ, ZZZ and the points in shared memory (cp.async one
	                            * entry ahead; G2's 0), 12: 11 with X, Y and R there too, 13: G2's 0
	                            * before session 25 (all in registers; G1 runs 0); for benchmarks */
	int32_t sort_kib;          /* windows per pass so that their bucket counters fit this many KiB
	                            * (the L2 cache); 0: the default, -1: no cap */
	int32_t sort;              /* 0 the default (radix), 1 the atomic counting sort, 2 the binned sort (two
	                            * rounds in shared memory), 3 the radix sort (CUB's onesweep; one
	                            * more n·windows pairs of scratch, as the binned); for benchmarks */
} filc2_msm_config;

typedef struct filc2_msm_result {
	int32_t window_bits; /* c */
	int32_t windows;     /* window sums written */
	int32_t per_pass;    /* Pippenger: windows sorted and accumulated a pass (0: none ran) */
	int32_t lent;        /* filc2_msm_run_lent: the pair buffers the call put in loans (0–2) */
	int32_t chunks;      /* 0: the scalars at once; else the chunks they went in (the scratch had no
	                      * room for the whole plan: see filc2_msm_reserve) */
	uint64_t ones;       /* split / batch addition: points added with scalar 1 */
	uint64_t others;     /* scalars that went through Pippenger */
} filc2_msm_result;

/* ---- handles ----------------------------------------------------------------- */

/* Upload n points (host memory, through pinned staging) to `device` and keep them there. */
filc2_status filc2_msm_g1_upload(int32_t device, const void *points, size_t n, filc2_msm_bases **out);
filc2_status filc2_msm_g2_upload(int32_t device, const void *points, size_t n, filc2_msm_bases **out);

/* Make n distinct valid points on the device (tests and benchmarks): point i is
 * (k_b + j)·gen, b = i / 64, j = i mod 64, k_b = (splitmix64(seed + b) >> 2) + 1, with
 * splitmix64 the usual finaliser (x += 0x9e3779b97f4a7c15, two xor-shift-multiplies).
 * gen: one affine point (G1Affine / G2Affine). */
filc2_status filc2_msm_g1_generate(int32_t device, const void *gen, size_t n, uint64_t seed,
                                   filc2_msm_bases **out);
filc2_status filc2_msm_g2_generate(int32_t device, const void *gen, size_t n, uint64_t seed,
                                   filc2_msm_bases **out);

/* Fixed-base multiplication (the Groth16 setup's): a handle of n points, point i = s_i·G, for
 * host scalars s_i (fr.Element, Montgomery form) and G's window table (host, FILC2_FB_WINDOWS ·
 * FILC2_FB_HALF affine points, table[k·FILC2_FB_HALF + d − 1] = d·2^(16k)·G for d in
 * [1, FILC2_FB_HALF]): each scalar's 16 signed 16-bit digits pick at most 16 table points.
 * The points live where uploaded ones do (device memory, else mapped pinned host memory). */
#define FILC2_FB_WINDOWS 16
#define FILC2_FB_HALF 32768
filc2_status filc2_msm_g1_fixed_base(int32_t device, const void *table, const void *scalars, size_t n,
                                     filc2_msm_bases **out);
filc2_status filc2_msm_g2_fixed_base(int32_t device, const void *table, const void *scalars, size_t n,
                                     filc2_msm_bases **out);

/* The same with flags: FILC2_MSM_HOST_RESIDENT keeps the points in mapped pinned host
 * memory, read by the kernels over the bus (what the plain upload falls back to when the
 * device has no room for them). */
enum { FILC2_MSM_HOST_RESIDENT = 2 };
filc2_status filc2_msm_g1_upload_flags(int32_t device, const void *points, size_t n, int32_t flags,
                                       filc2_msm_bases **out);
filc2_status filc2_msm_g2_upload_flags(int32_t device, const void *points, size_t n, int32_t flags,
                                       filc2_msm_bases **out);
/* *yes = 1 when the handle's points live in host memory (forced, or the device was full). */
filc2_status filc2_msm_host_resident(filc2_msm_bases *b, int32_t *yes);
/* A host-resident handle's MSMs (filc2_msm, filc2_msm_split) stream its points through two
 * device buffers of `chunk` points, a sequential copy of each chunk over the bus overlapping
 * the MSM of the chunk before (the kernels would otherwise gather them from host memory, a
 * random read a point and window: ten times slower). By default 2^23 G1 or 2^22 G2 points
 * a buffer (768 MiB), fewer where the device has no room, none below 2^16 (or the size).
 * filc2_msm_set_stream_chunk sets it (0: gather over the bus) and writes the chunk it got to
 * *got (may be null); filc2_msm_stream_chunk reads it. 0 for device-resident points. The
 * batch additions of host-resident points gather over the bus. */
filc2_status filc2_msm_set_stream_chunk(filc2_msm_bases *b, size_t points, size_t *got);
/* filc2_msm_fold makes a device-resident handle of per points in b's group, point j the sum
 * of b's points start + k·per + j for k < copies: an MSM whose scalars repeat in copies runs
 * of per from start is the MSM of the first run's scalars over these (a padded WindowPoSt
 * partition's, whose last blocks are one sector repeated). Fails where the range leaves b. */
filc2_status filc2_msm_fold(filc2_msm_bases *b, size_t start, size_t per, size_t copies, filc2_msm_bases **out);
filc2_status filc2_msm_stream_chunk(filc2_msm_bases *b, size_t *points);

/* filc2_msm_free releases the handle and all its device memory (NULL is a no-op). */
filc2_status filc2_msm_free(filc2_msm_bases *b);
/* filc2_msm_trim releases the scratch (shared ones too; it grows again on the next call, unfixed). */
filc2_status filc2_msm_trim(filc2_msm_bases *b);
/* filc2_msm_set_variant sets the first accumulation kernel (filc2_msm_config.variant, 0 to 13) of
 * the calls made without a config, the batch additions and filc2_msm_reserve. */
filc2_status filc2_msm_set_variant(filc2_msm_bases *b, int32_t variant);
enum { FILC2_MSM_MAX_VARIANT = 13 };
/* filc2_msm_set_sort sets the sort (filc2_msm_config.sort, 0 to 3) of the same calls. */
filc2_status filc2_msm_set_sort(filc2_msm_bases *b, int32_t sort);
enum { FILC2_MSM_MAX_SORT = 3 };
/* Scratch. A handle plans each call in a scratch (device memory, grown on demand and kept).
 * filc2_msm_share_scratch makes dst work in src's scratch (one device): a prover's five
 * queries then hold the largest plan once instead of one scratch each; calls on handles
 * sharing a scratch are serialised. filc2_msm_reserve sizes the scratch for a call over n
 * scalars (FILC2_MSM_RESERVE_SPLIT: filc2_msm_split with any mix of ones and others) with
 * as many windows per pass as the device's free memory allows now, and fixes it: later
 * calls plan within it (fewer windows per pass if need be) and do not grow it (only a
 * split's counters, 8 bytes per 16 scalars, may); a call whose plan does not fit even at
 * one window a pass runs in chunks (the largest n/2^k that fits; filc2_msm_result.chunks),
 * and only one for which no chunk fits fails FILC2_ERR_OUT_OF_MEMORY. A reserve whose plan
 * does not fit the device's free memory at one window a pass holds the largest chunk's plan
 * instead; a reserve on a scratch already fixed (another handle's, shared) grows it where the
 * device has room, and fails only when no chunk of the call fits. *scratch_bytes: its size
 * after.
 * filc2_msm_plan_bytes: the scratch to leave free for filc2_msm_reserve of a call over n
 * scalars of a group with the default config: the default (radix) sort's plan within what
 * the atomic sort would plan with no memory limit (a reserve with more free plans more
 * windows a pass). Needs a device (CUB's size query). */
enum { FILC2_MSM_RESERVE_SPLIT = 1 };
filc2_status filc2_msm_share_scratch(filc2_msm_bases *dst, filc2_msm_bases *src);
filc2_status filc2_msm_reserve(filc2_msm_bases *b, size_t n, int32_t flags, uint64_t *scratch_bytes);
/* Loans: device memory on the handle's device that one call may use and overwrite (a buffer
 * the caller is done with), each 256-byte aligned. filc2_msm_run_lent puts its sort's pair
 * buffers (n·windows-a-pass·8 bytes each; the radix and binned sorts have two) in them
 * where they fit, buffer i in loan i, so that the scratch holds only the rest and plans
 * more windows a pass. filc2_msm_reserve_lent is filc2_msm_reserve for such calls (dense
 * only: flags 0 or FILC2_MSM_OVERWRITE): it reads the loans' sizes only, and the same call
 * without loans then plans fewer windows a pass within the fixed scratch, or runs in chunks.
 * Host-resident bases (streamed) ignore loans. */
#define FILC2_MSM_MAX_LOANS 2
typedef struct filc2_msm_loan {
	void *ptr;
	size_t bytes;
} filc2_msm_loan;
filc2_status filc2_msm_reserve_lent(filc2_msm_bases *b, size_t n, int32_t flags, const filc2_msm_loan *loans,
                                    int32_t nloans, uint64_t *scratch_bytes);
/* filc2_msm_plan_bytes for a lent call (flags 0 or FILC2_MSM_OVERWRITE; the loans' sizes only). */
filc2_status filc2_msm_plan_bytes_lent(int32_t group, size_t n, int32_t flags, const filc2_msm_loan *loans,
                                       int32_t nloans, uint64_t *bytes);
filc2_status filc2_msm_plan_bytes(int32_t group, size_t n, int32_t flags, uint64_t *bytes);
/* group: FILC2_MSM_G1 or _G2; n: points; device_bytes: bases plus the scratch it owns (a
 * shared scratch is counted by the handle that made it). */
filc2_status filc2_msm_info(filc2_msm_bases *b, int32_t *group, uint64_t *n, uint64_t *device_bytes);
/* Copy points [first, first + count) back to the host. */
filc2_status filc2_msm_download(filc2_msm_bases *b, size_t first, size_t count, void *out);

/* ---- MSM --------------------------------------------------------------------- */

/* Σ_{i<n} scalars[i]·bases[i] (n ≤ the handle's points, n < 2^31), as window sums:
 * windows holds FILC2_MSM_MAX_WINDOWS Jacobian points. */
filc2_status filc2_msm_run(filc2_msm_bases *b, const void *scalars, size_t n, int32_t flags,
                           const filc2_msm_config *cfg, void *windows, filc2_msm_result *res);
/* filc2_msm_run with nloans ≤ FILC2_MSM_MAX_LOANS loans (see filc2_msm_reserve_lent): the
 * loans' contents are overwritten; they must not overlap each other or the scalars. */
filc2_status filc2_msm_run_lent(filc2_msm_bases *b, const void *scalars, size_t n, int32_t flags,
                                const filc2_msm_config *cfg, const filc2_msm_loan *loans, int32_t nloans,
                                void *windows, filc2_msm_result *res);

/* The same sum, the scalars classified on the device first: 0 skipped, 1 batch-added,
 * the rest through Pippenger on the compacted tail (the batch sum is added into window 0).
 * res->ones and res->others count the classes. */
filc2_status filc2_msm_split(filc2_msm_bases *b, const void *scalars, size_t n, int32_t flags,
                             const filc2_msm_config *cfg, void *windows, filc2_msm_result *res);

/* Batch addition: *sum (one Jacobian point) = Σ bases[i] over the set bits i < nbits of
 * bitmap (bit i is bit i%64 of word i/64; nbits ≤ points). res may be NULL. */
filc2_status filc2_msm_batch_add(filc2_msm_bases *b, const uint64_t *bitmap, size_t nbits, int32_t flags,
                                 void *sum, filc2_msm_result *res);
/* Batch addition by an index list (indices < points; checked when on the host). */
filc2_status filc2_msm_batch_add_indices(filc2_msm_bases *b, const uint32_t *idx, size_t count, int32_t flags,
                                         void *sum, filc2_msm_result *res);

/* ---- tests and benchmarks ---------------------------------------------------- */

enum {
	FILC2_MSM_SCALARS_RANDOM = 0,  /* uniform, reduced (zero with probability ~2^-255) */
	FILC2_MSM_SCALARS_WITNESS = 1  /* 51 % zeros, 47 % ones, 2 % uniform */
};

/* The device's scalar generator, into a host array (the benchmark's inputs, reproducible). */
filc2_status filc2_msm_random_scalars(int32_t device, int32_t mode, size_t n, uint64_t seed, void *out);

enum {
	FILC2_MSM_BENCH_MSM = 0,           /* filc2_msm_run on random scalars */
	FILC2_MSM_BENCH_SPLIT = 1,         /* filc2_msm_split on witness scalars */
	FILC2_MSM_BENCH_BATCH_WITNESS = 2, /* batch addition, bitmap of the witness scalars' ones (47 %) */
	FILC2_MSM_BENCH_BATCH_ALL = 3,     /* batch addition of all n points */
	FILC2_MSM_BENCH_MSM_WITNESS = 4    /* filc2_msm_run on witness scalars (to check SPLIT) */
};

/* The phases of one MSM call (filc2_msm_bench's phase times). */
enum {
	FILC2_MSM_PHASE_PREPARE = 0, /* scalars to canonical digits; split: classify and compact */
	FILC2_MSM_PHASE_SORT = 1,    /* the sort's scatter of (bucket, point) pairs (binned: its key round;
	                              * radix: CUB's sort and the keys' marks) */
	FILC2_MSM_PHASE_ACC0 = 2,    /* first accumulation level: the mixed additions */
	FILC2_MSM_PHASE_ACCK = 3,    /* later accumulation levels (full additions) */
	FILC2_MSM_PHASE_REDUCE = 4,  /* bucket sums to window sums */
	FILC2_MSM_PHASE_FINISH = 5,  /* window sums to Jacobian */
	FILC2_MSM_PHASE_HIST = 6,    /* the sort's histogram and scan (binned: its bin round; radix: the keys) */
	FILC2_MSM_PHASES = 7
};

/* Run op reps times (after two warm-ups) on n inputs made on the device from seed
 * (scalars as filc2_msm_random_scalars), device time of each in ms[i] (events around the
 * device work, excluding the download of the result). The last run's result goes to
 * windows (FILC2_MSM_MAX_WINDOWS points; batch additions: one) and res. phases, if not
 * NULL (FILC2_MSM_PHASES entries), gets each phase's time summed over the reps timed runs
 * (events between the phases: slightly slower runs). */
filc2_status filc2_msm_bench(filc2_msm_bases *b, int32_t op, size_t n, uint64_t seed, const filc2_msm_config *cfg,
                             int32_t reps, float *ms, float *phases, void *windows, filc2_msm_result *res);

#ifdef __cplusplus
}
#endif

#endif /* FILC2_MSM_H */

/* cuda/filc2_cuda.h — the C ABI of libfilc2cuda (the only header Go includes).
 *
 * Every entry point returns a filc2_status by value: code 0 is success; otherwise
 * msg names the failing call and place. Every CUDA call inside is checked. Device
 * memory exhaustion is FILC2_ERR_OUT_OF_MEMORY, distinct from every other failure.
 *
 * Memory layout shared with Go (cuda/README.md): field elements are little-endian
 * 32-bit limbs in Montgomery form with R = 2^(32·limbs) — gnark-crypto's fr.Element
 * (32 B), fp.Element (48 B) and E2 (96 B) byte for byte; affine points are (x, y)
 * with (0, 0) for infinity — gnark's G1Affine (96 B) and G2Affine (192 B); Jacobian
 * output is gnark's G1Jac (144 B) / G2Jac (288 B).
 */
#ifndef FILC2_CUDA_H
#define FILC2_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ---------------------------------------------------------------- */

enum {
	FILC2_OK = 0,
	FILC2_ERR_OUT_OF_MEMORY = 1,    /* device memory exhausted (cudaErrorMemoryAllocation) */
	FILC2_ERR_NO_DEVICE = 2,        /* no CUDA device, no driver, or a driver too old */
	FILC2_ERR_INVALID_ARGUMENT = 3, /* a bad argument, caught before any CUDA call */
	FILC2_ERR_CUDA = 4,             /* any other CUDA error; status.cuda holds cudaError_t */
	FILC2_ERR_HOST_MEMORY = 5,      /* host allocation failed */
	FILC2_ERR_INTERNAL = 6          /* an unexpected C++ exception */
};

typedef struct filc2_status {
	int32_t code; /* FILC2_OK or FILC2_ERR_* */
	int32_t cuda; /* the cudaError_t behind the failure, 0 if none */
	char msg[248];
} filc2_status;

/* filc2_code_name returns a static name for a code ("out of memory", ...). */
const char *filc2_code_name(int32_t code);

/* ---- devices --------------------------------------------------------------- */

typedef struct filc2_device_info {
	char name[256];
	uint64_t total_memory; /* bytes */
	uint64_t free_memory;  /* bytes, at the time of the call */
	int32_t sm_count;
	int32_t cc_major;
	int32_t cc_minor;
	int32_t ordinal;
} filc2_device_info;

/* filc2_versions reports the CUDA runtime linked in and the driver's CUDA version (e.g. 11080, 13000). */
filc2_status filc2_versions(int32_t *runtime, int32_t *driver);
/* filc2_device_count: no device (or no driver) is FILC2_ERR_NO_DEVICE. */
filc2_status filc2_device_count(int32_t *count);
filc2_status filc2_device_get(int32_t ordinal, filc2_device_info *info);

/* ---- test entry points --------------------------------------------------------
 * For the Go tests: host arrays in, host arrays out; each call allocates device
 * buffers, copies in, runs one kernel over n elements (grid-stride), copies out,
 * frees. n = 0 is a no-op. Inputs must be reduced (limbs < modulus).
 */

enum {
	FILC2_FIELD_MUL = 0,        /* out = a·b */
	FILC2_FIELD_ADD = 1,        /* out = a + b */
	FILC2_FIELD_SUB = 2,        /* out = a − b */
	FILC2_FIELD_SQR = 3,        /* out = a² */
	FILC2_FIELD_INV = 4,        /* out = 1/a, 0 for 0 */
	FILC2_FIELD_NEG = 5,        /* out = −a */
	FILC2_FIELD_TO_MONT = 6,    /* a holds plain integers; out = their Montgomery form */
	FILC2_FIELD_FROM_MONT = 7,  /* out = the plain integer limbs of a */
	FILC2_FIELD_INV_VARTIME = 8 /* out = 1/a, 0 for 0, by divsteps (ff/inverse.cuh) */
};

/* b is read only by MUL, ADD and SUB (may be NULL otherwise). Fp2 supports every op
 * except TO_MONT and FROM_MONT. */
filc2_status filc2_test_fr(int32_t device, int32_t op, const void *a, const void *b, void *out, size_t n);
filc2_status filc2_test_fp(int32_t device, int32_t op, const void *a, const void *b, void *out, size_t n);
filc2_status filc2_test_fp2(int32_t device, int32_t op, const void *a, const void *b, void *out, size_t n);

enum {
	FILC2_EC_ADD = 0,  /* XYZZ + XYZZ: a and b lifted to XYZZ with Z ≠ 1, then add */
	FILC2_EC_MADD = 1, /* XYZZ + affine: a lifted (Z ≠ 1), b added as affine */
	FILC2_EC_DBL = 2,  /* 2·a: a lifted (Z ≠ 1), then doubled */
	FILC2_EC_SMUL = 3, /* s·a by double-and-add (s: Fr elements in Montgomery form) */
	FILC2_EC_NEG = 4   /* −a through XYZZ */
};
enum {
	FILC2_OUT_AFFINE = 0,       /* affine, one inversion per point */
	FILC2_OUT_AFFINE_BATCH = 1, /* affine, batch inversion (Montgomery's trick) */
	FILC2_OUT_JACOBIAN = 2      /* Jacobian (X, Y, Z), no inversion */
};

/* a, b: affine points (b for ADD and MADD); s: scalars (SMUL); out: n points in out_format. */
filc2_status filc2_test_g1(int32_t device, int32_t op, int32_t out_format, const void *a, const void *b,
                           const void *s, void *out, size_t n);
filc2_status filc2_test_g2(int32_t device, int32_t op, int32_t out_format, const void *a, const void *b,
                           const void *s, void *out, size_t n);

/* filc2_test_alloc allocates and frees `bytes` of device memory (for error-path tests). */
filc2_status filc2_test_alloc(int32_t device, uint64_t bytes);

/* filc2_device_probe checks a device: with reset set it first re-initialises it (cudaDeviceReset:
 * every allocation of this process on it is gone, so nothing may be resident there), then
 * synchronises, writes 1 MiB of device memory and reads it back. */
filc2_status filc2_device_probe(int32_t device, int32_t reset);

/* ---- throughput ---------------------------------------------------------------
 * filc2_bench_mul times `reps` launches (after two warm-ups) of a multiplication
 * kernel over n random reduced elements generated on the device, by device events;
 * ms[i] is launch i in milliseconds.
 * field: 0 = Fr, 1 = Fp, 2 = Fp2.
 * op: 0 = the product, 1 = the product coded otherwise, for comparison (Fr, Fp: the same
 * CIOS with separate lo/hi chains; Fp2: Karatsuba reduced three times, not twice), 2 = squaring, 3 = the Fermat inversion (x⁻¹ + b[i]), 4 = the
 * variable-time inversion (ff/inverse.cuh) with every lane of a warp inverting lane 0's value,
 * 5 = the product with its limb products on the FP64 pipe (ff/fp64_mul.cuh; Fr, Fp only),
 * 6 = the Karatsuba product (ff/karatsuba.cuh; Fr, Fp only).
 * chain = 0: out[i] = a[i]·b[i] (1 operation and 3 elements of traffic per element).
 * chain = k > 0: two independent chains of k operations per element and one product
 * written (2k + 1 operations per element, the same traffic).
 */
filc2_status filc2_bench_mul(int32_t device, int32_t field, int32_t op, int32_t chain, uint64_t n, int32_t reps,
                             float *ms);

/* ---- uploads ---------------------------------------------------------------- */

/* A filc2_uploader copies host memory (pageable or not) to device memory through its own
 * pinned staging buffers on its own non-blocking stream: the host memcpy of one chunk
 * overlaps the DMA of the previous ones, nothing goes through the legacy default stream
 * or the driver's pageable path, so kernels other threads run meanwhile are not ordered
 * behind the copy. One call at a time per uploader; several uploaders may copy at once
 * (into disjoint ranges) to use more host memory bandwidth.
 *
 * filc2_uploader_new: chunk_bytes per staging buffer (0: 16 MiB), `buffers` of them (2–4).
 * filc2_uploader_copy: returns when the bytes are on the device.
 * filc2_uploader_free: NULL is a no-op. */
typedef struct filc2_uploader filc2_uploader; /* opaque */
filc2_status filc2_uploader_new(int32_t device, uint64_t chunk_bytes, int32_t buffers, filc2_uploader **out);
filc2_status filc2_uploader_copy(filc2_uploader *u, void *dst, const void *src, uint64_t bytes);
filc2_status filc2_uploader_free(filc2_uploader *u);

#ifdef __cplusplus
}
#endif

#include "filc2_msm.h"
#include "filc2_ntt.h"
#include "filc2_spmv.h"
#endif /* FILC2_CUDA_H */

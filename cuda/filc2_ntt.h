/* cuda/filc2_ntt.h — the C ABI of the Fr NTT (BLS12-381 scalar field), included by
 * filc2_cuda.h. Design and numbers: cuda/NOTES.md ("NTT").
 *
 * Elements are gnark-crypto fr.Element (32 B, Montgomery form, cuda/README.md). A domain
 * of 2^log_n points (1 ≤ log_n ≤ 28) holds its twiddle tables on one device; it is
 * immutable after creation, so any number of streams may use it at once. Its generator
 * is bellperson's ω = 7^((r−1)/2^log_n) (= gnark's fft.Generator), the coset shift g = 7.
 *
 * Orders: FILC2_NTT_NN natural in and out; FILC2_NTT_NR natural in, bit-reversed out
 * (gnark's DIF); FILC2_NTT_RN bit-reversed in, natural out (gnark's DIT). Bit-reversed:
 * position p holds index bitrev(p). NR and RN never permute; NN does in the last pass
 * (one pass) or with an in-place bit-reversal of dst (several passes).
 *
 * Transforms: forward X_k = Σ_i x_i·(g^i on the coset)·ω^(ik); inverse
 * x_i = (g^−i on the coset)·(1/N)·Σ_k X_k·ω^(−ik) — gnark's FFT / FFTInverse (OnCoset).
 *
 * Device functions take a cudaStream_t as `stream` (NULL: the domain's own stream) and
 * are asynchronous on it; memory stays the caller's. */
#ifndef FILC2_NTT_H
#define FILC2_NTT_H

#include <stddef.h>
#include <stdint.h>

#include "filc2_cuda.h" /* filc2_status (filc2_cuda.h includes this file at its end) */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct filc2_ntt_domain filc2_ntt_domain;

enum { FILC2_NTT_NN = 0, FILC2_NTT_NR = 1, FILC2_NTT_RN = 2 };

/* flags of filc2_ntt_domain_new: COMPACT drops the 2^(log_n−1)-entry table of the first
 * pass's twist (16·N bytes: 2 GiB at 2^27) for one more product per element in that pass.
 * Plan overrides, for tests and tuning: bits 8–11, the largest pass in bits (5–11, 0 =
 * default 10); bits 12–15, log2 of the elements per block (5–11, 0 = default 10); GREEDY,
 * passes of the largest size and the remainder last instead of an even split; bits 16–19,
 * log2 of the elements a pass kernel's thread holds (2: 4 elements, radix-4 rounds, passes
 * and blocks of at most 2^10 elements; 3: 8 elements, radix-8 rounds; 0 = default 2). */
#define FILC2_NTT_COMPACT 1u
#define FILC2_NTT_GREEDY 2u
#define FILC2_NTT_THREAD_LOG(bits) ((uint32_t)(bits) << 16)
#define FILC2_NTT_MAX_PASS(bits) ((uint32_t)(bits) << 8)
#define FILC2_NTT_TILE(bits) ((uint32_t)(bits) << 12)

typedef struct filc2_ntt_info {
	int32_t log_n;
	int32_t device;
	uint64_t table_bytes;   /* device memory held by the domain */
	int32_t passes;         /* kernel passes per transform (0: one-thread transform, log_n ≤ 4) */
	int32_t pass_bits[4];   /* bits per pass, first (top bits) first */
	int32_t pass_lines[4];  /* log2 of the lo lines per block */
	uint8_t omega[32];      /* ω, Montgomery form (an fr.Element) */
	uint8_t omega_inv[32];
	int32_t thread_log;     /* log2 of the elements a pass kernel's thread holds (2 or 3) */
} filc2_ntt_info;

filc2_status filc2_ntt_domain_new(int32_t device, int32_t log_n, uint32_t flags, filc2_ntt_domain **out);
filc2_status filc2_ntt_domain_free(filc2_ntt_domain *d); /* NULL is a no-op; waits for its stream */
filc2_status filc2_ntt_domain_info(const filc2_ntt_domain *d, filc2_ntt_info *info);
/* the domain's own stream (a cudaStream_t, non-blocking), used when `stream` is NULL */
filc2_status filc2_ntt_domain_stream(const filc2_ntt_domain *d, void **stream);

/* filc2_ntt_run: 2^log_n elements from src to dst (device pointers; dst == src is in place). */
filc2_status filc2_ntt_run(filc2_ntt_domain *d, void *dst, const void *src, int32_t inverse, int32_t coset,
                           int32_t order, void *stream);

/* filc2_ntt_h: bellperson's H polynomial. a, b, c: device buffers of 2^log_n elements, the
 * evaluations A·z, B·z, C·z padded with zeros (natural order). All three are overwritten;
 * *h is set to the one holding the result (a): the 2^log_n coefficients, natural order,
 * of which the first 2^log_n − 1 are h (the last is 0 for a satisfied system). The same
 * values as proofs/groth16 computeH: 3 iNTT, 3 coset NTT, (a·b − c)/(g^N − 1), coset iNTT,
 * computed without c's coset NTT (the coset iNTT undoes it: c's iNTT is subtracted at the end). */
filc2_status filc2_ntt_h(filc2_ntt_domain *d, void *a, void *b, void *c, void **h, void *stream);

filc2_status filc2_ntt_sync(filc2_ntt_domain *d, void *stream); /* wait for the stream */

/* Device memory for Fr vectors: n elements (32 B each). kind: 0 host → device, 1 device →
 * host, 2 device → device. A copy is asynchronous on `stream`; with stream NULL it is
 * synchronous (complete on return, legacy default stream). Work queued on a domain's stream
 * is not ordered with the legacy stream: filc2_ntt_sync first. */
filc2_status filc2_ntt_alloc(int32_t device, uint64_t n, void **ptr);
filc2_status filc2_ntt_free(int32_t device, void *ptr);
filc2_status filc2_ntt_copy(int32_t device, void *dst, const void *src, uint64_t n, int32_t kind, void *stream);

/* Host-array conveniences (tests): upload, run, download, synchronously. filc2_ntt_host with
 * in_place = 0 transforms into a second buffer first filled with 0xff bytes. filc2_ntt_h_host
 * writes all 2^log_n coefficients to h. */
filc2_status filc2_ntt_host(filc2_ntt_domain *d, void *out, const void *in, int32_t inverse, int32_t coset,
                            int32_t order, int32_t in_place);
filc2_status filc2_ntt_h_host(filc2_ntt_domain *d, void *h, const void *a, const void *b, const void *c);

/* filc2_ntt_bench: device-event times in ms of `reps` runs, after two warm-ups, over random
 * device-made inputs (2^log_n elements, never zeros). op: */
enum {
	FILC2_NTT_BENCH_FWD = 0,       /* forward NR, in place */
	FILC2_NTT_BENCH_INV = 1,       /* inverse NR (·1/N), in place */
	FILC2_NTT_BENCH_COSET = 2,     /* coset forward NR, in place */
	FILC2_NTT_BENCH_FWD_RN = 3,    /* forward RN, in place */
	FILC2_NTT_BENCH_COSET_RN = 4,  /* coset forward RN, in place */
	FILC2_NTT_BENCH_FWD_NN = 5,    /* forward NN, out of place */
	FILC2_NTT_BENCH_COSET_INV = 6, /* coset inverse NR, in place */
	FILC2_NTT_BENCH_H = 7          /* filc2_ntt_h on three buffers */
};
filc2_status filc2_ntt_bench(filc2_ntt_domain *d, int32_t op, int32_t reps, float *ms);

#ifdef __cplusplus
}
#endif

#endif /* FILC2_NTT_H */

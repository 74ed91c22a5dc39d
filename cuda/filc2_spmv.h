/* cuda/filc2_spmv.h — the C ABI of the recorded circuit on the device: a = A·w, b = B·w,
 * c = C·w by sparse matrix-vector products, and the compacted A and B query scalars
 * (included by filc2_cuda.h).
 *
 * A filc2_r1cs handle holds the three CSR matrices of proofs/r1cs.Circuit (row pointers,
 * columns, coefficient indices; uint32), its coefficient table (fr.Element, Montgomery
 * form; index 0 is 1 and index 1 is −1, which the kernel adds and subtracts without a
 * product) and two gather lists: the variables whose values multiply the compacted A
 * query (inputs, then aux in A's density) and the B queries. The witness w is one device
 * vector: the inputs (ONE first) then the aux, so column j of a matrix is w[j].
 * Rows of 32 entries or more (the bit-packing rows) are evaluated a warp per row, the others
 * a thread per row. Immutable after upload; any stream may use it.
 */
#ifndef FILC2_SPMV_H
#define FILC2_SPMV_H

#include <stddef.h>
#include <stdint.h>

#include "filc2_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct filc2_r1cs filc2_r1cs; /* opaque */

/* filc2_r1cs_new makes an empty circuit of `rows` constraints over `vars` variables on
 * `device`, with its coefficient table (ncoeffs ≥ 2 fr.Element, host memory). The three
 * matrices and both gather lists must be set before filc2_r1cs_eval. Every index is
 * checked on upload. (Separate calls keep every host array a direct argument: cgo
 * forbids Go pointers inside structs passed to C.) */
filc2_status filc2_r1cs_new(int32_t device, uint32_t rows, uint32_t vars, const void *coeffs, uint32_t ncoeffs,
                            filc2_r1cs **out);
/* Matrix k (0 = A, 1 = B, 2 = C): rows + 1 row pointers (row_ptr[0] = 0, row_ptr[rows] =
 * nnz, non-decreasing), nnz columns (< vars) and coefficient indices (< ncoeffs). */
filc2_status filc2_r1cs_set_matrix(filc2_r1cs *r, int32_t k, const uint32_t *row_ptr, const uint32_t *col,
                                   const uint32_t *val, uint64_t nnz);
/* Gather list which (0 = the A query's variables: inputs, then aux in A's density; 1 = the
 * B queries'): n variable indices (< vars). */
filc2_status filc2_r1cs_set_gather(filc2_r1cs *r, int32_t which, const uint32_t *vars, uint32_t n);
filc2_status filc2_r1cs_free(filc2_r1cs *r); /* NULL is a no-op */
filc2_status filc2_r1cs_device_bytes(const filc2_r1cs *r, uint64_t *bytes);

/* filc2_r1cs_eval: w (device, vars elements) → a, b, c (device, domain ≥ rows elements
 * each: A·w, B·w, C·w, then zeros up to domain), as (n_a elements: w at a_vars) and bs
 * (n_b elements: w at b_vars). Asynchronous on `stream` (a cudaStream_t; NULL: the legacy
 * default stream). */
filc2_status filc2_r1cs_eval(const filc2_r1cs *r, const void *w, void *a, void *b, void *c, uint64_t domain,
                             void *as, void *bs, void *stream);

/* filc2_r1cs_bench times filc2_r1cs_eval's parts on a stream of its own, after one warm-up:
 * ms[0..2] the products A·w, B·w, C·w, ms[3] and ms[4] the A and B gathers, ms[5] the whole,
 * means of reps runs (device events between the parts). split = 0 runs every row
 * thread-per-row (the long bit-packing rows too) instead of a warp per long row. */
filc2_status filc2_r1cs_bench(const filc2_r1cs *r, const void *w, void *a, void *b, void *c, uint64_t domain,
                              void *as, void *bs, int32_t split, int32_t reps, float *ms);

#ifdef __cplusplus
}
#endif

#endif /* FILC2_SPMV_H */

// cuda/src/spmv.cu — the recorded circuit on the device (filc2_spmv.h): a, b, c by
// sparse matrix-vector products over the witness, and the gathers of the compacted A and
// B query scalars. One thread per row: the PoRep circuit's rows are short (one to a few
// terms) except the bit-packing rows (up to 256), whose threads run longer.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "../ff/bls12_381.cuh"
#include "../filc2_cuda.h"
#include "../util/error.cuh"
#include "../util/gpu.cuh"

using namespace filc2;

namespace {

// term: coeffs[v]·x, with the coefficients 1 (index 0) and −1 (index 1) an addition and a
// subtraction.
__device__ __forceinline__ void add_term(fr_t& acc, const fr_t& x, uint32_t v, const fr_t* __restrict__ coeffs) {
	if (v == 0)
		acc += x;
	else if (v == 1)
		acc -= x;
	else
		acc += x * coeffs[v];
}

// spmv_kernel: out[row] = Σ_j coeffs[val[j]]·w[col[j]] over the row's entries, one thread
// per row, for the rows of at most `long_min` − 1 entries; longer rows are left to
// spmv_long_kernel (long_min = UINT32_MAX: every row here).
__global__ void spmv_kernel(uint32_t rows, const uint32_t* __restrict__ row_ptr, const uint32_t* __restrict__ col,
                            const uint32_t* __restrict__ val, const fr_t* __restrict__ coeffs,
                            const fr_t* __restrict__ w, fr_t* __restrict__ out, uint32_t long_min) {
	const uint32_t stride = gridDim.x * blockDim.x;
	for (uint32_t row = blockIdx.x * blockDim.x + threadIdx.x; row < rows; row += stride) {
		const uint32_t lo = row_ptr[row], hi = row_ptr[row + 1];
		if (hi - lo >= long_min) continue;
		fr_t acc = fr_t::zero();
		for (uint32_t j = lo; j < hi; ++j) add_term(acc, w[col[j]], val[j], coeffs);
		out[row] = acc;
	}
}

// spmv_long_kernel: the rows listed in long_rows (the bit-packing rows, up to hundreds of
// entries), one warp per row: the lanes read consecutive entries (coalesced) and the
// partial sums meet in a shuffle reduction. Thread-per-row on such rows reads each lane's
// entries from a different cache line and keeps its warp for the longest row's length.
__global__ void spmv_long_kernel(uint32_t n, const uint32_t* __restrict__ long_rows,
                                 const uint32_t* __restrict__ row_ptr, const uint32_t* __restrict__ col,
                                 const uint32_t* __restrict__ val, const fr_t* __restrict__ coeffs,
                                 const fr_t* __restrict__ w, fr_t* __restrict__ out) {
	const uint32_t lane = threadIdx.x & 31;
	const uint32_t warps = (gridDim.x * blockDim.x) >> 5;
	for (uint32_t i = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < n; i += warps) {
		const uint32_t row = long_rows[i];
		const uint32_t lo = row_ptr[row], hi = row_ptr[row + 1];
		fr_t acc = fr_t::zero();
		for (uint32_t j = lo + lane; j < hi; j += 32) add_term(acc, w[col[j]], val[j], coeffs);
#pragma unroll
		for (int d = 16; d > 0; d >>= 1) {
			fr_t o;
#pragma unroll
			for (int k = 0; k < fr_t::limbs; ++k) o.l[k] = __shfl_down_sync(0xffffffffu, acc.l[k], d);
			acc += o;
		}
		if (lane == 0) out[row] = acc;
	}
}

// gather_kernel: dst[i] = src[idx[i]].
__global__ void gather_kernel(uint32_t n, const uint32_t* __restrict__ idx, const fr_t* __restrict__ src,
                              fr_t* __restrict__ dst) {
	const uint32_t stride = gridDim.x * blockDim.x;
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[idx[i]];
}

// long_min: rows of this many entries or more go to spmv_long_kernel.
constexpr uint32_t long_min = 32;

struct csr_dev {
	dev_buffer<uint32_t> row_ptr, col, val;
	std::unique_ptr<dev_buffer<uint32_t>> long_rows;  // rows of long_min entries or more
	uint32_t n_long = 0;
	csr_dev(size_t rows, size_t nnz) : row_ptr(rows + 1), col(nnz ? nnz : 1), val(nnz ? nnz : 1) {}
};

}  // namespace

struct filc2_r1cs {
	int32_t device = 0;
	uint32_t rows = 0, vars = 0, ncoeffs = 0, n_a = 0, n_b = 0;
	std::unique_ptr<csr_dev> m[3];
	std::unique_ptr<dev_buffer<fr_t>> coeffs;
	std::unique_ptr<dev_buffer<uint32_t>> a_vars, b_vars;
	uint64_t bytes = 0;
};

namespace {

template <class T>
std::unique_ptr<dev_buffer<T>> upload(const T* host, size_t n) {
	auto b = std::make_unique<dev_buffer<T>>(n ? n : 1);
	if (n) FILC2_CUDA(cudaMemcpy(b->get(), host, n * sizeof(T), cudaMemcpyHostToDevice));
	return b;
}

}  // namespace

extern "C" filc2_status filc2_r1cs_new(int32_t device, uint32_t rows, uint32_t vars, const void* coeffs,
                                       uint32_t ncoeffs, filc2_r1cs** out) {
	return guard([&] {
		if (!out) throw_invalid("null output");
		*out = nullptr;
		if (rows == 0 || vars == 0) throw_invalid("empty circuit");
		if (ncoeffs < 2 || !coeffs) throw_invalid("coefficient table without 1 and -1");
		use_device(device);
		auto r = std::make_unique<filc2_r1cs>();
		r->device = device;
		r->rows = rows, r->vars = vars, r->ncoeffs = ncoeffs;
		r->coeffs = upload(static_cast<const fr_t*>(coeffs), ncoeffs);
		r->bytes += r->coeffs->bytes();
		*out = r.release();
	});
}

extern "C" filc2_status filc2_r1cs_set_matrix(filc2_r1cs* r, int32_t k, const uint32_t* row_ptr,
                                              const uint32_t* col, const uint32_t* val, uint64_t nnz) {
	return guard([&] {
		if (!r) throw_invalid("null circuit");
		if (k < 0 || k > 2) throw_invalid("matrix index outside 0..2");
		if (r->m[k]) throw_invalid("matrix already set");
		if (!row_ptr || (nnz && (!col || !val))) throw_invalid("null matrix array");
		if (nnz > UINT32_MAX) throw_invalid("more than 2^32 entries");
		if (row_ptr[0] != 0 || row_ptr[r->rows] != nnz) throw_invalid("row pointers do not span the entries");
		std::vector<uint32_t> long_rows;
		for (uint32_t i = 0; i < r->rows; ++i) {
			if (row_ptr[i + 1] < row_ptr[i]) throw_invalid("row pointers decrease");
			if (row_ptr[i + 1] - row_ptr[i] >= long_min) long_rows.push_back(i);
		}
		for (uint64_t j = 0; j < nnz; ++j) {
			if (col[j] >= r->vars) throw_invalid("matrix column out of range");
			if (val[j] >= r->ncoeffs) throw_invalid("coefficient index out of range");
		}
		use_device(r->device);
		auto g = std::make_unique<csr_dev>(r->rows, nnz);
		FILC2_CUDA(cudaMemcpy(g->row_ptr.get(), row_ptr, (size_t(r->rows) + 1) * 4, cudaMemcpyHostToDevice));
		if (nnz) {
			FILC2_CUDA(cudaMemcpy(g->col.get(), col, nnz * 4, cudaMemcpyHostToDevice));
			FILC2_CUDA(cudaMemcpy(g->val.get(), val, nnz * 4, cudaMemcpyHostToDevice));
		}
		g->n_long = static_cast<uint32_t>(long_rows.size());
		g->long_rows = upload(long_rows.data(), long_rows.size());
		r->bytes += g->row_ptr.bytes() + g->col.bytes() + g->val.bytes() + g->long_rows->bytes();
		r->m[k] = std::move(g);
	});
}

extern "C" filc2_status filc2_r1cs_set_gather(filc2_r1cs* r, int32_t which, const uint32_t* vars, uint32_t n) {
	return guard([&] {
		if (!r) throw_invalid("null circuit");
		if (which < 0 || which > 1) throw_invalid("gather list outside 0..1");
		auto& dst = which == 0 ? r->a_vars : r->b_vars;
		if (dst) throw_invalid("gather list already set");
		if (n && !vars) throw_invalid("null gather list");
		for (uint32_t i = 0; i < n; ++i)
			if (vars[i] >= r->vars) throw_invalid("gather index out of range");
		use_device(r->device);
		dst = upload(vars, n);
		r->bytes += dst->bytes();
		(which == 0 ? r->n_a : r->n_b) = n;
	});
}

extern "C" filc2_status filc2_r1cs_free(filc2_r1cs* r) {
	return guard([&] {
		if (!r) return;
		use_device(r->device);
		delete r;
	});
}

extern "C" filc2_status filc2_r1cs_device_bytes(const filc2_r1cs* r, uint64_t* bytes) {
	return guard([&] {
		if (!r || !bytes) throw_invalid("null circuit or output");
		*bytes = r->bytes;
	});
}

namespace {

// eval runs filc2_r1cs_eval's launches on st: A, B and C (long rows by warps unless
// split is false: the thread-per-row kernel on every row), then the two gathers; with
// marks (6 events), an event before the first and after each of the five parts.
void eval(const filc2_r1cs* r, const fr_t* w, fr_t* const outs[3], uint64_t domain, fr_t* as, fr_t* bs,
          cudaStream_t st, bool split, cudaEvent_t* marks) {
	constexpr unsigned threads = 256;
	if (marks) FILC2_CUDA(cudaEventRecord(marks[0], st));
	for (int k = 0; k < 3; ++k) {
		const auto& g = *r->m[k];
		spmv_kernel<<<grid_for(r->rows, threads, 16), threads, 0, st>>>(r->rows, g.row_ptr.get(), g.col.get(),
		                                                                g.val.get(), r->coeffs->get(), w, outs[k],
		                                                                split ? long_min : UINT32_MAX);
		FILC2_LAUNCHED();
		if (split && g.n_long) {
			spmv_long_kernel<<<grid_for(size_t(g.n_long) * 32, threads, 16), threads, 0, st>>>(
			    g.n_long, g.long_rows->get(), g.row_ptr.get(), g.col.get(), g.val.get(), r->coeffs->get(), w, outs[k]);
			FILC2_LAUNCHED();
		}
		if (domain > r->rows)
			FILC2_CUDA(cudaMemsetAsync(outs[k] + r->rows, 0, (domain - r->rows) * sizeof(fr_t), st));
		if (marks) FILC2_CUDA(cudaEventRecord(marks[1 + k], st));
	}
	if (r->n_a) {
		gather_kernel<<<grid_for(r->n_a, threads, 16), threads, 0, st>>>(r->n_a, r->a_vars->get(), w, as);
		FILC2_LAUNCHED();
	}
	if (marks) FILC2_CUDA(cudaEventRecord(marks[4], st));
	if (r->n_b) {
		gather_kernel<<<grid_for(r->n_b, threads, 16), threads, 0, st>>>(r->n_b, r->b_vars->get(), w, bs);
		FILC2_LAUNCHED();
	}
	if (marks) FILC2_CUDA(cudaEventRecord(marks[5], st));
}

void check_eval_args(const filc2_r1cs* r, const void* w, void* a, void* b, void* c, uint64_t domain, void* as,
                     void* bs) {
	if (!r) throw_invalid("null circuit");
	if (!r->m[0] || !r->m[1] || !r->m[2] || !r->a_vars || !r->b_vars) throw_invalid("circuit not fully set");
	if (!w || !a || !b || !c || (r->n_a && !as) || (r->n_b && !bs)) throw_invalid("null device vector");
	if (domain < r->rows) throw_invalid("domain smaller than the constraints");
}

}  // namespace

extern "C" filc2_status filc2_r1cs_eval(const filc2_r1cs* r, const void* w, void* a, void* b, void* c,
                                        uint64_t domain, void* as, void* bs, void* stream) {
	return guard([&] {
		check_eval_args(r, w, a, b, c, domain, as, bs);
		use_device(r->device);
		fr_t* outs[3] = {static_cast<fr_t*>(a), static_cast<fr_t*>(b), static_cast<fr_t*>(c)};
		eval(r, static_cast<const fr_t*>(w), outs, domain, static_cast<fr_t*>(as), static_cast<fr_t*>(bs),
		     static_cast<cudaStream_t>(stream), true, nullptr);
	});
}

extern "C" filc2_status filc2_r1cs_bench(const filc2_r1cs* r, const void* w, void* a, void* b, void* c,
                                         uint64_t domain, void* as, void* bs, int32_t split, int32_t reps, float* ms) {
	return guard([&] {
		check_eval_args(r, w, a, b, c, domain, as, bs);
		if (reps <= 0 || !ms) throw_invalid("bench needs reps > 0 and ms");
		use_device(r->device);
		cudaStream_t st = nullptr;
		FILC2_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
		cudaEvent_t marks[6] = {};
		try {
			for (auto& e : marks) FILC2_CUDA(cudaEventCreate(&e));
			fr_t* outs[3] = {static_cast<fr_t*>(a), static_cast<fr_t*>(b), static_cast<fr_t*>(c)};
			std::fill(ms, ms + 6, 0.0f);
			for (int32_t k = -1; k < reps; ++k) {
				eval(r, static_cast<const fr_t*>(w), outs, domain, static_cast<fr_t*>(as), static_cast<fr_t*>(bs), st,
				     split != 0, marks);
				FILC2_CUDA(cudaEventSynchronize(marks[5]));
				if (k < 0) continue;  // warm-up
				for (int i = 0; i < 5; ++i) {
					float t = 0;
					FILC2_CUDA(cudaEventElapsedTime(&t, marks[i], marks[i + 1]));
					ms[i] += t / reps;
					ms[5] += t / reps;
				}
			}
		} catch (...) {
			for (auto e : marks)
				if (e) cudaEventDestroy(e);
			cudaStreamDestroy(st);
			throw;
		}
		for (auto e : marks) cudaEventDestroy(e);
		FILC2_CUDA(cudaStreamDestroy(st));
	});
}

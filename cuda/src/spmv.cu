// cuda/src/spmv.cu — the recorded circuit on the device (filc2_spmv.h): a, b, c by
// sparse matrix-vector products over the witness, and the gathers of the compacted A and
// B query scalars. One thread per row: the PoRep circuit's rows are short (one to a few
// terms) except the bit-packing rows (up to 256), whose threads run longer.
#include <cstring>
#include <memory>
#include <vector>

#include "../ff/bls12_381.cuh"
#include "../filc2_cuda.h"
#include "../util/error.cuh"
#include "../util/gpu.cuh"

using namespace filc2;

namespace {

// spmv_kernel: out[row] = Σ_j coeffs[val[j]]·w[col[j]] over the row's entries; the
// coefficients 1 (index 0) and −1 (index 1) are an addition and a subtraction.
__global__ void spmv_kernel(uint32_t rows, const uint32_t* __restrict__ row_ptr, const uint32_t* __restrict__ col,
                            const uint32_t* __restrict__ val, const fr_t* __restrict__ coeffs,
                            const fr_t* __restrict__ w, fr_t* __restrict__ out) {
	const uint32_t stride = gridDim.x * blockDim.x;
	for (uint32_t row = blockIdx.x * blockDim.x + threadIdx.x; row < rows; row += stride) {
		fr_t acc = fr_t::zero();
		const uint32_t hi = row_ptr[row + 1];
		for (uint32_t j = row_ptr[row]; j < hi; ++j) {
			const fr_t x = w[col[j]];
			const uint32_t v = val[j];
			if (v == 0)
				acc += x;
			else if (v == 1)
				acc -= x;
			else
				acc += x * coeffs[v];
		}
		out[row] = acc;
	}
}

// gather_kernel: dst[i] = src[idx[i]].
__global__ void gather_kernel(uint32_t n, const uint32_t* __restrict__ idx, const fr_t* __restrict__ src,
                              fr_t* __restrict__ dst) {
	const uint32_t stride = gridDim.x * blockDim.x;
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[idx[i]];
}

struct csr_dev {
	dev_buffer<uint32_t> row_ptr, col, val;
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
		for (uint32_t i = 0; i < r->rows; ++i)
			if (row_ptr[i + 1] < row_ptr[i]) throw_invalid("row pointers decrease");
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
		r->bytes += g->row_ptr.bytes() + g->col.bytes() + g->val.bytes();
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

extern "C" filc2_status filc2_r1cs_eval(const filc2_r1cs* r, const void* w, void* a, void* b, void* c,
                                        uint64_t domain, void* as, void* bs, void* stream) {
	return guard([&] {
		if (!r) throw_invalid("null circuit");
		if (!r->m[0] || !r->m[1] || !r->m[2] || !r->a_vars || !r->b_vars) throw_invalid("circuit not fully set");
		if (!w || !a || !b || !c || (r->n_a && !as) || (r->n_b && !bs)) throw_invalid("null device vector");
		if (domain < r->rows) throw_invalid("domain smaller than the constraints");
		use_device(r->device);
		const cudaStream_t st = static_cast<cudaStream_t>(stream);
		constexpr unsigned threads = 256;
		const fr_t* wv = static_cast<const fr_t*>(w);
		fr_t* outs[3] = {static_cast<fr_t*>(a), static_cast<fr_t*>(b), static_cast<fr_t*>(c)};
		for (int k = 0; k < 3; ++k) {
			const auto& g = *r->m[k];
			spmv_kernel<<<grid_for(r->rows, threads, 16), threads, 0, st>>>(
			    r->rows, g.row_ptr.get(), g.col.get(), g.val.get(), r->coeffs->get(), wv, outs[k]);
			FILC2_LAUNCHED();
			if (domain > r->rows)
				FILC2_CUDA(cudaMemsetAsync(outs[k] + r->rows, 0, (domain - r->rows) * sizeof(fr_t), st));
		}
		if (r->n_a) {
			gather_kernel<<<grid_for(r->n_a, threads, 16), threads, 0, st>>>(r->n_a, r->a_vars->get(), wv,
			                                                                 static_cast<fr_t*>(as));
			FILC2_LAUNCHED();
		}
		if (r->n_b) {
			gather_kernel<<<grid_for(r->n_b, threads, 16), threads, 0, st>>>(r->n_b, r->b_vars->get(), wv,
			                                                                 static_cast<fr_t*>(bs));
			FILC2_LAUNCHED();
		}
	});
}

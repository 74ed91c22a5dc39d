// cuda/src/ntt.cu — C ABI (filc2_ntt.h): Fr NTT domains, transforms, the H pipeline,
// device buffers and the benchmark. The kernels are cuda/ntt/kernels.cuh; the pass
// sequences cuda/ntt/driver.cuh; this file is the CUDA backend of the driver.
#include <cuda_runtime.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>

#include "../ff/bls12_381.cuh"
#include "../filc2_cuda.h"
#include "../kernels/bench.cuh"
#include "../ntt/driver.cuh"
#include "../util/error.cuh"
#include "../util/gpu.cuh"

using namespace filc2;

namespace {

// ---- kernels: the bodies of ntt/kernels.cuh in a CUDA context --------------------------

struct cuda_ctx {
	uint4* sm;
	__device__ __forceinline__ uint32_t tid() const { return threadIdx.x; }
	__device__ __forceinline__ uint32_t bid() const { return blockIdx.x; }
	__device__ __forceinline__ uint32_t nthreads() const { return blockDim.x; }
	__device__ __forceinline__ uint32_t nblocks() const { return gridDim.x; }
	__device__ __forceinline__ void sync() const { __syncthreads(); }
	__device__ __forceinline__ fr_t ld(const fr_t* p, uint32_t i) const {
		const uint4* q = reinterpret_cast<const uint4*>(p + i);
		return ntt::from_halves(q[0], q[1]);
	}
	__device__ __forceinline__ void st(fr_t* p, uint32_t i, const fr_t& v) const {
		uint4* q = reinterpret_cast<uint4*>(p + i);
		q[0] = ntt::half_lo(v);
		q[1] = ntt::half_hi(v);
	}
	__device__ __forceinline__ fr_t ldg(const fr_t* p, uint32_t i) const {
		const uint4* q = reinterpret_cast<const uint4*>(p + i);
		return ntt::from_halves(__ldg(q), __ldg(q + 1));
	}
	__device__ __forceinline__ uint4 lds(uint32_t i) const { return sm[i]; }
	__device__ __forceinline__ void sts(uint32_t i, uint4 v) const { sm[i] = v; }
};

// At most 256 threads a block. With 8 elements a thread (2^11 elements a block), two blocks
// a multiprocessor cap the registers at 128, so the default 128-thread blocks run four to a
// multiprocessor. With 4 elements a thread, three blocks cap them at 85: 24 warps of
// 256-thread blocks where 8 elements a thread have 16.
template <int LE>
struct pass_bounds {
	static constexpr int min_blocks = LE == 2 ? 3 : 2;
};

template <int PROG, int LE>
__global__ void __launch_bounds__(256, pass_bounds<LE>::min_blocks) pass_kernel(const __grid_constant__ ntt::pass_args p) {
	extern __shared__ uint4 ntt_smem[];
	const cuda_ctx c{ntt_smem};
	ntt::pass_body<PROG, LE>(c, p);
}

__global__ void consts_kernel(ntt::consts_t* out, uint32_t n) { ntt::consts_body(out, n); }

__global__ void pow_kernel(fr_t* out, const fr_t* base, uint32_t count) {
	ntt::pow_body(cuda_ctx{nullptr}, out, base, count);
}

__global__ void twist_kernel(fr_t* out, const fr_t* W1, const fr_t* W2, uint32_t count, uint32_t shift) {
	ntt::twist_body(cuda_ctx{nullptr}, out, W1, W2, count, shift);
}

__global__ void rtab_kernel(const __grid_constant__ ntt::rtab_args a) { ntt::rtab_body(cuda_ctx{nullptr}, a); }

__global__ void tiny_kernel(const __grid_constant__ ntt::tiny_args t) { ntt::tiny_body(t); }

__global__ void bitrev_kernel(fr_t* x, uint32_t n) { ntt::bitrev_body(cuda_ctx{nullptr}, x, n); }

__global__ void pointwise_kernel(fr_t* c, const fr_t* a, const fr_t* b, uint32_t count) {
	ntt::pointwise_body(cuda_ctx{nullptr}, c, a, b, count);
}

// ---- the backend ---------------------------------------------------------------------

struct cuda_backend {
	using stream_t = cudaStream_t;
	void* alloc(size_t bytes) {
		void* p = nullptr;
		FILC2_CUDA(cudaMalloc(&p, bytes));
		return p;
	}
	void release(void* p) { cudaFree(p); }
	void h2d(void* d, const void* h, size_t bytes, stream_t st) {
		FILC2_CUDA(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, st));
	}
	void d2h(void* h, const void* d, size_t bytes, stream_t st) {
		FILC2_CUDA(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, st));
	}
	void sync(stream_t st) { FILC2_CUDA(cudaStreamSynchronize(st)); }
	void consts(ntt::consts_t* out, uint32_t n, stream_t st) {
		consts_kernel<<<1, 1, 0, st>>>(out, n);
		FILC2_LAUNCHED();
	}
	void pow(fr_t* out, const fr_t* base, uint32_t count, stream_t st) {
		pow_kernel<<<grid_for(count, 128), 128, 0, st>>>(out, base, count);
		FILC2_LAUNCHED();
	}
	void twist(fr_t* out, const fr_t* W1, const fr_t* W2, uint32_t count, uint32_t shift, stream_t st) {
		twist_kernel<<<grid_for(count, 256), 256, 0, st>>>(out, W1, W2, count, shift);
		FILC2_LAUNCHED();
	}
	void rtab(const ntt::rtab_args& a, stream_t st) {
		rtab_kernel<<<grid_for(a.count, 128), 128, 0, st>>>(a);
		FILC2_LAUNCHED();
	}
	void tiny(const ntt::tiny_args& t, stream_t st) {
		tiny_kernel<<<1, 1, 0, st>>>(t);
		FILC2_LAUNCHED();
	}
	void bitrev(fr_t* x, uint32_t n, stream_t st) {
		bitrev_kernel<<<grid_for(size_t(1) << n, 256), 256, 0, st>>>(x, n);
		FILC2_LAUNCHED();
	}
	void pointwise(fr_t* c, const fr_t* a, const fr_t* b, uint32_t count, stream_t st) {
		pointwise_kernel<<<grid_for(count, 256), 256, 0, st>>>(c, a, b, count);
		FILC2_LAUNCHED();
	}
	void pass(int prog, const ntt::pass_args& p, uint32_t blocks, uint32_t threads, uint32_t smem, stream_t st) {
		if (p.le == 2)
			launch_pass<2>(prog, p, blocks, threads, smem, st);
		else
			launch_pass<3>(prog, p, blocks, threads, smem, st);
	}
	template <int LE>
	void launch_pass(int prog, const ntt::pass_args& p, uint32_t blocks, uint32_t threads, uint32_t smem,
	                 stream_t st) {
		switch (prog) {
		case ntt::PROG_DIF:
			pass_kernel<ntt::PROG_DIF, LE><<<blocks, threads, smem, st>>>(p);
			break;
		case ntt::PROG_DIT:
			pass_kernel<ntt::PROG_DIT, LE><<<blocks, threads, smem, st>>>(p);
			break;
		case ntt::PROG_DIF_DIT:
			pass_kernel<ntt::PROG_DIF_DIT, LE><<<blocks, threads, smem, st>>>(p);
			break;
		default:
			pass_kernel<ntt::PROG_DIT_DIF, LE><<<blocks, threads, smem, st>>>(p);
		}
		FILC2_LAUNCHED();
	}
};

// The largest dynamic shared memory a pass of any plan asks for (2^11-element blocks with
// 2^6 lines of 32 elements: 80 KiB), allowed once per device for the four pass kernels.
std::mutex shared_mu;
bool shared_done[64] = {};

template <int LE>
void allow_shared_le(int bytes) {
	FILC2_CUDA(cudaFuncSetAttribute(pass_kernel<ntt::PROG_DIF, LE>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
	FILC2_CUDA(cudaFuncSetAttribute(pass_kernel<ntt::PROG_DIT, LE>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
	FILC2_CUDA(
	    cudaFuncSetAttribute(pass_kernel<ntt::PROG_DIF_DIT, LE>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
	FILC2_CUDA(
	    cudaFuncSetAttribute(pass_kernel<ntt::PROG_DIT_DIF, LE>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

void allow_shared(int device) {
	std::lock_guard<std::mutex> g(shared_mu);
	bool* done = shared_done;
	if (device < 0 || device >= 64 || done[device]) return;
	const int bytes = (2 << ntt::MAX_TILE_LOG) * 16 + 2 * (1 << (ntt::MAX_TILE_LOG - ntt::MIN_PASS + 3)) * 16;
	allow_shared_le<2>(bytes);
	allow_shared_le<3>(bytes);
	done[device] = true;
}

// Turn the driver's std:: exceptions into typed failures (guard() maps failure).
template <class Fn>
void translate(Fn&& f) {
	try {
		f();
	} catch (const std::invalid_argument& e) {
		throw failure(FILC2_ERR_INVALID_ARGUMENT, 0, e.what());
	}
}

}  // namespace

namespace filc2 {
// ntt_forget_device makes the next plan on device set its kernels' attributes again (after a
// cudaDeviceReset, filc2_device_probe).
void ntt_forget_device(int device) {
	std::lock_guard<std::mutex> g(shared_mu);
	if (device >= 0 && device < 64) shared_done[device] = false;
}
}  // namespace filc2

struct filc2_ntt_domain {
	int32_t device = 0;
	cudaStream_t stream = nullptr;
	std::unique_ptr<ntt::domain<cuda_backend>> d;
	~filc2_ntt_domain() {
		d.reset();
		if (stream) cudaStreamDestroy(stream);
	}
	cudaStream_t pick(void* s) const { return s ? static_cast<cudaStream_t>(s) : stream; }
	void use() const { FILC2_CUDA(cudaSetDevice(device)); }
	uint32_t size() const { return d->size(); }
};

namespace {

filc2_ntt_domain* checked(filc2_ntt_domain* d) {
	if (!d || !d->d) throw_invalid("null NTT domain");
	d->use();
	return d;
}

void check_order(int32_t order) {
	if (order < FILC2_NTT_NN || order > FILC2_NTT_RN) throw_invalid("NTT order must be NN, NR or RN");
}

}  // namespace

extern "C" filc2_status filc2_ntt_domain_new(int32_t device, int32_t log_n, uint32_t flags, filc2_ntt_domain** out) {
	return guard([&] {
		if (!out) throw_invalid("null output");
		*out = nullptr;
		if (log_n < 1 || log_n > ntt::MAX_LOG) throw_invalid("NTT log size must be 1..28");
		const int max_pass = static_cast<int>((flags >> 8) & 15u), tile = static_cast<int>((flags >> 12) & 15u);
		const int le = static_cast<int>((flags >> 16) & 15u);
		if ((max_pass && (max_pass < ntt::MIN_PASS || max_pass > ntt::MAX_PASS)) ||
		    (tile && (tile < ntt::MIN_PASS || tile > ntt::MAX_TILE_LOG)))
			throw_invalid("NTT plan override out of range (5..11)");
		if (le != 0 && le != 2 && le != 3) throw_invalid("NTT elements a thread must be 4 or 8 (log 2 or 3)");
		use_device(device);
		allow_shared(device);
		std::unique_ptr<filc2_ntt_domain> h(new filc2_ntt_domain);
		h->device = device;
		FILC2_CUDA(cudaStreamCreateWithFlags(&h->stream, cudaStreamNonBlocking));
		translate([&] {
			h->d.reset(new ntt::domain<cuda_backend>(cuda_backend{}, log_n, max_pass, tile,
			                                         (flags & FILC2_NTT_COMPACT) != 0, h->stream,
			                                         (flags & FILC2_NTT_GREEDY) != 0, le));
		});
		*out = h.release();
	});
}

extern "C" filc2_status filc2_ntt_domain_free(filc2_ntt_domain* d) {
	return guard([&] {
		if (!d) return;
		std::unique_ptr<filc2_ntt_domain> h(d);
		FILC2_CUDA(cudaSetDevice(h->device));
		FILC2_CUDA(cudaStreamSynchronize(h->stream));
	});
}

extern "C" filc2_status filc2_ntt_domain_info(const filc2_ntt_domain* d, filc2_ntt_info* info) {
	return guard([&] {
		if (!d || !d->d || !info) throw_invalid("null NTT domain or output");
		std::memset(info, 0, sizeof *info);
		const ntt::plan& pl = d->d->get_plan();
		info->log_n = pl.n;
		info->device = d->device;
		info->table_bytes = d->d->table_bytes();
		info->passes = pl.npasses();
		info->thread_log = pl.le;
		for (int i = 0; i < pl.npasses() && i < 4; ++i) {
			info->pass_bits[i] = pl.passes[i].s;
			info->pass_lines[i] = pl.passes[i].lp;
		}
		std::memcpy(info->omega, &d->d->constants().omega, 32);
		std::memcpy(info->omega_inv, &d->d->constants().omega_inv, 32);
	});
}

extern "C" filc2_status filc2_ntt_domain_stream(const filc2_ntt_domain* d, void** stream) {
	return guard([&] {
		if (!d || !d->d || !stream) throw_invalid("null NTT domain or output");
		*stream = d->stream;
	});
}

extern "C" filc2_status filc2_ntt_run(filc2_ntt_domain* d, void* dst, const void* src, int32_t inverse, int32_t coset,
                                      int32_t order, void* stream) {
	return guard([&] {
		checked(d);
		check_order(order);
		if (!dst || !src) throw_invalid("null device buffer");
		translate([&] {
			d->d->transform(static_cast<fr_t*>(dst), static_cast<const fr_t*>(src), inverse != 0, coset != 0, order,
			                d->pick(stream));
		});
	});
}

extern "C" filc2_status filc2_ntt_h(filc2_ntt_domain* d, void* a, void* b, void* c, void** h, void* stream) {
	return guard([&] {
		checked(d);
		if (!a || !b || !c || !h) throw_invalid("null device buffer or output");
		if (a == b || b == c || a == c) throw_invalid("H needs three distinct buffers");
		*h = d->d->h(static_cast<fr_t*>(a), static_cast<fr_t*>(b), static_cast<fr_t*>(c), d->pick(stream));
	});
}

extern "C" filc2_status filc2_ntt_sync(filc2_ntt_domain* d, void* stream) {
	return guard([&] {
		checked(d);
		FILC2_CUDA(cudaStreamSynchronize(d->pick(stream)));
	});
}

extern "C" filc2_status filc2_ntt_alloc(int32_t device, uint64_t n, void** ptr) {
	return guard([&] {
		if (!ptr) throw_invalid("null output");
		*ptr = nullptr;
		if (n == 0) throw_invalid("empty device buffer");
		if (n > (uint64_t(1) << 40)) throw_invalid("device buffer too large");
		use_device(device);
		FILC2_CUDA(cudaMalloc(ptr, n * sizeof(fr_t)));
	});
}

extern "C" filc2_status filc2_ntt_free(int32_t device, void* ptr) {
	return guard([&] {
		if (!ptr) return;
		use_device(device);
		FILC2_CUDA(cudaFree(ptr));
	});
}

extern "C" filc2_status filc2_ntt_copy(int32_t device, void* dst, const void* src, uint64_t n, int32_t kind,
                                       void* stream) {
	return guard([&] {
		if (n == 0) return;
		if (!dst || !src) throw_invalid("null copy pointer");
		cudaMemcpyKind k;
		switch (kind) {
		case 0:
			k = cudaMemcpyHostToDevice;
			break;
		case 1:
			k = cudaMemcpyDeviceToHost;
			break;
		case 2:
			k = cudaMemcpyDeviceToDevice;
			break;
		default:
			throw_invalid("copy kind must be 0, 1 or 2");
		}
		use_device(device);
		FILC2_CUDA(cudaMemcpyAsync(dst, src, n * sizeof(fr_t), k, static_cast<cudaStream_t>(stream)));
		if (!stream) FILC2_CUDA(cudaStreamSynchronize(nullptr));
	});
}

extern "C" filc2_status filc2_ntt_host(filc2_ntt_domain* d, void* out, const void* in, int32_t inverse, int32_t coset,
                                       int32_t order, int32_t in_place) {
	return guard([&] {
		checked(d);
		check_order(order);
		if (!out || !in) throw_invalid("null host array");
		const cudaStream_t st = d->stream;
		const size_t N = d->size();
		dev_buffer<fr_t> x(N), y(in_place ? 0 : N);
		x.upload(in, st);
		fr_t* dst = in_place ? x.get() : y.get();
		if (!in_place) FILC2_CUDA(cudaMemsetAsync(dst, 0xff, N * sizeof(fr_t), st));
		translate([&] { d->d->transform(dst, x.get(), inverse != 0, coset != 0, order, st); });
		FILC2_CUDA(cudaMemcpyAsync(out, dst, N * sizeof(fr_t), cudaMemcpyDeviceToHost, st));
		FILC2_CUDA(cudaStreamSynchronize(st));
	});
}

extern "C" filc2_status filc2_ntt_h_host(filc2_ntt_domain* d, void* h, const void* a, const void* b, const void* c) {
	return guard([&] {
		checked(d);
		if (!h || !a || !b || !c) throw_invalid("null host array");
		const cudaStream_t st = d->stream;
		const size_t N = d->size();
		dev_buffer<fr_t> da(N), db(N), dc(N);
		da.upload(a, st);
		db.upload(b, st);
		dc.upload(c, st);
		const fr_t* r = d->d->h(da.get(), db.get(), dc.get(), st);
		FILC2_CUDA(cudaMemcpyAsync(h, r, N * sizeof(fr_t), cudaMemcpyDeviceToHost, st));
		FILC2_CUDA(cudaStreamSynchronize(st));
	});
}

extern "C" filc2_status filc2_ntt_bench(filc2_ntt_domain* d, int32_t op, int32_t reps, float* ms) {
	return guard([&] {
		checked(d);
		if (reps <= 0 || !ms) throw_invalid("bench needs reps > 0 and ms");
		if (op < FILC2_NTT_BENCH_FWD || op > FILC2_NTT_BENCH_H) throw_invalid("unknown NTT bench op");
		const cudaStream_t st = d->stream;
		const size_t N = d->size();
		const bool three = op == FILC2_NTT_BENCH_H, two = op == FILC2_NTT_BENCH_FWD_NN;
		dev_buffer<fr_t> a(N), b(three || two ? N : 0), c(three ? N : 0);
		constexpr unsigned threads = 256;
		uint64_t seed = 0x6e7474;
		for (fr_t* p : {a.get(), b.get(), c.get()}) {
			if (!p) continue;
			random_kernel<fr_t><<<grid_for(N, threads), threads, 0, st>>>(p, N, ++seed);
			FILC2_LAUNCHED();
		}
		ntt::domain<cuda_backend>& D = *d->d;
		auto run = [&] {
			switch (op) {
			case FILC2_NTT_BENCH_FWD:
				D.transform(a.get(), a.get(), false, false, ntt::ORDER_NR, st);
				break;
			case FILC2_NTT_BENCH_INV:
				D.transform(a.get(), a.get(), true, false, ntt::ORDER_NR, st);
				break;
			case FILC2_NTT_BENCH_COSET:
				D.transform(a.get(), a.get(), false, true, ntt::ORDER_NR, st);
				break;
			case FILC2_NTT_BENCH_FWD_RN:
				D.transform(a.get(), a.get(), false, false, ntt::ORDER_RN, st);
				break;
			case FILC2_NTT_BENCH_COSET_RN:
				D.transform(a.get(), a.get(), false, true, ntt::ORDER_RN, st);
				break;
			case FILC2_NTT_BENCH_FWD_NN:
				D.transform(b.get(), a.get(), false, false, ntt::ORDER_NN, st);
				break;
			case FILC2_NTT_BENCH_COSET_INV:
				D.transform(a.get(), a.get(), true, true, ntt::ORDER_NR, st);
				break;
			default:
				D.h(a.get(), b.get(), c.get(), st);
			}
		};
		run();  // warm-up: module load, clocks
		run();
		FILC2_CUDA(cudaStreamSynchronize(st));
		event start, stop;
		for (int32_t r = 0; r < reps; ++r) {
			start.record(st);
			run();
			stop.record(st);
			ms[r] = stop.ms_since(start);
		}
		FILC2_CUDA(cudaStreamSynchronize(st));
	});
}

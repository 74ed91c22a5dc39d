// cuda/msm/handle.cuh — the filc2_msm_bases handle of the C ABI (CUDA only): resident
// bases, a stream, pinned staging for host inputs, an engine; one instantiation per
// group (src/msm.cu: G1, src/msm_g2.cu: G2), called through virtual functions so that
// the group-independent C entry points live in one file.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "../filc2_cuda.h"
#include "../util/error.cuh"
#include "../util/gpu.cuh"
#include "../util/staging.cuh"
#include "engine.cuh"
#include "fixed_base.cuh"

static_assert(int(FILC2_MSM_MAX_VARIANT) == filc2::msm::max_variant, "the C ABI's variants are the engine's");
static_assert(int(FILC2_MSM_MAX_SORT) == filc2::msm::max_sort, "the C ABI's sorts are the engine's");
static_assert(int(FILC2_MSM_PHASES) == int(filc2::msm::phase_count) && int(FILC2_MSM_PHASE_FINISH) == int(filc2::msm::phase_finish) &&
                  int(FILC2_MSM_PHASE_HIST) == int(filc2::msm::phase_hist),
              "the C ABI's MSM phases are the engine's");

// The opaque handle of filc2_msm.h.
struct filc2_msm_bases {
	virtual ~filc2_msm_bases() = default;
	virtual int32_t group() const = 0;
	virtual size_t size() const = 0;
	virtual size_t device_bytes() const = 0;
	virtual bool host_resident() const = 0;
	virtual void trim() = 0;
	virtual void download(size_t first, size_t count, void* out) = 0;
	// run: ln (or null): loans for a dense call's pair buffers (filc2_msm_run_lent).
	virtual void run(bool split, const void* scalars, size_t n, int32_t flags, const filc2_msm_config* cfg,
	                 void* windows, filc2_msm_result* res, const filc2::msm::loans* ln = nullptr) = 0;
	virtual void batch_add(const uint64_t* bitmap, size_t nbits, int32_t flags, void* sum,
	                       filc2_msm_result* res) = 0;
	virtual void batch_add_indices(const uint32_t* idx, size_t count, int32_t flags, void* sum,
	                               filc2_msm_result* res) = 0;
	virtual void bench(int32_t op, size_t n, uint64_t seed, const filc2_msm_config* cfg, int32_t reps, float* ms,
	                   float* phases, void* windows, filc2_msm_result* res) = 0;
	virtual int32_t device() const = 0;
	virtual std::shared_ptr<filc2::msm::scratch> shared_scratch() const = 0;
	virtual void use_scratch(std::shared_ptr<filc2::msm::scratch> s) = 0;
	// reserve: ln (or null): the sizes of the loans the dense call will bring.
	virtual size_t reserve(size_t n, bool split, const filc2::msm::loans* ln = nullptr) = 0;
	// set_variant sets the first-level kernel of the calls without a config (msm_config::variant).
	virtual void set_variant(int32_t variant) = 0;
	// set_sort sets their sort (msm_config::sort).
	virtual void set_sort(int32_t sort) = 0;
	// set_stream_chunk sets the chunk of a host-resident handle's streamed MSMs (points; 0: gathered
	// over the bus) and returns the chunk it got (smaller where the device has no room; 0 for
	// device-resident points).
	virtual size_t set_stream_chunk(size_t points) = 0;
	virtual size_t stream_chunk() const = 0;
	// fold: a new device-resident handle of per points, point j = Σ_k points[start + k·per + j], k < copies.
	virtual filc2_msm_bases* fold(size_t start, size_t per, size_t copies) = 0;
	std::mutex mu;
};

namespace filc2 {
namespace msm {

inline msm_config config_of(const filc2_msm_config* c) {
	msm_config r;
	if (c) {
		if (c->window_bits < 0 || c->chunk < 0 || c->max_group_windows < 0 || c->variant < 0 || c->variant > max_variant ||
		    c->sort_kib < -1 || c->sort < 0 || c->sort > max_sort)
			throw_invalid("msm: config field out of range");
		r.sort_kib = c->sort_kib;
		r.window_bits = c->window_bits;
		r.chunk = c->chunk;
		r.max_group = c->max_group_windows;
		r.variant = c->variant;
		r.sort = c->sort;
	}
	return r;
}

inline void result_to(filc2_msm_result* out, const msm_result& r) {
	if (!out) return;
	out->window_bits = r.window_bits;
	out->windows = r.windows;
	out->per_pass = r.per_pass;
	out->lent = r.lent;
	out->chunks = r.chunks;
	out->ones = r.ones;
	out->others = r.others;
}

// current_device sets `device` current in its constructor (first member of a handle).
struct current_device {
	int32_t ordinal;
	explicit current_device(int32_t d) : ordinal(d) { use_device(d); }
};

struct owned_stream {
	cudaStream_t s = nullptr;
	owned_stream() { FILC2_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
	~owned_stream() {
		if (s) cudaStreamDestroy(s);
	}
	owned_stream(const owned_stream&) = delete;
	owned_stream& operator=(const owned_stream&) = delete;
};

struct owned_dev {
	void* p = nullptr;
	owned_dev() = default;
	explicit owned_dev(size_t bytes) : p(dev_alloc(bytes)) {}
	// try_alloc: bytes of device memory, or false (and nothing) when the device has no room.
	bool try_alloc(size_t bytes) {
		dev_free(p);
		p = nullptr;
		const cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
		if (e == cudaSuccess) return true;
		cudaGetLastError();
		p = nullptr;
		if (e != cudaErrorMemoryAllocation) FILC2_CUDA(e);
		return false;
	}
	~owned_dev() { dev_free(p); }
	owned_dev(const owned_dev&) = delete;
	owned_dev& operator=(const owned_dev&) = delete;
};

// placement says where a handle's bases may live.
enum class placement {
	device_or_host,  // device memory, else mapped pinned host memory (uploaded keys)
	device,          // device memory only (generated bases: benchmarks must not fall back)
	host             // mapped pinned host memory (FILC2_MSM_HOST_RESIDENT)
};

// owned_points holds a handle's bases: device memory, or, when the device has no room for
// them (or placement::host asks), mapped pinned host memory that the kernels read over the
// bus through its device alias: slower, but a key larger than the GPU still proves.
struct owned_points {
	void* p = nullptr;     // the address kernels use
	void* host = nullptr;  // the pinned host allocation behind p, if host-resident
	owned_points(size_t bytes, placement where) {
		if (!bytes) bytes = 1;
		if (where == placement::device) {
			FILC2_CUDA(cudaMalloc(&p, bytes));
			return;
		}
		if (where == placement::device_or_host) {
			const cudaError_t e = cudaMalloc(&p, bytes);
			if (e == cudaSuccess) return;
			cudaGetLastError();  // clear it: the fallback below is the answer
			p = nullptr;
			if (e != cudaErrorMemoryAllocation) FILC2_CUDA(e);
		}
		FILC2_CUDA(cudaHostAlloc(&host, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
		const cudaError_t e = cudaHostGetDevicePointer(&p, host, 0);
		if (e != cudaSuccess) {
			cudaFreeHost(host);
			host = nullptr;
			FILC2_CUDA(e);
		}
	}
	~owned_points() {
		if (host)
			cudaFreeHost(host);
		else if (p)
			cudaFree(p);
	}
	owned_points(const owned_points&) = delete;
	owned_points& operator=(const owned_points&) = delete;
};

// stream_buffers: the two device buffers a host-resident handle's MSMs stream its points
// through (engine::msm_streamed), their copy stream and events; chunk 0: none.
template <class F>
struct stream_buffers {
	using affine = affine_t<F>;
	// default_points: 768 MiB a buffer (2^23 G1 or 2^22 G2 points); min_points: below this the
	// chunks' fixed costs (a bucket reduction each) outweigh the gathers they replace.
	static constexpr size_t default_points = (size_t(768) << 20) / sizeof(affine) >= (size_t(1) << 23)
	                                             ? size_t(1) << 23
	                                             : size_t(1) << 22;
	static constexpr size_t min_points = size_t(1) << 16;

	affine* buf[2] = {nullptr, nullptr};
	cudaStream_t copy = nullptr;
	event_t ready[2] = {}, done[2] = {};
	size_t chunk = 0;

	stream_buffers() = default;
	~stream_buffers() { release(); }
	stream_buffers(const stream_buffers&) = delete;
	stream_buffers& operator=(const stream_buffers&) = delete;

	void release() {
		for (int b = 0; b < 2; ++b) {
			if (buf[b]) cudaFree(buf[b]);
			event_free(ready[b]);
			event_free(done[b]);
			buf[b] = nullptr;
			ready[b] = done[b] = nullptr;
		}
		if (copy) cudaStreamDestroy(copy);
		copy = nullptr;
		chunk = 0;
	}

	// set makes two buffers of `points` points, halving them while the device has no room (down
	// to min_points or `points`, whichever is smaller; below that, none). Returns the chunk.
	size_t set(size_t points) {
		release();
		if (points == 0) return 0;
		const size_t floor = std::min(points, min_points);
		for (size_t p = points;; p /= 2) {
			const cudaError_t e0 = cudaMalloc(&buf[0], p * sizeof(affine));
			const cudaError_t e1 = e0 == cudaSuccess ? cudaMalloc(&buf[1], p * sizeof(affine)) : e0;
			if (e1 == cudaSuccess) {
				chunk = p;
				break;
			}
			cudaGetLastError();
			if (buf[0]) cudaFree(buf[0]);
			buf[0] = buf[1] = nullptr;
			if (e1 != cudaErrorMemoryAllocation) FILC2_CUDA(e1);
			if (p / 2 < floor) return 0;
		}
		try {
			FILC2_CUDA(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
			for (int b = 0; b < 2; ++b) {
				ready[b] = event_new();
				done[b] = event_new();
			}
		} catch (...) {
			release();
			throw;
		}
		return chunk;
	}

	typename engine<F>::streamer view(const void* host) const {
		typename engine<F>::streamer st;
		st.host = static_cast<const affine*>(host);
		st.buf[0] = buf[0];
		st.buf[1] = buf[1];
		st.chunk = chunk;
		st.copy = copy;
		for (int b = 0; b < 2; ++b) {
			st.ready[b] = ready[b];
			st.done[b] = done[b];
		}
		return st;
	}
};

template <class F>
class bases_impl final : public filc2_msm_bases {
   public:
	using affine = affine_t<F>;
	using xyzz = xyzz_t<F>;
	using jac = jac_t<F>;

	bases_impl(int32_t device, size_t n, placement where)
	    : dev_(device),
	      pts_(bytes_for(n), where),
	      eng_(static_cast<const affine*>(pts_.p), n, stream_.s),
	      n_(n) {}

	// start_streams gives host-resident points their stream buffers (after they are filled:
	// the fill's own device scratch comes first).
	void start_streams() {
		if (pts_.host) streams_.set(std::min(n_, stream_buffers<F>::default_points));
	}

	static size_t bytes_for(size_t n) {
		if (n >= (size_t(1) << 31)) throw_invalid("msm: at most 2^31 - 1 bases");
		return n * sizeof(affine);
	}

	// upload_from copies n host points into the handle.
	void upload_from(const void* points) {
		stage_.upload(pts_.p, points, n_ * sizeof(affine), stream_.s);
		stream_sync(stream_.s);
	}

	// generate_points fills the handle as filc2_msm_*_generate documents.
	void generate_points(const affine& g, uint64_t seed) {
		const size_t per = std::min<size_t>(n_, size_t(1) << 22);  // a multiple of gen_block when < n
		owned_dev tmp(per * sizeof(xyzz));
		affine* out = static_cast<affine*>(pts_.p);
		for (size_t first = 0; first < n_; first += per) {
			const size_t count = std::min(per, n_ - first);
			const size_t blocks = ceil_div<size_t>(count, gen_block);
			launch<gen_body<F>>(stream_.s, blocks, g, seed, first / gen_block, count, static_cast<xyzz*>(tmp.p));
			launch<to_affine_body<F>>(stream_.s, blocks, static_cast<const xyzz*>(tmp.p), count, out + first);
		}
		stream_sync(stream_.s);
	}

	// fold_points fills the handle (n_ points) with the folds of src's copies runs of n_
	// points from start (fold_body), a chunk at a time through an XYZZ scratch.
	void fold_points(const affine* src, size_t start, size_t copies) {
		const size_t per = std::min<size_t>(n_, size_t(1) << 20);  // a multiple of gen_block when < n
		owned_dev tmp(per * sizeof(xyzz));
		affine* out = static_cast<affine*>(pts_.p);
		for (size_t first = 0; first < n_; first += per) {
			const size_t count = std::min(per, n_ - first);
			launch<fold_body<F>>(stream_.s, count, src, start + first, n_, copies, static_cast<xyzz*>(tmp.p));
			launch<to_affine_body<F>>(stream_.s, ceil_div<size_t>(count, gen_block), static_cast<const xyzz*>(tmp.p), count,
			                          out + first);
		}
		stream_sync(stream_.s);
	}

	filc2_msm_bases* fold(size_t start, size_t per, size_t copies) override;

	// fixed_base_points fills the handle as filc2_msm_*_fixed_base documents: the table and
	// the scalars (host memory) go up through the staging buffers, a chunk of scalars at a
	// time, each chunk multiplied (XYZZ into a scratch array) and converted to affine. The
	// chunk is 2^22 scalars, fewer where the device has little room (host-resident points).
	void fixed_base_points(const void* table, const void* scalars) {
		owned_dev tab(fb_table_points * sizeof(affine));
		stage_.upload(tab.p, table, fb_table_points * sizeof(affine), stream_.s);
		size_t per = std::min<size_t>(n_, size_t(1) << 22);  // a multiple of gen_block when < n
		owned_dev tmp, sc;
		while (!tmp.try_alloc(per * sizeof(xyzz)) || !sc.try_alloc(per * sizeof(fr_t))) {
			if (per <= (size_t(1) << 12)) msm_oom("msm: no room for the fixed-base multiplication's scratch");
			per = std::max<size_t>(per / 2, size_t(1) << 12);
		}
		affine* out = static_cast<affine*>(pts_.p);
		const fr_t* in = static_cast<const fr_t*>(scalars);
		for (size_t first = 0; first < n_; first += per) {
			const size_t count = std::min(per, n_ - first);
			stage_.upload(sc.p, in + first, count * sizeof(fr_t), stream_.s);
			launch<fixed_base_body<F>>(stream_.s, count, static_cast<const affine*>(tab.p), static_cast<const fr_t*>(sc.p),
			                           static_cast<xyzz*>(tmp.p));
			launch<to_affine_body<F>>(stream_.s, ceil_div<size_t>(count, gen_block), static_cast<const xyzz*>(tmp.p), count,
			                          out + first);
		}
		stream_sync(stream_.s);
	}

	int32_t group() const override { return sizeof(F) == 48 ? FILC2_MSM_G1 : FILC2_MSM_G2; }
	size_t size() const override { return n_; }
	size_t device_bytes() const override {
		return (pts_.host ? 2 * streams_.chunk * sizeof(affine) : n_ * sizeof(affine)) + eng_.scratch_bytes() +
		       input_.capacity();
	}
	bool host_resident() const override { return pts_.host != nullptr; }
	size_t set_stream_chunk(size_t points) override {
		if (!pts_.host) return 0;
		use_device(dev_.ordinal);
		return streams_.set(std::min(points, n_));
	}
	size_t stream_chunk() const override { return streams_.chunk; }

	void trim() override {
		use_device(dev_.ordinal);
		eng_.trim();
		input_.release();
	}

	int32_t device() const override { return dev_.ordinal; }
	void set_variant(int32_t variant) override {
		if (variant < 0 || variant > max_variant) throw_invalid("msm: variant out of range");
		variant_ = variant;
	}
	void set_sort(int32_t sort) override {
		if (sort < 0 || sort > max_sort) throw_invalid("msm: sort out of range");
		sort_ = sort;
	}
	// defaults: the config of calls without one.
	msm_config defaults() const {
		msm_config c;
		c.variant = variant_;
		c.sort = sort_;
		return c;
	}
	std::shared_ptr<scratch> shared_scratch() const override { return eng_.shared_scratch(); }
	void use_scratch(std::shared_ptr<scratch> s) override {
		use_device(dev_.ordinal);
		eng_.use_scratch(std::move(s));
	}
	size_t reserve(size_t n, bool split, const loans* ln) override {
		if (n > n_) throw_invalid("msm: reserve for more scalars than bases");
		use_device(dev_.ordinal);
		return eng_.reserve(n, split, defaults(), ln);
	}

	void download(size_t first, size_t count, void* out) override {
		if (first > n_ || count > n_ - first) throw_invalid("msm: download range outside the bases");
		if (count == 0) return;
		if (!out) throw_invalid("msm: null output");
		use_device(dev_.ordinal);
		copy_to_host(out, static_cast<const affine*>(pts_.p) + first, count * sizeof(affine), stream_.s);
		stream_sync(stream_.s);
	}

	void run(bool split, const void* scalars, size_t n, int32_t flags, const filc2_msm_config* cfg, void* windows,
	         filc2_msm_result* res, const loans* ln) override {
		if (!windows) throw_invalid("msm: null output");
		if (n > n_) throw_invalid("msm: more scalars than bases");
		if (n && !scalars) throw_invalid("msm: null scalars");
		const msm_config c = cfg ? config_of(cfg) : defaults();
		use_device(dev_.ordinal);
		const fr_t* d = static_cast<const fr_t*>(input(scalars, n * sizeof(fr_t), flags));
		jac* out = static_cast<jac*>(windows);
		if (pts_.host && streams_.chunk) {
			result_to(res, eng_.msm_streamed(split, d, n, c, streams_.view(pts_.host), out));
			return;
		}
		result_to(res, split ? eng_.msm_split(d, n, c, out) : eng_.msm(d, n, c, out, nullptr, ln));
	}

	void batch_add(const uint64_t* bitmap, size_t nbits, int32_t flags, void* sum, filc2_msm_result* res) override {
		if (!sum) throw_invalid("msm: null output");
		if (nbits > n_) throw_invalid("msm: bitmap longer than the bases");
		if (nbits && !bitmap) throw_invalid("msm: null bitmap");
		use_device(dev_.ordinal);
		const uint64_t* d = static_cast<const uint64_t*>(input(bitmap, ceil_div<size_t>(nbits, 64) * 8, flags));
		result_to(res, eng_.batch_add_bitmap(d, nbits, defaults(), static_cast<jac*>(sum)));
	}

	void batch_add_indices(const uint32_t* idx, size_t count, int32_t flags, void* sum,
	                       filc2_msm_result* res) override {
		if (!sum) throw_invalid("msm: null output");
		if (count && !idx) throw_invalid("msm: null indices");
		if (!(flags & FILC2_MSM_ON_DEVICE))
			for (size_t i = 0; i < count; ++i)
				if (idx[i] >= n_) throw_invalid("msm: index outside the bases");
		use_device(dev_.ordinal);
		const uint32_t* d = static_cast<const uint32_t*>(input(idx, count * sizeof(uint32_t), flags));
		result_to(res, eng_.batch_add_indices(d, count, defaults(), static_cast<jac*>(sum)));
	}

	void bench(int32_t op, size_t n, uint64_t seed, const filc2_msm_config* cfg, int32_t reps, float* ms,
	           float* phases, void* windows, filc2_msm_result* res) override {
		if (op < FILC2_MSM_BENCH_MSM || op > FILC2_MSM_BENCH_MSM_WITNESS) throw_invalid("msm: unknown bench op");
		if (reps <= 0 || !ms || !windows) throw_invalid("msm: bench needs reps > 0, ms and windows");
		if (n == 0 || n > n_) throw_invalid("msm: bench size outside [1, points]");
		const msm_config c = config_of(cfg);
		use_device(dev_.ordinal);
		const bool batch = op == FILC2_MSM_BENCH_BATCH_WITNESS || op == FILC2_MSM_BENCH_BATCH_ALL;
		const int mode = op == FILC2_MSM_BENCH_MSM ? FILC2_MSM_SCALARS_RANDOM : FILC2_MSM_SCALARS_WITNESS;
		const size_t nw = ceil_div<size_t>(n, 64);
		owned_dev scal(op == FILC2_MSM_BENCH_BATCH_ALL ? 0 : n * sizeof(fr_t));
		owned_dev words(batch ? nw * 8 : 0);
		if (op != FILC2_MSM_BENCH_BATCH_ALL)
			launch<random_scalars_body>(stream_.s, n, seed, mode, static_cast<fr_t*>(scal.p));
		if (op == FILC2_MSM_BENCH_BATCH_WITNESS)
			launch<ones_bitmap_body>(stream_.s, nw, static_cast<const fr_t*>(scal.p), n, static_cast<uint64_t*>(words.p));
		if (op == FILC2_MSM_BENCH_BATCH_ALL) launch<fill_words_body>(stream_.s, nw, ~uint64_t(0), static_cast<uint64_t*>(words.p));
		timer tm;
		tm.want_phases = phases != nullptr;
		if (phases) std::fill(phases, phases + FILC2_MSM_PHASES, 0.0f);
		jac* out = static_cast<jac*>(windows);
		msm_result r;
		for (int32_t k = -2; k < reps; ++k) {
			switch (op) {
			case FILC2_MSM_BENCH_MSM:
			case FILC2_MSM_BENCH_MSM_WITNESS:
				r = eng_.msm(static_cast<const fr_t*>(scal.p), n, c, out, &tm);
				break;
			case FILC2_MSM_BENCH_SPLIT:
				r = eng_.msm_split(static_cast<const fr_t*>(scal.p), n, c, out, &tm);
				break;
			default:
				r = eng_.batch_add_bitmap(static_cast<const uint64_t*>(words.p), n, c, out, &tm);
			}
			if (k >= 0) {
				ms[k] = tm.ms();
				if (phases) tm.add_phases(phases);
			}
		}
		result_to(res, r);
	}

   private:
	// input returns a device copy of a host input (or the device pointer itself).
	const void* input(const void* p, size_t bytes, int32_t flags) {
		if (flags & FILC2_MSM_ON_DEVICE || bytes == 0) return p;
		input_.reserve(bytes);
		stage_.upload(input_.carve().take<char>(bytes), p, bytes, stream_.s);
		return input_.carve().take<char>(bytes);
	}

	current_device dev_;
	owned_stream stream_;
	owned_points pts_;
	staging stage_;
	engine<F> eng_;
	int32_t variant_ = 0;  // set_variant
	int32_t sort_ = 0;     // set_sort
	dev_arena input_;
	size_t n_;
	stream_buffers<F> streams_;  // after eng_: released first (eng_ may hold their addresses only inside a call)
};

template <class F>
filc2_msm_bases* bases_impl<F>::fold(size_t start, size_t per, size_t copies) {
	if (per == 0 || copies == 0 || start > n_ || per > (n_ - start) / copies)
		throw_invalid("msm: fold range outside the bases");
	use_device(dev_.ordinal);
	auto* b = new bases_impl<F>(dev_.ordinal, per, placement::device);
	try {
		b->fold_points(static_cast<const affine*>(pts_.p), start, copies);
	} catch (...) {
		delete b;
		throw;
	}
	return b;
}

// make_bases: a handle with n points uploaded from host memory or generated.
template <class F>
filc2_msm_bases* upload_bases(int32_t device, const void* points, size_t n, bool host_resident = false) {
	if (n && !points) throw_invalid("msm: null points");
	auto* b = new bases_impl<F>(device, n, host_resident ? placement::host : placement::device_or_host);
	try {
		b->upload_from(points);
		b->start_streams();
	} catch (...) {
		delete b;
		throw;
	}
	return b;
}

template <class F>
filc2_msm_bases* generate_bases(int32_t device, const void* gen, size_t n, uint64_t seed) {
	if (!gen) throw_invalid("msm: null generator");
	affine_t<F> g;
	std::memcpy(&g, gen, sizeof g);
	auto* b = new bases_impl<F>(device, n, placement::device);
	try {
		b->generate_points(g, seed);
	} catch (...) {
		delete b;
		throw;
	}
	return b;
}

// fixed_base_bases: a handle of n points s_i·G made from G's window table (see
// fixed_base.cuh); the points go where uploaded keys go (device, else host memory).
template <class F>
filc2_msm_bases* fixed_base_bases(int32_t device, const void* table, const void* scalars, size_t n) {
	if (!table) throw_invalid("msm: null table");
	if (n && !scalars) throw_invalid("msm: null scalars");
	auto* b = new bases_impl<F>(device, n, placement::device_or_host);
	try {
		if (n) b->fixed_base_points(table, scalars);
		b->start_streams();
	} catch (...) {
		delete b;
		throw;
	}
	return b;
}

}  // namespace msm
}  // namespace filc2

// cuda/src/msm.cu — C ABI of the MSM (filc2_msm.h): the G1 instantiation and the
// group-independent entry points (G2 is in msm_g2.cu, which compiles in parallel).
#include "../filc2_cuda.h"
#include "../msm/handle.cuh"

using namespace filc2;
using namespace filc2::msm;

namespace {

filc2_msm_bases* checked(filc2_msm_bases* b) {
	if (!b) throw_invalid("msm: null handle");
	return b;
}

}  // namespace

extern "C" filc2_status filc2_msm_g1_upload(int32_t device, const void* points, size_t n, filc2_msm_bases** out) {
	return guard([&] {
		if (!out) throw_invalid("msm: null output");
		*out = nullptr;
		*out = upload_bases<fp_t>(device, points, n);
	});
}

extern "C" filc2_status filc2_msm_g1_upload_flags(int32_t device, const void* points, size_t n, int32_t flags,
                                                  filc2_msm_bases** out) {
	return guard([&] {
		if (!out) throw_invalid("msm: null output");
		*out = nullptr;
		if (flags & ~FILC2_MSM_HOST_RESIDENT) throw_invalid("msm: unknown upload flags");
		*out = upload_bases<fp_t>(device, points, n, (flags & FILC2_MSM_HOST_RESIDENT) != 0);
	});
}

extern "C" filc2_status filc2_msm_host_resident(filc2_msm_bases* b, int32_t* yes) {
	return guard([&] {
		if (!yes) throw_invalid("msm: null output");
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		*yes = b->host_resident() ? 1 : 0;
	});
}

extern "C" filc2_status filc2_msm_g1_fixed_base(int32_t device, const void* table, const void* scalars, size_t n,
                                                filc2_msm_bases** out) {
	return guard([&] {
		if (!out) throw_invalid("msm: null output");
		*out = nullptr;
		*out = fixed_base_bases<fp_t>(device, table, scalars, n);
	});
}

extern "C" filc2_status filc2_msm_g1_generate(int32_t device, const void* gen, size_t n, uint64_t seed,
                                              filc2_msm_bases** out) {
	return guard([&] {
		if (!out) throw_invalid("msm: null output");
		*out = nullptr;
		*out = generate_bases<fp_t>(device, gen, n, seed);
	});
}

extern "C" filc2_status filc2_msm_free(filc2_msm_bases* b) {
	return guard([&] {
		if (!b) return;
		{
			std::lock_guard<std::mutex> lock(b->mu);  // wait for a call in flight
		}
		delete b;
	});
}

extern "C" filc2_status filc2_msm_trim(filc2_msm_bases* b) {
	return guard([&] {
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		b->trim();
	});
}

extern "C" filc2_status filc2_msm_set_variant(filc2_msm_bases* b, int32_t variant) {
	return guard([&] {
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		b->set_variant(variant);
	});
}

extern "C" filc2_status filc2_msm_set_sort(filc2_msm_bases* b, int32_t sort) {
	return guard([&] {
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		b->set_sort(sort);
	});
}

extern "C" filc2_status filc2_msm_set_stream_chunk(filc2_msm_bases* b, size_t points, size_t* got) {
	return guard([&] {
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		const size_t chunk = b->set_stream_chunk(points);
		if (got) *got = chunk;
	});
}

extern "C" filc2_status filc2_msm_stream_chunk(filc2_msm_bases* b, size_t* points) {
	return guard([&] {
		if (!points) throw_invalid("msm: null output");
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		*points = b->stream_chunk();
	});
}

extern "C" filc2_status filc2_msm_fold(filc2_msm_bases* b, size_t start, size_t per, size_t copies,
                                       filc2_msm_bases** out) {
	return guard([&] {
		if (!out) throw_invalid("msm: null output");
		*out = nullptr;
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		*out = b->fold(start, per, copies);
	});
}

extern "C" filc2_status filc2_msm_share_scratch(filc2_msm_bases* dst, filc2_msm_bases* src) {
	return guard([&] {
		checked(dst);
		checked(src);
		if (dst == src) return;
		std::unique_lock<std::mutex> a(dst->mu, std::defer_lock), b(src->mu, std::defer_lock);
		std::lock(a, b);
		if (dst->device() != src->device()) throw_invalid("msm: handles on different devices cannot share a scratch");
		dst->use_scratch(src->shared_scratch());
	});
}

extern "C" filc2_status filc2_msm_reserve(filc2_msm_bases* b, size_t n, int32_t flags, uint64_t* scratch_bytes) {
	return guard([&] {
		if (flags & ~FILC2_MSM_RESERVE_SPLIT) throw_invalid("msm: unknown reserve flags");
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		const size_t got = b->reserve(n, (flags & FILC2_MSM_RESERVE_SPLIT) != 0);
		if (scratch_bytes) *scratch_bytes = got;
	});
}

// loans_of checks a C ABI's loans (count, alignment, overlaps with each other and with
// [avoid, avoid + avoid_bytes) where avoid is not null; with_ptrs false: sizes only).
static filc2::msm::loans loans_of(const filc2_msm_loan* in, int32_t n, bool with_ptrs, const void* avoid,
                                  size_t avoid_bytes) {
	filc2::msm::loans ln;
	if (n < 0 || n > FILC2_MSM_MAX_LOANS) throw_invalid("msm: loans: at most FILC2_MSM_MAX_LOANS");
	if (n && !in) throw_invalid("msm: null loans");
	const auto overlap = [](const void* a, size_t an, const void* b, size_t bn) {
		const auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
		return an && bn && x < y + bn && y < x + an;
	};
	for (int32_t i = 0; i < n; ++i) {
		if (with_ptrs) {
			if (in[i].bytes && !in[i].ptr) throw_invalid("msm: a loan without memory");
			if (reinterpret_cast<uintptr_t>(in[i].ptr) % 256) throw_invalid("msm: a loan not 256-byte aligned");
			for (int32_t j = 0; j < i; ++j)
				if (overlap(in[i].ptr, in[i].bytes, in[j].ptr, in[j].bytes)) throw_invalid("msm: overlapping loans");
			if (avoid && overlap(in[i].ptr, in[i].bytes, avoid, avoid_bytes))
				throw_invalid("msm: a loan overlaps the scalars");
			ln.r[i].p = in[i].ptr;
		}
		ln.r[i].bytes = in[i].bytes;
	}
	ln.n = n;
	return ln;
}

extern "C" filc2_status filc2_msm_reserve_lent(filc2_msm_bases* b, size_t n, int32_t flags, const filc2_msm_loan* loans,
                                               int32_t nloans, uint64_t* scratch_bytes) {
	return guard([&] {
		if (flags & ~FILC2_MSM_OVERWRITE) throw_invalid("msm: a lent reserve is for dense calls (flags 0 or FILC2_MSM_OVERWRITE)");
		filc2::msm::loans ln = loans_of(loans, nloans, false, nullptr, 0);
		ln.scalars = (flags & FILC2_MSM_OVERWRITE) != 0;
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		const size_t got = b->reserve(n, false, &ln);
		if (scratch_bytes) *scratch_bytes = got;
	});
}

// estimate_for is engine<…>::estimate_bytes for a group named by its C constant.
static uint64_t estimate_for(int32_t group, size_t n, bool split, const filc2::msm::loans* ln) {
	switch (group) {
	case FILC2_MSM_G1:
		return engine<fp_t>::estimate_bytes(n, split, ln);
	case FILC2_MSM_G2:
		return engine<fp2_t>::estimate_bytes(n, split, ln);
	default:
		throw_invalid("msm: unknown group");
	}
}

extern "C" filc2_status filc2_msm_plan_bytes_lent(int32_t group, size_t n, int32_t flags, const filc2_msm_loan* loans,
                                                  int32_t nloans, uint64_t* bytes) {
	return guard([&] {
		if (!bytes) throw_invalid("msm: null output");
		if (flags & ~FILC2_MSM_OVERWRITE) throw_invalid("msm: a lent plan is for dense calls (flags 0 or FILC2_MSM_OVERWRITE)");
		filc2::msm::loans ln = loans_of(loans, nloans, false, nullptr, 0);
		ln.scalars = (flags & FILC2_MSM_OVERWRITE) != 0;
		*bytes = estimate_for(group, n, false, &ln);
	});
}

extern "C" filc2_status filc2_msm_plan_bytes(int32_t group, size_t n, int32_t flags, uint64_t* bytes) {
	return guard([&] {
		if (!bytes) throw_invalid("msm: null output");
		if (flags & ~FILC2_MSM_RESERVE_SPLIT) throw_invalid("msm: unknown reserve flags");
		*bytes = estimate_for(group, n, (flags & FILC2_MSM_RESERVE_SPLIT) != 0, nullptr);
	});
}

extern "C" filc2_status filc2_msm_info(filc2_msm_bases* b, int32_t* group, uint64_t* n, uint64_t* device_bytes) {
	return guard([&] {
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		if (group) *group = b->group();
		if (n) *n = b->size();
		if (device_bytes) *device_bytes = b->device_bytes();
	});
}

extern "C" filc2_status filc2_msm_download(filc2_msm_bases* b, size_t first, size_t count, void* out) {
	return guard([&] {
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		b->download(first, count, out);
	});
}

extern "C" filc2_status filc2_msm_run(filc2_msm_bases* b, const void* scalars, size_t n, int32_t flags,
                                      const filc2_msm_config* cfg, void* windows, filc2_msm_result* res) {
	return guard([&] {
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		b->run(false, scalars, n, flags, cfg, windows, res);
	});
}

extern "C" filc2_status filc2_msm_run_lent(filc2_msm_bases* b, const void* scalars, size_t n, int32_t flags,
                                           const filc2_msm_config* cfg, const filc2_msm_loan* loans, int32_t nloans,
                                           void* windows, filc2_msm_result* res) {
	return guard([&] {
		const bool dev = (flags & FILC2_MSM_ON_DEVICE) != 0;
		if ((flags & FILC2_MSM_OVERWRITE) && !dev) throw_invalid("msm: FILC2_MSM_OVERWRITE needs scalars on the device");
		filc2::msm::loans ln = loans_of(loans, nloans, true, dev ? scalars : nullptr, n * 32);
		ln.scalars = (flags & FILC2_MSM_OVERWRITE) != 0;
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		for (int32_t i = 0; i < ln.n; ++i) {
			cudaPointerAttributes at{};
			if (ln.r[i].bytes && (cudaPointerGetAttributes(&at, ln.r[i].p) != cudaSuccess ||
			                      at.type != cudaMemoryTypeDevice || at.device != b->device())) {
				cudaGetLastError();
				throw_invalid("msm: a loan is not device memory of the handle's device");
			}
		}
		b->run(false, scalars, n, flags, cfg, windows, res, &ln);
	});
}

extern "C" filc2_status filc2_msm_split(filc2_msm_bases* b, const void* scalars, size_t n, int32_t flags,
                                        const filc2_msm_config* cfg, void* windows, filc2_msm_result* res) {
	return guard([&] {
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		b->run(true, scalars, n, flags, cfg, windows, res);
	});
}

extern "C" filc2_status filc2_msm_batch_add(filc2_msm_bases* b, const uint64_t* bitmap, size_t nbits, int32_t flags,
                                            void* sum, filc2_msm_result* res) {
	return guard([&] {
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		b->batch_add(bitmap, nbits, flags, sum, res);
	});
}

extern "C" filc2_status filc2_msm_batch_add_indices(filc2_msm_bases* b, const uint32_t* idx, size_t count,
                                                    int32_t flags, void* sum, filc2_msm_result* res) {
	return guard([&] {
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		b->batch_add_indices(idx, count, flags, sum, res);
	});
}

extern "C" filc2_status filc2_msm_random_scalars(int32_t device, int32_t mode, size_t n, uint64_t seed, void* out) {
	return guard([&] {
		if (mode != FILC2_MSM_SCALARS_RANDOM && mode != FILC2_MSM_SCALARS_WITNESS) throw_invalid("msm: unknown mode");
		if (n == 0) return;
		if (!out) throw_invalid("msm: null output");
		use_device(device);
		owned_stream s;
		owned_dev d(n * sizeof(fr_t));
		launch<random_scalars_body>(s.s, n, seed, static_cast<int>(mode), static_cast<fr_t*>(d.p));
		copy_to_host(out, d.p, n * sizeof(fr_t), s.s);
		stream_sync(s.s);
	});
}

extern "C" filc2_status filc2_msm_bench(filc2_msm_bases* b, int32_t op, size_t n, uint64_t seed,
                                        const filc2_msm_config* cfg, int32_t reps, float* ms, float* phases,
                                        void* windows, filc2_msm_result* res) {
	return guard([&] {
		std::lock_guard<std::mutex> lock(checked(b)->mu);
		b->bench(op, n, seed, cfg, reps, ms, phases, windows, res);
	});
}

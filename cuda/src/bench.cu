// cuda/src/bench.cu — C ABI: multiplication throughput, timed by device events.
#include "../ff/bls12_381.cuh"
#include "../filc2_cuda.h"
#include "../kernels/bench.cuh"
#include "../util/error.cuh"
#include "../util/gpu.cuh"

using namespace filc2;

namespace {

// One launch over n on a persistent grid (one full wave of resident blocks, grid-stride).
// The grid is sized once per kernel, outside the timed region.
template <class F, int OP>
void launch(unsigned threads, F* out, const F* a, const F* b, uint64_t n, int32_t chain) {
	static const unsigned once_blocks = persistent_grid(once_kernel<F, OP>, threads);
	static const unsigned chain_blocks = persistent_grid(chain_kernel<F, OP>, threads);
	if (chain == 0)
		once_kernel<F, OP><<<once_blocks, threads>>>(out, a, b, n);
	else
		chain_kernel<F, OP><<<chain_blocks, threads>>>(out, a, b, n, chain);
	FILC2_LAUNCHED();
}

// Base is the prime field whose random elements fill F's buffers (F = Base, or Fp2 over Base);
// Prime: F is Base (the FP64 and Karatsuba products exist for prime fields only).
template <class F, class Base, bool Prime>
void run_bench(int32_t device, int32_t op, int32_t chain, uint64_t n, int32_t reps, float* ms) {
	if (n == 0 || reps <= 0 || chain < 0 || !ms) throw_invalid("bench needs n > 0, reps > 0, chain >= 0 and ms");
	if (op < BENCH_MUL || op > BENCH_MUL_KARA || ((op == BENCH_MUL_FP64 || op == BENCH_MUL_KARA) && !Prime))
		throw_invalid("unknown bench op");
	use_device(device);
	dev_buffer<F> a(n), b(n), out(n);
	constexpr unsigned threads = 256;
	const size_t words = n * (sizeof(F) / sizeof(Base));
	random_kernel<Base><<<grid_for(words, threads), threads>>>(reinterpret_cast<Base*>(a.get()), words, 1);
	FILC2_LAUNCHED();
	random_kernel<Base><<<grid_for(words, threads), threads>>>(reinterpret_cast<Base*>(b.get()), words, 2);
	FILC2_LAUNCHED();
	auto run = [&] {
		switch (op) {
		case BENCH_MUL:
			launch<F, BENCH_MUL>(threads, out.get(), a.get(), b.get(), n, chain);
			break;
		case BENCH_SQR:
			launch<F, BENCH_SQR>(threads, out.get(), a.get(), b.get(), n, chain);
			break;
		case BENCH_INV:
			launch<F, BENCH_INV>(threads, out.get(), a.get(), b.get(), n, chain);
			break;
		case BENCH_INV_VARTIME:
			launch<F, BENCH_INV_VARTIME>(threads, out.get(), a.get(), b.get(), n, chain);
			break;
		case BENCH_MUL_FP64:
			if constexpr (Prime) launch<F, BENCH_MUL_FP64>(threads, out.get(), a.get(), b.get(), n, chain);
			break;
		case BENCH_MUL_KARA:
			if constexpr (Prime) launch<F, BENCH_MUL_KARA>(threads, out.get(), a.get(), b.get(), n, chain);
			break;
		default:
			launch<F, BENCH_MUL_ALT>(threads, out.get(), a.get(), b.get(), n, chain);
		}
	};
	run();  // warm-up: module load, clocks
	run();
	sync();
	event start, stop;
	for (int32_t r = 0; r < reps; ++r) {
		start.record();
		run();
		stop.record();
		ms[r] = stop.ms_since(start);
	}
	sync();
}

}  // namespace

extern "C" filc2_status filc2_bench_mul(int32_t device, int32_t field, int32_t op, int32_t chain, uint64_t n,
                                        int32_t reps, float* ms) {
	return guard([&] {
		switch (field) {
		case 0:
			run_bench<fr_t, fr_t, true>(device, op, chain, n, reps, ms);
			break;
		case 1:
			run_bench<fp_t, fp_t, true>(device, op, chain, n, reps, ms);
			break;
		case 2:
			run_bench<fp2_t, fp_t, false>(device, op, chain, n, reps, ms);
			break;
		default:
			throw_invalid("field must be 0 (Fr), 1 (Fp) or 2 (Fp2)");
		}
	});
}

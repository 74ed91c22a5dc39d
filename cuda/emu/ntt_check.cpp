// cuda/emu/ntt_check.cpp — the NTT kernels and driver (cuda/ntt/) emulated on the CPU,
// for ntt_check.py. Every CUDA thread of a block is an OS thread; __syncthreads is a
// barrier; every shared and global access goes through a checker that reports
//   - an access outside any allocation (global) or outside the block's shared memory,
//   - a race: two threads of a block touching one location between the same two
//     barriers with at least one write, or two blocks of a launch touching one global
//     element with at least one write,
//   - a read of shared memory no thread wrote.
// Blocks run one after another (a race between blocks is found by the checker, not by
// a wrong result).
//
// Input lines (values canonical, hex):
//   ntt n max_pass tile compact inverse coset order greedy le   then a line of 2^n values
//   h n max_pass tile compact greedy le                          then three lines (a, b, c)
//   plan n max_pass tile greedy le                               prints the plan
// (le: log2 of the elements a thread holds, 2 or 3; 0 or absent: the default.)
// Output: one line of 2^n values per case (h: the 2^n coefficients); "ERROR …" and
// exit status 1 on any finding.
#include "emu.h"

#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "../ntt/driver.cuh"

using namespace filc2;
using namespace filc2::ntt;

[[noreturn]] static void fail(const std::string& what) {
	std::cout << "ERROR " << what << std::endl;
	std::exit(1);
}

// ---- allocations ------------------------------------------------------------------------

struct heap {
	std::map<uintptr_t, size_t> live;  // base → bytes
	std::mutex mu;
	void* alloc(size_t bytes) {
		void* p = std::calloc(bytes ? bytes : 1, 1);
		if (!p) fail("host allocation");
		std::memset(p, 0xa5, bytes);  // poison: a read of unwritten memory gives garbage, not 0
		std::lock_guard<std::mutex> g(mu);
		live[reinterpret_cast<uintptr_t>(p)] = bytes;
		return p;
	}
	void release(void* p) {
		std::lock_guard<std::mutex> g(mu);
		if (!live.erase(reinterpret_cast<uintptr_t>(p))) fail("free of an unknown pointer");
		std::free(p);
	}
	void check(const void* p, size_t bytes, const char* what) {
		std::lock_guard<std::mutex> g(mu);
		const uintptr_t a = reinterpret_cast<uintptr_t>(p);
		auto it = live.upper_bound(a);
		if (it == live.begin()) fail(std::string("out-of-bounds ") + what);
		--it;
		if (a + bytes > it->first + it->second) fail(std::string("out-of-bounds ") + what);
	}
};
static heap H;

// ---- race checker -----------------------------------------------------------------------

struct access_rec {
	int64_t w_epoch = -1;
	int w_block = -1, w_tid = -1;
	struct rd {
		int block, tid;
		int64_t epoch;
	};
	std::vector<rd> readers;
};

struct launch_state {
	std::mutex mu;
	std::unordered_map<uintptr_t, access_rec> global;
	const char* name = "";
	void access(const void* p, int block, int tid, int64_t epoch, bool write) {
		std::lock_guard<std::mutex> g(mu);
		access_rec& r = global[reinterpret_cast<uintptr_t>(p)];
		auto conflict = [&](int b2, int t2, int64_t e2) {
			return b2 != block || (e2 == epoch && t2 != tid);
		};
		if (r.w_block >= 0 && conflict(r.w_block, r.w_tid, r.w_epoch)) {
			char buf[200];
			std::snprintf(buf, sizeof buf, "%s: global race (%s after write by block %d thread %d; now block %d thread %d)",
			              name, write ? "write" : "read", r.w_block, r.w_tid, block, tid);
			fail(buf);
		}
		if (write) {
			for (const auto& q : r.readers)
				if (conflict(q.block, q.tid, q.epoch) && !(q.block == block && q.tid == tid)) {
					char buf[200];
					std::snprintf(buf, sizeof buf, "%s: global race (write after read by block %d thread %d; now block %d thread %d)",
					              name, q.block, q.tid, block, tid);
					fail(buf);
				}
			r.w_block = block;
			r.w_tid = tid;
			r.w_epoch = epoch;
		} else {
			bool seen = false;
			for (auto& q : r.readers)
				if (q.block == block && q.tid == tid) q.epoch = epoch, seen = true;
			if (!seen) r.readers.push_back({block, tid, epoch});
		}
	}
};

struct block_state {
	std::vector<uint4> smem;
	std::vector<access_rec> srec;
	std::vector<bool> written;
	std::mutex mu;
	std::condition_variable cv;
	int nthreads = 0, arrived = 0;
	int64_t epoch = 0;
	void barrier() {
		std::unique_lock<std::mutex> g(mu);
		const int64_t e = epoch;
		if (++arrived == nthreads) {
			arrived = 0;
			++epoch;
			cv.notify_all();
		} else {
			cv.wait(g, [&] { return epoch != e; });
		}
	}
	int64_t current() {
		std::lock_guard<std::mutex> g(mu);
		return epoch;
	}
	void access(uint32_t i, int tid, bool write, const char* name) {
		std::lock_guard<std::mutex> g(mu);
		if (i >= smem.size()) fail(std::string(name) + ": shared memory index out of range");
		access_rec& r = srec[i];
		if (r.w_tid >= 0 && r.w_epoch == epoch && r.w_tid != tid) fail(std::string(name) + ": shared race (after write)");
		if (write) {
			for (const auto& q : r.readers)
				if (q.epoch == epoch && q.tid != tid) fail(std::string(name) + ": shared race (write after read)");
			r.w_tid = tid;
			r.w_epoch = epoch;
			written[i] = true;
		} else {
			if (!written[i]) fail(std::string(name) + ": read of unwritten shared memory");
			bool seen = false;
			for (auto& q : r.readers)
				if (q.tid == tid) q.epoch = epoch, seen = true;
			if (!seen) r.readers.push_back({0, tid, epoch});
		}
	}
};

struct emu_ctx {
	uint32_t t, b, nt, nb;
	block_state* blk;
	launch_state* L;
	const char* name;
	uint32_t tid() const { return t; }
	uint32_t bid() const { return b; }
	uint32_t nthreads() const { return nt; }
	uint32_t nblocks() const { return nb; }
	void sync() const {
		if (blk) blk->barrier();
	}
	int64_t ep() const { return blk ? blk->current() : 0; }
	fr_t ld(const fr_t* p, uint32_t i) const {
		H.check(p + i, sizeof(fr_t), name);
		if (L) L->access(p + i, int(b), int(t), ep(), false);
		return p[i];
	}
	void st(fr_t* p, uint32_t i, const fr_t& v) const {
		H.check(p + i, sizeof(fr_t), name);
		if (L) L->access(p + i, int(b), int(t), ep(), true);
		p[i] = v;
	}
	fr_t ldg(const fr_t* p, uint32_t i) const {
		H.check(p + i, sizeof(fr_t), name);
		return p[i];
	}
	uint4 lds(uint32_t i) const {
		blk->access(i, int(t), false, name);
		return blk->smem[i];
	}
	void sts(uint32_t i, uint4 v) const {
		blk->access(i, int(t), true, name);
		blk->smem[i] = v;
	}
};

// ---- the backend --------------------------------------------------------------------------

struct emu_backend {
	using stream_t = int;
	void* alloc(size_t bytes) { return H.alloc(bytes); }
	void release(void* p) { H.release(p); }
	void h2d(void* d, const void* h, size_t bytes, stream_t) {
		H.check(d, bytes, "h2d");
		std::memcpy(d, h, bytes);
	}
	void d2h(void* h, const void* d, size_t bytes, stream_t) {
		H.check(d, bytes, "d2h");
		std::memcpy(h, d, bytes);
	}
	void sync(stream_t) {}
	static emu_ctx serial(const char* name) { return emu_ctx{0, 0, 1, 1, nullptr, nullptr, name}; }
	void consts(consts_t* out, uint32_t n, stream_t) {
		H.check(out, sizeof *out, "consts");
		consts_body(out, n);
	}
	void pow(fr_t* out, const fr_t* base, uint32_t count, stream_t) {
		H.check(out, count * sizeof(fr_t), "pow");
		pow_body(serial("pow"), out, base, count);
	}
	void twist(fr_t* out, const fr_t* W1, const fr_t* W2, uint32_t count, uint32_t shift, stream_t) {
		H.check(out, count * sizeof(fr_t), "twist");
		twist_body(serial("twist"), out, W1, W2, count, shift);
	}
	void rtab(const rtab_args& a, stream_t) {
		H.check(a.out, a.count * sizeof(fr_t), "rtab");
		rtab_body(serial("rtab"), a);
	}
	void tiny(const tiny_args& t, stream_t) { tiny_body(t); }
	void bitrev(fr_t* x, uint32_t n, stream_t) {
		launch_state L;
		L.name = "bitrev";
		emu_ctx c{0, 0, 1, 1, nullptr, &L, "bitrev"};
		bitrev_body(c, x, n);
	}
	void pointwise(fr_t* c, const fr_t* a, const fr_t* b, uint32_t count, stream_t) {
		launch_state L;
		L.name = "pointwise";
		emu_ctx cx{0, 0, 1, 1, nullptr, &L, "pointwise"};
		pointwise_body(cx, c, a, b, count);
	}
	void pass(int prog, const pass_args& p, uint32_t blocks, uint32_t threads, uint32_t smem_bytes, stream_t) {
		static const char* names[] = {"pass DIF", "pass DIT", "pass DIF+DIT", "pass DIT+DIF"};
		if (threads > 256 || threads == 0) fail("bad block size");
		launch_state L;
		L.name = names[prog];
		launches++;
		for (uint32_t b = 0; b < blocks; ++b) {
			block_state bs;
			bs.smem.assign(smem_bytes / 16, uint4{0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef});
			bs.srec.assign(bs.smem.size(), access_rec{});
			bs.written.assign(bs.smem.size(), false);
			bs.nthreads = int(threads);
			std::vector<std::thread> ts;
			ts.reserve(threads);
			for (uint32_t t = 0; t < threads; ++t) {
				ts.emplace_back([&, t] {
					emu_ctx c{t, b, threads, blocks, &bs, &L, names[prog]};
					if (p.le == 2)
						run<2>(prog, c, p);
					else if (p.le == 3)
						run<3>(prog, c, p);
					else
						fail("bad elements a thread");
				});
			}
			for (auto& t : ts) t.join();
		}
	}
	template <int LE>
	static void run(int prog, const emu_ctx& c, const pass_args& p) {
		switch (prog) {
		case PROG_DIF:
			pass_body<PROG_DIF, LE>(c, p);
			break;
		case PROG_DIT:
			pass_body<PROG_DIT, LE>(c, p);
			break;
		case PROG_DIF_DIT:
			pass_body<PROG_DIF_DIT, LE>(c, p);
			break;
		default:
			pass_body<PROG_DIT_DIF, LE>(c, p);
		}
	}
	int launches = 0;
};

// ---- I/O ------------------------------------------------------------------------------------

static fr_t parse(const std::string& hex) {
	fr_t x = fr_t::zero();
	int bit = 0;
	for (int i = int(hex.size()) - 1; i >= 0; --i, bit += 4) {
		const char ch = hex[i];
		const uint32_t v = ch <= '9' ? ch - '0' : (ch | 32) - 'a' + 10;
		x.l[bit / 32] |= v << (bit % 32);
	}
	return fr_t::from_canonical(x);
}

static std::string hex(const fr_t& m) {
	const fr_t x = m.to_canonical();
	std::string s;
	char buf[16];
	for (int j = 7; j >= 0; --j) {
		std::snprintf(buf, sizeof buf, "%08x", x.l[j]);
		s += buf;
	}
	return s;
}

static fr_t* read_values(std::istream& is, uint32_t N) {
	fr_t* d = static_cast<fr_t*>(H.alloc(N * sizeof(fr_t)));
	std::string line;
	std::getline(is, line);
	std::istringstream ls(line);
	for (uint32_t i = 0; i < N; ++i) {
		std::string h;
		if (!(ls >> h)) fail("short input");
		d[i] = parse(h);
	}
	return d;
}

static void print_values(const fr_t* d, uint32_t N) {
	std::string out;
	for (uint32_t i = 0; i < N; ++i) {
		if (i) out += ' ';
		out += hex(d[i]);
	}
	std::cout << out << "\n" << std::flush;
}

int main() {
	std::string line;
	while (std::getline(std::cin, line)) {
		std::istringstream ls(line);
		std::string op;
		if (!(ls >> op)) continue;
		if (op == "plan") {
			int n, mp, tile, greedy = 0, le = 0;
			ls >> n >> mp >> tile >> greedy >> le;
			const plan pl = make_plan(n, mp, tile, greedy != 0, le);
			std::cout << "plan n=" << n << " le=" << pl.le;
			for (const auto& q : pl.passes) {
				std::cout << " [a=" << q.a << " s=" << q.s << " lp=" << q.lp << " r=";
				for (int i = 0; i < q.nrounds; ++i) std::cout << (i ? "," : "") << q.rounds[i].r;
				std::cout << "]";
			}
			std::cout << "\n" << std::flush;
		} else if (op == "ntt") {
			int n, mp, tile, compact, inverse, coset, order, greedy = 0, le = 0;
			ls >> n >> mp >> tile >> compact >> inverse >> coset >> order >> greedy >> le;
			const uint32_t N = 1u << n;
			fr_t* x = read_values(std::cin, N);
			domain<emu_backend> d(emu_backend{}, n, mp, tile, compact != 0, 0, greedy != 0, le);
			// out of place (the input stays intact) and, on a copy, in place: both must agree.
			fr_t* y = static_cast<fr_t*>(H.alloc(N * sizeof(fr_t)));
			d.transform(y, x, inverse != 0, coset != 0, order, 0);
			d.transform(x, x, inverse != 0, coset != 0, order, 0);
			for (uint32_t i = 0; i < N; ++i)
				if (std::memcmp(&x[i], &y[i], sizeof(fr_t)) != 0) fail("in place and out of place differ");
			print_values(y, N);
			H.release(x);
			H.release(y);
		} else if (op == "h") {
			int n, mp, tile, compact, greedy = 0, le = 0;
			ls >> n >> mp >> tile >> compact >> greedy >> le;
			const uint32_t N = 1u << n;
			fr_t* a = read_values(std::cin, N);
			fr_t* b = read_values(std::cin, N);
			fr_t* c = read_values(std::cin, N);
			domain<emu_backend> d(emu_backend{}, n, mp, tile, compact != 0, 0, greedy != 0, le);
			fr_t* h = d.h(a, b, c, 0);
			print_values(h, N);
			H.release(a);
			H.release(b);
			H.release(c);
		} else {
			fail("unknown op " + op);
		}
	}
	return 0;
}

#!/usr/bin/env bash
# cuda/device_bench.sh — one device session's measurements, in named steps, run on the GPU
# machine from the repository root with build/ffi.test and ./filc2 built here and carried
# (./build.sh cuda-test; ./build.sh --cuda):
#
#   bash cuda/device_bench.sh STEP...
#
#   tests       every GPU test (the correctness checks, before anything is timed)
#   upload      TestUploadInterference: the 2^27 H pipeline alone and beside witness uploads
#   phases      TestMSMPhases: the H MSM (2^27 − 1), 2^26 and 2^24 split into phases, with variants
#   spmv        TestSpMVBench: the 32GiB circuit's SpMV part by part, long rows by warp and by thread
#   sort        the binned and radix sorts, the section overlap, variants 7–9 (issue 17): the MSM GPU tests
#               (every sort and variant against gnark) and the prover's (2KiB proofs equal to the CPU's, the
#               overlap on and off, a failed section), TestMulThroughput (Fp2's product reduced twice and three
#               times, the Karatsuba Fp and Fr products), then TestMSMPhases (the binned and radix sorts against
#               the atomic one at 2^27 − 1, 2^26, 2^24; variants 7 and 9 against 0; G2 at 2^24 and 2^22, variants 10 (by reference) and 8
#               against 0)
#   affine      the batch-affine MSM (issue 17): the MSM and field GPU tests first (every variant against
#               gnark), the inversions' throughput (TestMulThroughput), then TestMSMPhases and TestMSMBench
#   smem        the first level with its cold state in shared memory (variants 11, 12; issue 17): the MSM GPU
#               tests (every variant against gnark), then TestMSMPhases with variants 0, 11, 12 only
#   kernels     filc2 bench kernels at 2^24 and 2^26 (the table of cuda/NOTES.md)
#   kernels-27  filc2 bench kernels at 2^27: the G1 MSM, the NTT and the H pipeline (issue 17's largest sizes)
#   kernels-g2  filc2 bench kernels: the G2 MSM alone at 2^22 and 2^24 (G2's first level by size, session 26)
#   ntt         TestNTTBench: the transforms and the H pipeline from 2^16 to 2^27, and plan variants
#   ntt-elems   the NTT of 4 (the default since session 20) and of 8 elements a thread (issue 17): the GPU
#               tests against gnark and the H reference, then TestNTTBench with 8 a thread beside the defaults
#   ncu-ntt, ncu-msm
#               Nsight Compute counters (issue slots, stalls, pipes, memory) of the NTT's pass kernels at 2^24,
#               or of the MSM's histogram, scatter and first level at 2^27 − 1 (TestMSMPhases: several minutes)
#   c2-small    filc2 bench c2 on real 2KiB and 8MiB proofs (test parameters made there)
#   faults      TestInjectedSectionFailure (a section failed midway, then proofs equal; a device reset), and
#               bench c2 on real 2KiB and 8MiB proofs with injected failed sections, corrupted proofs and failed
#               allocations, then a 2KiB run whose device is lost (quarantine, cudaDeviceReset, reload)
#   c2-32g      filc2 bench c2 at 32GiB, --synthetic: 4 jobs 2 in flight with 2 GPU workers
#   c2-32g-gw1  the same with 1 GPU worker, 3 jobs 2 in flight
#   c2-32g-v2, c2-32g-v6, c2-32g-v7
#               c2-32g with FILC2_MSM_VARIANT=2 (batch-affine), 6 (batch-affine on the FP64 product) or 7 (the XYZZ
#               first level as before session 14): the section's MSM split against c2-32g's (run that first,
#               on the same machine)
#   c2-32g-binned, c2-32g-radix, c2-32g-overlap, c2-32g-new
#               c2-32g with FILC2_MSM_SORT=2 (the binned sort), FILC2_MSM_SORT=3 (the radix sort),
#               FILC2_OVERLAP=1 (the L, A and B MSMs beside the H pipeline), or the binned sort and the
#               overlap: the section against c2-32g's on the same machine
#   setup       the setup's GPU tests: fixed-base multiplication against gnark, the GPU setup equal to
#               the CPU setup at 2KiB and 8MiB, and the 2KiB CUDA proof equal to the CPU proof
#   real-32g, real-32g-gw1, real-32g-overlap, real-32g-lean, real-32g-nogate, real-64g
#               filc2 bench c2 --sparse --setup-key: sparse sectors, a key set up on the GPU, every
#               partition verified (4 jobs 2 in flight, 2 GPU workers; gw1: 3 jobs, 1 worker; overlap:
#               FILC2_OVERLAP=1, the A and B MSMs beside the H pipeline; lean: FILC2_MSM_SCRATCH=h, the
#               MSM scratch sized for the H MSM, more of the key on the device; nogate: --synthesis-cpus
#               1000, synthesis on every core as before session 26)
#   post-small  filc2 bench post --setup-key on the GPU: Window V1_1 and Winning at 2KiB and 8MiB, every
#               proof verified
#   post-32g    the same at 32GiB: WinningPoSt (10 proofs), then a full WindowPoSt partition of 2349 sparse
#               sectors (4 proofs); latency alone (FILC2_MSM_STREAM_CHUNK=grow in the environment: the
#               host-resident queries' stream buffers grown after the scratch, session 23)
#   post-padded a one-sector 32GiB WindowPoSt partition (the rest padded by its copies): 4 proofs, latency alone
#   mixed-winning
#               bench c2 --sparse --setup-key at 32GiB (6 PoRep jobs, 2 in flight) with a WinningPoSt 32GiB
#               on the same engine: 10 alone, then one a second under the PoRep load (latency, p99)
#   mixed-window
#               the same with a full 32GiB WindowPoSt partition every 60 s under 4 PoRep jobs (each swaps the provers)
#   snap-small  SnapDeals on the GPU: seal a 2KiB and an 8MiB sector, snap encode pseudo-random data, set up the
#               update key on the GPU, prove-update --backend cuda (every partition verified), verify-update, and
#               a proof with two partitions swapped (8MiB) that must be invalid
#   lone-32g    a lone 32GiB PoRep proof (bench c2 --sparse --setup-key, 3 jobs one at a time), with
#               synthesis.ramp and with --ramp=false: submission to verified proof, the first kernel's start
#               (lone-32g-ramp: with synthesis.ramp only; lone-32g-nogate: ramp, --synthesis-cpus 1000)
#   snap-32g, snap-64g
#               filc2 bench c2 --update-proof --setup-key: SnapDeals on periodic fixture updates, the update key
#               set up on the GPU, every partition verified (4 jobs 2 in flight, 2 GPU workers; 64g: 3 jobs)
#   big-cpu     TestBigPartitionCPUEqualsGPU at 32GiB: one partition on the GPU and on the 16 cores with
#               the same key and r, s, the bytes compared
#
# ./filc2 with four architectures' kernels and the tree pass the device tool's 64 MiB only
# compressed: carry build/carry/filc2.gz (gzip -1 -c filc2 >build/carry/filc2.gz) and start the
# command with gunzip -c build/carry/filc2.gz >filc2 && chmod +x filc2.
#
# Each step bounds its own commands with timeout; do not wrap a step in a shorter outer timeout:
# that kills the script but not the running filc2, which then holds the GPU's memory and makes
# the next step fail (session 14).
#
# Full logs go to $OUT (or /tmp/filc2-bench); the reply carries the summary lines.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${OUT:-/tmp/filc2-bench}
mkdir -p "$out"
pce=/tmp/filc2-pce
export GOMEMLIMIT=${GOMEMLIMIT:-110GiB}

step() { echo "== $1 ($(date +%T))"; }

# gpu_tests LOG SECONDS [FLAG...]: build/ffi.test with the flags given (-test.run …), its log in $out/LOG;
# prints the exit status, how many passed and failed, and the failures.
gpu_tests() {
	local log=$out/$1 secs=$2
	shift 2
	(cd ffi && timeout "$secs" "$root/build/ffi.test" -test.count=1 -test.v "$@" >"$log" 2>&1)
	echo "exit $?: $(grep -cE '^\s*--- PASS' "$log") passed, $(grep -cE '^\s*--- FAIL' "$log") failed"
	grep -E '^\s*--- FAIL|^(panic|FAIL)' "$log" | head -20
}

# gpu_bench LOG SECONDS TEST [NAME=VALUE...]: the benchmark test TEST with FILC2_BENCH=1 and the settings
# given, its log in $out/LOG; prints the exit status and the BENCH lines (and failures).
gpu_bench() {
	local log=$out/$1 secs=$2 run=$3
	shift 3
	(cd ffi && env FILC2_BENCH=1 "$@" timeout "$secs" "$root/build/ffi.test" -test.run "^$run\$" -test.count=1 -test.v \
		>"$log" 2>&1)
	echo "exit $?"
	grep -E '^BENCH|--- FAIL|panic' "$log"
}

# The host's CPU: the PoSt check and witness hash on AVX-512 IFMA vectors where it has them (session 15).
echo "== host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, AVX-512 IFMA: $(grep -qm1 avx512ifma /proc/cpuinfo && echo yes || echo no)"

for s in "$@"; do
	case $s in
	tests)
		step "GPU tests"
		gpu_tests ffi-test.log 420 -test.timeout 400s
		;;
	upload | phases | spmv)
		step "$s"
		case $s in
		upload) run=TestUploadInterference ;;
		phases) run=TestMSMPhases ;;
		spmv) run=TestSpMVBench ;;
		esac
		gpu_bench "$s.log" 300 $run
		;;
	affine)
		step "affine: MSM and field tests"
		gpu_tests affine-tests.log 300 -test.run '^Test(MSM|BatchAdd|Fr$|Fp$|Fp2$|BackendMSMVariants$)'
		step "affine: inversion throughput"
		(cd ffi && timeout 120 "$root/build/ffi.test" -test.run '^TestMulThroughput$' -test.count=1 -test.v \
			>"$out/affine-throughput.log" 2>&1)
		echo "exit $?"
		grep -E '^THROUGHPUT' "$out/affine-throughput.log"
		for run in TestMSMPhases TestMSMBench; do
			step "affine: $run"
			gpu_bench "affine-$run.log" 400 $run
		done
		;;
	sort)
		step "sort: MSM and prover tests (every sort by name and the default; the overlap on and off)"
		gpu_tests sort-tests.log 300 -test.run '^Test(MSM|BatchAdd|GeneratedBases|Backend|EngineCUDA|InjectedSectionFailure)'
		step "sort: TestMulThroughput (Fp2 reduced twice and three times; Karatsuba Fr and Fp)"
		(cd ffi && timeout 120 "$root/build/ffi.test" -test.run '^TestMulThroughput$' -test.count=1 -test.v \
			>"$out/sort-throughput.log" 2>&1)
		echo "exit $?"
		grep -E '^THROUGHPUT (fld|Fp2|F[rp] +mul(-kara)? )' "$out/sort-throughput.log"
		step "sort: TestMSMPhases"
		gpu_bench sort-phases.log 330 TestMSMPhases
		;;
	smem)
		step "smem: MSM tests (every first level against gnark, variants 11 and 12 among them; the prover's variants)"
		gpu_tests smem-tests.log 300 -test.run '^Test(MSM|BatchAdd|BackendMSMVariants$)'
		step "smem: TestMSMPhases, first levels 0, 11, 12 (G1 2^27 - 1, 2^26, 2^24; G2 2^24, 2^22 in both orders)"
		gpu_bench smem-phases.log 330 TestMSMPhases FILC2_MSM_PHASES_VARIANTS=0,11,12
		;;
	kernels)
		step "bench kernels"
		timeout 300 ./filc2 bench kernels --backend cuda --sizes 24,26 >"$out/kernels.txt" 2>&1
		echo "exit $?"
		cat "$out/kernels.txt"
		;;
	kernels-g2)
		step "bench kernels: the G2 MSM at 2^22 and 2^24"
		timeout 200 ./filc2 bench kernels --backend cuda --sizes 22,24 --kernels g2-msm --reps 5 >"$out/kernels-g2.txt" 2>&1
		echo "exit $?"
		cat "$out/kernels-g2.txt"
		;;
	kernels-27)
		step "bench kernels at 2^27 (g1-msm, ntt, h-pipeline)"
		timeout 300 ./filc2 bench kernels --backend cuda --sizes 27 --kernels g1-msm,ntt,h-pipeline --reps 3 \
			>"$out/kernels-27.txt" 2>&1
		echo "exit $?"
		cat "$out/kernels-27.txt"
		;;
	ntt)
		step "ntt: TestNTTBench (transforms and the H pipeline, 2^16 to 2^27, plan variants)"
		gpu_bench ntt.log 400 TestNTTBench
		;;
	ntt-elems)
		step "ntt-elems: the NTT of 4 and of 8 elements a thread against gnark, then TestNTTBench (8 a thread beside the default only)"
		gpu_tests ntt-elems-test.log 200 -test.run '^(TestNTTThreadElems|TestNTTPlans|TestHPipeline|TestNTT)$'
		gpu_bench ntt-elems.log 300 TestNTTBench FILC2_NTT_BENCH_VARIANTS=eight
		;;
	ncu-ntt | ncu-msm)
		# Hardware counters (Nsight Compute, the clocks left alone as METHOD.md asks) of the NTT's pass
		# kernels at 2^24, or of the MSM's sort and first level at 2^27 − 1: where the cycles go.
		if ! command -v ncu >/dev/null; then
			echo "ncu: not on this machine"
			continue
		fi
		sec=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats
			--section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis)
		keep='^  [A-Za-z]|Duration|Throughput|Issue Slots Busy|Issued Warp|No Eligible|Active Warps|Eligible Warps|Occupancy|Registers Per|Executed Ipc|Warp Cycles Per Issued|L2 Hit|Mem Busy|Max Bandwidth'
		if [ "$s" = ncu-ntt ]; then
			step "ncu: the NTT's pass kernels (TestNTTBench at 2^24)"
			(cd ffi && FILC2_BENCH=1 FILC2_NTT_BENCH_LOGS=24 timeout 300 ncu --clock-control none --kernel-name-base demangled \
				-k regex:pass_kernel --launch-skip 40 --launch-count 5 "${sec[@]}" "$root/build/ffi.test" \
				-test.run '^TestNTTBench$' -test.count=1 >"$out/ncu-ntt.txt" 2>&1)
			echo "exit $?"
			grep -E "$keep" "$out/ncu-ntt.txt" | head -120
			continue
		fi
		step "ncu: the MSM's histogram, scatter and first level (TestMSMPhases, 2^27 − 1)"
		(cd ffi && FILC2_BENCH=1 timeout 500 ncu --clock-control none --kernel-name-base demangled \
			-k 'regex:hist_body|scatter_body|acc0_body|radix' --launch-count 4 "${sec[@]}" "$root/build/ffi.test" \
			-test.run '^TestMSMPhases$' -test.count=1 >"$out/ncu-msm.txt" 2>&1)
		echo "exit $?"
		grep -E "$keep" "$out/ncu-msm.txt" | head -140
		;;
	c2-small)
		for p in StackedDrg2KiBV1_1 StackedDrg8MiBV1_1; do
			step "bench c2 $p"
			d=/tmp/filc2-params-$p
			timeout 200 ./filc2 setup -p $p --out $d >"$out/setup-$p.log" 2>&1 || { echo "setup failed"; tail "$out/setup-$p.log"; continue; }
			timeout 200 ./filc2 bench c2 -p $p --backend cuda --params $d --jobs 12 --concurrency 4 >"$out/c2-$p.txt" 2>"$out/c2-$p.err"
			echo "exit $?"
			grep -E 'throughput|GPU bound|latency|gpu_locked|verified|gpu0 ' "$out/c2-$p.txt"
		done
		;;
	faults)
		step "GPU fault test"
		(cd ffi && timeout 200 "$root/build/ffi.test" -test.run '^TestInjectedSectionFailure$' -test.count=1 -test.v >"$out/ffi-faults.log" 2>&1)
		echo "exit $?"
		grep -E -- '--- (PASS|FAIL)|panic' "$out/ffi-faults.log"
		for p in StackedDrg2KiBV1_1 StackedDrg8MiBV1_1; do
			step "bench c2 $p with faults"
			d=/tmp/filc2-params-$p
			[ -e "$d" ] || timeout 200 ./filc2 setup -p $p --out $d >"$out/setup-$p.log" 2>&1 || { echo "setup failed"; tail "$out/setup-$p.log"; continue; }
			timeout 200 ./filc2 bench c2 -p $p --backend cuda --params $d --jobs 12 --concurrency 4 \
				--inject-faults 'section=every:5,corrupt=every:7,alloc=4' >"$out/faults-$p.txt" 2>"$out/faults-$p.err"
			echo "exit $?"
			grep -E 'throughput|gpu_locked|verified|faults injected' "$out/faults-$p.txt"
			grep -ciE 'retrying partition' "$out/faults-$p.err"
		done
		step "bench c2 2KiB, device lost"
		timeout 200 ./filc2 bench c2 -p StackedDrg2KiBV1_1 --backend cuda --params /tmp/filc2-params-StackedDrg2KiBV1_1 --jobs 8 \
			--concurrency 2 --inject-faults 'lost=6,lost_for=3s' >"$out/faults-lost.txt" 2>"$out/faults-lost.err"
		echo "exit $?"
		grep -E 'verified|faults injected' "$out/faults-lost.txt"
		grep -E 'quarantined|back in service|GPU probe' "$out/faults-lost.err" | head -5
		;;
	c2-32g | c2-32g-gw1 | c2-32g-v2 | c2-32g-v6 | c2-32g-v7 | c2-32g-binned | c2-32g-radix | c2-32g-overlap | c2-32g-new)
		step "bench c2 32GiB synthetic ($s)"
		args=(--jobs 4 --concurrency 2 --gpu-workers 2)
		[ "$s" = c2-32g-gw1 ] && args=(--jobs 3 --concurrency 2 --gpu-workers 1)
		variant=0
		sort=0 overlap=0
		case $s in
		c2-32g-v2) variant=2 ;;
		c2-32g-v6) variant=6 ;;
		c2-32g-v7) variant=7 ;;
		c2-32g-binned) sort=2 ;;
		c2-32g-radix) sort=3 ;;
		c2-32g-overlap) overlap=1 ;;
		c2-32g-new) sort=2 overlap=1 ;;
		esac
		mkdir -p $pce
		FILC2_MSM_VARIANT=$variant FILC2_MSM_SORT=$sort FILC2_OVERLAP=$overlap timeout 420 ./filc2 bench c2 -p StackedDrg32GiBV1_1 --synthetic --backend cuda --params $pce "${args[@]}" \
			--timeline "$out/$s.svg" >"$out/$s.txt" 2>"$out/$s.err"
		echo "exit $?"
		cat "$out/$s.txt"
		grep -vE '^bench: bench-' "$out/$s.err" | tail -5
		;;
	setup)
		step "setup GPU tests"
		(cd ffi && timeout 300 "$root/build/ffi.test" -test.run '^(TestFixedBase|TestSetupProverEqualsCPU|TestBackend2KiB)$' \
			-test.count=1 -test.v >"$out/setup-test.log" 2>&1)
		echo "exit $?"
		grep -E '^\s*--- (PASS|FAIL)|setup on the CPU|^(panic|FAIL)' "$out/setup-test.log" | head -20
		;;
	real-32g | real-32g-gw1 | real-32g-overlap | real-32g-lean | real-32g-nogate | real-64g)
		step "bench c2 --sparse --setup-key ($s)"
		p=StackedDrg32GiBV1_1
		[ "$s" = real-64g ] && p=StackedDrg64GiBV1_1
		args=(--jobs 4 --concurrency 2 --gpu-workers 2)
		[ "$s" = real-32g-gw1 ] && args=(--jobs 3 --concurrency 2 --gpu-workers 1)
		[ "$s" = real-32g-nogate ] && args+=(--synthesis-cpus 1000)
		overlap=${FILC2_OVERLAP:-0}
		[ "$s" = real-32g-overlap ] && overlap=1
		scratch=${FILC2_MSM_SCRATCH:-}
		[ "$s" = real-32g-lean ] && scratch=h
		mkdir -p $pce
		FILC2_MSM_SCRATCH=$scratch FILC2_OVERLAP=$overlap timeout 560 ./filc2 bench c2 -p $p --sparse --setup-key --backend cuda --params $pce "${args[@]}" \
			--timeline "$out/$s.svg" >"$out/$s.txt" 2>"$out/$s.err"
		echo "exit $?"
		cat "$out/$s.txt"
		grep -vE '^bench: bench-' "$out/$s.err" | tail -5
		;;
	lone-32g | lone-32g-ramp | lone-32g-nogate)
		mkdir -p $pce
		ramps=(true false)
		[ "$s" != lone-32g ] && ramps=(true)
		gate=() tag=
		[ "$s" = lone-32g-nogate ] && gate=(--synthesis-cpus 1000) tag=-nogate
		for r in "${ramps[@]}"; do
			step "bench c2 lone 32GiB, ramp=$r ${gate[*]}"
			timeout 280 ./filc2 bench c2 -p StackedDrg32GiBV1_1 --sparse --setup-key --backend cuda --params $pce \
				--jobs 3 --concurrency 1 --ramp=$r "${gate[@]}" --timeline "$out/lone-32g-$r$tag.svg" \
				>"$out/lone-32g-$r$tag.txt" 2>"$out/lone-32g-$r$tag.err"
			echo "exit $?"
			grep -E "^(load|first proof|throughput|latency|every)|synthesis|gpu_queue|gpu_locked" "$out/lone-32g-$r$tag.txt"
			grep -E "proof [0-9] of" "$out/lone-32g-$r$tag.err"
		done
		;;
	snap-32g | snap-64g)
		step "bench c2 --update-proof --setup-key ($s)"
		p=StackedDrg32GiBV1
		args=(--jobs 4 --concurrency 2 --gpu-workers 2)
		[ "$s" = snap-64g ] && p=StackedDrg64GiBV1 && args=(--jobs 3 --concurrency 2 --gpu-workers 2)
		mkdir -p $pce
		timeout 560 ./filc2 bench c2 --update-proof $p --setup-key --backend cuda --params $pce "${args[@]}" \
			--timeline "$out/$s.svg" >"$out/$s.txt" 2>"$out/$s.err"
		echo "exit $?"
		cat "$out/$s.txt"
		grep -vE '^bench: bench-' "$out/$s.err" | tail -6
		;;
	post-small | post-32g)
		step "bench post --setup-key ($s)"
		runs=("StackedDrgWindow2KiBV1_1 3" "StackedDrgWinning2KiBV1 3" "StackedDrgWindow8MiBV1_1 3" "StackedDrgWinning8MiBV1 3")
		[ "$s" = post-32g ] && runs=("StackedDrgWinning32GiBV1 10" "StackedDrgWindow32GiBV1_1 4")
		for r in "${runs[@]}"; do
			set -- $r
			timeout 560 ./filc2 bench post --post-proof $1 --proofs $2 --setup-key --backend cuda --json \
				>"$out/post-$1.json" 2>"$out/post-$1.err"
			echo "$1 exit $?"
			grep -E '^(built|loaded|proof [0-9])' "$out/post-$1.err"
			grep -E '"(min|median|p99|max)_ns"' "$out/post-$1.json" | tr -d ' \n'; echo
			grep -viE 'progress|^(built|loaded|proof [0-9])|TEST parameters|verify on chain' "$out/post-$1.err" | tail -3
		done
		;;
	post-padded)
		# A one-sector 32GiB Window partition (2348 copies of its block): the witness copied, the
		# upload shortened, the small MSMs folded (session 17); FILC2_FOLD=0 for the unfolded figure.
		step "bench post --sectors 1 --setup-key ($s, FILC2_FOLD=${FILC2_FOLD:-default})"
		timeout 300 ./filc2 bench post --post-proof StackedDrgWindow32GiBV1_1 --sectors 1 --proofs 4 --setup-key \
			--backend cuda --json >"$out/post-padded.json" 2>"$out/post-padded.err"
		echo "exit $?"
		grep -E '^(built|loaded|proof [0-9]|  stages)' "$out/post-padded.err"
		grep -E '"(min|median|p99|max)_ns"' "$out/post-padded.json" | tr -d ' \n'; echo
		;;
	mixed-winning | mixed-window)
		step "bench c2 32GiB PoRep with PoSt on the same engine ($s)"
		args=(--jobs 6 --concurrency 2 --post-proof StackedDrgWinning32GiBV1 --post-every 1s --post-alone 10)
		[ "$s" = mixed-window ] && args=(--jobs 4 --concurrency 2 --post-proof StackedDrgWindow32GiBV1_1 --post-every 60s --post-alone 2)
		mkdir -p $pce
		timeout 570 ./filc2 bench c2 -p StackedDrg32GiBV1_1 --sparse --setup-key --backend cuda --params $pce "${args[@]}" \
			--timeline "$out/$s.svg" >"$out/$s.txt" 2>"$out/$s.err"
		echo "exit $?"
		cat "$out/$s.txt"
		grep -E 'under load: proof|alone: proof' "$out/$s.err" | tail -40
		grep -vE '^bench: bench-|under load: proof|alone: proof' "$out/$s.err" | tail -5
		;;
	snap-small)
		for sz in 2KiB 8MiB; do
			step "SnapDeals $sz"
			d=/tmp/filc2-snap-$sz
			rm -rf $d
			mkdir -p $d
			./filc2 seal -p StackedDrg${sz}V1_1 --out $d/sector --sector-id 9 >"$out/snap-seal-$sz.log" 2>&1 || { echo "seal failed"; tail -3 "$out/snap-seal-$sz.log"; continue; }
			./filc2 snap encode --sealed $d/sector --random-data 1 --out $d/upd >"$out/snap-encode-$sz.log" 2>&1 || { echo "encode failed"; tail -3 "$out/snap-encode-$sz.log"; continue; }
			u=$d/upd/update.json
			g() { grep -o "\"$1\": *\"[^\"]*\"" $u | sed 's/.*: *"//; s/"$//'; }
			o=$(g comm_r_old) n=$(g comm_r_new) dd=$(g comm_d_new) up=$(g update_proof)
			timeout 300 ./filc2 setup --update-proof $up --out $d/params --seed 3 --backend cuda >"$out/snap-setup-$sz.log" 2>&1 || { echo "setup failed"; tail -3 "$out/snap-setup-$sz.log"; continue; }
			args=(--update-proof $up --comm-r-old $o --comm-r-new $n --comm-d-new $dd --params-dir $d/params)
			timeout 300 ./filc2 prove-update "${args[@]}" --vanilla $d/upd/snap-vproof.json --out $d/proof --backend cuda --json >"$out/snap-prove-$sz.json" 2>"$out/snap-prove-$sz.err"
			echo "prove exit $?"
			cat "$out/snap-prove-$sz.json"
			./filc2 verify-update "${args[@]}" --proof @$d/proof 2>/dev/null
			if [ $sz = 8MiB ]; then
				(head -c 384 $d/proof | tail -c 192; head -c 192 $d/proof; tail -c +385 $d/proof) >$d/swapped
				echo -n "partitions 0 and 1 swapped: "
				./filc2 verify-update "${args[@]}" --proof @$d/swapped 2>/dev/null
			fi
		done
		;;
	big-cpu)
		step "32GiB partition: GPU and CPU proofs with the same key and r, s"
		mkdir -p $pce
		(cd ffi && FILC2_BIG=StackedDrg32GiBV1_1 FILC2_PCE=$pce timeout 560 "$root/build/ffi.test" \
			-test.run '^TestBigPartitionCPUEqualsGPU$' -test.count=1 -test.v -test.timeout 550s >"$out/big-cpu.log" 2>&1)
		echo "exit $?"
		grep -E '^BIG|--- (PASS|FAIL)|panic|differs' "$out/big-cpu.log"
		;;
	*)
		echo "unknown step $s" >&2
		exit 2
		;;
	esac
done
echo "== done ($(date +%T))"

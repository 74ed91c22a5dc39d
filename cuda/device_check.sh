#!/usr/bin/env bash
# cuda/device_check.sh — run on the GPU machine, from the repository root, after
# ./build.sh cuda-test has built build/ffi.test here (the device machine has no Go):
#
#   bash cuda/device_check.sh            (carry: build/ffi.test)
#
# 1. the GPU tests (every field and curve entry point against gnark-crypto, error paths),
# 2. the multiplication throughput table (THROUGHPUT lines; cuda/NOTES.md reads them),
# 3. compute-sanitizer memcheck over a -short subset (skip with FILC2_SANITIZE=0),
# then a short summary. Full logs go to $OUT (or /tmp/filc2-device-check). About 1–3 minutes;
# every step has its own time limit, the whole stays under 8 minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/build/ffi.test
logs=${OUT:-/tmp/filc2-device-check}
mkdir -p "$logs"
t0=$(date +%s)

echo "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
	--format=csv 2>&1 | head -5
if [ ! -x "$bin" ]; then
	echo "FAIL: $bin missing: run ./build.sh cuda-test and carry build/ffi.test"
	exit 1
fi
ldd "$bin" 2>&1 | grep -E "not found|libc.so" || true

echo "== devices"
if ! (cd ffi && timeout 60 "$bin" -test.run '^TestDevices$' -test.v >"$logs/devices.log" 2>&1); then
	cat "$logs/devices.log"
	echo "DEVICE CHECK: FAIL (no usable device; the tests would only repeat that)"
	exit 1
fi
grep -E 'device [0-9]|runtime' "$logs/devices.log"

echo "== GPU tests (log: $logs/ffi-test.log)"
# The tests read ../cuda/ff/bls12_381.cuh relative to the package directory.
(cd ffi && timeout 360 "$bin" -test.v -test.count=1 -test.timeout 330s >"$logs/ffi-test.log" 2>&1)
rc=$?
# Everything but the RUN/PASS chatter and the throughput lines, repeated lines once.
grep -vE '^\s*(=== (RUN|PAUSE|CONT)|--- PASS)|^THROUGHPUT' "$logs/ffi-test.log" | awk '!seen[$0]++' | head -60

san=skipped
if [ "${FILC2_SANITIZE:-1}" != 0 ] && command -v compute-sanitizer >/dev/null; then
	echo "== compute-sanitizer memcheck, -short subset (log: $logs/sanitizer.log)"
	(cd ffi && timeout 150 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 99 \
		"$bin" -test.short -test.count=1 -test.run 'TestFr$|TestFp2$|TestG1$|TestOutOfMemory' \
		>"$logs/sanitizer.log" 2>&1)
	src=$?
	case $src in
	0) san="clean" ;;
	99) san="ERRORS (see log)" ;;
	124) san="timed out after 150 s (inconclusive)" ;;
	*) san="exit $src (see log)" ;;
	esac
	grep -E '^=========' "$logs/sanitizer.log" | grep -vE 'ERROR SUMMARY: 0 errors|COMPUTE-SANITIZER$' | head -20
	tail -3 "$logs/sanitizer.log"
fi

echo "== throughput (device events, median of 9 after 2 warm-ups; Gop/s = field ops per second)"
grep '^THROUGHPUT' "$logs/ffi-test.log" | sed 's/^THROUGHPUT //'

echo "== summary"
pass=$(grep -cE '^\s*--- PASS' "$logs/ffi-test.log")
fail=$(grep -cE '^\s*--- FAIL' "$logs/ffi-test.log")
skip=$(grep -cE '^\s*--- SKIP' "$logs/ffi-test.log")
echo "tests: $pass passed, $fail failed, $skip skipped (exit $rc)"
[ "$fail" -gt 0 ] && grep -E '^\s*--- FAIL' "$logs/ffi-test.log" | head -20
[ "$rc" = 124 ] && echo "the GPU tests TIMED OUT (360 s)"
echo "memcheck: $san"
echo "wall: $(($(date +%s) - t0)) s"
if [ "$rc" = 0 ]; then echo "DEVICE CHECK: PASS"; else echo "DEVICE CHECK: FAIL"; fi
exit "$rc"

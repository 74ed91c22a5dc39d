#!/usr/bin/env bash
# cuda/emu/ntt_run.sh — check the NTT kernels and driver on the CPU (no GPU, no nvcc):
# compile ntt_check.cpp with the emulated carry flag (one OS thread per CUDA thread,
# shared/global race and bounds checks) and compare with Python integers; before that,
# ntt_banks.cpp checks the exchanges for shared-memory bank conflicts.
#   cuda/emu/ntt_run.sh [--quick]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${TMPDIR:-/tmp}/filc2-ntt-emu-$$
trap 'rm -f "$bin"' EXIT
# the exchanges' shared-memory bank conflicts, every pass shape (seconds)
${CXX:-g++} -std=c++17 -O2 -Wall -Wno-unknown-pragmas -o "$bin" "$here/ntt_banks.cpp"
"$bin"
${CXX:-g++} -std=c++17 -O2 -pthread -Wall -Wno-unknown-pragmas -o "$bin" "$here/ntt_check.cpp"
python3 "$here/ntt_check.py" --emu "$bin" "$@"

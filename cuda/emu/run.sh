#!/usr/bin/env bash
# cuda/emu/run.sh — check the field and curve templates on the CPU (no GPU, no nvcc):
# compile check.cpp with the emulated carry flag and compare with Python integers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${TMPDIR:-/tmp}/filc2-emu-$$
trap 'rm -f "$bin"' EXIT
${CXX:-g++} -std=c++17 -O2 -Wall -Wno-unknown-pragmas -o "$bin" "$here/check.cpp"
python3 "$here/check.py" --emu "$bin" "$@"
python3 "$here/../ff/gen_bls12_381.py" --check
# the MSM engine and the setup's fixed-base kernel bodies, sequentially, against naive sums
${CXX:-g++} -std=c++17 -O2 -Wall -Wno-unknown-pragmas -pthread -o "$bin" "$here/../msm/emu_msm.cpp"
"$bin"

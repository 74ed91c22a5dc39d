#!/usr/bin/env bash
# cuda/build.sh — compile cuda/src/*.cu into build/cuda/libfilc2cuda.a, with the CUDA
# runtime (libcudart_static.a) folded into the same archive, so that Go links one
# static library and the binary needs nothing but the NVIDIA driver at run time.
#
#   cuda/build.sh                   build (incremental: an object is rebuilt when its .cu,
#                                   any header under cuda/ or the flags changed)
#   cuda/build.sh --ptxas-verbose   rebuild with -Xptxas -v; the resource report (registers,
#                                   spills, stack per kernel) goes to build/cuda/ptxas.txt and
#                                   a summary to build/cuda/resources.txt
#   cuda/build.sh --clean           remove build/cuda first
#
# Environment: NVCC (default nvcc), FILC2_CUDA_ARCHS (default "80 86 89 90", lowest first:
# SASS for each, plus PTX of the lowest for newer GPUs), CUDART_STATIC (path of libcudart_static.a, found
# next to nvcc, under $CUDA_HOME or in the system library directories otherwise).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/cuda
out=$root/build/cuda
obj=$out/obj
NVCC=${NVCC:-nvcc}
ARCHS=${FILC2_CUDA_ARCHS:-"80 86 89 90"}

verbose=0
for arg in "$@"; do
	case $arg in
	--ptxas-verbose) verbose=1 ;;
	--clean) rm -rf "$out" ;;
	*)
		echo "usage: cuda/build.sh [--ptxas-verbose] [--clean]" >&2
		exit 2
		;;
	esac
done

command -v "$NVCC" >/dev/null || {
	echo "cuda/build.sh: $NVCC not found (./build.sh --cuda installs it on Debian)" >&2
	exit 1
}

# One virtual architecture (the lowest listed) for the front end, machine code for each
# listed GPU, and that PTX for newer GPUs: cicc runs once per file instead of once per
# architecture. Nothing here needs PTX features newer than compute_80; a kernel that
# does (sm_90 TMA, say) must add its own virtual architecture.
first=${ARCHS%% *}
codes=""
for a in $ARCHS; do codes+="sm_$a,"; done
gencode=(-gencode "arch=compute_$first,code=[${codes}compute_$first]")
flags=(-O3 -std=c++17 -Xcompiler -fPIC -Xcompiler -Wall "${gencode[@]}")
[ "$verbose" = 1 ] && flags+=(-Xptxas -v)

mkdir -p "$obj"
stamp="$obj/flags"
want="$("$NVCC" --version | tail -1) ${flags[*]}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
	rm -f "$obj"/*.o
	echo "$want" >"$stamp"
fi

# Headers: a change to any of them rebuilds every object (they are all templates).
newest_header=$(find "$src" -name '*.cuh' -o -name '*.h' | xargs ls -t | head -1)

# Compile from cuda/ with relative paths: __FILE__ in error messages reads "src/…" and
# no build directory is baked into the library.
cd "$src"
pids=()
names=()
for cu in src/*.cu; do
	name=$(basename "$cu" .cu)
	o="$obj/$name.o"
	if [ -f "$o" ] && [ "$o" -nt "$cu" ] && [ "$o" -nt "$newest_header" ]; then
		continue
	fi
	echo ">> nvcc $name.cu (sm_${ARCHS// /, sm_})" >&2
	("$NVCC" "${flags[@]}" -c "$cu" -o "$o.tmp" 2>"$obj/$name.log" && mv "$o.tmp" "$o") &
	pids+=($!)
	names+=("$name")
done
fail=0
for i in "${!pids[@]}"; do
	if ! wait "${pids[$i]}"; then
		echo "cuda/build.sh: ${names[$i]}.cu failed:" >&2
		cat "$obj/${names[$i]}.log" >&2
		fail=1
	elif [ "$verbose" = 0 ] && [ -s "$obj/${names[$i]}.log" ]; then
		cat "$obj/${names[$i]}.log" >&2  # warnings
	fi
done
[ "$fail" = 0 ] || exit 1

find_cudart() {
	local nvcc_dir
	nvcc_dir=$(dirname "$(command -v "$NVCC")")
	for c in "${CUDART_STATIC:-}" "${CUDA_HOME:+$CUDA_HOME/lib64/libcudart_static.a}" \
		"$nvcc_dir/../lib64/libcudart_static.a" "$nvcc_dir/../lib/x64/libcudart_static.a" \
		/usr/local/cuda/lib64/libcudart_static.a /usr/lib/x86_64-linux-gnu/libcudart_static.a \
		/usr/lib/aarch64-linux-gnu/libcudart_static.a; do
		[ -n "$c" ] && [ -f "$c" ] && {
			echo "$c"
			return
		}
	done
	echo "cuda/build.sh: libcudart_static.a not found; set CUDART_STATIC" >&2
	exit 1
}
cudart=$(find_cudart)

lib="$out/libfilc2cuda.a"
if [ ! -f "$lib" ] || [ -n "$(find "$obj" -name '*.o' -newer "$lib")" ] || [ "$cudart" -nt "$lib" ]; then
	{
		echo "CREATE $lib.tmp"
		for o in "$obj"/*.o; do echo "ADDMOD $o"; done
		echo "ADDLIB $cudart"
		echo "SAVE"
		echo "END"
	} | ar -M
	mv "$lib.tmp" "$lib"
	echo ">> $lib ($(du -h "$lib" | cut -f1), cudart from $cudart)" >&2
fi

if [ "$verbose" = 1 ]; then
	cat "$obj"/*.log >"$out/ptxas.txt"
	# One line per kernel and architecture: registers, spill stores/loads, stack frame.
	awk '
		/Compiling entry function/ { match($0, /'"'"'[^'"'"']*'"'"'/); fn = substr($0, RSTART + 1, RLENGTH - 2); arch = $NF; gsub(/'"'"'/, "", arch) }
		/bytes stack frame/ { stack = $1; st = $5; ld = $9 }
		/Used [0-9]+ registers/ { match($0, /Used [0-9]+/); regs = substr($0, RSTART + 5, RLENGTH - 5); if (fn != "") print arch, regs, stack, st, ld, fn; fn = "" }
	' "$out/ptxas.txt" | c++filt | sed -E 's/filc2::(bls12_381::)?//g' |
		awk '{ printf "%-6s regs %3s  stack %3s  spill st/ld %s/%s  ", $1, $2, $3, $4, $5; $1=$2=$3=$4=$5=""; print substr($0, 6) }' \
			>"$out/resources.txt"
	echo ">> resource report: $out/resources.txt ($(wc -l <"$out/resources.txt") kernels × archs)" >&2
fi

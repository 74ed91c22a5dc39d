#!/usr/bin/env bash
# build.sh — build and test filc2.
#
#   ./build.sh            build ./filc2 without cgo (CPU only)
#   ./build.sh --cuda     build cuda/ (build/cuda/libfilc2cuda.a) and ./filc2 with -tags cuda,
#                         statically linked against the CUDA runtime (needs only the driver to run)
#   ./build.sh test       gofmt check, go vet and every CPU test, then the lotus test (what CI runs)
#   ./build.sh lotus-test the lotus adapters against lotus v1.34.0's own code (tests/lotus, a module of
#                         its own; FILC2_SKIP_LOTUS_TEST=1 skips it in ./build.sh test)
#   ./build.sh cuda-test  build the GPU test binary build/ffi.test (go test -c -tags cuda) to carry
#                         to a GPU machine; cuda/device_check.sh runs it there
#   ./build.sh cuda-check check the field and curve templates, the MSM engine and the NTT kernels
#                         (quick plans) on the CPU (cuda/emu, no GPU; a few minutes)
#   ./build.sh cuda-report rebuild cuda/ with -Xptxas -v: registers, spills, stack per kernel
#                         in build/cuda/resources.txt
#   ./build.sh bench      run the Go benchmarks once
#
# Anything asking for CUDA installs nvcc when it is missing (Debian: nvidia-cuda-toolkit from
# non-free; needs root or sudo). Environment: GO (go binary, default "go"), GOFLAGS as usual,
# NVCC and FILC2_CUDA_ARCHS as cuda/build.sh reads them.
set -euo pipefail
cd "$(dirname "$0")"

GO=${GO:-go}
VERSION=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS="-s -w -X github.com/filc2/filc2/cli.Version=${VERSION}"

build() {
	echo ">> building ./filc2 (${VERSION}, CPU)" >&2
	CGO_ENABLED=0 "$GO" build -trimpath -ldflags "$LDFLAGS" -o filc2 ./cmd/filc2
}

# install_nvcc installs Debian's CUDA toolkit (11.8 on bookworm, sm_90 capable), which is in the
# non-free component: that component is added to the APT sources first.
install_nvcc() {
	local sudo=""
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null || {
			echo "nvcc is missing and installing it needs root (apt-get install nvidia-cuda-toolkit)" >&2
			exit 1
		}
		sudo=sudo
	fi
	local src=/etc/apt/sources.list.d/debian.sources
	if [ -f "$src" ]; then
		# deb822: append the missing components to every Components line.
		$sudo sed -i -E \
			-e '/^Components:/{/[[:space:]]contrib([[:space:]]|$)/!s/$/ contrib/}' \
			-e '/^Components:/{/[[:space:]]non-free([[:space:]]|$)/!s/$/ non-free/}' "$src"
	elif [ -f /etc/apt/sources.list ]; then
		$sudo sed -i -E \
			-e '/^deb .* main/{/[[:space:]]contrib([[:space:]]|$)/!s/$/ contrib/}' \
			-e '/^deb .* main/{/[[:space:]]non-free([[:space:]]|$)/!s/$/ non-free/}' /etc/apt/sources.list
	else
		echo "nvcc is missing and no Debian APT sources were found: install the CUDA toolkit" >&2
		exit 1
	fi
	echo ">> installing nvidia-cuda-toolkit (apt, ~2 min)" >&2
	$sudo apt-get update -q >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends nvidia-cuda-toolkit >&2
}

ensure_nvcc() {
	if [ -n "${NVCC:-}" ] && command -v "$NVCC" >/dev/null; then
		return
	fi
	command -v nvcc >/dev/null && return
	for d in ${CUDA_HOME:+"$CUDA_HOME/bin"} /usr/local/cuda/bin; do
		if [ -x "$d/nvcc" ]; then
			export PATH="$d:$PATH"
			return
		fi
	done
	install_nvcc
	command -v nvcc >/dev/null || {
		echo "nvcc still missing after installing nvidia-cuda-toolkit" >&2
		exit 1
	}
}

cuda_lib() {
	ensure_nvcc
	cuda/build.sh "$@"
}

# The go command does not track the static library a cgo package links: it keeps an
# existing output whose build ID still matches, even after the library changed. The
# CUDA outputs are therefore removed before every link.

build_cuda() {
	cuda_lib
	echo ">> building ./filc2 (${VERSION}, CUDA)" >&2
	rm -f filc2
	CGO_ENABLED=1 "$GO" build -tags cuda -trimpath -ldflags "$LDFLAGS" -o filc2 ./cmd/filc2
}

cuda_test() {
	cuda_lib
	mkdir -p build
	echo ">> building build/ffi.test (GPU tests, -tags cuda)" >&2
	CGO_ENABLED=1 "$GO" vet -tags cuda ./ffi
	rm -f build/ffi.test
	CGO_ENABLED=1 "$GO" test -c -tags cuda -trimpath -ldflags "-s -w" -o build/ffi.test ./ffi
	ls -la build/ffi.test >&2
}

run_tests() {
	local unformatted
	unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
	if [ -n "$unformatted" ]; then
		echo "gofmt would change:" >&2
		echo "$unformatted" >&2
		exit 1
	fi
	"$GO" vet ./...
	"$GO" test -count=1 -timeout 60m ./...
}

# run_lotus_tests runs tests/lotus, the module that imports lotus v1.34.0 (api, api/client,
# storiface: no filecoin-ffi) to test filc2 worker and /remote-commit2 against lotus's own code.
# The sum database has no entry for lotus v1.34.0, hence GONOSUMDB; go.sum pins every module. On
# a cold module cache it downloads ~560 modules (about a minute) and compiles for about two.
run_lotus_tests() {
	echo ">> tests/lotus: filc2's lotus adapters against lotus v1.34.0" >&2
	(
		cd tests/lotus
		export GONOSUMDB="${GONOSUMDB:+$GONOSUMDB,}github.com/filecoin-project/lotus" CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -mod=readonly"
		"$GO" vet .
		"$GO" test -count=1 -timeout 30m .
	)
}

case "${1:-build}" in
build)
	if [ "${2:-}" = --cuda ]; then build_cuda; else build; fi
	;;
--cuda) build_cuda ;;
test)
	build
	run_tests
	if [ "${FILC2_SKIP_LOTUS_TEST:-}" != 1 ]; then run_lotus_tests; fi
	;;
lotus-test) run_lotus_tests ;;
cuda-test) cuda_test ;;
cuda-check)
	cuda/emu/run.sh
	cuda/emu/ntt_run.sh --quick
	;;
cuda-report)
	cuda_lib --ptxas-verbose
	grep -E 'field_op_kernel<mont_t<(fr|fp)_params>, 0>|once_kernel<mont_t<(fr|fp)_params>, 0>|chain_kernel<mont_t<(fr|fp)_params>, 0>' \
		build/cuda/resources.txt | grep '^sm_90' || true
	;;
bench) "$GO" test -run '^$' -bench . -benchtime 1x ./... ;;
*)
	echo "usage: ./build.sh [build [--cuda]|--cuda|test|lotus-test|cuda-test|cuda-check|cuda-report|bench]" >&2
	exit 2
	;;
esac

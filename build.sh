#!/usr/bin/env bash
# build.sh — build and test filc2.
#
#   ./build.sh          build ./filc2 (CPU-only while the CUDA backend is absent)
#   ./build.sh test     vet and run every test (what CI runs)
#   ./build.sh bench    run the Go benchmarks once
#
# Environment: GO (go binary, default "go"), GOFLAGS as usual.
set -euo pipefail
cd "$(dirname "$0")"

GO=${GO:-go}
VERSION=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS="-s -w -X github.com/filc2/filc2/cli.Version=${VERSION}"

build() {
	echo ">> building ./filc2 (${VERSION}, CPU)" >&2
	CGO_ENABLED=0 "$GO" build -trimpath -ldflags "$LDFLAGS" -o filc2 ./cmd/filc2
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

case "${1:-build}" in
build) build ;;
test)
	build
	run_tests
	;;
bench) "$GO" test -run '^$' -bench . -benchtime 1x ./... ;;
*)
	echo "usage: ./build.sh [build|test|bench]" >&2
	exit 2
	;;
esac

//go:build !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package r1cs

// The PCE reader and writer copy integer arrays in host byte order; the format is
// little-endian, so big-endian hosts are refused at compile time.
var _ = "filc2 supports little-endian hosts only" + 1

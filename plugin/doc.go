// Package plugin will serve filc2 as a go-plugin subprocess speaking the
// Prover API over go-jsonrpc, with the host-side client and the lotus and curio
// adapters (C2-only lotus worker, RemoteCommit2Endpoint, curio's proving-engine
// service). It knows nothing of CUDA.
package plugin

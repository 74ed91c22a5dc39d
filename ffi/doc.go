// Package ffi binds the CUDA library in cuda/ through cgo (build tag cuda) and
// offers it as a groth16.Backend. Built without the tag it compiles to a stub
// that reports CUDA as unavailable, so every other package builds anywhere.
package ffi

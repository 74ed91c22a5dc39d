// Package placement carries through a context where a prover load may put
// what does not fit on its GPU. By default a GPU backend keeps the rest in
// host memory (a key's queries read over the bus, SpMV on the host): slower,
// but it proves. A scheduler that can make room instead (the engine, by
// evicting idle provers of other circuits) first asks for DeviceOnly loads,
// which fail out of device memory rather than spill.
package placement

import "context"

type key struct{}

// WithDeviceOnly returns ctx asking prover loads under it to fit on the GPU
// entirely or fail with an out-of-device-memory error.
func WithDeviceOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, key{}, true)
}

// DeviceOnly reports whether ctx asks for a load that fits on the GPU entirely.
func DeviceOnly(ctx context.Context) bool {
	v, _ := ctx.Value(key{}).(bool)
	return v
}

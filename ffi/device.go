package ffi

// Device describes one CUDA device.
type Device struct {
	Ordinal int
	Name    string
	Memory  uint64 // bytes
	Free    uint64 // bytes free when listed
	SMs     int
	CCMajor int
	CCMinor int
}

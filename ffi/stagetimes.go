package ffi

import (
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
)

// StageTimes is where one CUDA proof's time went (wall time of each stage).
type StageTimes struct {
	ABC time.Duration // SpMV on the host (when the matrices are not on the device)
	// BufferWait is Prepare taking a device witness buffer: a spare one, a new one, or,
	// where the device has room for one only, the wait for another partition's section
	// to give its buffer back.
	BufferWait time.Duration
	Upload     time.Duration // the witness to the device
	SpMV       time.Duration // a, b, c and the query scalars on the device
	Scalars    time.Duration // host SpMV only: its results uploaded in the kernel section
	H          time.Duration // the H pipeline on the device
	MSMH       time.Duration
	MSML       time.Duration
	MSMA       time.Duration
	MSMBG1     time.Duration
	MSMBG2     time.Duration
	Finish     time.Duration // proof assembly
	Folded     int           // small MSMs (of L, A, B_G1, B_G2) run over a padded partition's folded bases
}

// GPU is the time of the kernel section (RunGPU).
func (t StageTimes) GPU() time.Duration {
	return t.SpMV + t.Scalars + t.H + t.MSMH + t.MSML + t.MSMA + t.MSMBG1 + t.MSMBG2
}

// Total is the sum of the stages.
func (t StageTimes) Total() time.Duration {
	return t.ABC + t.BufferWait + t.Upload + t.GPU() + t.Finish
}

// HostWorkingBytes is the host memory one partition's stages hold beyond the witness.
// With the circuit's matrices resident on the device (DeviceBytesNeeded fits the
// device), nothing: SpMV runs there. Otherwise the host SpMV's a, b and c over the
// domain and the compacted A and B scalars.
func HostWorkingBytes(c *r1cs.Circuit) int64 {
	if devs, err := Devices(); err == nil && len(devs) > 0 && DeviceBytesNeeded(c) <= devs[0].Memory {
		return 0
	}
	s := groth16.ShapeOf(c.Stats())
	n := 3*int64(s.Domain) + int64(s.NumInputs+s.AAux) + int64(s.BInput+s.BAux)
	return n * fr.Bytes
}

// DeviceBytesNeeded estimates the device memory of one circuit's prover with its matrices
// resident: the key, the matrices, the NTT tables, the kernel section's vectors and two
// witnesses (two workers per GPU), plus a quarter for the MSM scratch.
func DeviceBytesNeeded(c *r1cs.Circuit) uint64 {
	s := groth16.ShapeOf(c.Stats())
	l := s.Lengths()
	key := uint64(l[0]+l[1]+l[2]+l[3])*96 + uint64(l[4])*192
	var nnz uint64
	for _, m := range c.Matrices() {
		nnz += uint64(m.NNZ())
	}
	mats := nnz*8 + uint64(c.NumConstraints+1)*12
	work := uint64(3*s.Domain+s.NumInputs+s.AAux+s.BInput+s.BAux) * fr.Bytes
	wit := 2 * uint64(s.NumInputs+s.NumAux) * fr.Bytes
	tables := uint64(s.Domain) * 16
	return (key + mats + work + wit + tables) * 5 / 4
}

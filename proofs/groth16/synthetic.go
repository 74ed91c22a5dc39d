package groth16

import (
	"context"
	"fmt"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/filc2/filc2/proofs/r1cs"
)

// MaxSyntheticKeyPoints bounds the G1 points SyntheticKey makes on the host
// (2^24, about 1.6 GB with the G2 points): beyond that (the 32GiB circuit needs
// 2^27) a synthetic key belongs on the GPU, where package ffi makes it.
const MaxSyntheticKeyPoints = 1 << 24

// SyntheticKey returns a proving key with exactly the lengths circuit c needs
// (h, l, a, b_g1, b_g2 and the verifying key's IC), made of distinct valid
// points drawn from seed — consecutive multiples of the generators from
// pseudo-random starting points — on tasks goroutines (≤ 0: all cores). It is
// no setup: proofs made with it verify under no key, their cost is a real
// proof's. To save memory and time, the four G1 queries share one array of
// points (each query is a prefix of it, its points distinct). It refuses
// circuits needing more than MaxSyntheticKeyPoints G1 points.
func SyntheticKey(ctx context.Context, c *r1cs.Circuit, seed uint64, tasks int) (*ProvingKey, error) {
	s := ShapeOf(c.Stats())
	n := s.Lengths()
	g1n := max(n[0], n[1], n[2], n[3], 1)
	if g1n > MaxSyntheticKeyPoints {
		return nil, fmt.Errorf("groth16: a synthetic host key of %d G1 points is over %d: make it on the GPU", g1n, MaxSyntheticKeyPoints)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g1 := kbPoints[bls.G1Affine, bls.G1Jac, g1Ops](generatorG1(), g1n, seed, tasks)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g2 := kbPoints[bls.G2Affine, bls.G2Jac, g2Ops](generatorG2(), max(n[4], 1), seed+1, tasks)
	return &ProvingKey{
		VK: *SyntheticVerifyingKey(s.NumInputs, seed+2),
		H:  g1[:n[0]], L: g1[:n[1]], A: g1[:n[2]], BG1: g1[:n[3]], BG2: g2[:n[4]],
	}, nil
}

// SyntheticVerifyingKey returns a verifying key with numInputs IC points (ONE
// included) and pseudo-random α, β, γ, δ from seed: the shape of a real key,
// so that verifying against it costs what a real verification costs. No proof
// verifies under it.
func SyntheticVerifyingKey(numInputs int, seed uint64) *VerifyingKey {
	g1 := kbPoints[bls.G1Affine, bls.G1Jac, g1Ops](generatorG1(), numInputs+3, seed, 1)
	g2 := kbPoints[bls.G2Affine, bls.G2Jac, g2Ops](generatorG2(), 3, seed+1, 1)
	return &VerifyingKey{
		AlphaG1: g1[0], BetaG1: g1[1], DeltaG1: g1[2],
		BetaG2: g2[0], GammaG2: g2[1], DeltaG2: g2[2],
		IC: g1[3:],
	}
}

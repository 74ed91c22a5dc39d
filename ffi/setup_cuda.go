//go:build cuda

package ffi

import (
	"context"
	"errors"
	"fmt"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
)

// SetupProver runs a Groth16 setup of circuit c from toxic waste t with its heavy part
// on device: groth16.SetupWith evaluates the QAP at τ on the host's cores, and the
// fixed-base multiplications of the five queries run on the GPU into bases that stay
// there (or, when the device is full, in pinned host memory). The prover proves with
// that key and VerifyingKey verifies its proofs; no .params file is read or written
// (ProvingKey downloads the key for that). The key equals groth16.Setup's for the same
// toxic waste, point for point. opts go to SetupWith (progress, the host's tasks).
func SetupProver(ctx context.Context, device int, c *r1cs.Circuit, t *groth16.Toxic, opts ...groth16.Option) (*Prover, error) {
	return loadProver(ctx, device, c, func(p *Prover) error {
		vk, err := groth16.SetupWith(ctx, c, t, &deviceKeyMaker{p: p}, opts...)
		if err != nil {
			return err
		}
		p.vk = *vk
		return nil
	})
}

// deviceKeyMaker is the groth16.KeyMaker that makes a Prover's queries on its device.
type deviceKeyMaker struct {
	p  *Prover
	t1 []bls.G1Affine // the G1 table, flattened once
}

func (m *deviceKeyMaker) MulG1(ctx context.Context, q groth16.Query, t *groth16.G1Table, scalars []fr.Element) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dst := map[groth16.Query]**G1Bases{groth16.QueryH: &m.p.h, groth16.QueryL: &m.p.l, groth16.QueryA: &m.p.a,
		groth16.QueryBG1: &m.p.bg1}[q]
	if dst == nil {
		return fmt.Errorf("ffi: %v is not a G1 query", q)
	}
	if m.t1 == nil {
		m.t1 = t.Points()
	}
	b, err := FixedBaseG1(m.p.device, m.t1, scalars)
	if err != nil {
		return fmt.Errorf("the %v query (%d points) on device %d: %w", q, len(scalars), m.p.device, err)
	}
	*dst = b
	t.Tick(len(scalars))
	return nil
}

func (m *deviceKeyMaker) MulG2(ctx context.Context, q groth16.Query, t *groth16.G2Table, scalars []fr.Element) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if q != groth16.QueryBG2 {
		return fmt.Errorf("ffi: %v is not a G2 query", q)
	}
	m.t1 = nil // the G1 table is done with: B_G2 comes last
	b, err := FixedBaseG2(m.p.device, t.Points(), scalars)
	if err != nil {
		return fmt.Errorf("the %v query (%d points) on device %d: %w", q, len(scalars), m.p.device, err)
	}
	m.p.bg2 = b
	t.Tick(len(scalars))
	return nil
}

// VerifyingKey is the verifying key of the prover's proving key.
func (p *Prover) VerifyingKey() *groth16.VerifyingKey {
	vk := p.vk
	return &vk
}

// ProvingKey copies the resident key back to the host (47 GB at 32GiB): to write a
// .params file of a key made on the device, or to compare it.
func (p *Prover) ProvingKey(ctx context.Context) (*groth16.ProvingKey, error) {
	pk := &groth16.ProvingKey{VK: *p.VerifyingKey()}
	for _, q := range []struct {
		b   *G1Bases
		dst *[]bls.G1Affine
	}{{p.h, &pk.H}, {p.l, &pk.L}, {p.a, &pk.A}, {p.bg1, &pk.BG1}} {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if q.b == nil {
			return nil, errors.New("ffi: the prover has no key")
		}
		pts, err := q.b.Points(0, q.b.Len())
		if err != nil {
			return nil, err
		}
		*q.dst = pts
	}
	pts, err := p.bg2.Points(0, p.bg2.Len())
	if err != nil {
		return nil, err
	}
	pk.BG2 = pts
	return pk, nil
}

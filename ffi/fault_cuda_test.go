//go:build cuda

package ffi

import (
	"context"
	"errors"
	"testing"

	"github.com/filc2/filc2/internal/fault"
)

// TestInjectedSectionFailure: a fault injected midway through the kernel
// section fails it (ErrInjected) through the real cleanup, and the prover's
// next section proves a proof byte-identical to one made before; a probe of
// the device passes, and after a reset (nothing resident) a freshly loaded
// prover proves the same proof again.
func TestInjectedSectionFailure(t *testing.T) {
	ctx := context.Background()
	pr, w, r, s := partition2KiB(t, 1, 3)
	gp, err := LoadProver(ctx, 0, pr.PK, pr.Circuit)
	if err != nil {
		t.Fatal(err)
	}
	if !gp.HitsFault(fault.Section) || gp.HitsFault(fault.Corrupt) {
		t.Fatal("the prover should consult fault.Section only")
	}
	want, _, err := gp.ProveTimed(ctx, w, r, s)
	if err != nil {
		t.Fatal(err)
	}
	inj, err := fault.Parse("section=1")
	if err != nil {
		t.Fatal(err)
	}
	fctx := fault.With(ctx, inj)
	if _, _, err := gp.ProveTimed(fctx, w, r, s); !errors.Is(err, fault.ErrInjected) {
		t.Fatalf("injected section: %v", err)
	}
	got, _, err := gp.ProveTimed(fctx, w, r, s)
	if err != nil {
		t.Fatalf("the section after an injected failure: %v", err)
	}
	if !got.A.Equal(&want.A) || !got.B.Equal(&want.B) || !got.C.Equal(&want.C) {
		t.Fatal("the proof after an injected failure differs")
	}
	if err := ProbeDevice(0, false); err != nil {
		t.Fatalf("probe: %v", err)
	}
	gp.Close()
	if err := ProbeDevice(0, true); err != nil {
		t.Fatalf("probe with reset: %v", err)
	}
	gp2, err := LoadProver(ctx, 0, pr.PK, pr.Circuit)
	if err != nil {
		t.Fatalf("loading after a reset: %v", err)
	}
	defer gp2.Close()
	got, _, err = gp2.ProveTimed(ctx, w, r, s)
	if err != nil {
		t.Fatalf("proving after a reset: %v", err)
	}
	if !got.A.Equal(&want.A) || !got.B.Equal(&want.B) || !got.C.Equal(&want.C) {
		t.Fatal("the proof after a device reset differs")
	}
	if err := ProbeDevice(1<<20, false); err == nil {
		t.Fatal("probing a device that does not exist passed")
	}
}

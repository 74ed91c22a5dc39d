package ffi

import "testing"

func TestScratchPolicyFromEnv(t *testing.T) {
	for v, want := range map[string]scratchPolicy{"": scratchAuto, "auto": scratchAuto, "worst": scratchWorst, "h": scratchH} {
		t.Setenv("FILC2_MSM_SCRATCH", v)
		got, err := scratchPolicyFromEnv()
		if err != nil || got != want {
			t.Errorf("FILC2_MSM_SCRATCH=%q: got %v, %v; want %v", v, got, err, want)
		}
	}
	for _, v := range []string{"lean", "H", " h", "1"} {
		t.Setenv("FILC2_MSM_SCRATCH", v)
		if _, err := scratchPolicyFromEnv(); err == nil {
			t.Errorf("FILC2_MSM_SCRATCH=%q accepted", v)
		}
	}
}

func TestKeyDeviceBytes(t *testing.T) {
	const mib = 1 << 20
	// One point a query still takes a page each; a G2 point is twice a G1 point.
	if got := keyDeviceBytes([5]int{0, 0, 0, 0, 0}); got != 5*2*mib {
		t.Errorf("empty key: %d bytes, want %d", got, 5*2*mib)
	}
	// 2^27 − 1 H points: 12 GiB less 96 bytes, rounded up to 12 GiB; 2^20 G2 points: 192 MiB.
	got := keyDeviceBytes([5]int{1<<27 - 1, 1 << 20, 1 << 20, 1 << 20, 1 << 20})
	want := uint64(12<<30) + 3*96*mib + 192*mib
	if got != want {
		t.Errorf("key bytes %d, want %d", got, want)
	}
}

func TestLeanPays(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		name                  string
		free, key, held, lean uint64
		want                  bool
	}{
		// The H100 under a 32GiB PoRep key: the worst case's 6.9 GiB keep B_G2 (5.9 GiB) off
		// the device; H's 1.8 GiB let it on.
		{"porep-h100", 40 * gib, 44 * gib, 7 * gib, 2 * gib, true},
		// Fits with the worst case held: nothing to gain (the H200).
		{"fits", 70 * gib, 60 * gib, 7 * gib, 2 * gib, false},
		{"fits exactly", 60 * gib, 60 * gib, 7 * gib, 2 * gib, false},
		// Does not fit either way (WindowPoSt 32GiB on an 80 GB card): keep the worst case.
		{"streams anyway", 40 * gib, 60 * gib, 7 * gib, 2 * gib, false},
		// Just enough with H's plan, one byte short.
		{"edge", 40 * gib, 45 * gib, 7 * gib, 2 * gib, true},
		{"one short", 40 * gib, 45*gib + 1, 7 * gib, 2 * gib, false},
		// No ballast held (the device was too full for it): H's plan must come out of free.
		{"no ballast", 40 * gib, 45 * gib, 0, 2 * gib, false},
	} {
		if got := leanPays(c.free, c.key, c.held, c.lean); got != c.want {
			t.Errorf("%s: leanPays(%d, %d, %d, %d) = %v, want %v", c.name, c.free, c.key, c.held, c.lean, got, c.want)
		}
	}
}

//go:build cuda

package ffi

import "testing"

// TestMSMHostResident: bases kept in mapped pinned host memory (the fallback of a key
// larger than the GPU) give the same MSM, split MSM and batch addition as
// device-resident ones, in G1 and G2, and say where they live.
func TestMSMHostResident(t *testing.T) {
	const n = 5000
	p1 := randomG1Points(n)
	s := randomFr(n)
	dev, err := UploadG1(p1)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	host, err := UploadG1HostResident(0, p1)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if yes, err := host.HostResident(); err != nil || !yes {
		t.Fatalf("forced host-resident bases: %v %v", yes, err)
	}
	if yes, err := dev.HostResident(); err != nil || yes {
		t.Fatalf("device bases report host-resident: %v %v", yes, err)
	}
	want := refMSMG1(t, p1, s)
	for _, b := range []*G1Bases{dev, host} {
		got, err := b.MSM(s)
		if err != nil {
			t.Fatal(err)
		}
		if a := affG1(&got); !a.Equal(&want) {
			t.Fatal("MSM over host-resident bases differs")
		}
		split, err := b.MSMSplit(s)
		if err != nil {
			t.Fatal(err)
		}
		if a := affG1(&split); !a.Equal(&want) {
			t.Fatal("split MSM over host-resident bases differs")
		}
	}
	bitmap := make([]uint64, (n+63)/64)
	for i := 0; i < n; i += 3 {
		bitmap[i/64] |= 1 << (i % 64)
	}
	a, err := dev.BatchAdd(bitmap)
	if err != nil {
		t.Fatal(err)
	}
	b, err := host.BatchAdd(bitmap)
	if err != nil {
		t.Fatal(err)
	}
	if x, y := affG1(&a), affG1(&b); !x.Equal(&y) {
		t.Fatal("batch addition over host-resident bases differs")
	}
	if pts, err := host.Points(10, 5); err != nil || !pts[0].Equal(&p1[10]) || !pts[4].Equal(&p1[14]) {
		t.Fatalf("download from host-resident bases: %v", err)
	}

	p2 := randomG2Points(600)
	g2, err := UploadG2HostResident(0, p2)
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	got2, err := g2.MSM(s[:600])
	if err != nil {
		t.Fatal(err)
	}
	want2 := refMSMG2(t, p2, s[:600])
	if a := affG2(&got2); !a.Equal(&want2) {
		t.Fatal("G2 MSM over host-resident bases differs")
	}
	if yes, err := g2.HostResident(); err != nil || !yes {
		t.Fatalf("G2 host-resident: %v %v", yes, err)
	}
}

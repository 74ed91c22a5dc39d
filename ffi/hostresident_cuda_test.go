//go:build cuda

package ffi

import (
	"fmt"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// TestMSMHostResident: bases kept in mapped pinned host memory (the fallback of a key
// larger than the GPU) give the same MSM, split MSM and batch addition as
// device-resident ones, in G1 and G2, streamed through the device whole, in chunks (a
// short last one too) and gathered over the bus, and say where they live.
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
	if c, err := host.StreamChunk(); err != nil || c != n {
		t.Fatalf("host-resident bases of %d points stream in chunks of %d (%v), want all of them", n, c, err)
	}
	if c, err := dev.StreamChunk(); err != nil || c != 0 {
		t.Fatalf("device bases report a stream chunk: %d %v", c, err)
	}
	want := refMSMG1(t, p1, s)
	w := witnessScalars(n) // mostly 0 and 1: the split's batch addition in every chunk
	wantW := refMSMG1(t, p1, w)
	check := func(b *G1Bases, what string) {
		t.Helper()
		got, err := b.MSM(s)
		if err != nil {
			t.Fatal(err)
		}
		if a := affG1(&got); !a.Equal(&want) {
			t.Fatalf("MSM over %s differs", what)
		}
		for _, sc := range []struct {
			s    []fr.Element
			want *bls.G1Affine
		}{{s, &want}, {w, &wantW}} {
			split, err := b.MSMSplit(sc.s)
			if err != nil {
				t.Fatal(err)
			}
			if a := affG1(&split); !a.Equal(sc.want) {
				t.Fatalf("split MSM over %s differs", what)
			}
		}
	}
	check(dev, "device bases")
	check(host, "host-resident bases streamed whole")
	// Streamed in chunks: a power of two, one that leaves a short last chunk, and none (gathered).
	for _, chunk := range []int{512, 1000, 0} {
		got, err := host.SetStreamChunk(chunk)
		if err != nil || got != chunk {
			t.Fatalf("SetStreamChunk(%d) = %d, %v", chunk, got, err)
		}
		check(host, fmt.Sprintf("host-resident bases in chunks of %d", chunk))
	}
	if _, err := host.SetStreamChunk(-1); err == nil {
		t.Fatal("a negative stream chunk was accepted")
	}
	if got, err := dev.SetStreamChunk(512); err != nil || got != 0 {
		t.Fatalf("device bases took a stream chunk: %d %v", got, err)
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
	want2 := refMSMG2(t, p2, s[:600])
	for _, chunk := range []int{-1, 128, 0} {
		if chunk >= 0 {
			if got, err := g2.SetStreamChunk(chunk); err != nil || got != chunk {
				t.Fatalf("G2 SetStreamChunk(%d) = %d, %v", chunk, got, err)
			}
		}
		got2, err := g2.MSM(s[:600])
		if err != nil {
			t.Fatal(err)
		}
		if a := affG2(&got2); !a.Equal(&want2) {
			t.Fatalf("G2 MSM over host-resident bases differs (chunk %d)", chunk)
		}
		split2, err := g2.MSMSplit(s[:600])
		if err != nil {
			t.Fatal(err)
		}
		if a := affG2(&split2); !a.Equal(&want2) {
			t.Fatalf("G2 split MSM over host-resident bases differs (chunk %d)", chunk)
		}
	}
	if yes, err := g2.HostResident(); err != nil || !yes {
		t.Fatalf("G2 host-resident: %v %v", yes, err)
	}
}

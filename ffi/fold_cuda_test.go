//go:build cuda

package ffi

import (
	"context"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/fallback"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/post"
	"github.com/filc2/filc2/proofs/snark"
)

// TestFold: the folded bases are the sums of the runs, in G1 (device and host-resident
// points) and G2; ranges outside the points are refused.
func TestFold(t *testing.T) {
	const start, per, copies = 7, 300, 5
	p1 := randomG1Points(start + per*copies + 3)
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
	for _, b := range []*G1Bases{dev, host} {
		f, err := b.Fold(start, per, copies)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Points(0, per)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < per; j++ {
			var want bls.G1Jac
			for k := 0; k < copies; k++ {
				want.AddMixed(&p1[start+k*per+j])
			}
			if w := affG1(&want); !got[j].Equal(&w) {
				t.Fatalf("G1 fold point %d differs", j)
			}
		}
	}
	if _, err := dev.Fold(start, per, copies+1); err == nil {
		t.Error("a fold past the points was accepted")
	}
	p2 := randomG2Points(2 * 40)
	g2, err := UploadG2(p2)
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	f2, err := g2.Fold(0, 40, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	got2, err := f2.Points(0, 40)
	if err != nil {
		t.Fatal(err)
	}
	for j := range got2 {
		var want bls.G2Jac
		want.FromAffine(&p2[j])
		want.AddMixed(&p2[40+j])
		var w bls.G2Affine
		w.FromJacobian(&want)
		if !got2[j].Equal(&w) {
			t.Fatalf("G2 fold point %d differs", j)
		}
	}
}

// TestBackendPaddedWindow: a 2KiB Window partition of one sector (the second block a copy of
// the first) proves on the CUDA prover with its four small MSMs folded, the CPU's proof with
// the same r, s, and again from the kept folds; without its Repeat in full, the same.
func TestBackendPaddedWindow(t *testing.T) {
	ctx := context.Background()
	p, _ := abi.ParsePoStName("StackedDrgWindow2KiBV1_1")
	dir := t.TempDir()
	toxic, err := groth16.SeededToxic(7)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := post.Setup(ctx, p, dir, snark.SetupOptions{Toxic: &toxic}); err != nil {
		t.Fatal(err)
	}
	pr, err := post.Load(ctx, p, post.LoadOptions{ParamsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	req, err := post.SparseRequest(p, fallback.MaskRandomness([32]byte{5, 31: 0x44}), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := post.Prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	w, err := post.Witness(pt, pr.Circuit)
	if err != nil {
		t.Fatal(err)
	}
	if w.Repeat == nil {
		t.Fatal("a one-sector 2KiB Window witness without a Repeat")
	}
	var r, s fr.Element
	r.SetRandom()
	s.SetRandom()
	srs, err := groth16.CPU{}.LoadSRS(ctx, pr.PK, pr.Circuit)
	if err != nil {
		t.Fatal(err)
	}
	want, err := groth16.CPU{}.Prove(ctx, srs, w, r, s)
	if err != nil {
		t.Fatal(err)
	}
	// With FILC2_FOLD=0 the Repeat still shortens the witness's upload (the copies made
	// on the device), so the unfolded run checks that path.
	for _, fold := range []string{"1", "0"} {
		t.Setenv("FILC2_FOLD", fold)
		gp, err := LoadProver(ctx, 0, pr.PK, pr.Circuit)
		if err != nil {
			if ds, derr := Devices(); derr == nil && len(ds) > 0 {
				t.Logf("device 0: %d of %d bytes free", ds[0].Free, ds[0].Memory)
			}
			t.Fatal(err)
		}
		folded := 4
		if fold == "0" {
			folded = 0
		}
		for i, tc := range []struct {
			w      *groth16.Assignment
			folded int
		}{{w, folded}, {w, folded}, {&groth16.Assignment{Inputs: w.Inputs, Aux: w.Aux}, 0}} {
			got, st, err := gp.ProveTimed(ctx, tc.w, r, s)
			if err != nil {
				t.Fatal(err)
			}
			if st.Folded != tc.folded {
				t.Errorf("FILC2_FOLD=%s, run %d: %d small MSMs folded, want %d", fold, i, st.Folded, tc.folded)
			}
			if !got.A.Equal(&want.A) || !got.B.Equal(&want.B) || !got.C.Equal(&want.C) {
				t.Fatalf("FILC2_FOLD=%s, run %d: the CUDA proof differs from the CPU proof with the same r, s", fold, i)
			}
		}
		gp.Close()
	}
}

// RepeatAt leaves copies runs of the first run's elements and nothing else changed, for
// copy counts that are and are not powers of two; a run past the buffer is refused.
func TestFrBufferRepeatAt(t *testing.T) {
	const n, off, size = 37, 5, 600
	src := make([]fr.Element, size)
	for i := range src {
		src[i].SetUint64(uint64(1000 + i))
	}
	b, err := AllocFr(0, size)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	for _, copies := range []int{1, 2, 3, 5, 8, 15} {
		if err := b.Upload(src); err != nil {
			t.Fatal(err)
		}
		if err := b.RepeatAt(off, n, copies); err != nil {
			t.Fatal(err)
		}
		got := make([]fr.Element, size)
		if err := b.Download(got); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			want := src[i]
			if i >= off && i < off+copies*n {
				want = src[off+(i-off)%n]
			}
			if !got[i].Equal(&want) {
				t.Fatalf("%d copies: element %d differs", copies, i)
			}
		}
	}
	if err := b.RepeatAt(off, n, size/n+1); err == nil {
		t.Error("copies past the buffer's end were accepted")
	}
}

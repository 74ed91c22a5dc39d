//go:build cuda

package ffi

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// TestUploader: staged copies land byte for byte, across chunk boundaries, at an
// offset, split over several Uploaders, and bad calls are refused.
func TestUploader(t *testing.T) {
	u, err := NewUploader(0, 1<<20, 3) // 1 MiB chunks: many per copy
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	const n = 3*(1<<20)/fr.Bytes + 12345
	src := randomFr(n)
	buf, err := AllocFr(0, n+7)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	if err := u.UploadAt(buf, 7, src); err != nil {
		t.Fatal(err)
	}
	got := make([]fr.Element, n+7)
	poison(got)
	if err := buf.Download(got); err != nil {
		t.Fatal(err)
	}
	mismatches(t, "staged upload", got[7:], src, func(i int) string { return got[7+i].String() + " ≠ " + src[i].String() })

	// Split over Uploaders: 3 ways of at least minSplit bytes.
	big := make([]fr.Element, 3*minSplit/fr.Bytes+5)
	for i := range big {
		big[i][0] = uint64(i)
		big[i][3] = ^uint64(i)
	}
	bbuf, err := AllocFr(0, len(big)+1)
	if err != nil {
		t.Fatal(err)
	}
	defer bbuf.Free()
	pool := newUploadPool(0, 3)
	defer pool.close()
	if err := pool.uploadAt(bbuf, 1, big); err != nil {
		t.Fatal(err)
	}
	back := make([]fr.Element, len(big)+1)
	poison(back)
	if err := bbuf.Download(back); err != nil {
		t.Fatal(err)
	}
	mismatches(t, "split upload", back[1:], big, func(i int) string { return fmt.Sprint(back[1+i][0], " ≠ ", big[i][0]) })
	if n := pool.kept.len(); n != 3 {
		t.Errorf("the pool kept %d uploaders, want 3", n)
	}

	if err := u.UploadAt(buf, 8, src); err == nil {
		t.Error("an upload past the buffer's end was accepted")
	}
	if _, err := NewUploader(0, 1<<20, 5); err == nil {
		t.Error("5 staging buffers accepted")
	}
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
	if err := u.UploadAt(buf, 0, src[:1]); err == nil {
		t.Error("a closed uploader copied")
	}
	if err := pool.close(); err != nil {
		t.Fatal(err)
	}
	if err := pool.uploadAt(bbuf, 0, big[:10]); err == nil {
		t.Error("a closed pool copied")
	}
}

// TestUploadInterference (FILC2_BENCH=1) asks why a 32GiB partition's H pipeline ran
// 2.3× slower with two GPU workers: it times the 2^27 H pipeline (wall time, as the
// prover's kernel section does) alone, while another goroutine uploads a 32GiB witness
// (4.2 GB) in a loop, pageable or staged, and while every core spins. Lines start with
// BENCH upload.
func TestUploadInterference(t *testing.T) {
	if os.Getenv("FILC2_BENCH") != "1" {
		t.Skip("set FILC2_BENCH=1 to time uploads against the H pipeline")
	}
	const k, reps = 27, 5
	const nW = 130_278_869 // a 32GiB partition's inputs + aux
	d := newTestDomain(t, k, DomainOptions{})
	var bufs [3]*FrBuffer
	for i := range bufs {
		b, err := AllocFr(0, 1<<k)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Free()
		bufs[i] = b
	}
	wdev, err := AllocFr(0, nW)
	if err != nil {
		t.Fatal(err)
	}
	defer wdev.Free()
	host := make([]fr.Element, nW)
	parallel(nW/4096+1, func(i int) {
		for j := i * 4096; j < min(nW, (i+1)*4096); j++ {
			host[j][0] = uint64(j)
		}
	})
	hTime := func() time.Duration {
		t0 := time.Now()
		if _, err := d.HDevice(bufs[0], bufs[1], bufs[2]); err != nil {
			t.Fatal(err)
		}
		if err := d.Sync(); err != nil {
			t.Fatal(err)
		}
		return time.Since(t0)
	}
	hTime() // warm-up
	uploads := map[string]func() error{
		"pageable": func() error { return wdev.UploadAt(0, host) },
	}
	for _, ways := range []int{1, 4} {
		pool := newUploadPool(0, ways)
		defer pool.close()
		uploads[fmt.Sprintf("staged:%d", ways)] = func() error { return pool.uploadAt(wdev, 0, host) }
	}
	// The upload paths alone.
	for _, mode := range []string{"pageable", "staged:1", "staged:4"} {
		var ds []time.Duration
		for range 3 {
			t0 := time.Now()
			if err := uploads[mode](); err != nil {
				t.Fatal(err)
			}
			ds = append(ds, time.Since(t0))
		}
		slices.Sort(ds)
		fmt.Printf("BENCH upload alone mode=%s ms=%.1f GB_s=%.1f\n", mode, ms(ds[1]), float64(nW*fr.Bytes)/ds[1].Seconds()/1e9)
	}
	// The H pipeline beside each.
	measure := func(mode string, during func(stop *atomic.Bool) (int, time.Duration)) {
		var stop atomic.Bool
		var wg sync.WaitGroup
		var count int
		var busy time.Duration
		if during != nil {
			wg.Add(1)
			go func() { defer wg.Done(); count, busy = during(&stop) }()
			time.Sleep(50 * time.Millisecond)
		}
		var ds []time.Duration
		for range reps {
			ds = append(ds, hTime())
		}
		stop.Store(true)
		wg.Wait()
		slices.Sort(ds)
		line := fmt.Sprintf("BENCH upload h-pipeline k=%d beside=%s median_ms=%.1f max_ms=%.1f", k, mode, ms(ds[reps/2]), ms(ds[reps-1]))
		if count > 0 {
			line += fmt.Sprintf(" uploads=%d upload_GB_s=%.1f", count, float64(count)*float64(nW*fr.Bytes)/busy.Seconds()/1e9)
		}
		fmt.Println(line)
	}
	measure("nothing", nil)
	for _, mode := range []string{"pageable", "staged:1", "staged:4"} {
		up := uploads[mode]
		measure(mode, func(stop *atomic.Bool) (int, time.Duration) {
			n, t0 := 0, time.Now()
			for !stop.Load() {
				if err := up(); err != nil {
					t.Error(err)
					return n, time.Since(t0)
				}
				n++
			}
			return n, time.Since(t0)
		})
	}
	measure("cpu-spin", func(stop *atomic.Bool) (int, time.Duration) {
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var x fr.Element
				x.SetUint64(3)
				for !stop.Load() {
					for range 1000 {
						x.Square(&x)
					}
				}
			}()
		}
		wg.Wait()
		return 0, 0
	})
}

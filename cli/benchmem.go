package cli

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/filc2/filc2/ffi"
)

// memPeaks samples, while a benchmark runs, the host memory this process holds
// and the device memory in use on the GPUs it proves on, and keeps the peaks.
type memPeaks struct {
	mu     sync.Mutex
	device map[int]uint64 // ordinal → peak bytes in use (total − free: the whole device's use)
	stop   chan struct{}
	done   chan struct{}
}

// startMemPeaks samples every interval until stop; gpus may be empty (the CPU backend).
func startMemPeaks(gpus []int, cuda bool, interval time.Duration) *memPeaks {
	m := &memPeaks{device: map[int]uint64{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			if cuda {
				m.sampleDevices(gpus)
			}
			select {
			case <-m.stop:
				return
			case <-t.C:
			}
		}
	}()
	return m
}

func (m *memPeaks) sampleDevices(gpus []int) {
	devs, err := ffi.Devices()
	if err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, d := range devs {
		for _, g := range gpus {
			if d.Ordinal == g && d.Memory >= d.Free {
				m.device[g] = max(m.device[g], d.Memory-d.Free)
			}
		}
	}
}

// finish stops the sampling and returns the host peak (VmHWM, the kernel's own
// high-water mark of this process's resident memory) and the device peaks in
// gpus' order.
func (m *memPeaks) finish(gpus []int) (host uint64, device []uint64) {
	close(m.stop)
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, g := range gpus {
		device = append(device, m.device[g])
	}
	return procStatusBytes("VmHWM"), device
}

// procStatusBytes reads a "kB" field of /proc/self/status (0 where there is none).
func procStatusBytes(field string) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 2 && f[1] == "kB" {
			if v, err := strconv.ParseUint(f[0], 10, 64); err == nil {
				return v << 10
			}
		}
	}
	return 0
}

package lotus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MemInfo is the host's memory as a lotus worker reports it, in bytes.
type MemInfo struct {
	Physical uint64 // total RAM, or the cgroup's limit when lower
	Used     uint64 // Physical less what is available without swapping
	Swap     uint64
	SwapUsed uint64
}

// ReadMemInfo reads /proc/meminfo and, as lotus does, lowers the figures
// to the limits of the process's memory cgroup (v1 or v2) when those are
// lower.
func ReadMemInfo() (MemInfo, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return MemInfo{}, err
	}
	m, err := parseMemInfo(b)
	if err != nil {
		return MemInfo{}, err
	}
	for _, cg := range []func() (memMax, memUsed, swapMax, swapUsed uint64, err error){cgroupV1Mem, cgroupV2Mem} {
		memMax, memUsed, swapMax, swapUsed, err := cg()
		if err != nil {
			continue
		}
		if memMax > 0 && memMax < m.Physical {
			m.Physical, m.Used = memMax, memUsed
		}
		if swapMax > 0 && swapMax < m.Swap {
			m.Swap, m.SwapUsed = swapMax, swapUsed
		}
	}
	return m, nil
}

// parseMemInfo reads MemTotal, MemAvailable, SwapTotal and SwapFree.
func parseMemInfo(b []byte) (MemInfo, error) {
	v := map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			continue
		}
		if len(f) > 1 && f[1] == "kB" {
			n <<= 10
		}
		v[name] = n
	}
	total, ok := v["MemTotal"]
	if !ok {
		return MemInfo{}, errors.New("/proc/meminfo has no MemTotal")
	}
	avail, ok := v["MemAvailable"]
	if !ok {
		avail = v["MemFree"] + v["Buffers"] + v["Cached"]
	}
	m := MemInfo{Physical: total, Swap: v["SwapTotal"]}
	if avail < total {
		m.Used = total - avail
	}
	if free := v["SwapFree"]; free < m.Swap {
		m.SwapUsed = m.Swap - free
	}
	return m, nil
}

// cgroupPath returns the path of the process's cgroup for controller ("" for
// the v2 unified hierarchy).
func cgroupPath(controller string) (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if controller == "" && parts[0] == "0" && parts[1] == "" {
			return parts[2], nil
		}
		for _, c := range strings.Split(parts[1], ",") {
			if controller != "" && c == controller {
				return parts[2], nil
			}
		}
	}
	return "", fmt.Errorf("no %q cgroup", controller)
}

// readUint reads a cgroup file holding a number; "max" is 0 (no limit).
func readUint(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, nil
	}
	return strconv.ParseUint(s, 10, 64)
}

func cgroupV2Mem() (memMax, memUsed, swapMax, swapUsed uint64, err error) {
	p, err := cgroupPath("")
	if err != nil {
		return 0, 0, 0, 0, err
	}
	dir := filepath.Join("/sys/fs/cgroup", p)
	if memMax, err = readUint(filepath.Join(dir, "memory.max")); err != nil {
		return 0, 0, 0, 0, err
	}
	if memUsed, err = readUint(filepath.Join(dir, "memory.current")); err != nil {
		return 0, 0, 0, 0, err
	}
	swapMax, _ = readUint(filepath.Join(dir, "memory.swap.max"))
	swapUsed, _ = readUint(filepath.Join(dir, "memory.swap.current"))
	return memMax, memUsed, swapMax, swapUsed, nil
}

func cgroupV1Mem() (memMax, memUsed, swapMax, swapUsed uint64, err error) {
	p, err := cgroupPath("memory")
	if err != nil {
		return 0, 0, 0, 0, err
	}
	dir := filepath.Join("/sys/fs/cgroup/memory", p)
	if memMax, err = readUint(filepath.Join(dir, "memory.limit_in_bytes")); err != nil {
		return 0, 0, 0, 0, err
	}
	if memUsed, err = readUint(filepath.Join(dir, "memory.usage_in_bytes")); err != nil {
		return 0, 0, 0, 0, err
	}
	// memsw counts memory and swap together.
	if memsw, err := readUint(filepath.Join(dir, "memory.memsw.limit_in_bytes")); err == nil && memsw > memMax {
		swapMax = memsw - memMax
		if used, err := readUint(filepath.Join(dir, "memory.memsw.usage_in_bytes")); err == nil && used > memUsed {
			swapUsed = used - memUsed
		}
	}
	return memMax, memUsed, swapMax, swapUsed, nil
}

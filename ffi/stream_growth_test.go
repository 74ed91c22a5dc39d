package ffi

import "testing"

func TestStreamGrowth(t *testing.T) {
	const g2, gib = 192, uint64(1) << 30
	for _, c := range []struct {
		name         string
		n, current   int
		free, margin uint64
		max, want    int
	}{
		// the WindowPoSt B_G2 on an 80 GB card: 2^22-point buffers (768 MiB each) now, 8 GiB free
		{"room for the largest", 91 << 20, 1 << 22, 8 * gib, gib, 1 << 24, 1 << 24},
		{"halved to fit", 91 << 20, 1 << 22, 4 * gib, gib, 1 << 24, 1 << 23},
		{"the current buffers count as room", 91 << 20, 1 << 22, 1 * gib, gib, 1 << 24, 1 << 22},
		// 2.5 GiB free + 1.5 GiB held − 1 GiB = two buffers of 2^23 exactly
		{"exact fit, with the current buffers' room", 91 << 20, 1 << 22, 5 * gib / 2, gib, 1 << 24, 1 << 23},
		{"no room: unchanged", 91 << 20, 1 << 22, 0, gib, 1 << 24, 1 << 22},
		{"a short query: all of it", 5 << 20, 1 << 22, 8 * gib, gib, 1 << 24, 5 << 20},
		{"already whole", 1 << 22, 1 << 22, 8 * gib, gib, 1 << 24, 1 << 22},
		{"not streamed", 91 << 20, 0, 8 * gib, gib, 1 << 24, 1 << 24},
		{"margin larger than free", 91 << 20, 1 << 22, gib / 2, 3 * gib, 1 << 24, 1 << 22},
	} {
		if got := streamGrowth(c.n, c.current, g2, c.free, c.margin, c.max); got != c.want {
			t.Errorf("%s: streamGrowth(n %d, current %d, free %d GiB, margin %d GiB, max %d) = %d, want %d", c.name,
				c.n, c.current, c.free/gib, c.margin/gib, c.max, got, c.want)
		}
	}
}

func TestParseStreamChunk(t *testing.T) {
	for v, want := range map[string]int{"": streamChunkDefault, "grow": streamChunkGrow, "0": 0, "4099": 4099,
		"2147483647": 1<<31 - 1} {
		if got, err := parseStreamChunk(v); err != nil || got != want {
			t.Errorf("parseStreamChunk(%q) = %d, %v; want %d", v, got, err, want)
		}
	}
	for _, v := range []string{"-1", "2147483648", "big", "Grow", " 1"} {
		if _, err := parseStreamChunk(v); err == nil {
			t.Errorf("parseStreamChunk(%q) accepted", v)
		}
	}
}

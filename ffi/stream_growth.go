package ffi

import (
	"fmt"
	"strconv"
)

// Stream chunk settings besides a number of points (parseStreamChunk).
const (
	streamChunkDefault = -1 // the handles' default buffers, 768 MiB each
	streamChunkGrow    = -2 // growStreamChunks once the scratch is reserved
)

// parseStreamChunk reads a FILC2_MSM_STREAM_CHUNK value, the chunk of a Prover's
// host-resident queries: "" (streamChunkDefault), "grow" (streamChunkGrow: the buffers grow
// into the room the key and the scratch leave, up to 2^24 points; not yet measured against
// the default, cuda/NOTES.md session 23) or a number of points, 0 gathering them over the bus.
func parseStreamChunk(v string) (int, error) {
	switch v {
	case "":
		return streamChunkDefault, nil
	case "grow":
		return streamChunkGrow, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n >= 1<<31 {
		return 0, fmt.Errorf("FILC2_MSM_STREAM_CHUNK=%q: want grow, or 0 (gather host-resident points over the bus) to 2^31 − 1 points", v)
	}
	return n, nil
}

// streamGrowth is the chunk, in points, that a host-resident query's two stream buffers
// grow to once the MSM scratch is reserved: maxPoints (or the query's n points, if fewer),
// halved until two buffers of it fit in what the device has free plus what the current
// buffers hold, less margin; current where that is not more than current. Larger chunks
// pay fewer bucket reductions and let each chunk's MSM use the window of a larger one.
func streamGrowth(n, current int, pointBytes, free, margin uint64, maxPoints int) int {
	if pointBytes == 0 || n <= current {
		return current
	}
	avail := free + 2*uint64(current)*pointBytes
	if avail <= margin {
		return current
	}
	room := (avail - margin) / (2 * pointBytes)
	want := min(maxPoints, n)
	for want > current && uint64(want) > room {
		want /= 2
	}
	if want <= current {
		return current
	}
	return want
}

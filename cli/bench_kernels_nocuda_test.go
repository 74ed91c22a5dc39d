//go:build !cuda

package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/filc2/filc2/ffi"
)

// A binary without CUDA refuses --backend cuda with the rebuild hint, and --backend
// auto times the CPU only.
func TestBenchKernelsNoCUDA(t *testing.T) {
	for _, b := range []string{"cuda", "cpu,cuda", "gpu"} {
		out, progress, err := runSplit(t, context.Background(), "bench", "kernels", "--backend", b, "--sizes", "8")
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 2 || !errors.Is(err, ffi.ErrUnavailable) ||
			!strings.Contains(err.Error(), "--backend cuda: "+ffi.ErrUnavailable.Error()) ||
			!strings.Contains(err.Error(), "./build.sh --cuda") {
			t.Errorf("--backend %s: error %v", b, err)
		}
		if out != "" || progress != "" {
			t.Errorf("--backend %s printed %q %q", b, out, progress)
		}
	}
	out, progress, err := runSplit(t, context.Background(), "bench", "kernels", "--sizes", "8", "--kernels", "ntt",
		"--reps", "1")
	if err != nil || strings.Contains(out, "cuda") || !strings.Contains(out, "ntt ") {
		t.Errorf("--backend auto: %v\n%s%s", err, out, progress)
	}
}

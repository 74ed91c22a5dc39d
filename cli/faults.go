package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/internal/fault"
)

// EnvInjectFaults names the environment variable that makes `filc2 plugin`
// (and so `filc2 serve`'s prover) inject faults: a spec of internal/fault,
// such as "section=rate:0.05,corrupt=every:40". For tests and soak runs only.
const EnvInjectFaults = "FILC2_INJECT_FAULTS"

// injectFaultsFlag is bench c2's --inject-faults.
func injectFaultsFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "inject-faults", Usage: "TESTS ONLY: inject faults and recover from them, e.g. " +
		"\"section=every:7,corrupt=13,alloc=2,lost=rate:0.01,lost_for=2s\" (points section, corrupt, alloc, lost; " +
		"WHEN N, N+M, every:N or rate:P; seed=N): each returned proof still verified, retries counted; a quarantined GPU is probed every second"}
}

// parseFaults reads a fault spec given by flag or environment variable
// (named by source, for the error); "" is no injector.
func parseFaults(source, spec string) (*fault.Injector, error) {
	if spec == "" {
		return nil, nil
	}
	in, err := fault.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return in, nil
}

// faultsFromEnv is parseFaults of $FILC2_INJECT_FAULTS. A spec without a
// seed gets one of its own per process (its pid and start time), so that a
// plugin restarted after a crash or kill does not replay the rate terms'
// draws of the one before (with kills every few partitions, the same first
// draws would repeat in every lifetime); the seed is in the spec logged.
func faultsFromEnv() (*fault.Injector, error) {
	spec := os.Getenv(EnvInjectFaults)
	if spec != "" && !strings.Contains(spec, "seed=") {
		spec += fmt.Sprintf(",seed=%d", uint64(time.Now().UnixNano())^uint64(os.Getpid())<<32)
	}
	return parseFaults("$"+EnvInjectFaults, spec)
}

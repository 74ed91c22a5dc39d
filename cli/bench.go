package cli

import (
	ucli "github.com/urfave/cli/v2"
)

// benchCommand returns the bench command group: `bench kernels` first, then extra
// (further benchmarks, such as a whole-proof one, pass their command here), then
// `bench soak`.
func benchCommand(extra ...*ucli.Command) *ucli.Command {
	return withSubcommands(&ucli.Command{
		Name:  "bench",
		Usage: "measure filc2's performance on this machine",
		Description: "Benchmarks print one table (or JSON with --json) on stdout and their progress on stderr.\n" +
			"`filc2 bench kernels` times the proving kernels on the CPU and the GPU side by side.",
	}, append(append([]*ucli.Command{benchKernelsCommand()}, extra...), benchSoakCommand())...)
}

// Package cli holds filc2's commands: flags, output and progress reporting on
// top of the proofs, engine and plugin packages. It knows no circuit internals.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	ucli "github.com/urfave/cli/v2"
)

// Version is filc2's version, set at link time with -ldflags "-X github.com/filc2/filc2/cli.Version=…".
var Version = "0.1.0-dev"

// ExitError carries a process exit code with an error already reported.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}
func (e *ExitError) Unwrap() error { return e.Err }

// App returns the filc2 command-line application.
func App() *ucli.App {
	return &ucli.App{
		Name:    "filc2",
		Usage:   "a Filecoin GPU prover: SealCommit2 (PoRep), WindowPoSt and WinningPoSt",
		Version: Version,
		Description: "filc2 turns a saved C1 output (SealCommitPhase1Output JSON, raw or in lotus-bench's\n" +
			"Commit2In wrapper) into the proof bytes lotus would produce, on NVIDIA GPUs or the CPU.",
		Commands: []*ucli.Command{
			versionCommand(),
			withSubcommands(paramsCommand(), paramsFetchCommand()),
			demoCommand(),
			sealCommand(),
			checkCommand(),
			setupCommand(),
			proveCommand(),
			verifyCommand(),
			circuitCommand(),
			benchCommand(benchC2Command(), benchPostCommand()),
			verifySealCommand(),
			postCommand(),
			provePostCommand(),
			verifyPostCommand(),
			snapCommand(),
			proveUpdateCommand(),
			verifyUpdateCommand(),
			configCommand(),
			serveCommand(),
			workerCommand(),
			pluginCommand(),
			authCommand(),
		},
		HideVersion:          false,
		EnableBashCompletion: true,
	}
}

// Main runs the application with args and returns the process exit code.
// SIGINT and SIGTERM cancel the running command's context.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := App().RunContext(ctx, args)
	if err == nil {
		return 0
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintln(os.Stderr, "filc2:", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintln(os.Stderr, "filc2:", err)
	if errors.Is(err, context.Canceled) {
		return 130
	}
	return 1
}

package cli

import (
	"os"

	"github.com/hashicorp/go-hclog"
	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/ffi"
	"github.com/filc2/filc2/plugin"
)

// proverFlags are the proving settings of `filc2 plugin`, which `filc2
// serve` passes on to the plugin it runs.
func proverFlags() []ucli.Flag {
	return []ucli.Flag{
		paramsDirFlag(),
		&ucli.IntFlag{Name: "slots", Usage: "jobs proved at once", Value: 1},
		&ucli.IntFlag{Name: "queue", Usage: "jobs that may wait; more are answered busy", Value: 64},
		&ucli.StringFlag{Name: "backend", Usage: "auto, cpu or cuda", Value: "auto"},
		&ucli.StringFlag{Name: "log-level", Usage: "trace, debug, info, warn or error", Value: "info"},
	}
}

func pluginCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "plugin",
		Usage: "the go-plugin prover subprocess that filc2 serve (or plugin.Launch) runs; not for direct use",
		Description: "Serves the Prover API to the host that started it: a go-plugin handshake (magic cookie, protocol\n" +
			"version, AutoMTLS) over which it hands the host a private unix socket and a token, where it answers\n" +
			"go-jsonrpc calls. Jobs queue (--queue) for --slots workers proving with the parameters in --params-dir,\n" +
			"each proof verified before it is returned. Logs are hclog JSON on stderr, which the host forwards;\n" +
			"nothing but the handshake is written to stdout. Started by hand, it refuses to run.",
		Flags:        append(proverFlags(), &ucli.StringFlag{Name: "socket-dir", Usage: "where to make the socket's private directory (default: $TMPDIR)"}),
		OnUsageError: onUsageError,
		Action:       pluginAction,
	}
}

func pluginAction(c *ucli.Context) error {
	// Until the handshake, stdout is go-plugin's alone.
	restore, err := plugin.GuardStdout()
	if err != nil {
		return err
	}
	defer restore()
	log := hclog.New(&hclog.LoggerOptions{
		Name:       "filc2-plugin",
		Level:      hclog.LevelFromString(c.String("log-level")),
		Output:     os.Stderr, // the real stderr: go-plugin swaps os.Stderr once serving
		JSONFormat: true,
	})
	if c.Int("slots") < 1 || c.Int("queue") < 1 {
		return usageErrorf("--slots and --queue must be at least 1")
	}
	be, err := backendFor(c.String("backend"))
	if err != nil {
		return usageError(err)
	}
	var gpus []plugin.GPU
	if devs, err := ffi.Devices(); err == nil {
		for _, d := range devs {
			gpus = append(gpus, plugin.GPU{Ordinal: d.Ordinal, Name: d.Name, Memory: d.Memory})
		}
	}
	svc := plugin.NewLocalService(plugin.LocalConfig{
		ParamsDir: c.String("params-dir"),
		Backend:   be,
		Slots:     c.Int("slots"),
		QueueSize: c.Int("queue"),
		GPUs:      gpus,
		Logger:    log,
	})
	if err := restore(); err != nil {
		return err
	}
	return plugin.Serve(plugin.ServeConfig{
		Service:   svc,
		Version:   Version,
		Logger:    log,
		SocketDir: c.String("socket-dir"),
	})
}

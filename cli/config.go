package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/engine"
)

func configCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "config",
		Usage: "the proving engine's configuration file (TOML)",
		Subcommands: []*ucli.Command{
			{
				Name:  "default",
				Usage: "print a configuration with every knob at its default and explained",
				Description: "Prints the engine's configuration as TOML, every knob commented: GPUs and workers per GPU,\n" +
					"synthesis workers, the memory budget, parameter directories, queue limits, the TIMELINE log\n" +
					"and the serving addresses. Save it, edit what you need, and pass it to the serving commands.",
				Action: func(c *ucli.Context) error {
					return engine.WriteExampleConfig(c.App.Writer, engine.DefaultConfig())
				},
			},
			{
				Name:      "check",
				Usage:     "read a configuration file and print it with every knob, defaults filled in",
				ArgsUsage: "FILE",
				Action: func(c *ucli.Context) error {
					if c.NArg() != 1 {
						return usageErrorf("config check takes one FILE")
					}
					cfg, err := engine.LoadConfig(c.Args().First())
					if err != nil {
						return err
					}
					return engine.WriteExampleConfig(c.App.Writer, cfg)
				},
			},
		},
	}
}

package cli

import (
	"fmt"
	"os"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/proofs/c2"
)

// testParamsWarning is said whenever filc2 makes parameters of its own.
const testParamsWarning = "These are TEST parameters from fresh random toxic waste, not the official Filecoin parameters:\n" +
	"proofs made with them verify only under their own .vk and will not verify on chain."

func setupCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "setup",
		Usage: "record a proof type's circuit and generate test Groth16 parameters for it",
		Description: "Writes, under the official file names in DIR, a .params and .vk generated from fresh random toxic\n" +
			"waste, and the recorded circuit (PCE) beside them. " + testParamsWarning + "\n" +
			"Each file is written atomically; existing files are kept unless --force.",
		Flags: []ucli.Flag{
			registeredProofFlag(true),
			&ucli.StringFlag{Name: "out", Usage: "output directory (created if needed)", Required: true},
			&ucli.BoolFlag{Name: "force", Usage: "replace existing parameter files"},
		},
		OnUsageError: onUsageError,
		Action: func(c *ucli.Context) error {
			p, err := parseProof(c)
			if err != nil {
				return usageError(err)
			}
			dir := c.String("out")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			fmt.Fprintln(c.App.ErrWriter, testParamsWarning)
			pr := newProgress()
			f, _, err := c2.Setup(c.Context, p, dir, c2.SetupOptions{Force: c.Bool("force"), Progress: pr.Update})
			pr.Done()
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "wrote %s\nwrote %s\nwrote %s\n", f.Params, f.VK, f.PCE)
			return nil
		},
	}
}

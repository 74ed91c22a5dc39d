package cli

import (
	"context"
	"fmt"
	"os"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/ffi"
	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/r1cs"
)

// testParamsWarning is said whenever filc2 makes parameters of its own.
const testParamsWarning = "These are TEST parameters from fresh random toxic waste, not the official Filecoin parameters:\n" +
	"proofs made with them verify only under their own .vk and will not verify on chain."

func setupCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "setup",
		Usage: "record a proof type's circuit (PoRep, PoSt with --post-proof, SnapDeals with --update-proof) and generate test Groth16 parameters for it",
		Description: "Writes, under the official file names in DIR, a .params and .vk generated from fresh random toxic\n" +
			"waste, and the recorded circuit (PCE) beside them. " + testParamsWarning + "\n" +
			"The QAP is evaluated at τ on the host's cores; the fixed-base multiplications (almost all the work: 460 M\n" +
			"points at 32GiB) run there too, or on the GPU with --backend cuda, which makes the same key for the same\n" +
			"toxic waste. --seed makes the key reproducible (and forgeable by anyone who knows the seed).\n" +
			"Each file is written atomically; existing files are kept unless --force.",
		Flags: []ucli.Flag{
			registeredProofFlag(false),
			postProofFlag(false),
			updateProofFlag(false),
			&ucli.StringFlag{Name: "out", Usage: "output directory (created if needed)", Required: true},
			&ucli.BoolFlag{Name: "force", Usage: "replace existing parameter files"},
			&ucli.StringFlag{Name: "backend", Usage: "where the fixed-base multiplications run: cpu, or cuda (device 0: minutes at 32GiB; the key is then downloaded, 47 GB at 32GiB)", Value: "cpu"},
			&ucli.Uint64Flag{Name: "seed", Usage: "draw the toxic waste from this seed instead of crypto/rand (reproducible keys; anyone knowing the seed can forge proofs)"},
		},
		OnUsageError: onUsageError,
		Action: func(c *ucli.Context) error {
			if countSet(c, "registered-proof", "post-proof", "update-proof") != 1 {
				return usageErrorf("give one of --registered-proof (PoRep), --post-proof (WindowPoSt, WinningPoSt) or --update-proof (SnapDeals)")
			}
			dir := c.String("out")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			fmt.Fprintln(c.App.ErrWriter, testParamsWarning)
			opts := c2.SetupOptions{Force: c.Bool("force")}
			switch b := c.String("backend"); b {
			case "cpu":
			case "cuda":
				if _, err := ffi.Devices(); err != nil {
					return usageError(fmt.Errorf("--backend cuda: %w", err))
				}
				opts.Keys = func(ctx context.Context, rc *r1cs.Circuit, t *groth16.Toxic, progress groth16.Progress) (*groth16.ProvingKey, error) {
					gp, err := ffi.SetupProver(ctx, 0, rc, t, groth16.WithProgress(progress))
					if err != nil {
						return nil, err
					}
					defer gp.Close()
					return gp.ProvingKey(ctx)
				}
			default:
				return usageErrorf("--backend %q: want cpu or cuda", b)
			}
			if c.IsSet("seed") {
				t, err := groth16.SeededToxic(c.Uint64("seed"))
				if err != nil {
					return err
				}
				opts.Toxic = &t
			}
			if c.IsSet("update-proof") {
				up, err := parseUpdateProof(c)
				if err != nil {
					return usageError(err)
				}
				return setupUpdate(c, up, dir, opts)
			}
			if c.IsSet("post-proof") {
				pp, err := parsePoStProof(c)
				if err != nil {
					return usageError(err)
				}
				return setupPoSt(c, pp, dir, opts)
			}
			p, err := parseProof(c)
			if err != nil {
				return usageError(err)
			}
			pr := newProgress()
			opts.Progress = pr.Update
			f, _, err := c2.Setup(c.Context, p, dir, opts)
			pr.Done()
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "wrote %s\nwrote %s\nwrote %s\n", f.Params, f.VK, f.PCE)
			return nil
		},
	}
}

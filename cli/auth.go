package cli

import (
	"fmt"

	"github.com/filecoin-project/go-jsonrpc/auth"
	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/plugin"
)

func authCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "auth",
		Usage: "manage the API tokens of filc2 serve",
		Subcommands: []*ucli.Command{{
			Name:  "create-token",
			Usage: "print a token for filc2 serve's API",
			Description: "Signs a lotus-style JWT ({\"Allow\":[...]}, HS256) with the secret filc2 serve uses, kept in\n" +
				"$" + plugin.EnvHome + " (default ~/.filc2, made with mode 0700 on first use; the secret file is 0600).\n" +
				"--perm read allows Status and Version; write adds proving (SealCommit2, Submit, Await, Cancel);\n" +
				"admin adds whatever needs admin. Send it as `Authorization: Bearer TOKEN`. Deleting the secret\n" +
				"voids every token.",
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "perm", Usage: "read, write or admin", Required: true},
			},
			OnUsageError: onUsageError,
			Action:       createTokenAction,
		}},
	}
}

func createTokenAction(c *ucli.Context) error {
	perms, err := plugin.PermissionsUpTo(auth.Permission(c.String("perm")))
	if err != nil {
		return usageError(fmt.Errorf("--perm: %w", err))
	}
	home, err := plugin.Home()
	if err != nil {
		return err
	}
	secret, err := plugin.Secret(home)
	if err != nil {
		return err
	}
	tok, err := plugin.NewToken(secret, perms)
	if err != nil {
		return err
	}
	fmt.Fprintln(c.App.Writer, tok)
	return nil
}

package cli

import (
	"fmt"
	"runtime"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/ffi"
)

func versionCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "version",
		Usage: "print filc2's version, the Go version and whether CUDA support is compiled in",
		Action: func(c *ucli.Context) error {
			cuda := "no (CPU only)"
			if ffi.Compiled() {
				cuda = "yes"
			}
			w := c.App.Writer
			fmt.Fprintf(w, "filc2 %s\n", Version)
			fmt.Fprintf(w, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
			fmt.Fprintf(w, "cuda: %s\n", cuda)
			return nil
		},
	}
}

package cli

import (
	"fmt"
	"path/filepath"
	"text/tabwriter"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/paramcache"
)

func paramsCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "params",
		Usage: "inspect the Groth16 parameter cache",
		Subcommands: []*ucli.Command{
			{
				Name:  "check",
				Usage: "hash every parameter file present and compare with parameters.json",
				Description: "Computes the BLAKE2b-512 digest (first 32 hex digits, as filecoin-proofs does) of each\n" +
					"parameters.json file found in the directory. Exits 1, naming the file, when a digest differs.\n" +
					"Files that are absent are listed as missing and are not an error.",
				Flags: []ucli.Flag{
					&ucli.StringFlag{
						Name:    "dir",
						Usage:   "parameter cache directory",
						Value:   paramcache.DefaultDir,
						EnvVars: []string{paramcache.EnvDir},
					},
					&ucli.BoolFlag{Name: "all", Usage: "also list the files that are missing"},
				},
				Action: paramsCheck,
			},
		},
	}
}

func paramsCheck(c *ucli.Context) error {
	dir := c.String("dir")
	pr := newProgress()
	pr.bytes = true
	var cur string
	var curSize int64
	res, err := paramcache.Check(c.Context, dir, abi.ParameterFiles(),
		func(f abi.ParamsFile, size int64) { cur, curSize = f.Name, size },
		func(n int64) { pr.Update("hashing "+cur, n, curSize) })
	pr.Done()
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(c.App.Writer, 0, 2, 2, ' ', 0)
	fmt.Fprintln(w, "STATUS\tFILE\tDIGEST\tSIZE")
	var bad []string
	present := 0
	for _, r := range res {
		if r.Status == paramcache.Missing && !c.Bool("all") {
			continue
		}
		if r.Status != paramcache.Missing {
			present++
		}
		digest := r.Digest
		if r.Status == paramcache.Mismatch {
			digest = fmt.Sprintf("%s (want %s)", r.Digest, r.File.Digest)
			bad = append(bad, r.Path)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\n", r.Status, r.File.Name, digest, r.Size)
	}
	w.Flush()
	fmt.Fprintf(c.App.Writer, "%d of %d parameter files present in %s\n", present, len(res), filepath.Clean(dir))
	if len(bad) > 0 {
		return &ExitError{Code: 1, Err: fmt.Errorf("digest mismatch: %v; delete the file(s) and fetch them again", bad)}
	}
	return nil
}

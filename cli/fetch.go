package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/paramcache"
)

// withSubcommands returns cmd with subs appended to its subcommands.
func withSubcommands(cmd *ucli.Command, subs ...*ucli.Command) *ucli.Command {
	cmd.Subcommands = append(cmd.Subcommands, subs...)
	return cmd
}

func paramsFetchCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "fetch",
		Usage: "download a proof type's .vk and .params (PoRep -p, or PoSt --post-proof) from an IPFS gateway and check their digests",
		Description: "Downloads the parameters.json files of the proof type by CID from the gateway (the one lotus\n" +
			"uses, " + paramcache.DefaultGateway + ", unless --gateway or $" + paramcache.EnvGateway + " says otherwise).\n" +
			"Each file streams into a temporary file in DIR and is renamed into place only once its BLAKE2b-512\n" +
			"digest matches parameters.json; dropped connections resume, transient HTTP errors are retried with\n" +
			"back-off, and an interrupted fetch leaves nothing behind. Files already present with the right digest\n" +
			"are kept; one with a wrong digest is replaced. Digests are remembered per file (path, size, mtime) in\n" +
			"$XDG_CACHE_HOME/filc2/param-digests.json ($" + paramcache.EnvDigestCache + " moves it, or \"off\"), so a check hashes once.\n" +
			"All variants of a sector size share one file pair; the 32GiB .params is about 47 GB.",
		Flags: []ucli.Flag{
			registeredProofFlag(false),
			postProofFlag(false),
			&ucli.StringFlag{
				Name:    "gateway",
				Usage:   "IPFS HTTP gateway; a file's URL is the gateway followed by its CID",
				Value:   paramcache.DefaultGateway,
				EnvVars: []string{paramcache.EnvGateway},
			},
			&ucli.StringFlag{
				Name:    "dir",
				Usage:   "parameter cache directory (created if missing)",
				Value:   paramcache.DefaultDir,
				EnvVars: []string{paramcache.EnvDir},
			},
			&ucli.BoolFlag{Name: "vk-only", Usage: "fetch only the verifying key (.vk), enough for verify-seal and verify-post"},
		},
		OnUsageError: onUsageError,
		Action:       paramsFetch,
	}
}

func paramsFetch(c *ucli.Context) error {
	if c.IsSet("registered-proof") == c.IsSet("post-proof") {
		return usageErrorf("give --registered-proof (PoRep, such as -p StackedDrg32GiBV1_1 or -p 8) or --post-proof (such as --post-proof StackedDrgWindow32GiBV1_1)")
	}
	if c.NArg() > 0 {
		return usageErrorf("unexpected arguments %q (see --help)", c.Args().Slice())
	}
	var vk, params abi.ParamsFile
	if c.IsSet("post-proof") {
		p, err := parsePoStProof(c)
		if err != nil {
			return usageError(err)
		}
		vk, params = p.VKFile(), p.ParamsFile()
	} else {
		p, err := parseProof(c)
		if err != nil {
			return usageError(err)
		}
		vk, params = p.VKFile(), p.ParamsFile()
	}
	gateway, dir := c.String("gateway"), c.String("dir")
	files := []abi.ParamsFile{vk}
	if !c.Bool("vk-only") {
		files = append(files, params)
	}
	if _, err := paramcache.FileURL(gateway, files[0]); err != nil {
		return usageError(fmt.Errorf("--gateway: %w", err))
	}
	pr := newProgress()
	pr.bytes = true
	defer pr.Done()
	w := c.App.Writer
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		var size int64
		if st, err := os.Stat(path); err == nil {
			size = st.Size()
		}
		err := paramcache.VerifyFile(c.Context, path, f, func(n int64) { pr.Update("checking "+f.Name, n, size) })
		pr.Done()
		switch {
		case err == nil:
			fmt.Fprintf(w, "present  %s\n", path)
			continue
		case errors.Is(err, fs.ErrNotExist):
		default:
			var m *paramcache.DigestMismatchError
			if !errors.As(err, &m) {
				return err
			}
			pr.log.Warn("replacing a parameter file with a wrong digest", "file", path, "digest", m.Got, "want", m.Want)
		}
		report := throttled(pr, "fetching "+f.Name)
		if err := paramcache.Fetch(c.Context, gateway, dir, f, report); err != nil {
			return err
		}
		pr.Done()
		st, err := os.Stat(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "fetched  %s (%d bytes)\n", path, st.Size())
	}
	return nil
}

// throttled adapts Fetch's progress to pr. While the total is unknown the
// log reporter would write a line per read; calls are then spaced out.
func throttled(pr *progress, stage string) func(done, total int64) {
	var mu sync.Mutex
	var last time.Time
	return func(done, total int64) {
		if total < 0 && !pr.tty {
			mu.Lock()
			now := time.Now()
			skip := now.Sub(last) < pr.interval
			if !skip {
				last = now
			}
			mu.Unlock()
			if skip {
				return
			}
		}
		pr.Update(stage, done, total)
	}
}
